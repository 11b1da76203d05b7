"""plotly heatmaps of large matrices, thinned to what a chart can show: arrays in, ``go.Figure`` out.

Rows and columns beyond MAX_CELLS_PER_AXIS are subsampled by an even stride
(:func:`thin_index`); the cells that are sent keep their true values, the axes their true
indices, and the title says how many were skipped. Columns that the row stride cannot show
faithfully (wavelength under 2·stride) can be outlined (:func:`aliased_marks`).

"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posenc.figures.layout import axis, base_layout, figure

DIVERGING = "RdBu_r"  # ColorBrewer RdBu: diverging and colour-blind safe; red > 0 > blue
MAX_CELLS_PER_AXIS = 256  # a heatmap a few hundred pixels wide cannot show more


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
    trace = dict(
        type="heatmap", z=z, x=[str(c) for c in cols] if categorical else np.asarray(cols), y=np.asarray(rows),
        zmin=zrange[0], zmax=zrange[1], colorscale=colorscale, colorbar=dict(thickness=14),
        hovertemplate=f"{y_label} %{{y}}<br>{x_label} %{{x}}<br>value %{{z:.6g}}<extra></extra>",
    )
    shown_aliased = np.isin(cols, aliased) if aliased is not None else np.zeros(len(cols), bool)
    if shown_aliased.any():
        notes.append(f"{int(shown_aliased.sum())} {x_label}s with wavelength under 2 × {row_stride(rows)} "
                     "marked: aliased at this stride")
    traces = [trace]
    if overflow.any():
        notes.append(f"{int(overflow.sum())} of {overflow.size} cells shown are beyond float32's range "
                     f"(|value| > {float(np.finfo(np.float32).max):.3g}): drawn black")
        traces.append(overflow_trace(overflow, trace["x"], trace["y"], x_label, y_label))
    exact = " (all values are exact)" if not overflow.any() else ""
    subtitle = f"<br><sup>{'; '.join(notes)}{exact}</sup>" if notes else ""
    layout = base_layout(title + subtitle, height=480)
    layout["xaxis"] = axis(x_label, nticks=12, **({"type": "category"} if categorical else {}))
    layout["yaxis"] = axis(y_label, autorange="reversed")
    if shown_aliased.any():
        layout.update(aliased_marks(np.asarray(cols), np.asarray(aliased), row_stride(rows), categorical))
    return figure(traces, layout)


def overflow_trace(overflow: np.ndarray, x, y, x_label: str, y_label: str) -> dict:
    """The cells whose value is beyond float32's range (±3.4e38) as black cells over the heatmap, so they are
    drawn as such instead of vanishing: a float32 cast makes them ±inf, which plotly leaves blank."""
    return dict(type="heatmap", z=np.where(overflow, 1.0, np.nan).astype(np.float32), x=x, y=y, zmin=0, zmax=1,
                colorscale=[[0, "#000000"], [1, "#000000"]], showscale=False, name="beyond float32",
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
