"""Relative encodings: terms that depend on the offset j − i between key j and query i.

- Shaw et al. 2018 (arXiv:1803.02155): a learned vector a_{clip(j−i, k)} added to the key,
  e_ij = q_i·(k_j + a_{clip(j−i, k)}) / √d, with 2k+1 vectors a_{−k} … a_k.
- T5 (Raffel et al. 2019, arXiv:1910.10683): a learned scalar per head and offset bucket,
  e_ij = q_i·k_j + b_{h, bucket(j−i)}; exact buckets near 0, logarithmic ones further out.
- ALiBi (Press et al. 2021, arXiv:2108.12409): a fixed linear penalty, e_ij = q_i·k_j − m_h·|i−j|.

The learned tables (Shaw's a, T5's b) are shown at initialisation: seeded normal draws.
"""

from __future__ import annotations

import math

import numpy as np

from posenc._checks import (
    MAX_LENGTH,
    MAX_WHOLE,
    MAX_WIDTH,
    check_array,
    check_count,
    check_flag,
    check_int,
    check_length,
    check_size,
)
from posenc.absolute import _check_seed, _check_std

DIRECTIONS: tuple[str, ...] = ("bidirectional", "causal")


def _check_max_relative_position(k: object) -> int:
    return check_int(k, "max_relative_position", minimum=0, maximum=MAX_LENGTH,
                     meaning="the clipping distance k of Shaw et al.")


def _check_heads(num_heads: object) -> int:
    return check_count(num_heads, "num_heads", minimum=1, meaning="the number of attention heads")


def _check_d_head(d_head: object) -> int:
    return check_int(d_head, "d_head", minimum=1, maximum=MAX_WIDTH, meaning="the size of one attention head")


# --- Shaw et al. 2018 -------------------------------------------------------------------------


def shaw_relative_positions(length: int, max_relative_position: int) -> np.ndarray:
    """The (length, length) int64 matrix R[i, j] = clip(j − i, k) = max(−k, min(k, j − i)).

    i is the query (row), j the key (column), k = max_relative_position (Shaw et al. 2018,
    arXiv:1803.02155, eq. 6): beyond k positions all offsets share one learned vector.
    """
    length = check_length(length)
    k = _check_max_relative_position(max_relative_position)
    check_size((length, length), "the matrix of clipped offsets")
    positions = np.arange(length)
    return np.clip(positions[None, :] - positions[:, None], -k, k)


def shaw_embeddings(max_relative_position: int, d_head: int, *, seed: int = 0, std: float = 0.02) -> np.ndarray:
    """The (2k+1, d_head) vectors a_{−k} … a_k of Shaw et al. 2018 (arXiv:1803.02155); row r+k is a_r.

    At initialisation: a_r[d] ~ N(0, std²), drawn from ``np.random.default_rng(seed)``.
    """
    k = _check_max_relative_position(max_relative_position)
    d_head = _check_d_head(d_head)
    check_size((2 * k + 1, d_head), "Shaw's table of vectors")
    return np.random.default_rng(_check_seed(seed)).normal(0.0, _check_std(std), size=(2 * k + 1, d_head))


def shaw_lookup(
    length: int, max_relative_position: int, d_head: int, *, seed: int = 0, std: float = 0.02
) -> np.ndarray:
    """The (length, length, d_head) tensor a^K_ij = a_{clip(j − i, k)} added to key j for query i.

    Shaw et al. 2018 (arXiv:1803.02155): e_ij = q_i·(k_j + a^K_ij) / √d_head.
    """
    k = _check_max_relative_position(max_relative_position)
    check_size((check_length(length), check_length(length), _check_d_head(d_head)), "Shaw's lookup a^K")
    table = shaw_embeddings(k, d_head, seed=seed, std=std)  # (2k+1, d_head)
    return table[shaw_relative_positions(length, k) + k]


def shaw_query(d_head: int, *, seed: int = 0) -> np.ndarray:
    """A fixed unit query q ∈ R^d_head (‖q‖ = 1), drawn from ``np.random.default_rng([seed, 1])``."""
    d_head = _check_d_head(d_head)
    q = np.random.default_rng([_check_seed(seed), 1]).normal(size=d_head)
    return q / np.linalg.norm(q)


