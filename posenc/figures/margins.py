"""Margins that already hold what plotly's automargin asks for, so that a chart is drawn once.

Streamlit's chart theme turns automargin on for every axis, and a colour bar always asks for room. plotly draws
the chart, measures what the tick labels, axis titles and colour bar need, and where that is more than the figure's
margins it widens them and draws the whole chart again. A heatmap with posenc's default margins (70, 30, 60 px) was
drawn twice: its y labels, its x labels and its colour bar each needed more. With margins that already hold them,
plotly draws it once: ~20 ms of plotly.js against ~32 ms for the Encoding matrix at the caps (a stand-alone plotly.js
page, BENCHMARKS.md).

:func:`hold` raises a layout's left, bottom and right margins to an upper bound of what plotly asks for, from the
labels the figure will show. The numbers follow plotly.js 4 (``Axes.drawOne``'s push, ``approxTitleDepth``, a pushed
margin's pad of 12 px) and Streamlit's chart theme (tick labels 12 px, axis titles 14 px, title standoffs of 24 px (y)
and 20 px (x), ``margin.pad`` 8 px) in posenc's font (Inter, Segoe UI, Helvetica or Arial: digits 0.55-0.56 em wide),
and were checked against the pushes plotly reports in Chromium (tests/browser/test_drawn_once.py). A colour bar stands
at the plot's right edge (``x`` 1, its gap :data:`BAR_GAP`): at plotly's default ``x`` 1.02 the room it asks for grows
with the chart's width.

What this estimates short plotly still widens, as before: a chart shown in presenter mode's larger text, with x
labels that plotly tilts on a narrow chart, or in a font with wider digits (Inter's) is drawn twice, never cut.
"""

from __future__ import annotations

import math

PAD = 12  # px: plotly adds to every margin an element asks for
THEME_PAD = 8  # px: Streamlit's chart theme's margin.pad, between the plot area and the axes' labels
TICK_FONT = 12  # px: Streamlit's chart theme's tick labels
TITLE_FONT = 14  # px: Streamlit's chart theme's axis titles
STANDOFF = {"x": 20, "y": 24}  # px: Streamlit's chart theme's room between an axis's labels and its title
CAP_SHIFT = 0.7  # em: plotly's depth of a title's first line, and a y label's offset from its axis
LINE = 1.3  # em: each further line of a title
X_LABEL_DEPTH = 2.0  # em: an x axis's labels, from the axis to the bottom of their line (plotly: 1.95)
BAR_GAP = 10  # px: a colour bar's xpad (plotly's default), on both sides of it: from the plot area, and after
BAR_THICKNESS = 14  # px: posenc's colour bars
BAR_EXTRA = 2  # px: a colour bar's room beyond its thickness, its labels and its xpads (its outline; measured 0-3)
# em: the advance of a character of a tick label (digits 0.563 measured in Chromium here; the rest rounded up)
ADVANCE = {".": 0.3, ",": 0.3, "−": 0.62, "-": 0.4, " ": 0.25, "k": 0.52}
DIGIT = 0.58  # em: a digit, rounded up from 0.563
OTHER = 0.65  # em: any other character


def text_width(text: str, size: float = TICK_FONT) -> float:
    """An upper bound of ``text``'s width in px at ``size`` px of posenc's font."""
    return size * sum(DIGIT if c.isdigit() else ADVANCE.get(c, OTHER) for c in text)


def widest(texts) -> float:
    return max((text_width(t) for t in texts), default=0.0)


def integer_labels(high: float) -> list[str]:
    """The longest labels plotly can write on a linear axis from 0 to ``high`` (an integer axis: positions,
    dimensions): ``high``'s own digits (plotly writes 10,000 and more as 10k, which is shorter)."""
    return [str(int(abs(high)))]


def bar(colorbar: dict) -> dict:
    """``colorbar`` set at the plot's right edge, so that the room it asks for is the same at any width, its labels
    the size of the axes' (plotly gives a colour bar's labels the layout's 15 px)."""
    return dict(colorbar, x=1, xanchor="left", xpad=BAR_GAP, thickness=colorbar.get("thickness", BAR_THICKNESS),
                tickfont=dict(size=TICK_FONT) | colorbar.get("tickfont", {}))


BAR_BELOW = 110  # px: a bottom margin that holds an x axis's labels and title, then a colour bar across (bar_below)


def bar_below(colorbar: dict, length: float) -> dict:
    """``colorbar`` laid across the bottom of the figure, centred, ``length`` of the plot area's width, for a map
    with square cells: it fills the plot area's height on a wide screen and its width on a phone, so an upright bar
    at the right runs far past it on one of them. The figure's bottom margin must hold it (:data:`BAR_BELOW`)."""
    return dict(colorbar, orientation="h", len=length, x=0.5, xanchor="center", yref="container", y=0,
                yanchor="bottom", ypad=10, thickness=colorbar.get("thickness", BAR_THICKNESS))


def _title_depth(layout_axis: dict, letter: str) -> float:
    text = (layout_axis.get("title") or {}).get("text")
    if not text:
        return 0.0
    extra = text.lower().count("<br")
    return TITLE_FONT * (CAP_SHIFT + extra * LINE) + STANDOFF[letter]


def hold(layout: dict, *, y_labels, bar: dict | None = None) -> dict:
    """Raise ``layout``'s margins (in place; returned) to hold what plotly asks for: the y axis's labels
    ``y_labels`` and title on the left, the x axis's one line of labels and title below, and on the right the
    colour bar ``bar`` (made by :func:`bar`: at x = 1, its labels its ``ticktext``; none: no colour bar).
    Margins already larger stay."""
    margin = layout.setdefault("margin", {})
    left = PAD + THEME_PAD + widest(y_labels) + CAP_SHIFT * TICK_FONT + _title_depth(layout.get("yaxis", {}), "y")
    bottom = PAD + THEME_PAD + X_LABEL_DEPTH * TICK_FONT + _title_depth(layout.get("xaxis", {}), "x")
    wanted = {"l": left, "b": bottom}
    if bar is not None:
        wanted["r"] = PAD + 2 * BAR_GAP + bar["thickness"] + widest(bar["ticktext"]) + BAR_EXTRA
    for side, room in wanted.items():
        margin[side] = max(margin.get(side, 0), math.ceil(room))
    return layout
