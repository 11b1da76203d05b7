"""Registry entries of the relative (bias) schemes: Shaw et al., T5 and ALiBi.

Every callable has the registry's signature fn(length, d_model, base, **options); the
sinusoidal base is unused here. Each scheme's bias depends only on the offset j − i, so
it is given per offset (``offset_bias``) and the full matrix and the curve derive from it.
"""

from __future__ import annotations

import math

import numpy as np

from posenc._checks import check_choice, check_d_model, check_length, check_size
from posenc.analysis import toeplitz_view
from posenc.relative import (
    DIRECTIONS,
    _check_buckets,
    _check_heads,
    _check_max_relative_position,
    alibi_slopes,
    shaw_embeddings,
    shaw_query,
    t5_bucket_values,
    t5_relative_bucket,
)
from posenc.absolute import _check_seed
from posenc.scheme import Option, Scheme

# --- registry entries: fn(length, d_model, base, **options); base is unused here ---


def _offsets(length: int) -> np.ndarray:
    length = check_length(length)
    return np.arange(-(length - 1), length)


def _causal(direction: str) -> bool:
    return check_choice(direction, "direction", DIRECTIONS) == "causal"


def _shaw_offsets(length, d_model, base, *, max_relative_position=16, seed=0):
    """The term a_clip(j−i) adds to e_ij: q·a_clip(j−i)/√d, for one fixed unit query."""
    offsets, k = _offsets(length), _check_max_relative_position(max_relative_position)
    scores = shaw_embeddings(k, d_model, seed=seed) @ shaw_query(d_model, seed=seed)  # (2k+1,)
    return offsets, scores[np.clip(offsets, -k, k) + k][None, :] / np.sqrt(d_model)  # one head: d_head = d_model


def _shaw_formula(d_model, base, *, max_relative_position=16, seed=0):
    k, d_model = _check_max_relative_position(max_relative_position), check_d_model(d_model)
    _check_seed(seed)
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


def _t5_formula(d_model, base, *, num_heads=8, num_buckets=32, max_distance=128, direction="bidirectional",
                seed=0):
    check_d_model(d_model), _check_heads(num_heads), _check_seed(seed)
    causal = _causal(direction)
    per_side, e, max_distance = _check_buckets(not causal, num_buckets, max_distance)
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
        _, values = offset_bias(length, d_model, base, **options)  # (heads, 2L − 1)
        length = check_length(length)
        check_size((len(values), length, length), "the bias matrix")
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
    h, _ = _check_heads(num_heads), check_d_model(d_model)
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
        curve_label="q·a_clip(Δ)/√d for one fixed unit query (untrained vectors)",
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
