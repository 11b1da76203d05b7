"""Figures at a released model's real context: offset curves on a log axis, and where a RoPE scaling acts.

Arrays in, figures out (posenc.analysis.offset_curves and posenc.analysis.scaling_regions compute them): a few hundred
log-spaced distances per curve, never a point per position, so 131,072 or 10,485,760 positions draw as fast
as 4,096.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posenc.figures.layout import PALETTE, axis, base_layout, domains, figure, log_axis, subplot_title, suffix

REGION_COLOURS = {"extrapolated": PALETTE[0], "in between": PALETTE[4], "interpolated": PALETTE[1]}
"""The colour of each region of posenc.analysis.scaling_regions (Okabe–Ito: blue, orange, vermilion)."""


def _marks(contexts: dict[str, int], values: np.ndarray, cell: int) -> dict:
    """Vertical dashed lines at each named context, over the height of subplot ``cell``'s values: one scatter
    trace with gaps (layout shapes cost plotly ~60 ms of validators the first time a process draws one)."""
    finite = values[np.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if low == high:
        low, high = low - 0.5, high + 0.5
    x = np.array([v for value in contexts.values() for v in (value, value, np.nan)], dtype=np.float64)
    y = np.array([v for _ in contexts for v in (low, high, np.nan)], dtype=np.float64)  # NaN: a gap
    return dict(type="scatter", mode="lines", x=x, y=y, showlegend=False, hoverinfo="skip",
                xaxis=f"x{suffix(cell)}", yaxis=f"y{suffix(cell)}", line=dict(color=PALETTE[7], width=1, dash="dash"))


def reach_grid(curves: dict[str, tuple[np.ndarray, np.ndarray, str]], contexts: dict[str, int], *,
               x_label: str, columns: int = 2) -> go.Figure:
    """Small multiples on a log x axis: one panel per entry (title -> (distances ≥ 1, values, y label)), every
    panel marking ``contexts`` (label -> position, e.g. the trained and the extended context) with a line."""
    rows = -(-len(curves) // columns)
    # 0.12 between columns: room for the next column's y axis (its numbers and title, larger in presenter mode)
    x_cells, y_cells = domains(columns, 0.12), domains(rows, 0.35 / rows, reverse=True)
    layout = base_layout("", (260 if columns > 1 else 220) * rows + 110)
    layout["annotations"], data, marks = [], [], []
    for n, (title, (x, y, y_label)) in enumerate(curves.items()):
        row, col, cell = n // columns, n % columns, n + 1
        data.append(dict(type="scatter", x=np.asarray(x), y=np.asarray(y, dtype=np.float64), mode="lines",
                         name=title, showlegend=False, line=dict(color=PALETTE[n % len(PALETTE)], width=2),
                         xaxis=f"x{suffix(cell)}", yaxis=f"y{suffix(cell)}",
                         hovertemplate=f"{x_label} %{{x:,}}<br>{y_label} %{{y:.6g}}<extra>{title}</extra>"))
        layout[f"xaxis{suffix(cell)}"] = log_axis(x_label if row == rows - 1 or n + columns >= len(curves) else None,
                                                  x, domain=x_cells[col], anchor=f"y{suffix(cell)}")
        # title as a dict, not title_font=: plotly parses "magic underscore" names once per process (~70 ms)
        layout[f"yaxis{suffix(cell)}"] = dict(axis(None, domain=y_cells[row], anchor=f"x{suffix(cell)}"),
                                              title=dict(text=y_label, font=dict(size=12)))
        layout["annotations"].append(subplot_title(title, x_cells[col], y_cells[row][1]))
        marks.append(_marks(contexts, np.asarray(y, dtype=np.float64), cell))
    data += marks  # drawn over the curves
    legend = "dashed lines: " + ", ".join(f"{label} {value:,}" for label, value in contexts.items())
    layout["title"] = dict(text=legend, x=0, xanchor="left", font=dict(size=13))
    return figure(data, layout)


def scaling_regions_figure(before: np.ndarray, after: np.ndarray, region: np.ndarray, *, original: int | None,
                           context: int, bounds: tuple[float, float] | None, title: str) -> go.Figure:
    """Wavelength of each pair i before (grey line) and after the scaling (markers coloured by region: extrapolated,
    in between, interpolated), log y; dashed lines at the trained context L₀ (None: none known) and the extended
    one, dotted lines at the scaling's own bounds (YaRN's L₀/β, Llama 3's L₀/high and L₀/low), when it has them."""
    pairs = np.arange(len(before))
    region = np.asarray(region)
    data = [dict(type="scatter", mode="lines", x=pairs, y=np.asarray(before, dtype=np.float64), name="before: 2π/θᵢ",
                 line=dict(color="#9aa0a6", width=2), hovertemplate="pair %{x}: %{y:,.4g} positions<extra>before</extra>")]
    for name, colour in REGION_COLOURS.items():
        chosen = region == name
        data.append(dict(type="scatter", mode="markers", x=pairs[chosen], y=np.asarray(after, dtype=np.float64)[chosen],
                         name=f"after, {name} ({int(chosen.sum())})", marker=dict(color=colour, size=7),
                         hovertemplate="pair %{x}: %{y:,.4g} positions<extra>" + name + "</extra>"))
    levels = [(f"trained context L₀ = {original:,}", original, "dash", PALETTE[7])] if original is not None else []
    levels += [(f"extended context {context:,}", context, "dash", PALETTE[3])]
    if bounds is not None:
        levels += [(f"scaling's bound {value:,.4g}", value, "dot", "#6b7280") for value in bounds]
    for label, value, dash, colour in levels:
        data.append(dict(type="scatter", mode="lines", x=[pairs[0], pairs[-1]] if len(pairs) else [], y=[value, value],
                         name=label, line=dict(color=colour, dash=dash, width=1.5), hoverinfo="skip"))
    layout = base_layout(title, height=480)
    layout["legend"] = dict(orientation="h", yanchor="top", y=-0.18, xanchor="left", x=0)
    layout["margin"] = dict(layout["margin"], b=140)
    layout["xaxis"] = axis("pair i (fast → slow)")
    layout["yaxis"] = log_axis("wavelength (positions, log)", before, after, [level[1] for level in levels])
    return figure(data, layout)


