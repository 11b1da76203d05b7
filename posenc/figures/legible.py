"""A figure laid out to be read at any width, from a 390 px phone to a projector (issue 37).

The server does not know the width of the screen that shows a chart, so :func:`legible` lays every figure out
for the narrowest screen it must serve, ``width`` pixels of chart (a phone's 358; presenter mode, a projector,
passes its own), and the layout still reads well on a wider one:

- the title wraps (``<br>`` between words) to the characters that fit that width, and the top margin grows to
  hold its lines and the annotations above the plot area (subplot titles);
- an x axis's title wraps to its axis's width, and the bottom margin grows to hold the lines it gained;
- an annotation that names a cell of the paper (a subplot title) wraps to the cell's width on that screen;
- the legend goes below the chart, horizontal, at the bottom of the figure, its rows estimated for that width;
  the figure grows by their height so the plot area keeps its size.

It edits a figure dict in place (``fig.to_dict()``, as posenc/ui/presenter.py restyles one): text, margins,
height and the legend's place, never a trace's data.
"""

from __future__ import annotations

import math
import re

PHONE = 358  # px: a chart on a 390 px phone (Streamlit's main column has 16 px of padding on each side)
GLYPH = 0.55  # em: the mean advance of a sans-serif glyph (Liberation Sans, Helvetica, Roboto: 0.50-0.54)
LINE = 1.3  # em: plotly's line height in multi-line text
TITLE = 17  # px: a title's size unless the figure sets one (presenter mode does)
TITLE_GAP = 12  # px: above the title, and between the title and what is under it
BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
TAG = re.compile(r"<[^>]+>")


def visible(text: str) -> str:
    """``text`` as plotly draws it: no tags, entities as one character."""
    return re.sub(r"&[#a-zA-Z0-9]+;", "x", TAG.sub("", text))


def lines(text: str) -> list[str]:
    return BREAK.split(text)


def _span(text: str, small: bool = False) -> tuple[float, bool]:
    """The width of ``text`` in characters of the line's full size (plotly draws ``<sup>`` and ``<sub>`` text at
    70 %), and whether it ends inside such a tag."""
    width = 0.0
    for part in re.split(r"(<[^>]+>)", text):
        if part.startswith("<"):
            small = part.lower() in ("<sup>", "<sub>") or (small and part.lower() not in ("</sup>", "</sub>"))
        else:
            width += len(visible(part)) * (0.7 if small else 1.0)
    return width, small


def wrap(text: str, chars: int) -> str:
    """``text`` with each of its lines broken between words into lines of at most ``chars`` characters of its
    full size (a longer word stays whole). Breaks fall only between words outside tags."""
    chars = max(chars, 8)
    wrapped, small = [], False
    for line in lines(text):
        current, width = "", 0.0
        for word in re.split(r" (?![^<]*>)", line):
            size, after = _span(word, small)
            if current and width + (0.7 if small else 1.0) + size > chars:
                wrapped.append(current)
                current, width = word, size
            else:
                current, width = (f"{current} {word}", width + 1 + size) if current else (word, size)
            small = after
        wrapped.append(current)
    return "<br>".join(wrapped)


def _size(font: dict | None, default: float) -> float:
    return float((font or {}).get("size") or default)


def _fits(size: float, width: float) -> int:
    """The visible characters of ``size`` px text that fit in ``width`` px."""
    return int(width / (GLYPH * size))


def _height(text: str, size: float) -> float:
    """The height of ``text`` drawn at ``size`` px, its lines included."""
    return len(lines(text)) * LINE * size


def _cell(layout: dict, x: float) -> tuple[float, float]:
    """The paper x domain of the cell whose centre is ``x`` (a subplot title), or the widest span centred on it."""
    for name, axis in layout.items():
        if re.fullmatch(r"xaxis\d*", name) and isinstance(axis, dict) and "domain" in axis:
            low, high = axis["domain"]
            if abs((low + high) / 2 - x) < 1e-6:
                return low, high
    half = min(x, 1 - x)
    return x - half, x + half


def _annotation_width(layout: dict, note: dict, plot: float, margin: dict) -> float | None:
    """The px an annotation placed on the paper may take before it meets its neighbour or the chart's edge."""
    if note.get("xref", "x") != "paper":
        return None
    x, anchor = float(note.get("x", 0.5)), note.get("xanchor", "auto")
    if anchor == "center" or anchor == "auto":
        low, high = _cell(layout, x)
        return (high - low) * plot
    if anchor == "left":
        return (1 - x) * plot + margin.get("r", 30)
    return x * plot + margin.get("l", 70)


def _legend_items(spec: dict) -> list[str]:
    """The names the legend shows (one per legend group), none when it is hidden."""
    if spec["layout"].get("showlegend") is False:
        return []
    names, groups = [], set()
    for trace in spec["data"]:
        shown = trace.get("showlegend")
        if shown is False or trace.get("type") in ("heatmap", "contour", "surface") or not trace.get("name"):
            continue
        group = trace.get("legendgroup")
        if group and group in groups:
            continue
        groups.add(group)
        names.append(visible(str(trace["name"])))
    explicit = any(trace.get("showlegend") is True for trace in spec["data"])
    return names if len(names) > 1 or explicit else []


