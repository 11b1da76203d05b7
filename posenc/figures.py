"""plotly figure builders: arrays in, ``go.Figure`` out.

No builder reads widgets or session state. Shared layout (fonts, margins, the
diverging colour scale) is defined once here. Large matrices are thinned to what
a chart can show (:func:`thin_index`); the cells that are sent keep their true
values, and the chart says how many were skipped.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

DIVERGING = "RdBu_r"  # ColorBrewer RdBu: diverging and colour-blind safe; red > 0 > blue
FONT = dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif", size=15)
MAX_CELLS_PER_AXIS = 256  # a heatmap a few hundred pixels wide cannot show more
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")  # Okabe–Ito


GRID = dict(gridcolor="#e3e6ec", zerolinecolor="#c5cad3", linecolor="#c5cad3")


def _layout(fig: go.Figure, title: str, height: int = 420) -> go.Figure:
    """The shared look. An empty template plus a few explicit colours: applying a full
    template such as plotly_white re-validates it for every figure (~30 ms)."""
    fig.update_layout(
        title=dict(text=title, x=0, xanchor="left"),
        font=FONT,
        height=height,
        margin=dict(l=70, r=30, t=70, b=60),
        template="none",
        paper_bgcolor="white",
        plot_bgcolor="white",
        legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1),
    )
    fig.update_xaxes(**GRID)
    fig.update_yaxes(**GRID)
    return fig


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
    z = np.asarray(values, dtype=np.float32)
    if zrange is None:
        finite = np.abs(z[np.isfinite(z)])
        bound = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
        zrange = (-bound, bound)
    notes = [n for n in dict.fromkeys((stride_note(rows, full_shape[0], y_label),
                                       stride_note(cols, full_shape[1], x_label, col_group))) if n]
    categorical = col_group > 1 and len(cols) < full_shape[1] and not np.all(np.diff(cols) == 1)
    x = [str(c) for c in cols] if categorical else cols
    trace = go.Heatmap(
        z=z, x=x, y=rows, zmin=zrange[0], zmax=zrange[1], colorscale=colorscale,
        hovertemplate=f"{y_label} %{{y}}<br>{x_label} %{{x}}<br>value %{{z:.6g}}<extra></extra>",
        colorbar=dict(thickness=14),
    )
    fig = go.Figure(trace)
    fig.update_xaxes(title_text=x_label, type="category" if categorical else None, nticks=12)
    fig.update_yaxes(title_text=y_label, autorange="reversed")
    shown_aliased = np.isin(cols, aliased) if aliased is not None else np.zeros(len(cols), bool)
    if shown_aliased.any():
        notes.append(f"{int(shown_aliased.sum())} {x_label}s with wavelength under 2 × {row_stride(rows)} "
                     "marked: aliased at this stride")
    subtitle = f"<br><sup>{'; '.join(notes)} (all values are exact)</sup>" if notes else ""
    _layout(fig, title + subtitle, height=480)
    if shown_aliased.any():
        mark_aliased(fig, np.asarray(cols), np.asarray(aliased), row_stride(rows), categorical)
    return fig


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) index of every run of True in ``flags``."""
    edges = np.diff(np.concatenate([[0], flags.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1))


def mark_aliased(fig: go.Figure, cols: np.ndarray, aliased: np.ndarray, stride: int, categorical: bool) -> None:
    """Outline the shown columns listed in ``aliased``: sampled every ``stride`` rows, a column whose
    wavelength is under 2·stride draws slow stripes that are not in the data. The column numbers
    and the stride are also kept in ``layout.meta``."""
    flags = np.isin(cols, aliased)
    for first, last in _runs(flags):
        if categorical:
            x0, x1 = first - 0.5, last + 0.5
        else:
            half = (cols[1] - cols[0]) / 2 if len(cols) > 1 else 0.5
            x0, x1 = cols[first] - half, cols[last] + half
        fig.add_shape(type="rect", xref="x", yref="y domain", x0=x0, x1=x1, y0=0, y1=1, layer="above",
                      line=dict(color="#222222", width=2, dash="dot"), fillcolor="rgba(255,255,255,0.45)",
                      name="aliased at this stride",
                      label=dict(text="aliased at this stride", textangle=-90, font=dict(size=13, color="#222222")))
    fig.update_layout(meta=dict(aliased=[int(c) for c in cols[flags]], stride=int(stride)))


def line_chart(
    x: np.ndarray,
    series: dict[str, np.ndarray],
    *,
    title: str,
    x_label: str,
    y_label: str,
    log_y: bool = False,
    markers: bool = False,
    height: int = 400,
    x_window: float | None = None,
) -> go.Figure:
    """One line per entry of ``series`` (label -> y values) against ``x``.

    ``x_window``: open zoomed to x ≤ x_window (all points are sent; double-click zooms out).
    """
    fig = go.Figure()
    for n, (label, y) in enumerate(series.items()):
        fig.add_trace(go.Scatter(
            x=np.asarray(x), y=np.asarray(y, dtype=np.float64), name=label,
            mode="lines+markers" if markers else "lines",
            line=dict(color=PALETTE[n % len(PALETTE)], width=2),
            hovertemplate=f"{label}<br>{x_label} %{{x}}<br>{y_label} %{{y:.6g}}<extra></extra>",
        ))
    zoomed = x_window is not None and len(x) and x_window < np.max(x)
    fig.update_xaxes(title_text=x_label + (" (zoomed in: double-click to see all)" if zoomed else ""),
                     range=[np.min(x), x_window] if zoomed else None)
    fig.update_yaxes(title_text=y_label, type="log" if log_y else None, exponentformat="power" if log_y else None)
    return _layout(fig, title, height)


def vectors_chart(dimensions: np.ndarray, vectors: dict[str, np.ndarray], *, title: str,
                  x_window: int = 64) -> go.Figure:
    """Several vectors over the same dimensions, as markers (for PE[pos], M_k·PE[pos], PE[pos+k]).

    Opens zoomed to the first ``x_window`` dimensions (all are sent; double-click zooms out)."""
    fig = go.Figure()
    symbols = ("circle-open", "x-thin-open", "diamond-open", "square-open")
    for n, (label, values) in enumerate(vectors.items()):
        fig.add_trace(go.Scatter(
            x=dimensions, y=values, name=label, mode="markers",
            marker=dict(color=PALETTE[n], size=10 - 2 * n, symbol=symbols[n % 4], line=dict(width=2, color=PALETTE[n])),
            hovertemplate=f"{label}<br>dimension %{{x}}<br>value %{{y:.9f}}<extra></extra>",
        ))
    zoomed = len(dimensions) > x_window
    fig.update_xaxes(title_text="dimension" + (" (zoomed in: double-click to see all)" if zoomed else ""),
                     range=[-0.5, x_window - 0.5] if zoomed else None)
    fig.update_yaxes(title_text="value", range=[-1.1, 1.1])
    return _layout(fig, title, 380)


def phasor_chart(pairs: list[int], start: np.ndarray, end: np.ndarray, angles: np.ndarray, *, pos: int, k: int,
                 title: str | None = None) -> go.Figure:
    """For each pair i: the unit circle with (sin, cos) at pos and at pos+k.

    ``start`` and ``end`` are (len(pairs), 2) arrays of (sin, cos), drawn as the point
    (cos, sin); ``angles`` the rotation k·θ_i of each pair, shown in the subplot title.
    """
    fig = make_subplots(rows=1, cols=len(pairs), subplot_titles=[
        f"pair i={i}: k·θ_i = {a:.4g} rad" for i, a in zip(pairs, angles)
    ])
    circle = np.linspace(0, 2 * np.pi, 181)
    for col, (s0, s1) in enumerate(zip(start, end), start=1):
        fig.add_trace(go.Scatter(x=np.cos(circle), y=np.sin(circle), mode="lines", line=dict(color="#bbbbbb"),
                                 hoverinfo="skip", showlegend=False), row=1, col=col)
        for (sin_v, cos_v), label, colour in ((s0, f"pos={pos}", PALETTE[0]), (s1, f"pos+k={pos + k}", PALETTE[1])):
            fig.add_trace(go.Scatter(
                x=[0, cos_v], y=[0, sin_v], mode="lines+markers", name=label, legendgroup=label,
                showlegend=col == 1, line=dict(color=colour, width=3), marker=dict(size=[0, 11], color=colour),
                hovertemplate=f"{label}<br>cos %{{x:.6f}}<br>sin %{{y:.6f}}<extra></extra>",
            ), row=1, col=col)
        fig.update_xaxes(range=[-1.2, 1.2], title_text="cos", row=1, col=col, scaleanchor=f"y{col if col > 1 else ''}")
        fig.update_yaxes(range=[-1.2, 1.2], title_text="sin" if col == 1 else None, row=1, col=col)
    _layout(fig, title or f"Rotation of each (sin, cos) pair from pos={pos} to pos+k={pos + k}", 420)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.22, xanchor="center", x=0.5))
    return fig


