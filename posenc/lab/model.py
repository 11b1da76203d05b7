"""A small causal decoder whose attention takes any registered scheme as its positions (posenc.modules).

Where the scheme acts:

- added to the token embeddings: ``sinusoidal`` (fixed table), ``learned`` (trainable table);
- nothing: ``nope`` (the causal mask alone tells positions apart);
- a rotation of queries and keys: ``rope``, ``xpos`` (keys downscaled), and ``drope`` (RoPE until
  :meth:`LabModel.drop_positions`, then nothing, DroPE arXiv:2512.12167);
- a term added to the attention logits: ``shaw`` (q·a_{clip(j−i)}), ``t5`` (bucketed learned bias),
  ``alibi`` (−m_h·|i−j|), ``kerple`` (−r1·ln(1 + r2·|i−j|)), ``transformer_xl`` (its whole score:
  q·k + q·W_R R + u·k + v·W_R R, one module per head).

Pre-norm blocks (LayerNorm, attention, LayerNorm, GELU MLP of 4× width), tied nothing, no dropout.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from posenc.lab.names import VOCAB, check_scheme
from posenc.lab.recipe import Recipe
from posenc.lab.tasks import sequence_length
from posenc.modules import (
    ALiBiBias,
    KerpleBias,
    LearnedPositionalEmbedding,
    RotaryEmbedding,
    ShawRelativePositions,
    SinusoidalPositionalEncoding,
    T5RelativeBias,
    TransformerXLScores,
    XPos,
)


class Attention(nn.Module):
    def __init__(self, scheme: str, d_model: int, heads: int, max_tokens: int, seed: int) -> None:
        super().__init__()
        self.scheme, self.heads, self.head_dim = scheme, heads, d_model // heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.rotate = scheme in ("rope", "drope")
        if self.rotate:
            self.rope = RotaryEmbedding(self.head_dim)
        elif scheme == "xpos":
            self.xpos = XPos(self.head_dim)
        elif scheme == "shaw":
            # k = the longest training sequence: every training offset has its own vector, longer ones share the last
            self.shaw = ShawRelativePositions(max_tokens, self.head_dim, seed=seed)
        elif scheme == "t5":
            self.t5 = T5RelativeBias(heads, num_buckets=32, max_distance=128, bidirectional=False, seed=seed)
        elif scheme == "alibi":
            self.alibi = ALiBiBias(heads, causal=True)
        elif scheme == "kerple":
            self.kerple = KerpleBias(heads, variant="log", causal=True)
        elif scheme == "transformer_xl":
            self.txl = nn.ModuleList(TransformerXLScores(self.head_dim, d_model, seed=seed + h) for h in range(heads))

    def forward(self, x: torch.Tensor, keep: list[torch.Tensor] | None = None) -> torch.Tensor:
        batch, length, width = x.shape
        q, k, v = self.qkv(x).view(batch, length, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        scale = 1.0 / math.sqrt(self.head_dim)
        if self.rotate:
            q, k = self.rope(q), self.rope(k)
        elif self.scheme == "xpos":
            flat = (batch * self.heads, length, self.head_dim)
            q = self.xpos(q.reshape(flat)).view(q.shape)
            k = self.xpos(k.reshape(flat), downscale=True).view(k.shape)
        if self.scheme == "transformer_xl":
            logits = torch.stack([self.txl[h](q[:, h], k[:, h]) for h in range(self.heads)], dim=1) * scale
        else:
            logits = (q @ k.transpose(-1, -2)) * scale  # (batch, heads, length, length)
        if self.scheme == "shaw":
            relative = self.shaw(length)  # (length, length, head_dim)
            logits = logits + torch.einsum("bhid,ijd->bhij", q, relative) * scale
        elif self.scheme == "t5":
            logits = logits + self.t5(length)
        elif self.scheme == "alibi":
            logits = logits + self.alibi(length)
        elif self.scheme == "kerple":
            logits = logits + self.kerple(length)
        causal = torch.ones(length, length, dtype=torch.bool, device=x.device).triu(1)
        probs = logits.masked_fill(causal, -math.inf).softmax(dim=-1)
        if keep is not None:
            keep.append(probs.detach())
        return self.out((probs @ v).transpose(1, 2).reshape(batch, length, width))


class Block(nn.Module):
    def __init__(self, scheme: str, d_model: int, heads: int, max_tokens: int, seed: int) -> None:
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.attention = Attention(scheme, d_model, heads, max_tokens, seed)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x: torch.Tensor, keep: list[torch.Tensor] | None = None) -> torch.Tensor:
        x = x + self.attention(self.norm1(x), keep)
        return x + self.mlp(self.norm2(x))


class LabModel(nn.Module):
    """Decoder-only transformer over the lab's tokens: ``forward(tokens)`` → logits (batch, length, VOCAB).

    ``forward(tokens, return_attention=True)`` → (logits, [probabilities (batch, heads, length, length)
    per layer]). Built from a seed: the same seed gives the same initial weights.
    """

    def __init__(self, scheme: str, recipe: Recipe, seed: int = 0) -> None:
        super().__init__()
        self.scheme = check_scheme(scheme)
        self.recipe = recipe
        d, heads = recipe.d_model, recipe.heads
        train_tokens = sequence_length(recipe.train_max_length)
        self.max_tokens = max(sequence_length(recipe.test_max_length), train_tokens)
        self.embed = nn.Embedding(VOCAB, d)
        self.positions: nn.Module | None = None
        if scheme == "sinusoidal":
            self.positions = SinusoidalPositionalEncoding(d, max_len=self.max_tokens)
        elif scheme == "learned":
            # rows past the training sequences exist (as initialized) so that longer tests run and show the failure
            self.positions = LearnedPositionalEmbedding(self.max_tokens, d, seed=seed)
        self.blocks = nn.ModuleList(Block(scheme, d, heads, train_tokens, seed) for _ in range(recipe.layers))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, VOCAB)

    def drop_positions(self) -> None:
        """DroPE: stop rotating queries and keys (the model becomes NoPE); only for ``drope``."""
        if self.scheme != "drope":
            raise ValueError(f"only a DroPE model drops its positions; this one is {self.scheme!r}.")
        for block in self.blocks:
            block.attention.rotate = False

    @property
    def positions_dropped(self) -> bool:
        return self.scheme == "drope" and not self.blocks[0].attention.rotate

    def forward(self, tokens: torch.Tensor, return_attention: bool = False):
        if tokens.shape[-1] > self.max_tokens:
            raise ValueError(f"The sequences have {tokens.shape[-1]} tokens; this model was built for at most "
                             f"{self.max_tokens} (test_max_length {self.recipe.test_max_length}).")
        x = self.embed(tokens)
        if self.positions is not None:
            x = self.positions(x)
        keep: list[torch.Tensor] | None = [] if return_attention else None
        for block in self.blocks:
            x = block(x, keep)
        logits = self.head(self.norm(x))
        return (logits, keep) if return_attention else logits
