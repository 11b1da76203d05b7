"""Pictures of rotary embeddings on images: the (t, h, w) ids of a sequence, and scores over a grid of patches.

Arrays in, ``go.Figure`` out: :func:`position_ids_figure` draws the three ids of every token
(M-RoPE, Qwen2-VL, arXiv:2409.12191) as three rows of a heatmap, the segments (text, image,
text) marked; :func:`patch_scores_figure` draws the score of one query patch against every key
patch, one H × W panel per entry, on one shared colour scale, the query marked.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posenc.figures import margins
from posenc.figures.heatmaps import stride_note, thin_index
from posenc.figures.layout import axis, base_layout, domains, figure, subplot_title, suffix

SEQUENTIAL = "Viridis"  # ids and scores that are not centred on 0: perceptually uniform, colour-blind safe
LABELLED_CELLS = 48  # up to this many tokens, each cell shows its id


def position_ids_figure(ids: np.ndarray, segments: list[tuple[str, int]], *, title: str) -> go.Figure:
    """Heatmap of ``ids`` (3, length): rows t, h, w; one column per token (thinned to 256 when longer).

    ``segments``: (label, number of tokens) in order, e.g. [("text", 3), ("image", 24), ("text", 3)];
    a dashed line separates them and each is named above its tokens.
    """
    length = ids.shape[1]
    cols = thin_index(length)
    z = np.asarray(ids[:, cols], dtype=np.float64)
    note = stride_note(cols, length, "token")
    trace = dict(type="heatmap", z=z, x=np.asarray(cols), y=["t (temporal)", "h (height)", "w (width)"],
                 zmin=0, zmax=max(float(ids.max()), 1.0) if ids.size else 1.0, colorscale=SEQUENTIAL,
                 colorbar=dict(thickness=14, title=dict(text="id")),
                 hovertemplate="token %{x}<br>%{y} id %{z:d}<extra></extra>")
    if len(cols) == length and length <= LABELLED_CELLS:
        trace.update(texttemplate="%{z:d}")  # no font size: plotly fits it to the cell (a phone's are narrow)
    layout = base_layout(title + (f"<br><sup>{note} (all values are exact)</sup>" if note else ""), height=300)
    layout["xaxis"] = axis("token (position in the sequence)", nticks=12)
    layout["yaxis"] = axis(None, autorange="reversed")
    layout["margin"] = dict(l=110, r=30, t=90, b=60)
    layout["shapes"], layout["annotations"] = [], []
    start = 0
    for label, count in segments:
        if count <= 0:
            continue
        if start:
            layout["shapes"].append(dict(type="line", xref="x", yref="y domain", x0=start - 0.5, x1=start - 0.5,
                                         y0=0, y1=1, line=dict(color="#222222", width=2, dash="dash")))
        layout["annotations"].append(dict(text=label, x=start + (count - 1) / 2, y=1.0, xref="x", yref="y domain",
                                          yanchor="bottom", showarrow=False, font=dict(size=13)))
        start += count
    return figure([trace], layout)


def patch_scores_figure(panels: dict[str, tuple[np.ndarray, tuple[int, int]]], *,
                        zrange: tuple[float, float] | None = None, value_label: str = "score",
                        title: str = "") -> go.Figure:
    """One heatmap per entry (panel title -> (scores of shape (H, W), query patch (row, col))), side by side,
    rows down and columns across, one colour scale for all (``zrange``, default: their min and max), the
    query patch marked with a white ×.

    Cells are square: a panel fills its cell's width on a phone and its height on a wide screen, so it hangs from
    the top of its cell, under its title, and the colour bar lies across the bottom of the figure (upright at the
    right, on a phone it ran from far above to far below the panels, their titles far above them). Ticks fall
    on whole rows and columns, at most six an axis."""
    values = [np.asarray(scores, dtype=np.float64) for scores, _ in panels.values()]
    if zrange is None:
        low, high = min(float(v.min()) for v in values), max(float(v.max()) for v in values)
        zrange = (low, high) if high > low else (low - 1.0, high + 1.0)
    cells = domains(len(panels), 0.1)
    layout = base_layout(title, height=460)
    layout["margin"] = dict(l=70, r=30, t=100 if title else 60, b=margins.BAR_BELOW)
    layout["annotations"], data = [], []
    for n, (panel, (_, (row, col))) in enumerate(panels.items()):
        cell = n + 1
        height, width = values[n].shape
        data.append(dict(type="heatmap", z=values[n].astype(np.float32), x=np.arange(width), y=np.arange(height),
                         zmin=zrange[0], zmax=zrange[1], colorscale=SEQUENTIAL, showscale=n == 0,
                         colorbar=margins.bar_below(dict(title=dict(text=value_label, side="right"), nticks=5),
                                                    0.7),
                         xaxis=f"x{suffix(cell)}", yaxis=f"y{suffix(cell)}",
                         hovertemplate=f"key patch row %{{y}}, column %{{x}}<br>{value_label} %{{z:.6g}}"
                                       f"<extra>{panel}</extra>"))
        data.append(dict(type="scatter", x=[col], y=[row], mode="markers", showlegend=False, hoverinfo="skip",
                         marker=dict(symbol="x-thin", size=16, line=dict(color="white", width=3)),
                         xaxis=f"x{suffix(cell)}", yaxis=f"y{suffix(cell)}"))
        layout[f"xaxis{suffix(cell)}"] = axis("column", domain=cells[n], anchor=f"y{suffix(cell)}",
                                              range=[-0.5, width - 0.5], constrain="domain", showgrid=False,
                                              **_whole_ticks(width))
        # One set of row labels: on a phone the next panel's would lie over the first panel.
        layout[f"yaxis{suffix(cell)}"] = axis("row" if n == 0 else None, anchor=f"x{suffix(cell)}",
                                              range=[height - 0.5, -0.5], scaleanchor=f"x{suffix(cell)}",
                                              constrain="domain", constraintoward="top", showgrid=False,
                                              showticklabels=n == 0, **_whole_ticks(height))
        layout["annotations"].append(subplot_title(panel, cells[n], 1.0))
    return figure(data, layout)


def _whole_ticks(count: int) -> dict:
    """Ticks on whole patches 0, k, 2k, … (at most six) of an axis of ``count`` patches: plotly's own put ticks
    at −0.5, 0, 0.5, … down four rows, half-rows that do not exist."""
    return dict(tickmode="linear", tick0=0, dtick=max(1, -(-count // 6)))
