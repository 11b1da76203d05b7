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
