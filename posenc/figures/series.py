"""A long line chart's series sent as what it shows: a figure dict's long scatter traces, lighter on the wire.

At the caps a line chart's series are thousands of float64 values on thousands of integer positions: the
Comparison page sent 1.3 MB at every d_model move (ten curves over 8,191 offsets), ALiBi's How it works 1.0 MB.
What a reader gets of such a series is its line (a few hundred pixels) and each point's hover, whose template
prints the value to N significant digits (``%{y:.6g}``: posenc's charts print six). So a trace of at least
:data:`MIN_POINTS` points is sent as:

    x = x0 + i·dx               integer positions evenly spaced: ``x0`` and ``dx`` instead of the array
                                (plotly.js computes the same integers; the hover prints them alike)
    y → float32(round_N(y))     every value rounded to the N significant digits its hover prints, then sent
                                as float32 (4 bytes instead of 8)

Why the hover still prints the digits of the exact value: round_N(y) is a number with N significant digits, so
the nearest point at which rounding to N digits changes is half a unit of its N-th digit away, at least
0.5·10⁻ᴺ of its size (5·10⁻⁷ for N = 6). float32 moves it by at most 2⁻²⁴ ≈ 6·10⁻⁸ of its size, less than
that, so the float32 value rounds to round_N(y) again: the hover prints exactly what it printed for y. This
holds for N ≤ 6 (N = 7 would not leave room), for values inside float32's normal range, and for a hover that
shows y only through ``:.Ng`` formats; a trace that does not pass every condition is sent as it is. A line
moves by under 10⁻⁵ of the axis: nothing a screen shows.

Only what is sent changes (:func:`as_sent` is applied to the figure dict handed to the chart, as
posenc.figures.images is): the figure on the server keeps its exact values, which the chart's sentence and its
Chart data read. An animation's frames are left as they are.
"""

from __future__ import annotations

import base64
import re

import numpy as np

from posenc.figures import images
from posenc.figures.heatmaps import typed_array

MIN_POINTS = 256  # a shorter series sends under 3 KB of values: left as it is
MAX_DIGITS = 6  # float32's 24 bits keep N ≤ 6 significant digits exactly as printed (the module's docstring)
_FLOAT32_TINY = float(np.finfo(np.float32).tiny)  # the smallest normal float32; below it float32 loses digits
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_Y_IN_TEMPLATE = re.compile(r"%\{y(?::([^}]*))?\}")
_SIGNIFICANT = re.compile(r"\.([1-9])g")
_AXIS_TYPES = {None, "-", "linear", "log"}  # a category or date axis reads x otherwise: left as it is


def as_sent(spec: dict) -> dict:
    """``spec`` (a figure dict, changed in place and returned) with each long scatter trace's evenly spaced integer
    x sent as ``x0``, ``dx`` and its y as the float32 of the digits its hover prints (the module's docstring)."""
    layout = spec.get("layout") or {}
    for trace in spec.get("data") or []:
        if trace.get("type", "scatter") != "scatter":
            continue
        _even_x(trace, layout)
        _shown_y(trace)
    return spec


def _even_x(trace: dict, layout: dict) -> None:
    """x as ``x0``, ``dx``: integers, at least MIN_POINTS of them, one step apart from each other."""
    if trace.get("x") is None or "x0" in trace or "dx" in trace:
        return
    if images.axis_of(layout, trace, "x").get("type") not in _AXIS_TYPES:
        return
    x = typed_array(trace["x"])
    if x.ndim != 1 or len(x) < MIN_POINTS or x.dtype.kind not in "iu":
        return
    placed = images.even_spacing(x)
    if placed is None:
        return
    del trace["x"]
    trace["x0"], trace["dx"] = int(placed[0]), int(placed[1])


def _shown_y(trace: dict) -> None:
    """y as the float32 of round_N(y), when the hover prints y to N ≤ MAX_DIGITS significant digits alone."""
    digits = hover_digits(trace)
    if digits is None or trace.get("y") is None:
        return
    y = typed_array(trace["y"])
    if y.ndim != 1 or len(y) < MIN_POINTS or y.dtype != np.float64:
        return
    rounded = round_significant(y, digits)
    size = np.abs(rounded[np.isfinite(rounded) & (rounded != 0)])
    if size.size and (size.min() < _FLOAT32_TINY or size.max() > _FLOAT32_MAX):
        return
    # as plotly writes a typed array (a numpy array put here would be written as a JSON list)
    trace["y"] = {"dtype": "f4", "bdata": base64.b64encode(rounded.astype("<f4").tobytes()).decode("ascii")}


def hover_digits(trace: dict) -> int | None:
    """N, when every way the trace shows y is its hover template's ``%{y:.Ng}`` with one N ≤ MAX_DIGITS; else None
    (no template: plotly's own hover label; ``%{y}`` bare; another format; text templates; y shown otherwise)."""
    template = trace.get("hovertemplate")
    if not isinstance(template, str) or any(trace.get(key) is not None for key in ("texttemplate", "text")):
        return None
    formats = _Y_IN_TEMPLATE.findall(template)
    found = {_SIGNIFICANT.fullmatch(spec) for spec in formats}
    if not formats or None in found:
        return None
    digits = {int(match.group(1)) for match in found}
    return digits.pop() if len(digits) == 1 and max(digits) <= MAX_DIGITS else None


def round_significant(values: np.ndarray, digits: int) -> np.ndarray:
    """Each value rounded to ``digits`` significant digits as ``f"{v:.{digits}g}"`` rounds it (correctly, from the
    exact binary value), within an ulp of the double nearest that decimal; NaN, ±inf and zeros kept. Vectorized; a
    value whose scaled remainder lies within 10⁻⁶ of a half (where the vectorized arithmetic could round the other
    way), whose rounding changes its count of digits, or whose scale is subnormal, is rounded by Python's formatting
    itself."""
    values = np.asarray(values, dtype=np.float64)
    out = values.copy()
    finite = np.isfinite(values) & (values != 0)
    v = values[finite]
    with np.errstate(all="ignore"):  # a subnormal's scale underflows: formatted by Python below
        exponent = np.floor(np.log10(np.abs(v))) - (digits - 1)
        scale = 10.0 ** exponent
        scaled = v / scale
        whole = np.rint(scaled)
        rounded = whole * scale
        near_half = np.abs(np.abs(scaled - np.trunc(scaled)) - 0.5) < 1e-6
        # log10 of a value just under a power of ten can land on the power, and a value can round up to the next
        # one: the whole number then has digits - 1 or digits + 1 digits; Python's formatting decides those
        wrong_size = ~np.isfinite(scaled) | (np.abs(whole) < 10.0 ** (digits - 1)) | (np.abs(whole) >= 10.0 ** digits)
        wrong_size |= scale < np.finfo(np.float64).tiny  # a subnormal scale holds few digits
    exact = near_half | wrong_size
    rounded[exact] = [float(f"{value:.{digits}g}") for value in v[exact]]
    out[finite] = rounded
    return out