def shaw_bias(
    length: int, max_relative_position: int, d_head: int, *, seed: int = 0, std: float = 0.02
) -> np.ndarray:
    """Shaw's key term seen by one query, a (1, length, length) matrix: B[0, i, j] = q·a_{clip(j−i, k)}.

    Shaw et al. 2018 (arXiv:1803.02155) add a *vector* a_{clip(j−i, k)} to the key, so the
    logit change depends on the query. To draw it as a matrix we fix one seeded unit query q
    (:func:`shaw_query`, independent of the table) and take q·a (no 1/√d scaling).
    """
    k = _check_max_relative_position(max_relative_position)
    scores = shaw_embeddings(k, d_head, seed=seed, std=std) @ shaw_query(d_head, seed=seed)  # (2k+1,)
    return scores[shaw_relative_positions(length, k) + k][None]


# --- T5, Raffel et al. 2019 -------------------------------------------------------------------


def _check_buckets(bidirectional: bool, num_buckets: object, max_distance: object) -> tuple[int, int, int]:
    """(buckets per direction, max_exact, max_distance), or a ValueError."""
    bidirectional = check_flag(bidirectional, "bidirectional")
    num_buckets = check_count(num_buckets, "num_buckets", minimum=2, meaning="the number of T5 buckets")
    max_distance = check_int(max_distance, "max_distance", minimum=1, maximum=MAX_WHOLE,
                             meaning="where T5's last bucket starts")
    per_side = num_buckets // 2 if bidirectional else num_buckets
    max_exact = per_side // 2
    if max_exact < 1:
        raise ValueError(
            f"num_buckets={num_buckets} leaves no exact bucket: a bidirectional T5 bias needs at least "
            "4 buckets (2 per direction), a causal one at least 2."
        )
    if max_distance <= max_exact:
        raise ValueError(
            f"max_distance={max_distance} must be larger than the {max_exact} exact buckets, "
            "otherwise the logarithmic buckets have no room; increase max_distance."
        )
    return per_side, max_exact, max_distance


