"""A chart's text alternative: one sentence of what it shows, and its data as tables.

WCAG 2.1 success criterion 1.1.1 (Non-text Content, level A) asks every chart for a text
alternative that serves the same purpose. A chart's purpose here is its numbers, so the
sentence is built from the figure itself, never written by hand beside it: its title, its
kind, its series and the range of every axis as the figure draws them now, e.g.

    Line chart "Sinusoids": 2 series (dim 0, dim 1); x (position) from 0 to 49; y (value) from −1 to 1.

and :func:`data_tables` gives the traces' numbers, one table per trace, for the reader who
wants them all. Figures in, text and arrays out: no streamlit here (posenc/ui/presenter.py
shows both).
"""

from __future__ import annotations

import html
import re

import numpy as np
import plotly.graph_objects as go

from posenc.figures.heatmaps import exact_values as cell_values
from posenc.figures.heatmaps import typed_array

NAMES_SHOWN = 6  # series named in the sentence; the rest are counted
KINDS = {"heatmap": "heatmap", "bar": "bar chart", "line": "line chart", "points": "scatter plot"}


def plain(text: str | None) -> str:
    """Plotly's label markup as plain text: a line break '<br>' becomes ': ', a subscript's tags nothing
    ('W<sub>R</sub>': 'WR'), other tags spaces, entities characters."""
    text = re.sub(r"\s*<br\s*/?>\s*", ": ", text or "", flags=re.IGNORECASE)
    text = re.sub(r"</?sub>", "", text, flags=re.IGNORECASE)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def number(value: float) -> str:
    """A value as a sentence prints it: 3 significant digits, a true minus sign ('−0.5', '1e+04' as '10000')."""
    if value == int(value) and abs(value) < 1e7:
        text = str(int(value))
    else:
        text = f"{value:.3g}"
    return text.replace("-", "−") if text.startswith("-") else text


def _kind(trace) -> str:
    if trace.type == "scatter":
        return "line" if "lines" in (trace.mode or "lines") else "points"
    return trace.type


def _values(array) -> np.ndarray | None:
    """The finite numbers of a trace's x, y or z; None when it holds text (categories) or nothing."""
    if array is None:
        return None
    values = typed_array(array)
    if values.dtype.kind not in "iuf":
        try:
            values = values.astype(float)
        except (TypeError, ValueError):
            return None
    values = values[np.isfinite(values)]
    return values if values.size else None


def _axis_title(layout, name: str) -> str:
    axis = layout[name] if name in layout else None
    return plain(axis.title.text) if axis is not None and axis.title is not None else ""


def _range_phrase(label: str, title: str, arrays: list, log: bool) -> str | None:
    """'x (position) from 0 to 49' over every trace on that axis; categories are counted instead."""
    values = [_values(a) for a in arrays if a is not None]
    name = f"{label} ({title})" if title else label
    numeric = [v for v in values if v is not None]
    if numeric:
        joined = np.concatenate(numeric)
        scale = ", log scale" if log else ""
        return f"{name} from {number(float(joined.min()))} to {number(float(joined.max()))}{scale}"
    texts = [list(a) for a in arrays if a is not None and len(a)]
    if texts:
        categories = list(dict.fromkeys(str(t) for text in texts for t in text))
        return f"{name}: {len(categories)} categories, {plain(categories[0])} to {plain(categories[-1])}"
    return None


def _series(traces: list) -> str:
    names = [plain(t.name) for t in traces if t.name]
    if len(traces) == 1:
        return f"1 {'map' if traces[0].type == 'heatmap' else 'series'}" + (f" ({names[0]})" if names else "")
    noun = "maps" if all(t.type == "heatmap" for t in traces) else "series"
    if not names:
        return f"{len(traces)} {noun}"
    shown = ", ".join(names[:NAMES_SHOWN]) + (f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else "")
    return f"{len(traces)} {noun} ({shown})"


