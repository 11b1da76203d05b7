"""Every scheme's offset curve, at every offset of a length or at chosen offsets only.

The curve every scheme shares (the Comparison page's, the registry's ``offset_curve``): how the attention
logit bias, or the similarity of two encodings, depends on the offset Δ = j − i. The registry builds what
it measures (the sinusoidal table and its autocorrelation by FFT: about 1 s at 4096 × 1024); each scheme
also states its curve's formula, once, in its own module (posenc.schemes), evaluated two ways:

- :func:`offset_curve`: every offset −(L − 1) … L − 1 of a length L (the Comparison page), by the entry's
  ``offset_curve_fast`` (the sums over pairs by angle addition,
  :func:`posenc.schemes.offsets.cosine_sums_every_offset`: a few hundred transcendental calls per pair
  instead of one per offset);
- :func:`offset_curve_at`: only the offsets drawn (:func:`log_offsets`: a few hundred, log-spaced), as far
  as a released model's real context (Llama 4 Scout's 10,485,760), by the entry's ``offset_curve_at``, one
  term per offset and pair: O(offsets × d), never a length × length matrix nor a table of the whole length.

Both equal the registry's ``offset_curve`` (tests/analysis/test_offset_curves.py).
"""

from __future__ import annotations

import numpy as np

from posenc.checks import check_int
from posenc.schemes.registry import get_scheme
from posenc.schemes.scheme import Setting

MAX_CONTEXT = 1 << 24
"""The longest context a curve reaches (16,777,216 positions; Llama 4 Scout's is 10,485,760)."""
MAX_OFFSETS = 1 << 16
"""The most offsets one call of :func:`offset_curve_at` evaluates (65,536): a chart draws a few hundred."""


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


def offset_curve(scheme: str, length: int, d_model: int, base: float, **options: object,
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The scheme's ``offset_curve`` (the registry's numbers) at every offset −(L − 1) … L − 1, by its
    ``offset_curve_fast``: a closed form where one exists, the rows a learned table has, otherwise the
    registry's own curve (already per offset, no table)."""
    return get_scheme(scheme).offset_curve_fast(Setting(length, d_model, base, options))


def offset_curve_at(scheme: str, offsets: object, length: int, d_model: int, base: float,
                    **options: object) -> np.ndarray:
    """The registry's ``offset_curve(length, …)`` of ``scheme`` at ``offsets`` only (|Δ| < length ≤ 2^24),
    by its ``offset_curve_at`` with every option given (its defaults, then ``options``):
    O(len(offsets) × d_model), no table, no length × length matrix."""
    entry = get_scheme(scheme)
    length = check_context(length)
    offsets = _checked_offsets(offsets, length)
    unknown = sorted(set(options) - set(entry.defaults()))
    if unknown and not entry.checks_own_options:
        raise ValueError(f"{entry.label} has no option {', '.join(unknown)}; its options are "
                         f"{', '.join(entry.defaults()) or 'none'}.")
    return entry.offset_curve_at(Setting(length, d_model, base, entry.defaults() | options), offsets)