def t5_relative_bucket(
    relative_position: np.ndarray | int,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> np.ndarray | int:
    """T5's bucket of each relative position r = key − query (Raffel et al. 2019, arXiv:1910.10683).

    As Hugging Face's ``T5Attention._relative_position_bucket`` (= Mesh TensorFlow's, n = −r):
    bidirectional: B = num_buckets/2, offset = B·[r > 0], n = |r|; causal: B = num_buckets,
    offset = 0, n = max(−r, 0). With e = B // 2 exact buckets:

        bucket = offset + n                                                 if n < e
        bucket = offset + min(B − 1, e + ⌊ln(n/e) / ln(max_distance/e) · (B − e)⌋)  otherwise

    Like the reference, the log term is float32 arithmetic in the reference's order, then
    truncated: where the exact value is a whole number, float32 and float64 can land on either
    side (causal, num_buckets=10, max_distance=160, r = −20: float32 gives 7, float64 6).
    ln is rounded correctly to float32 (via float64), so the result is the same on every machine.
    torch's float32 log is off by one ulp at a few ratios n/e, none of which moves a bucket for
    e ≤ 64, n ≤ 200,000, max_distance ≤ 4096: the result equals the reference exactly on every
    num_buckets ≤ 128, max_distance ≤ 1024, |r| ≤ 1000 (tests/test_library_t5.py checks all
    251,936 settings). Returns int64 of the input's shape (an int for a scalar input); the input
    must hold whole numbers within ±2^53.
    """
    per_side, max_exact, max_distance = _check_buckets(bidirectional, num_buckets, max_distance)
    relative = check_array(relative_position, "relative_position")
    if relative.dtype.kind not in "iu":
        raise ValueError(f"relative_position must hold whole numbers (key − query); got dtype {relative.dtype}.")
    if relative.size and (relative.max() > MAX_WHOLE or relative.min() < -MAX_WHOLE):
        raise ValueError(f"relative_position must lie within ±2^53 (an offset between positions); "
                         f"got values up to {max(abs(int(relative.max())), abs(int(relative.min())))}.")
    relative = relative.astype(np.int64)
    if bidirectional:
        offset = (relative > 0).astype(np.int64) * per_side
        distance = np.abs(relative)
    else:
        offset = np.zeros_like(relative)
        distance = -np.minimum(relative, 0)
    large = _t5_log_bucket(distance, max_exact, per_side, np.float32(math.log(max_distance / max_exact)))
    bucket = offset + np.where(distance < max_exact, distance, large)
    return int(bucket) if bucket.ndim == 0 else bucket


def _t5_log_bucket(distance: np.ndarray, max_exact: int, per_side: int, log_range: np.ndarray) -> np.ndarray:
    """min(B − 1, e + ⌊ln(n/e) / ln(max_distance/e) · (B − e)⌋) in the reference's float32 steps.

    ``log_range`` = float32(ln(max_distance/e)) as Python computes it (math.log, then rounded, as torch
    rounds a Python float operand of a float32 tensor); it broadcasts against ``distance``, so the
    tests can check every max_distance at once. n is raised to e first (≥ 1: no log(0)).
    """
    ratio = np.maximum(distance, max_exact).astype(np.float32) / np.float32(max_exact)
    log_ratio = np.log(ratio.astype(np.float64)).astype(np.float32)  # ln correctly rounded to float32
    scaled = log_ratio / log_range * np.float32(per_side - max_exact)  # float32 throughout
    return np.minimum(max_exact + scaled.astype(np.int64), per_side - 1)


def t5_bucket_values(num_buckets: int, num_heads: int, *, seed: int = 0, std: float = 1.0) -> np.ndarray:
    """The (num_buckets, num_heads) learned scalars b[bucket, h] of T5 (arXiv:1910.10683) at initialisation.

    b ~ N(0, std²) from ``np.random.default_rng(seed)``; the layout of Hugging Face's
    ``relative_attention_bias`` embedding. The scale of an untrained table is a free choice:
    std = 1 puts the bias on the scale of an attention logit.
    """
    num_buckets = check_count(num_buckets, "num_buckets", minimum=2, meaning="the number of T5 buckets")
    num_heads = _check_heads(num_heads)
    return np.random.default_rng(_check_seed(seed)).normal(0.0, _check_std(std), size=(num_buckets, num_heads))


def t5_bias(
    length: int,
    num_heads: int,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
    seed: int = 0,
    std: float = 1.0,
) -> np.ndarray:
    """The (num_heads, length, length) T5 bias B[h, i, j] = b[bucket(j − i), h] (arXiv:1910.10683).

    Added to the logits: e_ij = q_i·k_j + B[h, i, j]. Buckets from :func:`t5_relative_bucket`,
    scalars from :func:`t5_bucket_values` (an untrained, seeded table).
    """
    length = check_length(length)
    check_size((_check_heads(num_heads), length, length), "the T5 bias")
    values = t5_bucket_values(num_buckets, num_heads, seed=seed, std=std)  # (buckets, heads)
    positions = np.arange(length)
    buckets = t5_relative_bucket(
        positions[None, :] - positions[:, None],
        bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance,
    )  # (length, length)
    return np.moveaxis(values[buckets], -1, 0)


# --- ALiBi, Press et al. 2021 -----------------------------------------------------------------


def alibi_slopes(num_heads: int) -> np.ndarray:
    """The ALiBi slope m_h of every head (Press et al. 2021, arXiv:2108.12409), float64.

    As ``get_slopes`` of ofirpress/attention_with_linear_biases: for H a power of two,
    m_h = s^h, h = 1 … H, s = 2^(−8/H) (8 heads: 1/2, 1/4, …, 1/256). Otherwise, with
    P = 2^⌊log2 H⌋: the P slopes for P heads, then every other slope for 2P heads, first
    H − P of them, i.e. 2^(−4(2h'−1)/P) for h' = 1 … H − P.
    """
    num_heads = _check_heads(num_heads)

    def power_of_2(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))  # the reference's expression, kept verbatim
        return [start * start**i for i in range(n)]

    def slopes(n: int) -> list[float]:
        if math.log2(n).is_integer():
            return power_of_2(n)
        closest = 2 ** math.floor(math.log2(n))
        return power_of_2(closest) + slopes(2 * closest)[0::2][: n - closest]

    return np.array(slopes(num_heads))


def alibi_bias(length: int, num_heads: int, *, causal: bool = False) -> np.ndarray:
    """The (num_heads, length, length) ALiBi bias B[h, i, j] = −m_h·|i − j| (Press et al., arXiv:2108.12409).

    Added to the logits: e_ij = q_i·k_j + B[h, i, j], slopes m_h from :func:`alibi_slopes`.
    causal=True: the same on and below the diagonal (j ≤ i) and −inf above it (j > i, the
    keys a causal decoder may not see). Press et al. add m_h·(j − i) only for j ≤ i; it is the
    same bias because softmax ignores a constant per row.
    """
    length, causal = check_length(length), check_flag(causal, "causal")
    check_size((_check_heads(num_heads), length, length), "the ALiBi bias")
    positions = np.arange(length)
    offset = positions[None, :] - positions[:, None]  # (length, length), j − i
    bias = -alibi_slopes(num_heads)[:, None, None] * np.abs(offset)
    if causal:
        bias = np.where(offset > 0, -np.inf, bias)
    return bias
