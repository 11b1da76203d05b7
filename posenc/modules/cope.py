"""CoPE: positions that count the keys a query attends to by content (Golovneva et al. 2024).

Contextual Position Encoding (arXiv:2405.18719, §3 and Appendix B's code). For a query i and a key j ≤ i:

    g_ij = σ(z_ij),  z_ij = q_i·k_j/√d (the attention logit, causally masked: g_ij = 0 for j > i),
    p_ij = Σ_{t=j..i} g_it                (a fractional count of the keys from j to i that "count"),
    e[p] = (⌈p⌉ − p)·e[⌊p⌋] + (p − ⌊p⌋)·e[⌈p⌉],  p clamped to npos_max − 1,
    term_ij = q_i·e[p_ij],

from a learned table e of npos_max vectors of the head's width (zeros at the start, as the paper), shared by
the heads. The attention adds the term to its logits: z_ij + q_i·e[p_ij]. As the paper's code, the query is
the unscaled q, and q·e is computed at every integer position first, then interpolated.
"""

from __future__ import annotations

import torch
from torch import nn

from posenc.checks import check_int
from posenc.modules.checks import check_float_tensor


class ContextualPositions(nn.Module):
    """CoPE's term q_i·e[p_ij], p_ij = Σ_{t=j..i} σ(z_it) (arXiv:2405.18719), for logits z already causally masked.

    ``forward(query (…, length, head_dim), logits (…, length, length))`` → (…, length, length), the term to add
    to the logits. ``logits`` must carry the causal mask (−inf, or a very negative number, above the diagonal)
    so that the gates of later keys are 0. The table ``embeddings`` (npos_max, head_dim) starts at zeros.
    """

    def __init__(self, head_dim: int, npos_max: int) -> None:
        super().__init__()
        head_dim = check_int(head_dim, "head_dim", minimum=1, maximum=1 << 16, meaning="the width of a query")
        npos_max = check_int(npos_max, "npos_max", minimum=1, maximum=1 << 16,
                             meaning="the number of contextual positions, 0 … npos_max − 1")
        self.embeddings = nn.Parameter(torch.zeros(npos_max, head_dim))

    def extra_repr(self) -> str:
        return f"head_dim={self.embeddings.shape[1]}, npos_max={self.embeddings.shape[0]}"

    def positions(self, logits: torch.Tensor) -> torch.Tensor:
        """p_ij = Σ_{t=j..i} σ(z_it), clamped to npos_max − 1: (…, length, length)."""
        gates = logits.sigmoid()
        return gates.flip(-1).cumsum(dim=-1).flip(-1).clamp(max=self.embeddings.shape[0] - 1)

    def forward(self, query: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        query = check_float_tensor(query, "query", min_ndim=2)
        if not isinstance(logits, torch.Tensor) or logits.shape != (*query.shape[:-1], query.shape[-2]):
            shape = tuple(logits.shape) if isinstance(logits, torch.Tensor) else type(logits).__name__
            raise ValueError(f"logits must have the shape (…, length, length) of the query's {tuple(query.shape[:-1])}"
                             f" and {query.shape[-2]} keys; got {shape}.")
        if query.shape[-1] != self.embeddings.shape[1]:
            raise ValueError(f"query must have head_dim = {self.embeddings.shape[1]} features; got {query.shape[-1]}.")
        position = self.positions(logits)
        at_integers = torch.einsum("...nd,pd->...np", query, self.embeddings)  # q_i·e[p] for p = 0 … npos_max − 1
        floor, ceil = position.floor().long(), position.ceil().long()
        weight = position - floor
        return at_integers.gather(-1, ceil) * weight + at_integers.gather(-1, floor) * (1 - weight)
