"""Every scheme's offset curve at chosen offsets, as far as a released model's real context.

The registry's ``offset_curve`` gives every offset −(L − 1) … L − 1 of a length L (and the absolute
schemes build their table to get it); at Llama 3.1's 131,072 positions or Llama 4 Scout's 10,485,760
that is millions of points no chart can draw. Here each curve is evaluated only at the offsets drawn
(:func:`log_offsets`: a few hundred, log-spaced), from the scheme's formula per offset: the cost is
O(offsets × d), never a length × length matrix nor a table of the whole length. At the offsets of a
length the registry can build, the numbers equal its ``offset_curve``'s (tests/analysis/test_reach.py).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable

import numpy as np

from posenc.analysis.curves import learned_similarity
from posenc.checks import check_d_model, check_finite, check_int
from posenc.schemes.alibi import alibi_slopes
from posenc.schemes.bias import is_causal
from posenc.schemes.kerple import kerple_kernel
from posenc.schemes.registry import get_scheme
from posenc.schemes.rope.entry import rope_keywords
from posenc.schemes.rope.frequencies import rope_inv_freq
from posenc.schemes.shaw import shaw_embeddings, shaw_query
from posenc.schemes.sinusoidal import frequencies
from posenc.schemes.t5 import t5_bucket_values, t5_relative_bucket
from posenc.schemes.transformer_xl import relative_sinusoid_weights
from posenc.schemes.xpos import xpos_keywords, xpos_theta, xpos_zeta

MAX_CONTEXT = 1 << 24
"""The longest context a curve reaches (16,777,216 positions; Llama 4 Scout's is 10,485,760)."""
MAX_OFFSETS = 1 << 16
"""The most offsets one call evaluates (65,536): a chart draws a few hundred."""


def check_context(length: object) -> int:
    """A context length: a whole number from 1 to MAX_CONTEXT."""
    return check_int(length, "length", minimum=1, maximum=MAX_CONTEXT,
                     meaning="the context, in positions, the offsets lie in")


def log_offsets(length: int, count: int = 256) -> np.ndarray:
    """0, 1 and about ``count`` whole distances up to length − 1, spaced evenly on a log axis (int64, sorted,
    no repeats: below ~count/ln(length) every whole distance is kept, since rounding merges them)."""
    length = check_context(length)
    count = check_int(count, "count", minimum=2, maximum=MAX_OFFSETS, meaning="how many offsets to draw")
    if length == 1:
        return np.zeros(1, dtype=np.int64)
    spaced = np.rint(np.geomspace(1.0, length - 1, count)).astype(np.int64)
    return np.unique(np.concatenate([[0, 1], spaced, [length - 1]]))


def _checked_offsets(offsets: object, length: int) -> np.ndarray:
    """Whole offsets Δ = j − i with |Δ| < length, as int64."""
    offsets = np.asarray(offsets)
    if offsets.ndim != 1 or (offsets.size and offsets.dtype.kind not in "iu"):
        raise ValueError("offsets must be a 1-D array of whole offsets j − i.")
    if offsets.size > MAX_OFFSETS:
        raise ValueError(f"offsets must hold at most {MAX_OFFSETS:,} values (a chart's points); got {offsets.size:,}.")
    offsets = offsets.astype(np.int64)
    if offsets.size and np.abs(offsets).max() >= length:
        raise ValueError(f"offsets must lie between −{length - 1:,} and {length - 1:,} (length = {length:,}); "
                         f"got {offsets.min():,} … {offsets.max():,}.")
    return offsets


def _cosines(offsets: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Σ_i cos(Δ·θ_i) for each offset, one cosine per (offset, frequency): (offsets,)."""
    return np.cos(np.abs(offsets).astype(np.float64)[:, None] * theta).sum(axis=1)


# --- absolute schemes: the mean similarity PE[i]·PE[i+Δ] -----------------------------------------


def _unpaired_sine(offsets: np.ndarray, length: int, theta: float) -> np.ndarray:
    """The mean over i < n = L − |Δ| of sin(iθ)·sin((i + |Δ|)θ) (an odd d_model's last column, a sine alone):
    sin a·sin b = ½(cos(a − b) − cos(a + b)) and Σ_{i<n} cos((2i + |Δ|)θ) = sin(nθ)·cos((n − 1 + |Δ|)θ)/sin θ
    (a Dirichlet sum) give ½cos(Δθ) − sin(nθ)·cos((n − 1 + |Δ|)θ) / (2n·sin θ)."""
    distance = np.abs(offsets).astype(np.float64)
    n = length - distance  # ≥ 1: the offsets are checked below the length
    sine = math.sin(theta)
    if sine == 0.0:  # θ = 0 (an underflowed frequency): the column is all zeros
        return np.zeros(len(offsets))
    return 0.5 * np.cos(distance * theta) - np.sin(n * theta) * np.cos((n - 1 + distance) * theta) / (2.0 * n * sine)


def _sinusoidal(offsets, length, d_model, base, *, layout="interleaved", spacing="vaswani"):
    """s(Δ) = Σ_i cos(Δθ_i) over the (sin, cos) pairs (Vaswani et al., arXiv:1706.03762, §3.5: each pair gives
    sin(iθ)sin((i+Δ)θ) + cos(iθ)cos((i+Δ)θ) = cos(Δθ) at every i), plus an odd d_model's :func:`_unpaired_sine`."""
    d_model = check_d_model(d_model)
    if layout not in ("interleaved", "split"):
        raise ValueError(f"layout must be 'interleaved' or 'split'; got {layout!r}.")
    if layout == "split" and d_model % 2:
        raise ValueError(f"The split layout needs an even d_model; got {d_model}.")
    theta = frequencies(d_model, base, spacing=spacing)
    values = _cosines(offsets, theta[: d_model // 2])
    return values + _unpaired_sine(offsets, length, float(theta[-1])) if d_model % 2 else values


def _learned(offsets, length, d_model, base, *, table_size, seed):
    """The rows the table has (at most table_size ≤ 4096, by the registry's own route); NaN past them."""
    table_size = check_int(table_size, "table_size", minimum=1, meaning="the number of learned positions")
    rows = min(length, table_size)
    _, values = learned_similarity(rows, d_model, base, table_size=table_size, seed=seed)  # offsets −(rows−1)…
    result = np.full(len(offsets), np.nan)
    hit = np.abs(offsets) < rows
    result[hit] = values[offsets[hit] + rows - 1]
    return result


def _nope(offsets, length, d_model, base):
    check_d_model(d_model)
    return np.zeros(len(offsets))


# --- rotary schemes: the score of q = k = (1, …, 1) --------------------------------------------------


def _rope(offsets, length, d_model, base, **options):
    """score(Δ) = (2s²·Σ_i cos(Δθ_i) + d − d_rot) / d with θ and s the scaling's at seq_len = length
    (RoFormer, arXiv:2104.09864; as :func:`posenc.analysis.curves.rope_scores_at`)."""
    d_model = check_d_model(d_model)
    keywords = rope_keywords(dict(options))
    keywords.pop("layout", None)
    fraction = keywords.pop("rotary_fraction", 1.0)
    theta, scale = rope_inv_freq(d_model, base, seq_len=length, rotary_fraction=fraction, **keywords)
    return (2.0 * scale**2 * _cosines(offsets, theta) + (d_model - 2 * len(theta))) / d_model


def _xpos(offsets, length, d_model, base, **options):
    """score(Δ) = Σ_i 2·ζ_i^(−Δ/γ)·cos(Δθ_i) / d (Sun et al., arXiv:2212.10554): the key after the query
    grows as ζ_i^(−Δ/γ), so far positive offsets overflow and are refused."""
    d_model = check_d_model(d_model)
    gamma = xpos_keywords(dict(options))["scale_base"]
    theta, log_zeta = xpos_theta(d_model, base), np.log(xpos_zeta(d_model))
    delta = offsets.astype(np.float64)[:, None]
    with np.errstate(over="ignore", invalid="ignore"):
        terms = np.exp(-delta * log_zeta / gamma) * np.cos(delta * theta)
        values = terms.sum(axis=1) * 2.0 / d_model
    return check_finite(values, "the xPos score")


# --- bias schemes: head 0's logit bias (−inf, a masked offset, as NaN) ------------------------------


def _masked(values: np.ndarray, offsets: np.ndarray, causal: bool) -> np.ndarray:
    return np.where(causal & (offsets > 0), np.nan, values)


def _shaw(offsets, length, d_model, base, *, max_relative_position, seed):
    """q·a_clip(Δ, k)/√d for the seeded unit query (Shaw et al., arXiv:1803.02155)."""
    d_model = check_d_model(d_model)
    scores = shaw_embeddings(max_relative_position, d_model, seed=seed) @ shaw_query(d_model, seed=seed)  # (2k+1,)
    k = len(scores) // 2  # max_relative_position, checked by shaw_embeddings
    return scores[np.clip(offsets, -k, k) + k] / np.sqrt(d_model)


def _t5(offsets, length, d_model, base, *, num_heads, num_buckets, max_distance, direction, seed):
    """b[bucket(Δ), 0]: head 0's learned scalar of the offset's bucket (Raffel et al., arXiv:1910.10683)."""
    check_d_model(d_model)
    index = t5_relative_bucket(offsets, bidirectional=not is_causal(direction), num_buckets=num_buckets,
                               max_distance=max_distance)
    return t5_bucket_values(num_buckets, num_heads, seed=seed)[index, 0]


def _alibi(offsets, length, d_model, base, *, num_heads, direction):
    """−m_0·|Δ| (Press et al., arXiv:2108.12409), head 0's slope; causal: none for Δ > 0."""
    check_d_model(d_model)
    values = -alibi_slopes(num_heads)[0] * np.abs(offsets).astype(np.float64)
    return _masked(values, offsets, is_causal(direction))


def _kerple(offsets, length, d_model, base, *, r1, r2, variant):
    """−r1·ln(1 + r2·|Δ|) or −r1·|Δ|^r2 (Chi et al., arXiv:2205.09921); none for Δ > 0 (causal)."""
    check_d_model(d_model)
    return _masked(kerple_kernel(np.abs(offsets), r1, r2, variant), offsets, True)


def _transformer_xl(offsets, length, d_model, base, *, seed):
    """b(−Δ) = Σ_s ρ_s·sin(−Δθ_s + φ_s)/√d for Δ ≤ 0 (Dai et al., arXiv:1901.02860, terms (b) + (d) of one
    query; as :func:`posenc.schemes.transformer_xl.transformer_xl_position_bias`); none for Δ > 0."""
    d_model = check_d_model(d_model)
    if d_model % 2:
        raise ValueError(f"Transformer-XL's relative sinusoid needs an even d_model; got {d_model}.")
    amplitude, shift = relative_sinusoid_weights(d_model, seed)
    distance = np.maximum(-offsets, 0).astype(np.float64)[:, None]
    values = (amplitude * np.sin(distance * frequencies(d_model, base) + shift)).sum(axis=1) / np.sqrt(d_model)
    return _masked(values, offsets, True)


CURVES_AT: dict[str, Callable[..., np.ndarray]] = {
    "sinusoidal": _sinusoidal,
    "learned": _learned,
    "nope": _nope,
    "rope": _rope,
    "xpos": _xpos,
    "shaw": _shaw,
    "t5": _t5,
    "alibi": _alibi,
    "kerple": _kerple,
    "transformer_xl": _transformer_xl,
}
"""Each scheme's offset curve at chosen offsets, by registry key: fn(offsets, length, d_model, base,
**options) -> (len(offsets),) float64, with the offsets checked (|Δ| < length) and every option given
(the registry's defaults merged with the caller's). Equal to the registry's ``offset_curve`` at those
offsets. A new scheme adds its key here: its curve's formula for one offset at a time."""


def curve_at(scheme: str, offsets: object, length: int, d_model: int, base: float,
             **options: object) -> np.ndarray:
    """The registry's ``offset_curve(length, …)`` of ``scheme`` at ``offsets`` only (|Δ| < length ≤ 2^24),
    from :data:`CURVES_AT`: O(len(offsets) × d_model), no table, no length × length matrix."""
    entry = get_scheme(scheme)
    length = check_context(length)
    offsets = _checked_offsets(offsets, length)
    function = CURVES_AT[scheme]
    if not any(p.kind is p.VAR_KEYWORD for p in inspect.signature(function).parameters.values()):
        unknown = sorted(set(options) - set(entry.defaults()))  # a **options route checks its own
        if unknown:
            raise ValueError(f"{entry.label} has no option {', '.join(unknown)}; its options are "
                             f"{', '.join(entry.defaults()) or 'none'}.")
    return function(offsets, length, d_model, base, **(entry.defaults() | options))
