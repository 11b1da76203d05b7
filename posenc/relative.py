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

from posenc._checks import check_choice, check_int, check_length
from posenc.absolute import _check_seed, _check_std
from posenc.analysis import toeplitz_view
from posenc.scheme import Option, Scheme

DIRECTIONS: tuple[str, ...] = ("bidirectional", "causal")


def _check_max_relative_position(k: object) -> int:
    return check_int(k, "max_relative_position", minimum=0, meaning="the clipping distance k of Shaw et al.")


def _check_heads(num_heads: object) -> int:
    return check_int(num_heads, "num_heads", minimum=1, meaning="the number of attention heads")


# --- Shaw et al. 2018 -------------------------------------------------------------------------


def shaw_relative_positions(length: int, max_relative_position: int) -> np.ndarray:
    """The (length, length) int64 matrix R[i, j] = clip(j − i, k) = max(−k, min(k, j − i)).

    i is the query (row), j the key (column), k = max_relative_position (Shaw et al. 2018,
    arXiv:1803.02155, eq. 6): beyond k positions all offsets share one learned vector.
    """
    length = check_length(length)
    k = _check_max_relative_position(max_relative_position)
    positions = np.arange(length)
    return np.clip(positions[None, :] - positions[:, None], -k, k)


def shaw_embeddings(max_relative_position: int, d_head: int, *, seed: int = 0, std: float = 0.02) -> np.ndarray:
    """The (2k+1, d_head) vectors a_{−k} … a_k of Shaw et al. 2018 (arXiv:1803.02155); row r+k is a_r.

    At initialisation: a_r[d] ~ N(0, std²), drawn from ``np.random.default_rng(seed)``.
    """
    k = _check_max_relative_position(max_relative_position)
    d_head = check_int(d_head, "d_head", minimum=1, meaning="the size of one attention head")
    return np.random.default_rng(_check_seed(seed)).normal(0.0, _check_std(std), size=(2 * k + 1, d_head))


def shaw_lookup(
    length: int, max_relative_position: int, d_head: int, *, seed: int = 0, std: float = 0.02
) -> np.ndarray:
    """The (length, length, d_head) tensor a^K_ij = a_{clip(j − i, k)} added to key j for query i.

    Shaw et al. 2018 (arXiv:1803.02155): e_ij = q_i·(k_j + a^K_ij) / √d_head.
    """
    table = shaw_embeddings(max_relative_position, d_head, seed=seed, std=std)  # (2k+1, d_head)
    return table[shaw_relative_positions(length, max_relative_position) + max_relative_position]


def shaw_query(d_head: int, *, seed: int = 0) -> np.ndarray:
    """A fixed unit query q ∈ R^d_head (‖q‖ = 1), drawn from ``np.random.default_rng([seed, 1])``."""
    d_head = check_int(d_head, "d_head", minimum=1, meaning="the size of one attention head")
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
    scores = shaw_embeddings(max_relative_position, d_head, seed=seed, std=std) @ shaw_query(d_head, seed=seed)
    return scores[shaw_relative_positions(length, max_relative_position) + max_relative_position][None]


# --- T5, Raffel et al. 2019 -------------------------------------------------------------------


