"""plotly heatmaps of large matrices, thinned to what a chart can show: arrays in, ``go.Figure`` out.

Rows and columns beyond MAX_CELLS_PER_AXIS are subsampled by an even stride
(:func:`thin_index`): a chart a few hundred pixels high and wide shows no more (the heatmap's plot
is 350 px high). The axes keep their true indices, and the title says how many were skipped. Columns
that the row stride cannot show faithfully (wavelength under 2·stride) can be outlined
(:func:`aliased_marks`).

What a cell's colour can show is sent, no more. Up to MAX_EXACT_CELLS cells travel as float32 (4
bytes each; the hover reads the exact value). Past that (a 256 × 256 table at the caps: 350 KB of
base64 against 87 KB) each cell travels as its level on the colour scale, one byte
(:func:`colour_levels`): 255 levels, fewer than the ~500-1,200 distinct colours a plotly scale draws
in 8 bits per channel, so a level moves a cell's colour by at most 2/255 in one channel
(tests/figures/test_levels.py, for every palette). The colour bar is labelled in true values, and
the exact float32 values stay with the figure on the server (:func:`exact_values`): the chart's
sentence and its Chart data read them. Such a heatmap reaches the browser as the PNG of its levels
(posenc.figures.images.as_images, applied to the chart as it is sent).

"""

from __future__ import annotations

import base64

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from posenc.figures import margins
from posenc.figures.layout import axis, base_layout, figure

DIVERGING = "RdBu_r"  # ColorBrewer RdBu: diverging and colour-blind safe; red > 0 > blue
MAX_CELLS_PER_AXIS = 256  # a heatmap a few hundred pixels wide cannot show more
MAX_EXACT_CELLS = 16_384  # 64 KiB of float32; a heatmap with more cells sends their colour levels
LEVELS = 255  # a value's level on the colour scale: 0 … 254, one byte
NO_VALUE = 255  # the level of a cell with no value (NaN): drawn transparent, a gap as plotly draws NaN
_EXACT = "_posenc_exact"  # the figure's attribute with its heatmaps' exact values (never sent)