def _legend_rows(names: list[str], size: float, width: float) -> int:
    """Rows of a horizontal legend of ``names`` in ``width`` px: each item a symbol (40 px) and its text."""
    rows, used = 1, 0.0
    for name in names:
        item = 40 + len(name) * GLYPH * size + 10
        if used and used + item > width:
            rows, used = rows + 1, 0.0
        used += item
    return rows


def legible(spec: dict, width: float = PHONE) -> dict:
    """Lay ``spec`` (a figure dict, edited in place and returned) out for a chart ``width`` px wide."""
    layout = spec["layout"]
    font = _size(layout.get("font"), 12)
    margin = layout.setdefault("margin", {})
    for side, default in (("l", 80), ("r", 80), ("t", 100), ("b", 80)):
        margin.setdefault(side, default)
    added = _move_legend(spec, width, font)
    plot = width - margin["l"] - margin["r"]
    plot_height = layout.get("height", 450) + added - margin["t"] - margin["b"]  # plotly's default height: 450
    top = 0.0
    for note in layout.get("annotations", []):
        size = _size(note.get("font"), font)
        room = _annotation_width(layout, note, plot, margin)
        if room is not None and note.get("text"):
            note["text"] = wrap(note["text"], _fits(size, room))
        over_plot = note.get("yref") == "paper" or str(note.get("yref", "")).endswith(" domain")
        if over_plot and float(note.get("y", 0)) >= 0.999 and note.get("yanchor") == "bottom":
            lift = (float(note["y"]) - 1) * plot_height  # a row's heading set above its subplots' titles
            top = max(top, lift + _height(note.get("text", ""), size) + float(note.get("yshift", 0)))
    added += _wrap_title(spec, width, font, top) + _wrap_x_titles(layout, plot, font)
    if "height" in layout:
        layout["height"] = layout["height"] + added
    return spec


def _wrap_title(spec: dict, width: float, font: float, above_plot: float) -> float:
    """Wrap the title (and each animation frame's) to ``width`` and make room for it and for ``above_plot`` px of
    annotations over the plot area, pinned under the chart's top edge; the px the top margin grew by."""
    layout, margin = spec["layout"], spec["layout"]["margin"]
    title = layout.get("title")
    text = (title or {}).get("text") or ""
    if not text:
        needed = above_plot + TITLE_GAP if above_plot else 0
    else:
        size = _size(title.get("font"), TITLE)
        chars = _fits(size, width - 2 * TITLE_GAP)
        title["text"] = wrap(text, chars)
        # Pinned TITLE_GAP under the chart's top edge. Measured in plotly 4.2 (Streamlit's): a top-anchored
        # title's box begins 0.3 em above its pad, 1 em above it when it has several lines.
        shift = 1.0 if len(lines(title["text"])) > 1 else 0.3
        title.update(y=1, yref="container", yanchor="top", pad=dict(t=TITLE_GAP + shift * size, l=0))
        title.setdefault("font", {})["size"] = size  # Streamlit's theme would pick its own (16 px)
        texts = [title["text"]]
        for frame in spec.get("frames") or []:  # an animation's frames retitle the chart
            frame_title = frame.get("layout", {}).get("title", {})
            if "text" in frame_title:
                frame_title["text"] = wrap(frame_title["text"], chars)
                texts.append(frame_title["text"])
        tallest = max(_height(text, size) for text in texts)
        needed = TITLE_GAP + tallest + TITLE_GAP + above_plot + (6 if above_plot else 0)
    grown = max(0.0, math.ceil(needed) - margin["t"])
    margin["t"] += grown
    return grown


def _wrap_x_titles(layout: dict, plot: float, font: float) -> float:
    """Wrap each x axis's title to its axis's width (T5's "relative position j − i (zoomed in: double-click to see
    all)" ran past a phone's edge); the px the bottom margin grew by to hold the lines added."""
    grown = 0.0
    for name, axis in layout.items():
        title = axis.get("title") if re.fullmatch(r"xaxis\d*", name) and isinstance(axis, dict) else None
        if not isinstance(title, dict) or not title.get("text"):
            continue
        low, high = axis.get("domain", (0, 1))
        size = _size(title.get("font"), font)
        wrapped = wrap(title["text"], _fits(size, (high - low) * plot))
        if wrapped != title["text"]:
            grown = max(grown, (len(lines(wrapped)) - len(lines(title["text"]))) * LINE * size)
            title["text"] = wrapped
    layout["margin"]["b"] += math.ceil(grown)
    return math.ceil(grown)


def _move_legend(spec: dict, width: float, font: float) -> float:
    """A shown legend goes below the chart, horizontal, at the figure's bottom edge; the px the bottom margin
    grew by to hold it (less the room a legend already below had)."""
    layout = spec["layout"]
    names = _legend_items(spec)
    if not names:
        return 0.0
    legend, before = layout.setdefault("legend", {}), layout["margin"]["b"]
    if legend.get("orientation") == "v" and float(legend.get("x", 1.02)) >= 1:
        layout["margin"]["r"] = 30  # the room a legend at the right had
    if float(legend.get("y", 1)) < 0:
        layout["margin"]["b"] = min(layout["margin"]["b"], 80)  # the room a legend below had: the axis's alone
    size = _size(legend.get("font"), font)
    rows = _legend_rows(names, size, width - 20)
    height = rows * (LINE * size + 6) + 12
    legend.update(orientation="h", x=0, xanchor="left", xref="container", y=0, yanchor="bottom", yref="container")
    layout["margin"]["b"] += height
    return layout["margin"]["b"] - before