def _check_buckets(bidirectional: bool, num_buckets: object, max_distance: object) -> tuple[int, int, int]:
    """(buckets per direction, max_exact, max_distance), or a ValueError."""
    num_buckets = check_int(num_buckets, "num_buckets", minimum=2, meaning="the number of T5 buckets")
    max_distance = check_int(max_distance, "max_distance", minimum=1, meaning="where T5's last bucket starts")
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
    ln is rounded correctly to float32 (via float64), so the result is the same on every machine;
    torch's float32 log can differ by one ulp, which moves a bucket for ~0.03% of the
    (num_buckets, max_distance) pairs (never the defaults). Returns int64 of the input's shape
    (an int for a scalar input).
    """
    per_side, max_exact, max_distance = _check_buckets(bool(bidirectional), num_buckets, max_distance)
    relative = np.asarray(relative_position)
    if relative.dtype.kind not in "iu":
        raise ValueError(f"relative_position must hold whole numbers (key − query); got dtype {relative.dtype}.")
    relative = relative.astype(np.int64)
    if bidirectional:
        offset = (relative > 0).astype(np.int64) * per_side
        distance = np.abs(relative)
    else:
        offset = np.zeros_like(relative)
        distance = -np.minimum(relative, 0)
    ratio = np.maximum(distance, max_exact).astype(np.float32) / np.float32(max_exact)  # ≥ 1: no log(0)
    log_ratio = np.log(ratio.astype(np.float64)).astype(np.float32)  # ln correctly rounded to float32
    scaled = log_ratio / np.float32(math.log(max_distance / max_exact)) * np.float32(per_side - max_exact)
    large = np.minimum(max_exact + scaled.astype(np.int64), per_side - 1)
    bucket = offset + np.where(distance < max_exact, distance, large)
    return int(bucket) if bucket.ndim == 0 else bucket


def t5_bucket_values(num_buckets: int, num_heads: int, *, seed: int = 0, std: float = 1.0) -> np.ndarray:
    """The (num_buckets, num_heads) learned scalars b[bucket, h] of T5 (arXiv:1910.10683) at initialisation.

    b ~ N(0, std²) from ``np.random.default_rng(seed)``; the layout of Hugging Face's
    ``relative_attention_bias`` embedding. The scale of an untrained table is a free choice:
    std = 1 puts the bias on the scale of an attention logit.
    """
    num_buckets = check_int(num_buckets, "num_buckets", minimum=2, meaning="the number of T5 buckets")
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
    length = check_length(length)
    positions = np.arange(length)
    offset = positions[None, :] - positions[:, None]  # (length, length), j − i
    bias = -alibi_slopes(num_heads)[:, None, None] * np.abs(offset)
    if causal:
        bias = np.where(offset > 0, -np.inf, bias)
    return bias


# --- registry entries: fn(length, d_model, base, **options); base is unused here ---


def _offsets(length: int) -> np.ndarray:
    return np.arange(-(check_length(length) - 1), length)


def _causal(direction: str) -> bool:
    return check_choice(direction, "direction", DIRECTIONS) == "causal"


def _shaw_offsets(length, d_model, base, *, max_relative_position=16, seed=0):
    offsets, k = _offsets(length), max_relative_position
    scores = shaw_embeddings(k, d_model, seed=seed) @ shaw_query(d_model, seed=seed)  # (2k+1,)
    return offsets, scores[np.clip(offsets, -k, k) + k][None, :]  # one head: d_head = d_model


def _shaw_formula(d_model, base, *, max_relative_position=16, seed=0):
    k = int(max_relative_position)
    return (
        r"e_{ij} = \frac{q_i \cdot \left(k_j + a_{\operatorname{clip}(j-i,\,k)}\right)}{\sqrt{d}},\quad"
        r" \operatorname{clip}(x, k) = \max(-k, \min(k, x)),\; k = %d,\;"
        r" a_{-k}, \dots, a_{k} \in \mathbb{R}^{%d}\ (%d\text{ vectors})" % (k, d_model, 2 * k + 1)
    )


def _t5_offsets(length, d_model, base, *, num_heads=8, num_buckets=32, max_distance=128,
                direction="bidirectional", seed=0):
    offsets = _offsets(length)
    index = t5_relative_bucket(offsets, bidirectional=not _causal(direction), num_buckets=num_buckets,
                               max_distance=max_distance)
    return offsets, t5_bucket_values(num_buckets, num_heads, seed=seed)[index].T  # (heads, 2L−1)


def _t5_formula(d_model, base, *, num_buckets=32, max_distance=128, direction="bidirectional", **_):
    causal = _causal(direction)
    per_side = num_buckets if causal else num_buckets // 2
    e = per_side // 2
    n, offset = (r"\max(-r, 0)", "") if causal else (r"|r|", r"%d\,[r > 0] + " % per_side)
    return (
        r"e_{ij} = q_i \cdot k_j + b_{h,\,\operatorname{bucket}(j-i)},\quad n = " + n + r",\quad"
        r" \operatorname{bucket}(r) = " + offset + r"\begin{cases} n & n < %d \\"
        r" \min\!\left(%d,\; %d + \left\lfloor \frac{\ln(n/%d)}{\ln(%d/%d)} \cdot %d \right\rfloor\right)"
        r" & n \ge %d \end{cases}" % (e, per_side - 1, e, e, max_distance, e, per_side - e, e)
    )


def _alibi_offsets(length, d_model, base, *, num_heads=8, direction="bidirectional"):
    offsets = _offsets(length)
    values = -alibi_slopes(num_heads)[:, None] * np.abs(offsets).astype(np.float64)  # (heads, 2L−1)
    return offsets, np.where(_causal(direction) & (offsets > 0), -np.inf, values)


def _bias_from(offset_bias):
    """The registry's ``bias``: the full (heads, length, length) matrix from the per-offset values."""
    def bias(length, d_model, base, **options):
        _, values = offset_bias(length, d_model, base, **options)
        positions = np.arange(length)
        return toeplitz_view(values, positions, positions)
    return bias


