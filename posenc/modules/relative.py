"""torch versions of the bias schemes (posenc.schemes.shaw, t5, alibi): Shaw et al.'s vectors, T5's bucketed bias, ALiBi.

Each computes with torch ops; the learned tables start from the same numpy draw as the
numpy functions, so before training both give the same numbers (to float32 rounding).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from posenc.checks import (
    MAX_WHOLE,
    ArgumentTypeError,
    check_flag,
    check_length,
    check_max_relative_position,
    check_size,
    check_t5_buckets,
)
from posenc.schemes.bias import check_heads
from posenc.schemes.shaw import shaw_embeddings
from posenc.schemes.t5 import t5_bucket_values


def offset_matrix(query_length: int, key_length: int, device: torch.device | None = None) -> torch.Tensor:
    """(query_length, key_length) int64 matrix of j − i."""
    query = torch.arange(query_length, device=device)[:, None]
    key = torch.arange(key_length, device=device)[None, :]
    return key - query


class ShawRelativePositions(nn.Module):
    """The (length, length, d_head) lookup a_{clip(j−i, k)} of Shaw et al. 2018 (arXiv:1803.02155).

    2k+1 trainable vectors in an ``nn.Embedding``; row r+k holds a_r.
    """

    def __init__(self, max_relative_position: int, d_head: int, seed: int = 0, std: float = 0.02) -> None:
        super().__init__()
        table = shaw_embeddings(max_relative_position, d_head, seed=seed, std=std)  # (2k+1, d_head)
        self.max_relative_position = check_max_relative_position(max_relative_position)
        self.embeddings = nn.Embedding.from_pretrained(torch.from_numpy(table).float(), freeze=False)

    def extra_repr(self) -> str:
        return f"max_relative_position={self.max_relative_position}"

    def forward(self, length: int) -> torch.Tensor:
        length = check_length(length)
        check_size((length, length, self.embeddings.weight.shape[1]), "Shaw's lookup a^K")
        k = self.max_relative_position
        index = offset_matrix(length, length, self.embeddings.weight.device).clamp(-k, k) + k
        return self.embeddings(index)


_WHOLE_DTYPES = (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64)


def relative_position_bucket(
    relative_position: torch.Tensor, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128
) -> torch.Tensor:
    """T5's bucket of r = key − query (Raffel et al. 2019, arXiv:1910.10683), in torch.

    The computation of Hugging Face's ``T5Attention._relative_position_bucket``; see
    :func:`posenc.schemes.t5.t5_relative_bucket` for the equation.
    """
    per_side, max_exact, max_distance = check_t5_buckets(bidirectional, num_buckets, max_distance)
    if not isinstance(relative_position, torch.Tensor) or relative_position.dtype not in _WHOLE_DTYPES:
        kind = relative_position.dtype if isinstance(relative_position, torch.Tensor) else type(relative_position).__name__
        raise ArgumentTypeError(f"relative_position must be an integer tensor (key − query); got {kind}.")
    if relative_position.numel() and int(relative_position.abs().max()) > MAX_WHOLE:
        raise ValueError("relative_position must lie within ±2^53 (an offset between positions).")
    relative_position = relative_position.to(torch.long)
    if bidirectional:
        offset = (relative_position > 0).to(torch.long) * per_side
        distance = relative_position.abs()
    else:
        offset = torch.zeros_like(relative_position)
        distance = -torch.clamp(relative_position, max=0)
    log_ratio = torch.log(distance.clamp(min=max_exact).float() / max_exact)  # ≥ 0: no log(0)
    large = max_exact + (log_ratio / math.log(max_distance / max_exact) * (per_side - max_exact)).to(torch.long)
    large = large.clamp(max=per_side - 1)
    return offset + torch.where(distance < max_exact, distance, large)


class T5RelativeBias(nn.Module):
    """T5's learned bias B[h, i, j] = b[bucket(j − i), h] (Raffel et al. 2019, arXiv:1910.10683).

    ``forward(query_length, key_length)`` → (num_heads, query_length, key_length).
    """

    def __init__(
        self,
        num_heads: int,
        num_buckets: int = 32,
        max_distance: int = 128,
        bidirectional: bool = True,
        seed: int = 0,
        std: float = 1.0,
    ) -> None:
        super().__init__()
        _, _, max_distance = check_t5_buckets(bidirectional, num_buckets, max_distance)
        values = t5_bucket_values(num_buckets, num_heads, seed=seed, std=std)  # (buckets, heads)
        self.relative_attention_bias = nn.Embedding.from_pretrained(torch.from_numpy(values).float(), freeze=False)
        self.num_buckets, self.max_distance, self.bidirectional = len(values), max_distance, bool(bidirectional)

    def extra_repr(self) -> str:
        return f"num_buckets={self.num_buckets}, max_distance={self.max_distance}, bidirectional={self.bidirectional}"

    def forward(self, query_length: int, key_length: int | None = None) -> torch.Tensor:
        query_length = check_length(query_length)
        key_length = query_length if key_length is None else check_length(key_length)
        check_size((self.relative_attention_bias.weight.shape[1], query_length, key_length), "the T5 bias")
        relative = offset_matrix(query_length, key_length, self.relative_attention_bias.weight.device)
        buckets = relative_position_bucket(relative, self.bidirectional, self.num_buckets, self.max_distance)
        return self.relative_attention_bias(buckets).permute(2, 0, 1)  # (heads, q, k)


def alibi_slopes_torch(num_heads: int) -> torch.Tensor:
    """ALiBi slopes m_h in float64 (Press et al. 2021, arXiv:2108.12409), as their ``get_slopes``."""
    num_heads = check_heads(num_heads)
    closest = 2 ** math.floor(math.log2(num_heads))
    powers = torch.arange(1, 2 * closest + 1, dtype=torch.float64)
    slopes = torch.tensor(2.0, dtype=torch.float64) ** (-8.0 / closest * powers[:closest])  # 2^(−8h/P)
    extra = torch.tensor(2.0, dtype=torch.float64) ** (-4.0 / closest * powers[0::2][: num_heads - closest])
    return torch.cat([slopes, extra])


class ALiBiBias(nn.Module):
    """ALiBi's bias B[h, i, j] = −m_h·|i − j| (Press et al. 2021, arXiv:2108.12409).

    ``forward(length)`` → (num_heads, length, length); causal=True puts −inf above the
    diagonal (j > i), as :func:`posenc.schemes.alibi.alibi_bias`.
    """

    slopes: torch.Tensor

    def __init__(self, num_heads: int, causal: bool = False) -> None:
        super().__init__()
        self.causal = check_flag(causal, "causal")
        self.register_buffer("slopes", alibi_slopes_torch(num_heads).float(), persistent=False)

    def extra_repr(self) -> str:
        return f"num_heads={len(self.slopes)}, causal={self.causal}"

    def forward(self, length: int) -> torch.Tensor:
        length = check_length(length)
        check_size((len(self.slopes), length, length), "the ALiBi bias")
        offset = offset_matrix(length, length, self.slopes.device)  # j − i
        bias = -self.slopes[:, None, None] * offset.abs()
        if self.causal:
            bias = bias.masked_fill(offset > 0, -math.inf)
        return bias
