"""torch version of posenc.schemes.transformer_xl: Transformer-XL's relative attention score of one head.

Dai et al. 2019, arXiv:1901.02860. The learned parts carry kimiyoung/transformer-xl's names:
``r_w_bias`` (u), ``r_r_bias`` (v) and ``r_net`` (W_R, an ``nn.Linear(d_model, d_head, bias=False)``);
they start from the same numpy draw as :func:`posenc.schemes.transformer_xl.transformer_xl_parameters`.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from posenc.checks import check_base, check_flag, check_size
from posenc.modules.checks import check_finite_output, check_float_dtype, check_float_tensor
from posenc.schemes.absolute import DEFAULT_STD
from posenc.schemes.sinusoidal import frequencies
from posenc.schemes.transformer_xl import TransformerXLTerms, transformer_xl_parameters


class TransformerXLScores(nn.Module):
    """Transformer-XL's score of queries and keys (Dai et al. 2019, arXiv:1901.02860, section 3.3):

        A_ij = q_i·k_j + q_i·W_R R_{i−j} + u·k_j + v·W_R R_{i−j},
        R_Δ = [sin(Δθ_s) for s < d/2, cos(Δθ_s) for s < d/2],  θ_s = base^(−2s/d_model).

    ``forward(q, k)``: q, k of shape (..., length, d_head) → (..., length, length), before the
    1/√d_head scaling and the softmax; causal=True (a decoder): −inf for j > i. ``terms(q, k)``
    gives (a), (b), (c), (d) apart. Equal to :func:`posenc.transformer_xl_scores` with the
    module's u, v, W_R (to the rounding of ``dtype``; R_Δ's phases are taken in float64).
    """

    inv_freq: torch.Tensor

    def __init__(self, d_head: int, d_model: int, base: float = 10000.0, seed: int = 0, std: float = DEFAULT_STD,
                 causal: bool = True, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        dtype, self.causal, self.base = check_float_dtype(dtype), check_flag(causal, "causal"), check_base(base)
        u, v, w_r = transformer_xl_parameters(d_head, d_model, seed=seed, std=std)  # (d_head,), (d_head,), (d_head, d)
        self.r_w_bias = nn.Parameter(torch.from_numpy(u).to(dtype))
        self.r_r_bias = nn.Parameter(torch.from_numpy(v).to(dtype))
        self.r_net = nn.Linear(d_model, d_head, bias=False, dtype=dtype)
        with torch.no_grad():
            self.r_net.weight.copy_(torch.from_numpy(np.ascontiguousarray(w_r)))
        self.register_buffer("inv_freq", torch.from_numpy(frequencies(d_model, base)), persistent=False)  # θ_s

    def extra_repr(self) -> str:
        return f"d_head={len(self.r_w_bias)}, d_model={self.r_net.in_features}, base={self.base:g}, causal={self.causal}"

    def relative_embedding(self, distances: torch.Tensor) -> torch.Tensor:
        """(n, d_model) rows R_Δ for the distances Δ = i − j given (phases in float64, then the module's dtype)."""
        phase = distances.to(torch.float64)[:, None] * self.inv_freq  # (n, d/2)
        return torch.cat([phase.sin(), phase.cos()], dim=1).to(self.r_net.weight.dtype)

    def terms(self, q: torch.Tensor, k: torch.Tensor) -> TransformerXLTerms:
        """The four terms (a) q_i·k_j, (b) q_i·W_R R_{i−j}, (c) u·k_j, (d) v·W_R R_{i−j}, each (..., L, L)."""
        q, k = self._check(q, k)
        length, dtype = q.shape[-2], q.dtype
        device = self.inv_freq.device
        distances = torch.arange(max(2 * length - 1, 0), device=device) - (length - 1)  # i − j = −(L − 1) … L − 1
        projected = self.r_net(self.relative_embedding(distances)).to(dtype)  # (2L − 1, d_head): W_R R_{i−j}
        positions = torch.arange(length, device=device)
        index = positions[:, None] - positions[None, :] + length - 1  # (L, L): row of i − j in ``projected``
        by_distance = q @ projected.T  # (..., L, 2L − 1)
        content_position = by_distance.gather(-1, index.expand(*by_distance.shape[:-1], length))
        global_content = (k @ self.r_w_bias.to(dtype))[..., None, :].expand(*k.shape[:-2], length, length)
        return TransformerXLTerms(content=q @ k.transpose(-1, -2), content_position=content_position,
                                  global_content=global_content,
                                  global_position=(projected @ self.r_r_bias.to(dtype))[index])

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        a, b, c, d = self.terms(q, k)
        scores = check_finite_output(a + b + c + d, "The Transformer-XL score")
        if self.causal:
            positions = torch.arange(scores.shape[-1], device=scores.device)
            scores = scores.masked_fill(positions[None, :] > positions[:, None], -math.inf)
        return scores

    def _check(self, q: object, k: object) -> tuple[torch.Tensor, torch.Tensor]:
        q, k = check_float_tensor(q, "q", min_ndim=2), check_float_tensor(k, "k", min_ndim=2)
        if q.shape != k.shape or q.dtype != k.dtype:
            raise ValueError(f"q and k must have the same shape (..., length, d_head) and dtype; got "
                             f"{tuple(q.shape)} {q.dtype} and {tuple(k.shape)} {k.dtype}.")
        if q.shape[-1] != len(self.r_w_bias):
            raise ValueError(f"q and k must have width d_head = {len(self.r_w_bias)}; got {q.shape[-1]}.")
        check_size((*q.shape[:-1], 2 * q.shape[-2] - 1), "the query-by-distance products")
        return q, k