def bucket_map(relative: np.ndarray, buckets: np.ndarray, *, exact: int, max_distance: int, causal: bool) -> go.Figure:
    """T5's bucket of every relative position r = j − i, with the exact and logarithmic ranges shaded.

    Distances n < ``exact`` get a bucket each; from ``exact`` to ``max_distance`` buckets
    widen logarithmically; from ``max_distance`` on all share the last bucket.
    """
    fig = line_chart(relative, {"bucket(j − i)": buckets}, title="T5 bucket of every relative position",
                     x_label="relative position j − i", y_label="bucket", height=420)
    fig.update_traces(line_shape="hv")
    window = min(float(np.abs(relative).max()), 1.25 * max_distance)
    if window < np.abs(relative).max():  # open on the interesting range; all points are sent
        fig.update_xaxes(range=[-window, 0 if causal else window],
                         title_text="relative position j − i (zoomed in: double-click to see all)")
    sides = (-1,) if causal else (-1, 1)
    for side in sides:
        labels = dict(annotation_position="top left") if side == -1 else {}
        fig.add_vrect(x0=min(0, side * exact), x1=max(0, side * exact), fillcolor=PALETTE[2], opacity=0.15,
                      line_width=0, **({"annotation_text": "exact"} | labels if labels else {}))
        fig.add_vrect(x0=min(side * exact, side * max_distance), x1=max(side * exact, side * max_distance),
                      fillcolor=PALETTE[4], opacity=0.15, line_width=0,
                      **({"annotation_text": "logarithmic"} | labels if labels else {}))
    return fig


def curve_grid(curves: dict[str, tuple[np.ndarray, np.ndarray, str]], *, x_label: str, columns: int = 2) -> go.Figure:
    """Small multiples: one panel per entry (title -> (x, y, y label)), sharing the x axis."""
    rows = -(-len(curves) // columns)
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=list(curves), shared_xaxes=True,
                        vertical_spacing=0.35 / rows, horizontal_spacing=0.08)
    for n, (title, (x, y, y_label)) in enumerate(curves.items()):
        row, col = n // columns + 1, n % columns + 1
        fig.add_trace(go.Scatter(x=x, y=np.asarray(y, dtype=np.float64), mode="lines", name=title, showlegend=False,
                                 line=dict(color=PALETTE[n % len(PALETTE)], width=2),
                                 hovertemplate=f"{x_label} %{{x}}<br>{y_label} %{{y:.6g}}<extra>{title}</extra>"),
                      row=row, col=col)
        fig.update_yaxes(title_text=y_label, title_font=dict(size=12), row=row, col=col)
    for col in range(1, columns + 1):
        fig.update_xaxes(title_text=x_label, row=rows, col=col)
    fig.update_annotations(font=dict(size=15))
    return _layout(fig, "", 260 * rows + 80)
