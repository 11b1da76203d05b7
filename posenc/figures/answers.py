"""The answers of a lecture room's question: one bar per choice (or per value given), the right ones marked."""

from __future__ import annotations

import plotly.graph_objects as go

from posenc.figures.layout import PALETTE, axis, base_layout, figure

RIGHT, OTHER = PALETTE[2], "#9aa0a6"  # Okabe–Ito green for the right answer, grey for the others


def answer_counts(labels: list[str], counts: list[int], right: list[bool] | None, *, title: str) -> go.Figure:
    """Horizontal bars: ``counts[i]`` answers for ``labels[i]``, top to bottom in the order given; with ``right``
    (after the reveal) the right answers green and marked ✓, the others grey; before it every bar one colour."""
    shown = [f"{'✓ ' if right and right[i] else ''}{label}" for i, label in enumerate(labels)]
    colours = [RIGHT if right and right[i] else (OTHER if right else PALETTE[0]) for i in range(len(labels))]
    total = sum(counts)
    data = [dict(type="bar", orientation="h", x=list(counts), y=shown, marker=dict(color=colours),
                 text=[f"{c}" for c in counts], textposition="outside", cliponaxis=False,
                 hovertemplate="%{y}: %{x} answers<extra></extra>")]
    lines = sum(label.count("<br>") + 1 for label in labels)  # a label may hold a few lines (<br>)
    layout = base_layout(f"{title} ({total} answer{'s' if total != 1 else ''})",
                         height=140 + 26 * max(lines, 1) + 22 * max(len(labels), 1))
    layout["xaxis"] = axis("answers", rangemode="tozero", dtick=max(1, -(-max(counts, default=1) // 5)))
    layout["yaxis"] = dict(axis(None), autorange="reversed", automargin=True)
    layout["showlegend"] = False
    return figure(data, layout)
