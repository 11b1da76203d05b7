"""T5's relative position bias (Raffel et al. 2019, arXiv:1910.10683).

A learned scalar per head and offset bucket is added to the logits,

    e_ij = q_i·k_j + b_{h, bucket(j−i)},

with exact buckets near 0 and logarithmic ones further out, up to ``max_distance``. The
table b is shown at initialisation: seeded normal draws.
"""

from __future__ import annotations

import math

import numpy as np

from posenc.checks import (
    MAX_WHOLE,
    check_array,
    check_count,
    check_d_model,
    check_length,
    check_seed,
    check_size,
    check_std,
    check_t5_buckets,
)
from posenc.schemes.bias import (
    DIRECTION_OPTION,
    HEADS_OPTION,
    SEED_OPTION,
    bias_from,
    check_heads,
    curve_from,
    is_causal,
)
from posenc.schemes.offsets import all_offsets
from posenc.schemes.scheme import Option, Scheme, Setting


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
    per_side, max_exact, max_distance = check_t5_buckets(bidirectional, num_buckets, max_distance)
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
    num_heads = check_heads(num_heads)
    return np.random.default_rng(check_seed(seed)).normal(0.0, check_std(std), size=(num_buckets, num_heads))


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
    check_size((check_heads(num_heads), length, length), "the T5 bias")
    values = t5_bucket_values(num_buckets, num_heads, seed=seed, std=std)  # (buckets, heads)
    positions = np.arange(length)
    buckets = t5_relative_bucket(
        positions[None, :] - positions[:, None],
        bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance,
    )  # (length, length)
    return np.moveaxis(values[buckets], -1, 0)


def _t5_offsets(length, d_model, base, *, num_heads=8, num_buckets=32, max_distance=128,
                direction="bidirectional", seed=0):
    offsets = all_offsets(length)
    index = t5_relative_bucket(offsets, bidirectional=not is_causal(direction), num_buckets=num_buckets,
                               max_distance=max_distance)
    return offsets, t5_bucket_values(num_buckets, num_heads, seed=seed)[index].T  # (heads, 2L−1)


def _t5_formula(d_model, base, *, num_heads=8, num_buckets=32, max_distance=128, direction="bidirectional",
                seed=0):
    check_d_model(d_model), check_heads(num_heads), check_seed(seed)
    causal = is_causal(direction)
    per_side, e, max_distance = check_t5_buckets(not causal, num_buckets, max_distance)
    n, offset = (r"\max(-r, 0)", "") if causal else (r"|r|", r"%d\,[r > 0] + " % per_side)
    return (
        r"e_{ij} = q_i \cdot k_j + b_{h,\,\operatorname{bucket}(j-i)},\quad n = " + n + r",\quad"
        r" \operatorname{bucket}(r) = " + offset + r"\begin{cases} n & n < %d \\"
        r" \min\!\left(%d,\; %d + \left\lfloor \frac{\ln(n/%d)}{\ln(%d/%d)} \cdot %d \right\rfloor\right)"
        r" & n \ge %d \end{cases}" % (e, per_side - 1, e, e, max_distance, e, per_side - e, e)
    )


def _t5_at(setting: Setting, offsets: np.ndarray) -> np.ndarray:
    """b[bucket(Δ), 0]: head 0's learned scalar of the offset's bucket (Raffel et al., arXiv:1910.10683)."""
    check_d_model(setting.d_model)
    options = setting.options
    index = t5_relative_bucket(offsets, bidirectional=not is_causal(options["direction"]),
                               num_buckets=options["num_buckets"], max_distance=options["max_distance"])
    return t5_bucket_values(options["num_buckets"], options["num_heads"], seed=options["seed"])[index, 0]


SCHEMES: tuple[Scheme, ...] = (
    Scheme(
        key="t5", label="T5 relative bias", family="bias", paper="Raffel et al. 2019, arXiv:1910.10683",
        formula=_t5_formula, offset_curve=curve_from(_t5_offsets), bias=bias_from(_t5_offsets),
        offset_bias=_t5_offsets, short_label="T5 bias",
        offset_curve_at=_t5_at,
        curve_label="logit bias of head 0 (untrained table)",
        options=(
            HEADS_OPTION,
            Option("num_buckets", "Buckets", 32, 4, 128,
                   help="32 in T5; halved per direction when bidirectional."),
            Option("max_distance", "Max distance", 128, 2, 4096,
                   help="Offsets from here on share the last bucket."),
            DIRECTION_OPTION,
            SEED_OPTION,
        ),
    ),
)
