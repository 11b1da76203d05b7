"""Argument checks shared by every encoding: one sentence a student understands.

Every public function in posenc validates its scalar arguments here, so the
messages read the same everywhere and the pages can show them verbatim.
"""

from __future__ import annotations

import math
import numbers

import numpy as np


def check_int(value: object, name: str, *, minimum: int, meaning: str) -> int:
    """Return ``value`` as an int, or raise ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be a whole number ({meaning}); got {value!r}.")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum} ({meaning}); got {value}.")
    return value


def check_length(length: object) -> int:
    """The number of positions: a whole number >= 0."""
    return check_int(length, "length", minimum=0, meaning="the number of positions")


def check_d_model(d_model: object) -> int:
    """The width of one encoding vector: a whole number >= 1."""
    return check_int(d_model, "d_model", minimum=1, meaning="the size of each encoding vector")


def check_base(base: object, name: str = "base") -> float:
    """The base n of the frequencies (10000 in Vaswani et al.): finite and > 0."""
    if isinstance(base, bool) or not isinstance(base, numbers.Real):
        raise ValueError(f"{name} must be a positive number (10000 in the paper); got {base!r}.")
    base = float(base)
    if not math.isfinite(base) or base <= 0:
        raise ValueError(
            f"{name} must be a finite number greater than 0 (10000 in the paper); got {base}."
        )
    return base


def check_float_dtype(dtype: object) -> np.dtype:
    """A numpy floating dtype such as np.float32 or np.float64."""
    try:
        resolved = np.dtype(dtype)
    except TypeError as err:
        raise ValueError(f"dtype must be a floating type such as float32; got {dtype!r}.") from err
    if resolved.kind != "f":
        raise ValueError(f"dtype must be a floating type such as float32; got {resolved}.")
    return resolved


def check_choice(value: object, name: str, choices: tuple[str, ...]) -> str:
    """One of a fixed set of names."""
    if value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {listed}; got {value!r}.")
    return value  # type: ignore[return-value]
