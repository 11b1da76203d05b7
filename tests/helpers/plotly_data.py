"""Read the arrays out of plotly figure JSON (numpy arrays arrive base64-encoded as bdata)."""

import base64

import numpy as np


def decode(value):
    """A plotly typed array ({'dtype', 'bdata', 'shape'}) or a plain list, as a numpy array."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if isinstance(shape, str):
            shape = tuple(int(s) for s in shape.split(","))
        return array.reshape(shape) if shape else array
    return np.asarray(value)


def xs(trace: dict) -> np.ndarray:
    """A trace's x as plotly.js reads it: its array, or x0 + dx·i for each of its y (posenc.figures.series sends a long
    series' evenly spaced integer x so)."""
    if trace.get("x") is not None:
        return decode(trace["x"])
    return trace.get("x0", 0) + trace.get("dx", 1) * np.arange(len(decode(trace["y"])))


def sent_series(trace: dict, exact) -> np.ndarray:
    """What a scatter trace sends for the exact values ``exact`` of its y: the float32 of their rounding to the digits
    its hover prints when it sends float32 (posenc.figures.series), else the values themselves."""
    from posenc.figures import series

    exact = np.asarray(exact, dtype=np.float64)
    if isinstance(trace.get("y"), dict) and trace["y"].get("dtype") == "f4":
        return series.round_significant(exact, series.hover_digits(trace)).astype(np.float32)
    return exact


def plotly_rgb(scale: list, at: np.ndarray) -> np.ndarray:
    """plotly.js's colour of normalised values ``at`` on the colour scale ``scale`` (its stops opaque): linear in RGB
    between the stops, 8 bits a channel."""
    import plotly.colors

    stops = np.array([s for s, _ in scale], float)
    colours = np.array([plotly.colors.unlabel_rgb(plotly.colors.convert_colors_to_same_type([c], "rgb")[0][0])
                        for _, c in scale], float)
    return np.rint(np.stack([np.interp(at, stops, colours[:, k]) for k in range(3)], -1))


def sent(trace: dict, exact) -> np.ndarray:
    """What a heatmap trace sends for the exact values ``exact`` of its cells: their float32 values, or, when the
    trace sends colour levels (``meta.levels``: its zrange, posenc.figures.heatmaps), their levels."""
    from posenc.figures import heatmaps

    cells = np.asarray(exact, dtype=np.float64).astype(np.float32)
    levels = (trace.get("meta") or {}).get("levels")
    return cells if levels is None else heatmaps.colour_levels(cells, tuple(levels))


def heatmap_cells(spec: dict, number: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(z, rows, columns) of heatmap ``number`` of a figure dict as sent: a heatmap trace's z, y and x, or an image
    trace's colour levels (posenc.figures.images: a large heatmap is sent as its image) and the coordinates its
    rows and columns stand for."""
    from posenc.figures import images

    trace, layout = spec["data"][number], spec.get("layout", {})
    if trace["type"] == "image":
        return (images.image_levels(trace), np.asarray(images.coordinates(trace, layout, "y")),
                np.asarray(images.coordinates(trace, layout, "x")))
    return decode(trace["z"]), decode(trace["y"]), decode(trace["x"])