def dropped_scaling_figure(distances: np.ndarray, declared: np.ndarray, dropped: np.ndarray, *,
                           first_disagreement: int | None, contexts: dict[str, int], title: str) -> go.Figure:
    """One query-key score against the distance (log x) under a model's declared RoPE scaling and with the scaling
    dropped (posenc.analysis.dropped_scaling), the distances where they disagree shaded, dashed lines at
    ``contexts`` (label -> position: the trained and the model's context)."""
    x = np.asarray(distances, dtype=np.float64)
    ours, lost = np.asarray(declared, dtype=np.float64), np.asarray(dropped, dtype=np.float64)
    both = np.concatenate([ours, lost])
    data = [dict(type="scatter", mode="lines", x=x, y=ours, name="declared scaling (as the config says)",
                 line=dict(color=PALETTE[0], width=2.5),
                 hovertemplate="distance %{x:,}<br>score %{y:.6g}<extra>declared</extra>"),
            dict(type="scatter", mode="lines", x=x, y=lost, name="scaling dropped (plain θᵢ = base^(−2i/d))",
                 line=dict(color=PALETTE[1], width=2, dash="dot"),
                 hovertemplate="distance %{x:,}<br>score %{y:.6g}<extra>dropped</extra>")]
    if first_disagreement is not None and x.size:
        low, high = (float(both.min()), float(both.max())) if both.size else (0.0, 1.0)
        data.append(dict(type="scatter", mode="lines", x=[first_disagreement, first_disagreement, x[-1], x[-1]],
                         y=[low, high, high, low], fill="toself", fillcolor="rgba(128, 128, 128, 0.14)",
                         line=dict(width=0), name=f"they disagree (from distance {first_disagreement:,})",
                         hoverinfo="skip"))
    marks = _marks(contexts, both, 1)
    marks.update(name="dashed: " + ", ".join(f"{label} {value:,}" for label, value in contexts.items()),
                 showlegend=True, xaxis="x", yaxis="y")
    data.append(marks)
    layout = base_layout(title, height=460)
    layout["legend"] = dict(orientation="h", yanchor="top", y=-0.2, xanchor="left", x=0)
    layout["margin"] = dict(layout["margin"], b=150)
    layout["xaxis"] = log_axis("distance between query and key (log)", x)
    layout["yaxis"] = axis("q·k score")
    return figure(data, layout)