def describe(fig: go.Figure) -> str:
    """One sentence: kind, title, series, the x and y range of every trace and, for a heatmap, its size
    and the range of its values. Ranges are the data's minimum and maximum (what the axes span)."""
    traces = [t for t in fig.data if t.type in ("scatter", "bar", "heatmap")]
    title = plain(fig.layout.title.text if fig.layout.title is not None else "")
    kinds = {_kind(t) for t in traces}
    kind = KINDS.get(kinds.pop(), "chart") if len(kinds) == 1 else "chart"
    head = (kind[0].upper() + kind[1:]) + (f' "{title}"' if title else "")
    if not traces:
        return f"{head}: no data."
    parts = [_series(traces)]
    heatmaps = [t for t in traces if t.type == "heatmap"]
    if len(heatmaps) == 1:
        rows, columns = np.atleast_2d(typed_array(heatmaps[0].z)).shape
        parts[0] = f"{rows} rows × {columns} columns" if len(traces) == 1 else parts[0]
    for label in ("x", "y"):
        arrays = [_coordinates(t, label) for t in traces]
        axis = "xaxis" if label == "x" else "yaxis"
        log = axis in fig.layout and fig.layout[axis].type == "log"
        phrase = _range_phrase(label, _axis_title(fig.layout, axis), arrays, log)
        if phrase:
            parts.append(phrase)
    if heatmaps:
        values = [v for v in (_values(_z(fig, t)) for t in heatmaps) if v is not None]
        if values:
            joined = np.concatenate([v.ravel() for v in values])
            parts.append(f"values from {number(float(joined.min()))} to {number(float(joined.max()))}")
    return f"{head}: {'; '.join(parts)}."


def _z(fig: go.Figure, trace) -> np.ndarray | None:
    """A heatmap's values: the exact ones when its trace sends colour levels (posenc.figures.heatmaps)."""
    return cell_values(fig, next(n for n, t in enumerate(fig.data) if t is trace), trace)


def _coordinates(trace, label: str):
    """A trace's x or y; a heatmap given only z spans 0 … columns − 1 and 0 … rows − 1."""
    given = trace[label]
    if given is not None or trace.type != "heatmap" or trace.z is None:
        return typed_array(given) if isinstance(given, dict) else given
    rows, columns = np.atleast_2d(typed_array(trace.z)).shape
    return np.arange(columns if label == "x" else rows)


def data_tables(fig: go.Figure, max_cells: int = 100_000) -> list[tuple[str, dict[str, np.ndarray]]]:
    """The data of every trace as (caption, columns): a line's or a bar's x and y, a heatmap's z with
    one column per x value and its y values first. A table larger than ``max_cells`` keeps its first
    rows and says so in its caption."""
    tables = []
    for number_, trace in enumerate(t for t in fig.data if t.type in ("scatter", "bar", "heatmap")):
        name = plain(trace.name) or f"trace {number_ + 1}"
        if trace.type == "heatmap":
            z = np.atleast_2d(np.asarray(_z(fig, trace)))
            x, y = (np.atleast_1d(np.asarray(_coordinates(trace, label))) for label in ("x", "y"))
            columns = {"y": y} | {plain(str(v)): z[:, j] for j, v in enumerate(x[:z.shape[1]])}
        else:
            columns = {key: np.atleast_1d(np.asarray(trace[key])) for key in ("x", "y") if trace[key] is not None}
        columns = _drawn(columns, single_for_all=trace.type != "heatmap")
        rows = max((len(c) for c in columns.values()), default=0)
        keep = max(1, max_cells // max(1, len(columns)))
        caption = name if rows <= keep else f"{name}: the first {keep} of {rows} rows"
        tables.append((caption, {key: c[:keep] for key, c in columns.items()}))
    return tables


def _drawn(columns: dict[str, np.ndarray], single_for_all: bool) -> dict[str, np.ndarray]:
    """The columns as plotly draws them, of one length (a table needs equal columns): points pair by index
    and plotly draws as many as the shortest column has; with ``single_for_all`` (a line's, a bar's) a single
    number, as a marker's x or an animation frame's point may be, stands for every point."""
    lengths = {len(c) for c in columns.values()}
    if len(lengths) <= 1:
        return columns
    rows = min(lengths - {1} if single_for_all else lengths)
    return {key: np.repeat(c, rows) if len(c) == 1 else c[:rows] for key, c in columns.items()}
