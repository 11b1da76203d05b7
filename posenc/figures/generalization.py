"""The length-generalization lab's figures: accuracy against test length, and attention maps (still, and
animated over the test length).

Arrays in, ``go.Figure`` out, like every figure builder: the numbers come from posenc.lab.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posenc.figures.animations import animated
from posenc.figures.layout import PALETTE, axis, base_layout, domains, figure, subplot_title, suffix

DASHES = ("solid", "dash", "dot")
"""Past the eight colours of the palette, a curve differs by its dash as well."""


def _rgba(colour: str, alpha: float) -> str:
    red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red},{green},{blue},{alpha})"


def accuracy_chart(lengths: np.ndarray, series: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]], *,
                   train_max_length: int, title: str, height: int = 480,
                   extended_length: int | None = None) -> go.Figure:
    """One curve per entry of ``series`` (label -> (mean, lowest, highest) over seeds, one value per
    test length), the band between lowest and highest shaded, and the training lengths 1…L shaded grey;
    ``extended_length``: a dashed line at the end of a stretched context (1…F·L), labelled."""
    lengths = np.asarray(lengths)
    data: list[dict] = []
    for n, (label, (mean, low, high)) in enumerate(series.items()):
        colour = PALETTE[n % len(PALETTE)]
        dash = DASHES[(n // len(PALETTE)) % len(DASHES)]
        group = f"g{n}"
        data.append(dict(type="scatter", x=np.concatenate([lengths, lengths[::-1]]),
                         y=np.concatenate([np.asarray(high, float), np.asarray(low, float)[::-1]]),
                         fill="toself", fillcolor=_rgba(colour, 0.13), line=dict(width=0), hoverinfo="skip",
                         showlegend=False, legendgroup=group, name=f"{label} spread"))
        data.append(dict(type="scatter", x=lengths, y=np.asarray(mean, float), name=label, legendgroup=group,
                         mode="lines+markers", line=dict(color=colour, width=2.5, dash=dash), marker=dict(size=6),
                         customdata=np.stack([np.asarray(low, float), np.asarray(high, float)], axis=1),
                         hovertemplate=(f"{label}<br>test length %{{x}}<br>exact match %{{y:.3f}} (mean)"
                                        "<br>seeds: %{customdata[0]:.3f} … %{customdata[1]:.3f}<extra></extra>")))
    layout = base_layout(title, height)
    layout["xaxis"] = axis("test length (digits)", range=[0.5, float(lengths.max()) + 0.5] if len(lengths) else None,
                           dtick=2)
    layout["yaxis"] = axis("exact match (whole answer right)", range=[-0.03, 1.03])
    layout["shapes"] = [dict(type="rect", xref="x", yref="paper", x0=0.5, x1=train_max_length + 0.5, y0=0, y1=1,
                             fillcolor="rgba(120,120,120,0.12)", line=dict(width=0), layer="below")]
    layout["annotations"] = [dict(text=f"trained on 1…{train_max_length}", x=(train_max_length + 1) / 2, y=1.0,
                                  xref="x", yref="paper", yanchor="bottom", showarrow=False, font=dict(size=13))]
    if extended_length is not None:
        layout["shapes"].append(dict(type="line", xref="x", yref="paper", x0=extended_length + 0.5,
                                     x1=extended_length + 0.5, y0=0, y1=1, line=dict(color=PALETTE[1], width=2,
                                                                                    dash="dash")))
        # A line above "trained on": on a phone the two labels would meet side by side.
        layout["annotations"].append(dict(text=f"stretched to {extended_length}", x=extended_length + 0.5, y=1.0,
                                          xref="x", yref="paper", xanchor="right", yanchor="bottom", yshift=20,
                                          showarrow=False, font=dict(size=13)))
    layout["legend"] = dict(orientation="v", x=1.01, y=1, xanchor="left", yanchor="top")
    layout["margin"] = dict(l=70, r=170, t=70, b=60)
    return figure(data, layout)


# The most tokens a map labels down its side: a map is ~130 px high on a phone (two a row), a 9 px label a row
# needs ~11 px; in presenter mode (four a row, ~210 px, labels 1.4× larger) as many fit. Beyond it every k-th
# token is labelled; across, the tokens stay side by side (a label is a character wide), and each cell's
# hover names its two tokens.
TOKEN_ROWS_LABELLED = 12


def attention_grid(maps: list[np.ndarray], row_titles: list[str], tokens: list[list[str]], *,
                   title: str, height_per_row: int = 300, per_row: int = 2) -> go.Figure:
    """Bands of attention maps (one band per entry of ``maps``: [heads, T, T] probabilities), ``per_row``
    heads a row (two fit a phone); query positions down, key positions across, labelled with ``tokens`` (down,
    every k-th of them beyond TOKEN_ROWS_LABELLED)."""
    rows, heads = len(maps), max(m.shape[0] for m in maps)
    per_row = min(per_row, heads)
    head_rows = -(-heads // per_row)
    columns = domains(per_row, 0.06)
    bands = domains(rows, 0.22 / head_rows, reverse=True)
    data, layout = [], base_layout(title, height_per_row * rows * head_rows + 150)
    annotations = []
    for r, (probabilities, labels) in enumerate(zip(maps, tokens)):
        every = -(-len(labels) // TOKEN_ROWS_LABELLED)  # the k of the query tokens labelled down a map
        low, high = bands[r]
        cells = [[low + a * (high - low), low + b * (high - low)]
                 for a, b in domains(head_rows, 0.15 if head_rows > 1 else 0, reverse=True)]
        for h in range(probabilities.shape[0]):
            n, (line, col) = r * heads + h + 1, divmod(h, per_row)
            ticks = list(range(len(labels)))
            data.append(dict(type="heatmap", z=np.asarray(probabilities[h], float), x=ticks, y=ticks,
                             xaxis=f"x{suffix(n)}", yaxis=f"y{suffix(n)}", zmin=0, zmax=1, colorscale="Viridis",
                             showscale=n == 1, colorbar=dict(title=dict(text="weight"), len=0.6),
                             customdata=np.array([[f"{labels[q]} → {labels[k]}" for k in ticks] for q in ticks]),
                             hovertemplate=("query %{y} reads key %{x}<br>%{customdata}"
                                            "<br>weight %{z:.3f}<extra>head " + str(h + 1) + "</extra>")))
            layout[f"xaxis{suffix(n)}"] = axis(None, domain=columns[col], anchor=f"y{suffix(n)}", showgrid=False,
                                               tickvals=ticks, ticktext=labels, tickfont=dict(size=9), tickangle=0,
                                               constrain="domain")
            # The row's tokens on its first map only: on a phone the next map's lay over the first.
            layout[f"yaxis{suffix(n)}"] = axis(None, domain=cells[line], anchor=f"x{suffix(n)}", showgrid=False,
                                               autorange="reversed", tickvals=ticks[::every],
                                               ticktext=labels[::every],
                                               tickfont=dict(size=9), scaleanchor=f"x{suffix(n)}",
                                               showticklabels=col == 0, constrain="domain", constraintoward="top")
            annotations.append(subplot_title(f"head {h + 1}", columns[col], cells[line][1]))
        annotations.append(dict(text=f"<b>{row_titles[r]}</b>", x=0, y=bands[r][1] + 0.055, xref="paper", yref="paper",
                                xanchor="left", yanchor="bottom", showarrow=False, font=dict(size=15)))
    layout["annotations"] = annotations
    layout["margin"] = dict(l=40, r=40, t=150, b=30)
    layout["title"]["y"], layout["title"]["yanchor"], layout["title"]["yref"] = 0.995, "top", "container"
    return figure(data, layout)


def attention_animation(maps: list[np.ndarray], lengths: list[int], headings: list[str], *, train_max_length: int,
                        title: str, frame_ms: int = 700, extended_length: int | None = None,
                        per_row: int = 2) -> go.Figure:
    """The attention of every head as the test string grows, one frame per length: ``maps[f]`` is
    [heads, T, T] (T = 2·lengths[f] + 1 tokens read), ``headings[f]`` the frame's title. The axes stay those
    of the longest string, so a map grows frame by frame; a dashed square marks the tokens of a string of
    ``train_max_length`` digits, the longest seen in training: past it, the model reads positions it never saw.
    ``extended_length``: a second square (dotted) at the digits of a stretched context F·L, its slider label
    marked "◂ FL" (4L: "◂ 4L") as the training length's "◂ L". ``per_row`` heads a row (two fit a phone)."""
    heads = max(m.shape[0] for m in maps)
    size = max(m.shape[-1] for m in maps)
    seen = 2 * train_max_length + 1
    per_row = min(per_row, heads)
    rows = -(-heads // per_row)
    columns, bands = domains(per_row, 0.06), domains(rows, 0.25 / rows if rows > 1 else 0, reverse=True)
    layout = base_layout(title, 560 + 300 * (rows - 1))
    layout["title"]["text"] = headings[0]
    data, shapes, notes = [], [], []
    for h in range(heads):
        n, (row, col) = h + 1, divmod(h, per_row)
        x_name, y_name = f"x{suffix(n)}", f"y{suffix(n)}"
        data.append(dict(type="heatmap", z=np.asarray(maps[0][h], np.float32), xaxis=x_name, yaxis=y_name, zmin=0,
                         zmax=1, colorscale="Viridis", showscale=n == 1, colorbar=dict(title=dict(text="weight"),
                                                                                       len=0.6),
                         hovertemplate=f"query %{{y}} reads key %{{x}}<br>weight %{{z:.3f}}<extra>head {n}</extra>"))
        ticks = dict(showgrid=False, zeroline=False, range=[-0.5, size - 0.5], tickfont=dict(size=10), constrain="domain")
        layout[f"xaxis{suffix(n)}"] = axis(None, domain=columns[col], anchor=y_name, **ticks)
        layout[f"yaxis{suffix(n)}"] = axis(None, domain=bands[row], anchor=x_name, scaleanchor=x_name,
                                           **ticks | dict(range=[size - 0.5, -0.5], showticklabels=col == 0))
        shapes.append(dict(type="rect", xref=x_name, yref=y_name, x0=-0.5, y0=-0.5, x1=seen - 0.5, y1=seen - 0.5,
                           line=dict(color=PALETTE[1], width=2, dash="dash")))
        if extended_length is not None:
            stretched = 2 * extended_length + 1
            shapes.append(dict(type="rect", xref=x_name, yref=y_name, x0=-0.5, y0=-0.5, x1=stretched - 0.5,
                               y1=stretched - 0.5, line=dict(color=PALETTE[3], width=2, dash="dot")))
        notes.append(subplot_title(f"head {n}", columns[col], bands[row][1]))
    layout["shapes"], layout["annotations"] = shapes, notes
    layout["margin"] = dict(l=40, r=40, t=110)
    frames = [dict(name=str(length), traces=list(range(heads)), layout=dict(title=dict(text=heading)),
                   data=[dict(type="heatmap", z=np.asarray(m[h], np.float32)) for h in range(m.shape[0])])
              for m, length, heading in zip(maps, lengths, headings)]
    marks = {train_max_length: " ◂ L"}
    if extended_length is not None:
        factor, rest = divmod(extended_length, train_max_length)
        marks[extended_length] = f" ◂ {factor}L" if rest == 0 else " ◂ stretched"
    labels = [f"{length}{marks.get(length, '')}" for length in lengths]
    return animated(data, layout, frames, labels=labels, frame_ms=frame_ms, prefix="digits: ", redraw=True,
                    axis_room=30)
