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


def sent(trace: dict, exact) -> np.ndarray:
    """What a heatmap trace sends for the exact values ``exact`` of its cells: their float32 values, or, when the
    trace sends colour levels (``meta.levels``: its zrange, posenc.figures.heatmaps), their levels."""
    from posenc.figures import heatmaps

    cells = np.asarray(exact, dtype=np.float64).astype(np.float32)
    levels = (trace.get("meta") or {}).get("levels")
    return cells if levels is None else heatmaps.colour_levels(cells, tuple(levels))
