"""The source templates of the bias schemes' standalone files: ALiBi, T5, Shaw et al.

Each builds the bias of every head by offset j − i; ``toeplitz`` (shared) makes the
(heads, length, length) matrix from it. Templates are ``str.format``-ed with the settings
as Python literals; literal braces of the generated code are doubled.
"""

from __future__ import annotations

BIAS_COMMON = '''

def toeplitz(by_offset: torch.Tensor, length: int) -> torch.Tensor:
    """(heads, length, length) with B[h, i, j] = by_offset[h, j - i + length - 1]."""
    offsets = torch.arange(length)[None, :] - torch.arange(length)[:, None]  # j - i
    return by_offset[:, offsets + length - 1]
'''


ALIBI = BIAS_COMMON + '''

def alibi_slopes(num_heads: int) -> list:
    """m_h as get_slopes of ofirpress/attention_with_linear_biases (Press et al. 2021, arXiv:2108.12409)."""
    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]
    if math.log2(num_heads).is_integer():
        return power_of_2(num_heads)
    closest = 2 ** math.floor(math.log2(num_heads))
    return power_of_2(closest) + alibi_slopes(2 * closest)[0::2][: num_heads - closest]


class ALiBiBias(nn.Module):
    """B[h, i, j] = -m_h * |i - j| (causal: -inf for j > i), added to the attention logits."""

    def __init__(self, num_heads: int = {NUM_HEADS}, causal: bool = {DIRECTION} == "causal") -> None:
        super().__init__()
        self.causal = causal
        self.register_buffer("slopes", torch.tensor(alibi_slopes(num_heads), dtype=torch.float64), persistent=False)

    def bias_by_offset(self, length: int) -> torch.Tensor:
        """(heads, 2*length - 1): the bias at offset j - i = -(length - 1) ... length - 1."""
        offsets = torch.arange(-(length - 1), length)
        values = -self.slopes[:, None] * offsets.abs().to(torch.float64)
        return values.masked_fill(offsets > 0, -math.inf) if self.causal else values

    def forward(self, length: int) -> torch.Tensor:
        return toeplitz(self.bias_by_offset(length), length)


def output() -> torch.Tensor:
    return ALiBiBias().bias_by_offset(LENGTH)
'''


T5 = BIAS_COMMON + '''
NUM_BUCKETS, NUM_HEADS = {NUM_BUCKETS}, {NUM_HEADS}
# The initial scalars b (NUM_BUCKETS x NUM_HEADS), b ~ N(0, 1) drawn by numpy's default_rng({SEED}):
# float32, little-endian, base64.
WEIGHTS = {WEIGHTS}


def relative_position_bucket(relative: torch.Tensor, bidirectional: bool, num_buckets: int,
                             max_distance: int) -> torch.Tensor:
    """T5's bucket of r = key - query (Raffel et al. 2019, arXiv:1910.10683), as Hugging Face's
    T5Attention._relative_position_bucket; ln is taken in float64 and rounded to float32 (as posenc)."""
    per_side = num_buckets // 2 if bidirectional else num_buckets
    max_exact = per_side // 2
    if bidirectional:
        offset, distance = (relative > 0).long() * per_side, relative.abs()
    else:
        offset, distance = torch.zeros_like(relative), -relative.clamp(max=0)
    ratio = distance.clamp(min=max_exact).float() / float(max_exact)
    log_ratio = torch.log(ratio.double()).float()
    scaled = log_ratio / torch.tensor(math.log(max_distance / max_exact), dtype=torch.float32)
    scaled = scaled * torch.tensor(float(per_side - max_exact), dtype=torch.float32)
    large = (max_exact + scaled.long()).clamp(max=per_side - 1)
    return offset + torch.where(distance < max_exact, distance, large)


class T5RelativeBias(nn.Module):
    """B[h, i, j] = b[bucket(j - i), h], added to the attention logits."""

    def __init__(self, max_distance: int = {MAX_DISTANCE}, bidirectional: bool = {DIRECTION} != "causal") -> None:
        super().__init__()
        data = torch.frombuffer(bytearray(base64.b64decode("".join(WEIGHTS))), dtype=torch.float32)
        self.relative_attention_bias = nn.Embedding.from_pretrained(data.reshape(NUM_BUCKETS, NUM_HEADS).clone(),
                                                                    freeze=False)
        self.max_distance, self.bidirectional = max_distance, bidirectional

    def bias_by_offset(self, length: int) -> torch.Tensor:
        """(heads, 2*length - 1): the bias at offset j - i = -(length - 1) ... length - 1."""
        buckets = relative_position_bucket(torch.arange(-(length - 1), length), self.bidirectional,
                                           NUM_BUCKETS, self.max_distance)
        return self.relative_attention_bias(buckets).T

    def forward(self, length: int) -> torch.Tensor:
        return toeplitz(self.bias_by_offset(length), length)


def output() -> torch.Tensor:
    return T5RelativeBias().bias_by_offset(LENGTH).detach()
'''


SHAW = BIAS_COMMON + '''
K = {MAX_RELATIVE_POSITION}
# The 2K+1 vectors a_-K ... a_K (row r + K is a_r), N(0, 0.02^2) from numpy's default_rng({SEED}),
# and the fixed unit query q the app draws the bias with: float32, little-endian, base64.
WEIGHTS = {WEIGHTS}
QUERY = {QUERY}


def decode(text: tuple, *shape: int) -> torch.Tensor:
    return torch.frombuffer(bytearray(base64.b64decode("".join(text))), dtype=torch.float32).reshape(shape).clone()


class ShawRelativePositions(nn.Module):
    """Shaw et al. 2018 (arXiv:1803.02155): forward(length) = a_clip(j - i, K), shape (length, length, d);
    e_ij = q_i . (k_j + a_clip(j - i, K)) / sqrt(d)."""

    def __init__(self) -> None:
        super().__init__()
        self.embeddings = nn.Embedding.from_pretrained(decode(WEIGHTS, 2 * K + 1, D_MODEL), freeze=False)
        self.register_buffer("query", decode(QUERY, D_MODEL), persistent=False)

    def forward(self, length: int) -> torch.Tensor:
        offsets = torch.arange(length)[None, :] - torch.arange(length)[:, None]
        return self.embeddings(offsets.clamp(-K, K) + K)

    def bias_by_offset(self, length: int) -> torch.Tensor:
        """(1, 2*length - 1): the query's share q . a_clip(j - i) / sqrt(d) at every offset."""
        offsets = torch.arange(-(length - 1), length)
        vectors = self.embeddings(offsets.clamp(-K, K) + K).double()
        return (vectors @ self.query.double())[None, :] / math.sqrt(D_MODEL)


def output() -> torch.Tensor:
    return ShawRelativePositions().bias_by_offset(LENGTH).detach()
'''
