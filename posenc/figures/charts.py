"""plotly line, vector, phasor and bucket charts: arrays in, ``go.Figure`` out.

No builder reads widgets or session state; the shared look is :mod:`posenc.figures.layout`,
the heatmaps are :mod:`posenc.figures.heatmaps`.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posenc.figures.heatmaps import (
    MAX_CELLS_PER_AXIS,
)
from posenc.figures.layout import PALETTE, axis, base_layout, domains, figure, log_axis, subplot_title, suffix


def _visible_markers(count: int) -> dict:
    """Marker settings for ``count`` points: beyond MAX_CELLS_PER_AXIS, plotly draws only the markers
    inside the visible x range (thinned evenly if more than that are visible), not one SVG node per
    point: 4,096 markers cost the browser about a second. Every point is still sent."""
    return {"maxdisplayed": MAX_CELLS_PER_AXIS} if count > MAX_CELLS_PER_AXIS else {}


def evenly_spread(count: int, most: int) -> np.ndarray:
    """At most ``most`` of the indices 0 … count−1, evenly spread, the first and the last included (all of them when
    count ≤ most): the pairs, heads or clocks a chart draws when it cannot draw them all."""
    return np.unique(np.linspace(0, count - 1, min(most, count)).round().astype(int))


def merge_equal(series: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``series`` with the entries of equal values (same shape, equal element by element) as one entry labelled
    "a = b = c", in the order first seen. Drawn apart, the last of them would cover the others and leave their
    legend entries naming lines nobody can see."""
    groups: list[tuple[list[str], np.ndarray]] = []
    for label, values in series.items():
        values = np.asarray(values)
        same = next((labels for labels, first in groups if np.array_equal(first, values)), None)
        if same is None:
            groups.append(([label], values))
        else:
            same.append(label)
    return {" = ".join(labels): values for labels, values in groups}


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
    dashed: tuple[str, ...] = (),
) -> go.Figure:
    """One line per entry of ``series`` (label -> y values) against ``x``.

    ``x_window``: open zoomed to x ≤ x_window (all points are sent; double-click zooms out).
    ``dashed``: labels of series drawn as dashed lines without markers (a reference level).
    """
    x = np.asarray(x)
    data = [dict(type="scatter", x=x, y=np.asarray(y, dtype=np.float64), name=label,
                 mode="lines+markers" if markers and label not in dashed else "lines",
                 line=dict(color=PALETTE[n % len(PALETTE)], width=2, **({"dash": "dash"} if label in dashed else {})),
                 **({"marker": _visible_markers(len(x))} if markers else {}),
                 hovertemplate=f"{label}<br>{x_label} %{{x}}<br>{y_label} %{{y:.6g}}<extra></extra>")
            for n, (label, y) in enumerate(series.items())]
    zoomed = x_window is not None and len(x) and x_window < np.max(x)
    layout = base_layout(title, height)
    layout["xaxis"] = axis(x_label + (" (zoomed in: double-click to see all)" if zoomed else ""),
                           **({"range": [float(np.min(x)), float(x_window)]} if zoomed else {}))
    layout["yaxis"] = log_axis(y_label, *series.values()) if log_y else axis(y_label)
    return figure(data, layout)


def vectors_chart(dimensions: np.ndarray, vectors: dict[str, np.ndarray], *, title: str,
                  x_window: int = 64) -> go.Figure:
    """Several vectors over the same dimensions, as markers (for PE[pos], M_k·PE[pos], PE[pos+k]).

    Opens zoomed to the first ``x_window`` dimensions (all are sent; double-click zooms out)."""
    symbols = ("circle-open", "x-thin-open", "diamond-open", "square-open")
    data = [dict(type="scatter", x=np.asarray(dimensions), y=np.asarray(values), name=label, mode="markers",
                 marker=dict(color=PALETTE[n], size=10 - 2 * n, symbol=symbols[n % 4],
                             line=dict(width=2, color=PALETTE[n]), **_visible_markers(len(dimensions))),
                 hovertemplate=f"{label}<br>dimension %{{x}}<br>value %{{y:.9f}}<extra></extra>")
            for n, (label, values) in enumerate(vectors.items())]
    zoomed = len(dimensions) > x_window
    layout = base_layout(title, 380)
    layout["xaxis"] = axis("dimension" + (" (zoomed in: double-click to see all)" if zoomed else ""),
                           **({"range": [-0.5, x_window - 0.5]} if zoomed else {}))
    layout["yaxis"] = axis("value", range=[-1.1, 1.1])
    return figure(data, layout)