def _curve_from(offset_bias):
    """The registry's ``offset_curve``: head 0 of the per-offset values (−inf, masked, as a gap)."""
    def curve(length, d_model, base, **options):
        offsets, values = offset_bias(length, d_model, base, **options)
        return offsets, np.where(np.isneginf(values[0]), np.nan, values[0])
    return curve


def _alibi_formula(d_model, base, *, num_heads=8, direction="bidirectional"):
    h = _check_heads(num_heads)
    p = 2 ** math.floor(math.log2(h))
    slopes = r"m_h = 2^{-8h/%d},\ h = 1, \dots, %d" % (p, p)
    if h > p:
        slopes += r",\quad m_{%d+h'} = 2^{-4(2h'-1)/%d},\ h' = 1, \dots, %d" % (p, p, h - p)
    penalty = r"- m_h\,|i-j|"
    if _causal(direction):
        penalty = r"+ \begin{cases} -m_h\,(i-j) & j \le i \\ -\infty & j > i \end{cases}"
    return r"e_{ij} = q_i \cdot k_j " + penalty + r",\quad " + slopes


_DIRECTION = Option("direction", "Attention", "bidirectional", choices=DIRECTIONS,
                    help="causal: a decoder, each query sees only keys j ≤ i.")
_HEADS = Option("num_heads", "Heads", 8, 1, 64, help="One slope / one learned table column per head.")
_SEED = Option("seed", "Random seed", 0, 0, 9999, help="Seed of the untrained (random) table.")

SCHEMES: tuple[Scheme, ...] = (
    Scheme(
        key="shaw", label="Relative, Shaw et al.", family="bias", paper="Shaw et al. 2018, arXiv:1803.02155",
        formula=_shaw_formula, offset_curve=_curve_from(_shaw_offsets), bias=_bias_from(_shaw_offsets),
        offset_bias=_shaw_offsets,
        curve_label="q·a_clip(Δ) for one fixed unit query (untrained vectors)",
        options=(Option("max_relative_position", "Clipping distance k", 16, 0, 256,
                        help="Offsets beyond ±k share the vectors a_−k and a_k."), _SEED),
    ),
    Scheme(
        key="t5", label="T5 relative bias", family="bias", paper="Raffel et al. 2019, arXiv:1910.10683",
        formula=_t5_formula, offset_curve=_curve_from(_t5_offsets), bias=_bias_from(_t5_offsets),
        offset_bias=_t5_offsets,
        curve_label="logit bias of head 0 (untrained table)",
        options=(
            _HEADS,
            Option("num_buckets", "Buckets", 32, 4, 128,
                   help="32 in T5; halved per direction when bidirectional."),
            Option("max_distance", "Max distance", 128, 2, 4096,
                   help="Offsets from here on share the last bucket."),
            _DIRECTION,
            _SEED,
        ),
    ),
    Scheme(
        key="alibi", label="ALiBi", family="bias", paper="Press et al. 2021, arXiv:2108.12409",
        formula=_alibi_formula, offset_curve=_curve_from(_alibi_offsets), bias=_bias_from(_alibi_offsets),
        offset_bias=_alibi_offsets,
        curve_label="logit bias of head 0 (steepest slope m_1)",
        options=(_HEADS, _DIRECTION),
    ),
)
