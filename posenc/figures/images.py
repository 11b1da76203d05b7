"""A large heatmap sent as the image it draws: a figure dict's levelled heatmaps as plotly image traces.

A heatmap of more than MAX_EXACT_CELLS cells already travels as its colour levels, one byte a cell
(posenc.figures.heatmaps). The browser still coloured each of its 65,536 cells through the colour scale
and encoded the result as a PNG (plotly's heatmap image) at every redraw: about 60 ms of its one thread a
press at the caps (BENCHMARKS.md). Here the server writes that PNG once, indexed (one byte a cell, the
palette the levels' colours), and the chart draws it as an ``image`` trace, which plotly.js hands to the
browser's own image decoder:

    level L (0 … 254) → the colour scale at L/254, linear in RGB between its stops, 8 bits a channel
                        (what plotly.js draws for the level on the level scale, zmin 0, zmax 255)
    level 255         → transparent (a cell with no value: a gap, as plotly draws a NaN)

Only what is sent changes (:func:`as_images` is applied last to the figure dict handed to the chart): the
figure on the server keeps its heatmap trace, so the chart's sentence, its Chart data, the palettes and the
layout for phones read the heatmap as before. The image keeps the heatmap's coordinates and hover: a pixel's
centre is its row's and column's true index (x0 + i·dx). Columns shown unevenly (interleaved sin, cos pairs
thinned) are placed 0, 1, 2, … and the axis names each by its true index (``labelalias``, ticks and hover
label alike; there plotly's own hover label replaces the template, whose ``%{x}`` would be the place). The plot
keeps the heatmap's shape (plotly.js would square the image's pixels). Its colour bar is drawn by an invisible
marker trace with the heatmap's scale and bar.
"""

from __future__ import annotations

import base64
import struct
import zlib

import numpy as np
import plotly.colors

from posenc.figures.heatmaps import LEVELS, NO_VALUE, typed_array

PREFIX = "data:image/png;base64,"
_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def level_colours(scale: list) -> np.ndarray:
    """The (256, 4) RGBA colours of levels 0 … 255 drawn through the level scale ``scale`` (zmin 0, zmax 255):
    linear in RGB between the stops at L/255, rounded to 8 bits; the level NO_VALUE transparent."""
    stops = np.array([float(at) for at, _ in scale])
    rgba = np.array([_rgba(colour) for _, colour in scale], dtype=np.float64)  # (stops, 4)
    at = np.arange(LEVELS + 1) / LEVELS
    colours = np.stack([np.interp(at, stops, rgba[:, k]) for k in range(4)], axis=-1)
    colours[:, 3] *= 255
    colours = np.rint(colours).astype(np.uint8)
    colours[NO_VALUE] = (0, 0, 0, 0)
    return colours


def _rgba(colour: str) -> tuple[float, float, float, float]:
    """'#rrggbb', 'rgb(r, g, b)' or 'rgba(r, g, b, a)' as (r, g, b, a), a in 0 … 1."""
    colour = colour.strip()
    if colour.startswith("#"):
        return (*plotly.colors.hex_to_rgb(colour), 1.0)
    parts = [float(p) for p in colour[colour.index("(") + 1:colour.rindex(")")].split(",")]
    return (parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else 1.0)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(levels: np.ndarray, colours: np.ndarray) -> bytes:
    """An indexed PNG (8 bits a pixel, no filter) of the (rows, columns) uint8 ``levels``, coloured by the (256, 4)
    RGBA ``colours``: row 0 on top."""
    levels = np.ascontiguousarray(levels, dtype=np.uint8)
    rows, columns = levels.shape
    scanlines = np.zeros((rows, columns + 1), np.uint8)  # each row: filter type 0 (none), then its bytes
    scanlines[:, 1:] = levels
    header = struct.pack(">IIBBBBB", columns, rows, 8, 3, 0, 0, 0)  # 8-bit indexed colour
    return (_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"PLTE", colours[:, :3].tobytes())
            + _chunk(b"tRNS", colours[:, 3].tobytes()) + _chunk(b"IDAT", zlib.compress(scanlines.tobytes(), 6))
            + _chunk(b"IEND", b""))


def read_png(data: bytes | str) -> tuple[np.ndarray, np.ndarray]:
    """The (levels, colours) of a PNG written by :func:`png`, or of its data URI."""
    if isinstance(data, str):
        data = base64.b64decode(data.removeprefix(PREFIX))
    if not data.startswith(_SIGNATURE):
        raise ValueError("not a PNG")
    chunks, at = {}, len(_SIGNATURE)
    while at < len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        chunks[kind] = chunks.get(kind, b"") + data[at + 8:at + 8 + size]
        at += 12 + size
    columns, rows, depth, kind, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    if (depth, kind, interlace) != (8, 3, 0):
        raise ValueError("not an 8-bit indexed PNG")
    scanlines = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(rows, columns + 1)
    if scanlines[:, 0].any():
        raise ValueError("a row is filtered")
    palette = np.frombuffer(chunks[b"PLTE"], np.uint8).reshape(-1, 3)
    alpha = np.full(len(palette), 255, np.uint8)
    given = np.frombuffer(chunks.get(b"tRNS", b""), np.uint8)
    alpha[:len(given)] = given
    return scanlines[:, 1:].copy(), np.column_stack([palette, alpha])


def image_levels(trace: dict) -> np.ndarray:
    """The colour levels an image trace made by :func:`as_images` draws, (rows, columns) uint8."""
    return read_png(trace["source"])[0]