def phasor_chart(pairs: list[int], start: np.ndarray, end: np.ndarray, angles: np.ndarray, *, pos: int, k: int,
                 title: str | None = None, per_row: int = 2) -> go.Figure:
    """For each pair i: the unit circle with (sin, cos) at pos and at pos+k, ``per_row`` circles a row (two: a
    phone's width holds two circles and their titles side by side).

    ``start`` and ``end`` are (len(pairs), 2) arrays of (sin, cos), drawn as the point
    (cos, sin); ``angles`` the rotation k·θᵢ of each pair, shown in the subplot title.
    """
    columns = min(per_row, len(pairs))
    rows = -(-len(pairs) // columns)
    x_cells, y_cells = domains(columns, 0.2 / columns), domains(rows, 0.5 / rows, reverse=True)
    layout = base_layout(title or f"Rotation of each (sin, cos) pair from pos={pos} to pos+k={pos + k}",
                         200 * rows + 120)
    layout["annotations"] = [subplot_title(f"pair i={i}: k·θᵢ = {a:.4g} rad", x_cells[n % columns],
                                           y_cells[n // columns][1])
                             for n, (i, a) in enumerate(zip(pairs, angles))]
    data = []
    layout["shapes"] = [dict(type="circle", xref=f"x{suffix(cell)}", yref=f"y{suffix(cell)}", x0=-1, y0=-1, x1=1,
                             y1=1, line=dict(color="#bbbbbb"), layer="below") for cell in range(1, len(pairs) + 1)]
    for cell, (s0, s1) in enumerate(zip(start, end), start=1):  # the unit circles are shapes: no points to send
        axes = dict(xaxis=f"x{suffix(cell)}", yaxis=f"y{suffix(cell)}")
        for (sin_v, cos_v), label, colour in ((s0, f"pos={pos}", PALETTE[0]), (s1, f"pos+k={pos + k}", PALETTE[1])):
            data.append(dict(type="scatter", x=[0, float(cos_v)], y=[0, float(sin_v)], mode="lines+markers",
                             name=label, legendgroup=label, showlegend=cell == 1, line=dict(color=colour, width=3),
                             marker=dict(size=[0, 11], color=colour), **axes,
                             hovertemplate=f"{label}<br>cos %{{x:.6f}}<br>sin %{{y:.6f}}<extra></extra>"))
        row, col = divmod(cell - 1, columns)
        square = dict(range=[-1.2, 1.2], constrain="domain", dtick=1)  # a narrow cell shrinks, its range stays
        layout[f"xaxis{suffix(cell)}"] = axis("cos", domain=x_cells[col], anchor=f"y{suffix(cell)}",
                                              scaleanchor=f"y{suffix(cell)}", **square)
        # The y numbers of the first column alone (the next cell's would lie over this one); a narrow cell's
        # circle right under its title.
        layout[f"yaxis{suffix(cell)}"] = axis("sin" if col == 0 else None, domain=y_cells[row], anchor=f"x{suffix(cell)}",
                                              showticklabels=col == 0, constraintoward="top", **square)
    return figure(data, layout)


def bucket_map(relative: np.ndarray, buckets: np.ndarray, *, exact: int, max_distance: int, causal: bool) -> go.Figure:
    """T5's bucket of every relative position r = j − i, with the exact and logarithmic ranges shaded.

    Distances n < ``exact`` get a bucket each; from ``exact`` to ``max_distance`` buckets
    widen logarithmically; from ``max_distance`` on all share the last bucket.
    """
    fig = line_chart(relative, {"bucket(j − i)": buckets}, title="T5 bucket of every relative position",
                     x_label="relative position j − i", y_label="bucket", height=420)
    layout = fig.layout.to_plotly_json()
    data = [dict(fig.data[0].to_plotly_json(), line=dict(color=PALETTE[0], width=2, shape="hv"))]
    window = min(float(np.abs(relative).max()), 1.25 * max_distance)
    if window < np.abs(relative).max():  # open on the interesting range; all points are sent
        layout["xaxis"] = axis("relative position j − i (zoomed in: double-click to see all)",
                               range=[-window, 0 if causal else window])
    shapes, notes = [], []
    for side in (-1,) if causal else (-1, 1):
        for lo, hi, colour, text in ((0, side * exact, PALETTE[2], "exact"),
                                     (side * exact, side * max_distance, PALETTE[4], "logarithmic")):
            shapes.append(dict(type="rect", xref="x", yref="y domain", x0=min(lo, hi), x1=max(lo, hi), y0=0, y1=1,
                               fillcolor=colour, opacity=0.15, line=dict(width=0), layer="below"))
            if side == -1:
                notes.append(dict(text=text, x=min(lo, hi), y=1, xref="x", yref="y domain", xanchor="left",
                                  yanchor="top", showarrow=False))
    layout.update(shapes=shapes, annotations=notes)
    return figure(data, layout)


def curve_grid(curves: dict[str, tuple[np.ndarray, np.ndarray, str]], *, x_label: str, columns: int = 2) -> go.Figure:
    """Small multiples: one panel per entry (title -> (x, y, y label)), sharing the x axis."""
    rows = -(-len(curves) // columns)
    x_cells, y_cells = domains(columns, 0.08), domains(rows, 0.35 / rows, reverse=True)
    layout = base_layout("", (260 if columns > 1 else 220) * rows + 80)
    layout["annotations"], data = [], []
    for n, (title, (x, y, y_label)) in enumerate(curves.items()):
        row, col, cell = n // columns, n % columns, n + 1
        bottom = (rows - 1) * columns + col + 1  # the panel whose x axis the column shares
        if bottom > len(curves):
            bottom -= columns
        data.append(dict(type="scatter", x=np.asarray(x), y=np.asarray(y, dtype=np.float64), mode="lines",
                         name=title, showlegend=False, line=dict(color=PALETTE[n % len(PALETTE)], width=2),
                         xaxis=f"x{suffix(cell)}", yaxis=f"y{suffix(cell)}",
                         hovertemplate=f"{x_label} %{{x}}<br>{y_label} %{{y:.6g}}<extra>{title}</extra>"))
        # Shared by the column; in a single column every panel keeps its numbers (the bottom one is far below).
        shared_x = {} if cell == bottom else {"matches": f"x{suffix(bottom)}", "showticklabels": columns == 1}
        layout[f"xaxis{suffix(cell)}"] = axis(x_label if cell == bottom else None, domain=x_cells[col],
                                              anchor=f"y{suffix(cell)}", **shared_x)
        layout[f"yaxis{suffix(cell)}"] = axis(y_label, domain=y_cells[row], anchor=f"x{suffix(cell)}",
                                              title_font=dict(size=12))
        layout["annotations"].append(subplot_title(title, x_cells[col], y_cells[row][1]))
    return figure(data, layout)
