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


KERPLE = BIAS_COMMON + '''

class KerpleBias(nn.Module):
    """KERPLE (Chi et al. 2022, arXiv:2205.09921), causal, one head: for j <= i the bias is
    -r1 * ln(1 + r2 * (i - j)) (variant "log") or -r1 * (i - j) ** r2 (variant "power", 0 < r2 <= 2);
    -inf for j > i. r1 and r2 are learnable; as in KERPLE's code, they are clamped in place to >= 0.01
    (power: r2 <= 2) before every forward."""

    def __init__(self, r1: float = {R1}, r2: float = {R2}, variant: str = {VARIANT}) -> None:
        super().__init__()
        self.variant = variant
        self.r1 = nn.Parameter(torch.tensor([r1], dtype=torch.float64))
        self.r2 = nn.Parameter(torch.tensor([r2], dtype=torch.float64))

    def bias_by_offset(self, length: int) -> torch.Tensor:
        """(1, 2*length - 1): the bias at offset j - i = -(length - 1) ... length - 1."""
        with torch.no_grad():
            self.r1.clamp_(min=0.01)
            self.r2.clamp_(min=0.01, max=2.0 if self.variant == "power" else None)
        offsets = torch.arange(-(length - 1), length)
        distance = offsets.abs().to(torch.float64)
        r1, r2 = self.r1[:, None], self.r2[:, None]
        values = -r1 * (torch.log1p(r2 * distance) if self.variant == "log" else distance.pow(r2))
        return values.masked_fill(offsets > 0, -math.inf)

    def forward(self, length: int) -> torch.Tensor:
        return toeplitz(self.bias_by_offset(length), length)


def output() -> torch.Tensor:
    return KerpleBias().bias_by_offset(LENGTH).detach()
'''


TRANSFORMER_XL = BIAS_COMMON + '''
# The untrained u (r_w_bias), v (r_r_bias) and W_R (r_net's weight, D_MODEL x D_MODEL), N(0, 0.02^2) drawn in
# that order by numpy's default_rng({SEED}), and the fixed unit query q the app draws the bias with:
# float32, little-endian, base64.
U = {U}
V = {V}
WEIGHTS = {WEIGHTS}
QUERY = {QUERY}


def decode(text: tuple, *shape: int) -> torch.Tensor:
    return torch.frombuffer(bytearray(base64.b64decode("".join(text))), dtype=torch.float32).reshape(shape).clone()


class TransformerXLPositionBias(nn.Module):
    """Transformer-XL (Dai et al. 2019, arXiv:1901.02860), one head of width d = D_MODEL:
    scores(q, k)[i, j] = (q_i.k_j + q_i.W_R R_(i-j) + u.k_j + v.W_R R_(i-j)) / sqrt(d) for j <= i, -inf for j > i,
    R_x = [sin(x theta_s) for s < d/2] + [cos(x theta_s) for s < d/2], theta_s = BASE ** (-2s/d).
    forward(length): the positional share (q.W_R R_(i-j) + v.W_R R_(i-j)) / sqrt(d) for the fixed unit query q,
    (1, length, length), -inf for j > i."""

    def __init__(self) -> None:
        super().__init__()
        self.r_w_bias = nn.Parameter(decode(U, D_MODEL))
        self.r_r_bias = nn.Parameter(decode(V, D_MODEL))
        self.r_net = nn.Linear(D_MODEL, D_MODEL, bias=False)
        with torch.no_grad():
            self.r_net.weight.copy_(decode(WEIGHTS, D_MODEL, D_MODEL))
        self.register_buffer("query", decode(QUERY, D_MODEL), persistent=False)
        s = torch.arange(D_MODEL // 2, dtype=torch.float64)
        self.register_buffer("inv_freq", torch.exp(-(2.0 * s / D_MODEL) * math.log(BASE)), persistent=False)

    def relative_embedding(self, distances: torch.Tensor) -> torch.Tensor:
        """(n, D_MODEL) rows R_x for the distances x = i - j, float64."""
        phase = distances.to(torch.float64)[:, None] * self.inv_freq
        return torch.cat([phase.sin(), phase.cos()], dim=1)

    def scores(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """q, k: (length, D_MODEL) -> the (length, length) logits, float64."""
        q, k, length = q.double(), k.double(), q.shape[0]
        projected = self.relative_embedding(torch.arange(2 * length - 1) - (length - 1)) @ self.r_net.weight.double().T
        index = torch.arange(length)[:, None] - torch.arange(length)[None, :] + length - 1  # row of i - j
        content = (q + self.r_w_bias.double()) @ k.T  # (a) + (c)
        position = ((q + self.r_r_bias.double()) @ projected.T).gather(1, index)  # (b) + (d)
        return ((content + position) / math.sqrt(D_MODEL)).masked_fill(index < length - 1, -math.inf)

    def bias_by_offset(self, length: int) -> torch.Tensor:
        """(1, 2*length - 1): (q + v).W_R R_(i-j) / sqrt(d) at offset j - i = -(length - 1) ... length - 1."""
        weights = self.r_net.weight.double().T @ (self.query.double() + self.r_r_bias.double())  # W_R^T (q + v)
        values = self.relative_embedding(torch.arange(length - 1, -1, -1)) @ weights / math.sqrt(D_MODEL)
        return torch.cat([values, torch.full((length - 1,), -math.inf, dtype=torch.float64)])[None, :]

    def forward(self, length: int) -> torch.Tensor:
        return toeplitz(self.bias_by_offset(length), length)


def output() -> torch.Tensor:
    return TransformerXLPositionBias().bias_by_offset(LENGTH).detach()
'''