def thin_index(size: int, limit: int = MAX_CELLS_PER_AXIS, *, group: int = 1) -> np.ndarray:
    """Indices 0 … size−1 thinned to at most ``limit`` by an even stride.

    ``group`` keeps runs together: group=2 keeps both columns of each (sin, cos)
    pair, so a thinned interleaved table still shows sines and cosines.
    """
    if size <= limit:
        return np.arange(size)
    groups = -(-size // group)
    step = -(-groups // max(limit // group, 1))
    starts = np.arange(0, groups, step) * group
    index = (starts[:, None] + np.arange(group)).ravel()
    return index[index < size]


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def stride_note(index: np.ndarray, size: int, what: str, group: int = 1) -> str:
    """'every 4th position shown' when ``index`` thins 0 … size−1, 'positions 8 … 263 of 4096'
    when it is a window of consecutive indices, else ''."""
    if len(index) >= size:
        return ""
    step = (index[group] - index[0]) // group if len(index) > group else size
    if len(index) > 1 and np.all(np.diff(index) == 1):
        return f"{what} {index[0]} … {index[-1]} of {size}"
    return f"every {_ordinal(int(step))} {what}{' pair' if group == 2 else ''} shown"


def row_stride(rows: np.ndarray) -> int:
    """The stride between the rows shown (1: every row, as in a window)."""
    return int(rows[1] - rows[0]) if len(rows) > 1 else 1


def heatmap(
    matrix: np.ndarray,
    *,
    title: str,
    x_label: str,
    y_label: str,
    zrange: tuple[float, float] | None = (-1.0, 1.0),
    thin: bool = True,
    col_group: int = 1,
    colorscale: str = DIVERGING,
) -> go.Figure:
    """A heatmap of ``matrix`` (rows on y, columns on x) sent as float32.

    ``zrange`` pins the colour scale (centred on 0 when None, so the diverging
    scale keeps its meaning). With ``thin``, rows and columns are subsampled to
    at most MAX_CELLS_PER_AXIS each and the title says so; hover shows the true
    row, column and value of each cell sent.
    """
    rows = thin_index(matrix.shape[0]) if thin else np.arange(matrix.shape[0])
    cols = thin_index(matrix.shape[1], group=col_group) if thin else np.arange(matrix.shape[1])
    return cells_heatmap(matrix[np.ix_(rows, cols)], rows, cols, matrix.shape, title=title, x_label=x_label,
                         y_label=y_label, zrange=zrange, col_group=col_group, colorscale=colorscale)


def position_heatmap(
    matrix: np.ndarray, positions: np.ndarray, length: int, *, title: str, x_label: str, y_label: str,
    zrange: tuple[float, float] | None = None,
) -> go.Figure:
    """A heatmap of a (position × position) ``matrix`` already taken at ``positions`` of 0 … length−1.

    For matrices built only at the positions shown (similarity, bias, score): the axes show
    the true positions and the title says how they were thinned.
    """
    return cells_heatmap(matrix, positions, positions, (length, length), title=title, x_label=x_label,
                         y_label=y_label, zrange=zrange)


def cells_heatmap(
    values: np.ndarray, rows: np.ndarray, cols: np.ndarray, full_shape: tuple[int, int], *, title: str,
    x_label: str, y_label: str, zrange: tuple[float, float] | None, col_group: int = 1,
    colorscale: str = DIVERGING, aliased: np.ndarray | None = None,
) -> go.Figure:
    """The heatmap of ``values`` (the cells at ``rows`` × ``cols`` of a ``full_shape`` matrix), as float32.

    ``aliased``: the columns (of those shown) that the row stride cannot show faithfully;
    they are outlined and labelled "aliased at this stride" (see :func:`mark_aliased`).
    """
    wide = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore"):  # a value past float32's range becomes inf here: said and drawn below
        z = wide.astype(np.float32)
    overflow = ~np.isfinite(z) & ~np.isnan(wide)  # past ±3.4e38, or infinite already
    z[overflow] = np.nan  # a gap in the colour scale, filled by the overflow trace
    if zrange is None:
        finite = np.abs(z[np.isfinite(z)])
        bound = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
        zrange = (-bound, bound)
    notes = [n for n in dict.fromkeys((stride_note(rows, full_shape[0], y_label),
                                       stride_note(cols, full_shape[1], x_label, col_group))) if n]
    categorical = col_group > 1 and len(cols) < full_shape[1] and not np.all(np.diff(cols) == 1)
    x = [str(c) for c in cols] if categorical else np.asarray(cols)
    levelled = z.size > MAX_EXACT_CELLS
    if levelled:
        trace = level_trace(z, zrange, colorscale, x_label, y_label)
    else:
        ticks = nice_ticks(*zrange)
        trace = dict(type="heatmap", z=z, zmin=zrange[0], zmax=zrange[1], colorscale=colorscale,
                     colorbar=margins.bar(dict(tickmode="array", tickvals=list(ticks), ticktext=tick_text(ticks))),
                     hovertemplate=f"{y_label} %{{y}}<br>{x_label} %{{x}}<br>value %{{z:.6g}}<extra></extra>")
    trace.update(x=x, y=np.asarray(rows))
    shown_aliased = np.isin(cols, aliased) if aliased is not None else np.zeros(len(cols), bool)
    if shown_aliased.any():
        notes.append(f"{int(shown_aliased.sum())} {x_label}s with wavelength under 2 × {row_stride(rows)} "
                     "marked: aliased at this stride")
    traces = [trace]
    if overflow.any():
        notes.append(f"{int(overflow.sum())} of {overflow.size} cells shown are beyond float32's range "
                     f"(|value| > {float(np.finfo(np.float32).max):.3g}): drawn black")
        traces.append(overflow_trace(overflow, trace["x"], trace["y"], x_label, y_label, levelled))
    exact = "" if overflow.any() else (" (colours in 255 levels; exact values in Chart data)" if levelled
                                       else " (all values are exact)")
    subtitle = f"<br><sup>{'; '.join(notes)}{exact}</sup>" if notes else ""
    layout = base_layout(title + subtitle, height=480)
    layout["xaxis"] = axis(x_label, nticks=12, **({"type": "category"} if categorical else {}))
    layout["yaxis"] = axis(y_label, autorange="reversed")
    if shown_aliased.any():
        layout.update(aliased_marks(np.asarray(cols), np.asarray(aliased), row_stride(rows), categorical))
    margins.hold(layout, y_labels=margins.integer_labels(np.asarray(rows).max(initial=0)), bar=trace["colorbar"])
    fig = figure(traces, layout)
    if levelled:
        setattr(fig, _EXACT, {0: z})
    return fig


def colour_levels(values: np.ndarray, zrange: tuple[float, float]) -> np.ndarray:
    """Each value's level on a colour scale spanning ``zrange``, as uint8:

        level = round((v − zmin) / (zmax − zmin) · 254), clipped to 0 … 254 (plotly clamps the colour too),

    and NO_VALUE (255) where v is NaN. zmin is level 0 and zmax level 254, exactly."""
    low, high = zrange
    span = high - low if high > low else 1.0
    with np.errstate(invalid="ignore"):
        scaled = np.rint((np.asarray(values, dtype=np.float64) - low) / span * (LEVELS - 1))
    levels = np.clip(np.nan_to_num(scaled, nan=NO_VALUE), 0, LEVELS - 1).astype(np.uint8)
    levels[np.isnan(values)] = NO_VALUE
    return levels


def level_value(levels: np.ndarray, zrange: tuple[float, float]) -> np.ndarray:
    """The value at the centre of each level (NaN for NO_VALUE): within half a level, (zmax − zmin)/508, of the
    value that was levelled, for a value inside ``zrange``."""
    low, high = zrange
    levels = np.asarray(levels)
    values = low + levels.astype(np.float64) * ((high - low) / (LEVELS - 1))
    return np.where(levels == NO_VALUE, np.nan, values)


def level_colorscale(colorscale: str | list) -> list[list]:
    """``colorscale`` over the levels 0 … 254 (plotly's zmin = 0, zmax = 255), and level 255 transparent: a cell
    with no value is a gap, as a NaN is."""
    stops = plotly.colors.get_colorscale(colorscale) if isinstance(colorscale, str) else colorscale
    top = (LEVELS - 1) / LEVELS
    return [[float(at) * top, colour] for at, colour in stops] + [[1.0, "rgba(0,0,0,0)"]]


def nice_ticks(low: float, high: float, count: int = 7) -> np.ndarray:
    """About ``count`` round values (steps of 1, 2, 2.5 or 5 × 10^k) from ``low`` to ``high``, both ends included
    when they are round."""
    if not high > low:
        return np.array([low])
    raw = (high - low) / max(count - 1, 1)
    power = 10.0 ** np.floor(np.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw * (1 - 1e-9))
    first = np.ceil(low / step - 1e-9) * step
    ticks = np.arange(first, high + step * 1e-9, step)
    return np.where(np.abs(ticks) < step * 1e-9, 0.0, ticks)


def tick_text(ticks: np.ndarray) -> list[str]:
    """Tick labels as plotly writes a linear axis's: no trailing zeros ('−0.5', '0', '1'), a true minus sign;
    3 significant digits past 10⁵ or under 10⁻³."""
    big = np.abs(ticks).max(initial=0.0)
    text = [f"{t:.3g}" if big >= 1e5 or 0 < big < 1e-3 else f"{t:.10f}".rstrip("0").rstrip(".") for t in ticks]
    return [t.replace("-", "−") for t in text]


def level_trace(z: np.ndarray, zrange: tuple[float, float], colorscale: str | list, x_label: str, y_label: str) -> dict:
    """The heatmap trace of ``z`` sent as colour levels (one byte a cell): the colour bar labelled in true values
    at round ticks, the hover naming the cell (its exact value is in the Chart data under the chart, from
    :func:`exact_values`), and ``meta.levels`` the zrange, so that a reader of the trace alone can turn levels
    back into values (:func:`level_value`)."""
    ticks = nice_ticks(*zrange)
    step = (zrange[1] - zrange[0]) / (LEVELS - 1) if zrange[1] > zrange[0] else 1.0
    return dict(type="heatmap", z=colour_levels(z, zrange), zmin=0, zmax=LEVELS, colorscale=level_colorscale(colorscale),
                colorbar=margins.bar(dict(tickmode="array", tickvals=list((ticks - zrange[0]) / step),
                                          ticktext=tick_text(ticks))),
                meta=dict(levels=[float(zrange[0]), float(zrange[1])]),
                hovertemplate=f"{y_label} %{{y}}<br>{x_label} %{{x}}<br>exact value: Chart data, under the chart"
                              "<extra></extra>")


def exact_values(fig: go.Figure, number: int, trace) -> np.ndarray | None:
    """The values of heatmap trace ``number`` of ``fig``: the exact float32 cells kept on the figure when its trace
    sends colour levels; else the levels' values (a copy of the figure, e.g. restyled, keeps only its trace);
    else the trace's own z (None without one)."""
    kept = getattr(fig, _EXACT, {}).get(number)
    if kept is not None:
        return kept
    if trace.z is None:
        return None
    meta = trace.meta if isinstance(trace.meta, dict) else {}
    z = typed_array(trace.z)
    return level_value(z, tuple(meta["levels"])) if "levels" in meta else z


def typed_array(value) -> np.ndarray:
    """An array as a figure holds it: a list, a numpy array, or plotly's base64 typed array ({dtype, bdata, shape},
    what a figure rebuilt from its own dict keeps)."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]).newbyteorder("<"))
        shape = value.get("shape")
        shape = [int(n) for n in shape.split(",")] if isinstance(shape, str) else shape
        return array.reshape(shape) if shape else array
    return np.asarray(value)


def overflow_trace(overflow: np.ndarray, x, y, x_label: str, y_label: str, levelled: bool = False) -> dict:
    """The cells whose value is beyond float32's range (±3.4e38) as black cells over the heatmap, so they are
    drawn as such instead of vanishing: a float32 cast makes them ±inf, which plotly leaves blank. With
    ``levelled`` one byte a cell (1 black, 0 transparent) instead of a float32 (1 or NaN)."""
    if levelled:
        z, scale = overflow.astype(np.uint8), [[0, "rgba(0,0,0,0)"], [1, "#000000"]]
    else:
        z, scale = np.where(overflow, 1.0, np.nan).astype(np.float32), [[0, "#000000"], [1, "#000000"]]
    return dict(type="heatmap", z=z, x=x, y=y, zmin=0, zmax=1, colorscale=scale, showscale=False, name="beyond float32",
                hovertemplate=f"{y_label} %{{y}}<br>{x_label} %{{x}}<br>beyond float32's range<extra></extra>")


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) index of every run of True in ``flags``."""
    edges = np.diff(np.concatenate([[0], flags.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1))


def aliased_marks(cols: np.ndarray, aliased: np.ndarray, stride: int, categorical: bool) -> dict:
    """Layout entries that outline the shown columns listed in ``aliased``: sampled every ``stride``
    rows, a column whose wavelength is under 2·stride draws slow stripes that are not in the data.
    The column numbers and the stride are also kept in ``layout.meta``."""
    flags = np.isin(cols, aliased)
    shapes = []
    for first, last in _runs(flags):
        if categorical:
            x0, x1 = first - 0.5, last + 0.5
        else:
            half = (cols[1] - cols[0]) / 2 if len(cols) > 1 else 0.5
            x0, x1 = float(cols[first] - half), float(cols[last] + half)
        shapes.append(dict(type="rect", xref="x", yref="y domain", x0=x0, x1=x1, y0=0, y1=1, layer="above",
                           line=dict(color="#222222", width=2, dash="dot"), fillcolor="rgba(255,255,255,0.45)",
                           name="aliased at this stride",
                           label=dict(text="aliased at this stride", textangle=-90,
                                      font=dict(size=13, color="#222222"))))
    return dict(shapes=shapes, meta=dict(aliased=[int(c) for c in cols[flags]], stride=int(stride)))