def coordinates(trace: dict, layout: dict, letter: str) -> list:
    """The coordinate each column (``letter`` "x") or row ("y") of an image trace made by :func:`as_images` stands
    for: x0 + i·dx, or the axis's name of place i (the inverse of :func:`_place`)."""
    rows, columns = image_levels(trace).shape
    size = columns if letter == "x" else rows
    alias = axis_of(layout, trace, letter).get("labelalias")
    if alias:
        return [alias[str(i)] for i in range(size)]
    first, step = trace.get(f"{letter}0", 0.0), trace.get(f"d{letter}", 1.0)
    return (first + step * np.arange(size)).tolist()


def even_spacing(values) -> tuple[float, float] | None:
    """(first, step) of numbers evenly spaced (a single one: step 1), else None (strings, uneven steps)."""
    array = np.asarray(values)
    if array.dtype.kind not in "iuf" or array.ndim != 1 or not len(array):
        return None
    if len(array) == 1:
        return float(array[0]), 1.0
    steps = np.diff(array.astype(np.float64))
    return (float(array[0]), float(steps[0])) if np.all(steps == steps[0]) and steps[0] != 0 else None


def _place(trace: dict, layout: dict, letter: str, size: int) -> tuple[float, float]:
    """(first, step) of the image's pixel centres along axis ``letter``: the trace's own coordinates when they are
    evenly spaced; else 0, 1, 2, … with the axis naming each by the coordinate it stands for."""
    given = trace.get(letter)
    values = typed_array(given) if given is not None else np.arange(size)
    placed = even_spacing(values)
    if placed is not None:
        return placed
    axis = axis_of(layout, trace, letter, create=True)
    axis["type"] = "linear"
    axis["labelalias"] = {str(i): str(v) for i, v in enumerate(np.asarray(values).tolist()[:size])}
    return 0.0, 1.0


def axis_of(layout: dict, trace: dict, letter: str, create: bool = False) -> dict:
    """The layout's axis ``letter`` ("x", "y") of ``trace`` ("xaxis", "xaxis2", …)."""
    key = f"{letter}axis{trace.get(f'{letter}axis', letter)[1:]}"
    return layout.setdefault(key, {}) if create else layout.get(key, {})


def _aliased(layout: dict, trace: dict) -> bool:
    """Whether an axis of ``trace`` names its places (:func:`_place`)."""
    return any("labelalias" in axis_of(layout, trace, letter) for letter in "xy")


def _title(layout: dict, trace: dict, letter: str) -> str:
    title = axis_of(layout, trace, letter).get("title")
    return (title.get("text") if isinstance(title, dict) else title) or letter


def _image(trace: dict, layout: dict) -> list[dict]:
    """A levelled heatmap trace as its image trace and the invisible trace that draws its colour bar."""
    levels = typed_array(trace["z"])
    colours = level_colours(trace["colorscale"])
    rows, columns = levels.shape
    x0, dx = _place(trace, layout, "x", columns)
    y0, dy = _place(trace, layout, "y", rows)
    # plotly.js squares an image's pixels unless told: a cell keeps the heatmap's shape
    axis_of(layout, trace, "y", create=True)["scaleanchor"] = False
    image = {key: trace[key] for key in ("name", "meta", "hovertemplate", "xaxis", "yaxis", "visible") if key in trace}
    image.update(type="image", source=PREFIX + base64.b64encode(png(levels, colours)).decode("ascii"),
                 x0=x0, dx=dx, y0=y0, dy=dy, hoverlabel=dict(bgcolor="#ffffff", font=dict(color="#222222")))
    if _aliased(layout, trace):
        # a hover template's %{x} is the pixel's place, not its axis's name for it: plotly's own hover label
        # "(304, 1632)" is named, and the trace's name says which is which: "(dimension, position)"
        image.pop("hovertemplate", None)
        image.update(hoverinfo="x+y+name", name=f"({_title(layout, trace, 'x')}, {_title(layout, trace, 'y')})",
                     hoverlabel=dict(image["hoverlabel"], namelength=-1))
    if trace.get("showscale") is False:
        return [image]
    bar = dict(type="scatter", x=[None], y=[None], mode="markers", showlegend=False, hoverinfo="skip",
               name=trace.get("name", ""), marker=dict(color=[0], cmin=0, cmax=LEVELS, colorscale=trace["colorscale"],
                                                       showscale=True, colorbar=trace.get("colorbar", {})))
    bar.update({key: trace[key] for key in ("xaxis", "yaxis") if key in trace})
    return [image, bar]


def levelled(trace: dict) -> bool:
    """Whether ``trace`` is a heatmap sent as colour levels (posenc.figures.heatmaps.level_trace)."""
    return trace.get("type") == "heatmap" and "levels" in (trace.get("meta") or {}) and trace.get("z") is not None


def as_images(spec: dict) -> dict:
    """``spec`` (a figure dict, changed in place and returned) with every levelled heatmap drawn as its image, and
    any other trace over it (the black cells beyond float32) placed on the same pixels."""
    data, layout = spec.get("data") or [], spec.setdefault("layout", {})
    if spec.get("frames") or not any(levelled(trace) for trace in data):
        return spec  # an animation's frames restyle its traces by their own type: left as it is
    drawn = []
    for trace in data:
        if levelled(trace):
            drawn += _image(trace, layout)
        elif trace.get("type") == "heatmap" and trace.get("z") is not None:
            drawn.append(_over_image(trace, layout))
        else:
            drawn.append(trace)
    spec["data"] = drawn
    return spec


def _over_image(trace: dict, layout: dict) -> dict:
    """A heatmap over an image: on an axis the image placed at 0, 1, 2, …, its cells are too."""
    rows, columns = np.atleast_2d(typed_array(trace["z"])).shape
    for letter, size in (("x", columns), ("y", rows)):
        if "labelalias" in axis_of(layout, trace, letter):
            trace[letter] = list(range(size))
    return trace
