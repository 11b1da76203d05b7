"""Argument checks shared by every encoding: one sentence a student understands.

Every public function in posenc validates its arguments here, so the messages read the
same everywhere and the pages can show them verbatim. Bad input raises ValueError (a value
out of range) or TypeError (not a number, an array of the wrong kind); nothing is truncated,
wrapped or turned into NaN silently: bools are not numbers, a fraction is not a whole
number, integer arrays are converted to float64 explicitly.

Sizes are capped (the constants below) so that no call runs for minutes or asks for terabytes.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

MAX_LENGTH = 1 << 20
"""Positions of one table or bias (1,048,576); the app stops at 4096."""
MAX_WIDTH = 1 << 16
"""d_model, d_head and other vector widths (65,536); the app stops at 1024."""
MAX_COUNT = 1 << 12
"""Heads, buckets and other small counts (4096); the app stops at 64 heads, 128 buckets."""
MAX_ELEMENTS = 1 << 24
"""Entries of one returned array (16,777,216: 128 MiB in float64); the app's largest table, at
twice the length for the properties (8192 × 1024), is half of it."""
MAX_WHOLE = 1 << 53
"""Offsets, positions and distances: every whole number up to 2^53 is exact in float64."""
MIN_BASE, MAX_BASE = 1.0, 1e300
"""The base n of the frequencies: from 1 (every θ_i = 1) to 1e300, where 2π/θ_i is still finite.
Below 1, θ_i would grow with i past 1 radian per position, and the phases p·θ_i lose their digits."""


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong kind (a string, a bool, None, an array of text where numbers are
    meant). A TypeError, and also a ValueError, so code that catches the library's ValueErrors
    (the pages do) catches it too, as numpy's AxisError is both an IndexError and a ValueError."""


def check_int(value: object, name: str, *, minimum: int, meaning: str, maximum: int | None = None) -> int:
    """``value`` as an int in [minimum, maximum], or an error naming ``name``.

    A whole float (4.0) is accepted; a fraction, NaN, ±inf, a bool or a string is not.
    """
    if isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{name} must be a whole number ({meaning}), not a bool; got {value!r}.")
    if not isinstance(value, numbers.Integral):
        if not isinstance(value, numbers.Real):
            raise ArgumentTypeError(f"{name} must be a whole number ({meaning}); got {_shown(value)}.")
        if not float(value).is_integer():
            raise ValueError(f"{name} must be a whole number ({meaning}); got {value!r}.")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum} ({meaning}); got {value}.")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum} ({meaning}); got {value}.")
    return value


def check_real(value: object, name: str, *, minimum: float, meaning: str, strict: bool = False,
               maximum: float = math.inf) -> float:
    """A finite real number >= minimum (> minimum if ``strict``) and <= maximum, or an error naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(f"{name} must be a number ({meaning}); got {_shown(value)}.")
    value = float(value)
    if not math.isfinite(value) or value < minimum or (strict and value == minimum) or value > maximum:
        bound = f"greater than {minimum:g}" if strict else f"of at least {minimum:g}"
        if maximum < math.inf:
            bound += f" and at most {maximum:g}"
        raise ValueError(f"{name} must be a finite number {bound} ({meaning}); got {value}.")
    return value


def check_flag(value: object, name: str) -> bool:
    """A True/False switch; a string such as "False" is not one (it would count as True)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{name} must be True or False; got {_shown(value)}.")
    return bool(value)


def check_length(length: object) -> int:
    """The number of positions: a whole number in [0, MAX_LENGTH]."""
    return check_int(length, "length", minimum=0, maximum=MAX_LENGTH, meaning="the number of positions")


def check_d_model(d_model: object) -> int:
    """The width of one encoding vector: a whole number in [1, MAX_WIDTH]."""
    return check_int(d_model, "d_model", minimum=1, maximum=MAX_WIDTH, meaning="the size of each encoding vector")


def check_seed(seed: object) -> int:
    """A random seed: a whole number in [0, 2^64 − 1] (one seed, one draw, on every machine)."""
    return check_int(seed, "seed", minimum=0, maximum=2**64 - 1, meaning="the random seed")


def check_std(std: object) -> float:
    """A finite standard deviation > 0 of a random initialisation (at most 1e100, so every draw is finite)."""
    return check_real(std, "std", minimum=0.0, strict=True, maximum=1e100, meaning="0.02 in GPT-2")


def check_table_size(table_size: object) -> int:
    """The rows of a learned table: a whole number in [1, MAX_LENGTH]."""
    return check_int(table_size, "table_size", minimum=1, maximum=MAX_LENGTH, meaning="the number of learned positions")


def check_max_relative_position(k: object) -> int:
    """Shaw et al.'s clipping distance k: a whole number in [0, MAX_LENGTH]."""
    return check_int(k, "max_relative_position", minimum=0, maximum=MAX_LENGTH,
                     meaning="the clipping distance k of Shaw et al.")


def check_seq_len(seq_len: object) -> int | None:
    """The current sequence length a length-dependent RoPE scaling reads (None: not given)."""
    if seq_len is None:
        return None
    return check_int(seq_len, "seq_len", minimum=0, maximum=MAX_WHOLE, meaning="the current sequence length")


def check_t5_buckets(bidirectional: bool, num_buckets: object, max_distance: object) -> tuple[int, int, int]:
    """T5's buckets (arXiv:1910.10683): (buckets per direction, max_exact, max_distance), or a ValueError."""
    bidirectional = check_flag(bidirectional, "bidirectional")
    num_buckets = check_count(num_buckets, "num_buckets", minimum=2, meaning="the number of T5 buckets")
    max_distance = check_int(max_distance, "max_distance", minimum=1, maximum=MAX_WHOLE,
                             meaning="where T5's last bucket starts")
    per_side = num_buckets // 2 if bidirectional else num_buckets
    max_exact = per_side // 2
    if max_exact < 1:
        raise ValueError(
            f"num_buckets={num_buckets} leaves no exact bucket: a bidirectional T5 bias needs at least "
            "4 buckets (2 per direction), a causal one at least 2."
        )
    if max_distance <= max_exact:
        raise ValueError(
            f"max_distance={max_distance} must be larger than the {max_exact} exact buckets, "
            "otherwise the logarithmic buckets have no room; increase max_distance."
        )
    return per_side, max_exact, max_distance


def check_count(value: object, name: str, *, minimum: int, meaning: str) -> int:
    """A small count (heads, buckets): a whole number in [minimum, MAX_COUNT]."""
    return check_int(value, name, minimum=minimum, maximum=MAX_COUNT, meaning=meaning)


def check_size(shape: tuple[int, ...], what: str) -> None:
    """Refuse an array of more than MAX_ELEMENTS entries before allocating it."""
    size = math.prod(shape)
    if size > MAX_ELEMENTS:
        raise ValueError(f"{what} of shape {tuple(shape)} would hold {size:,} numbers, more than the "
                         f"{MAX_ELEMENTS:,} posenc computes at once; use a smaller size.")


def check_base(base: object, name: str = "base") -> float:
    """The base n of the frequencies (10000 in Vaswani et al.): finite, in [MIN_BASE, MAX_BASE]."""
    if isinstance(base, (bool, np.bool_)) or not isinstance(base, numbers.Real):
        raise ArgumentTypeError(f"{name} must be a positive number (10000 in the paper); got {_shown(base)}.")
    base = float(base)
    if not math.isfinite(base) or base <= 0:
        raise ValueError(
            f"{name} must be a finite number greater than 0 (10000 in the paper); got {base}."
        )
    if not MIN_BASE <= base <= MAX_BASE:
        raise ValueError(f"{name} must be between {MIN_BASE:g} and {MAX_BASE:g} (10000 in the paper): below 1 "
                         f"the frequencies θ_i = {name}^(−2i/d) would grow with i, above {MAX_BASE:g} the "
                         f"wavelengths 2π/θ_i would not be finite numbers; got {base:g}.")
    return base


def check_magnitude(values: np.ndarray, name: str, limit: float = 1e150) -> np.ndarray:
    """Refuse entries larger than ``limit`` in size (their squares and products would overflow)."""
    with np.errstate(invalid="ignore"):
        if np.any(np.abs(values) > limit):
            raise ValueError(f"{name} must hold numbers of size at most {limit:g}, so that their squares and "
                             f"products are finite; scale it down first.")
    return values


def check_float_dtype(dtype: object) -> np.dtype:
    """A numpy floating dtype such as np.float32 or np.float64."""
    try:
        resolved = np.dtype(dtype)
    except (TypeError, ValueError) as err:
        raise ArgumentTypeError(f"dtype must be a floating type such as float32; got {_shown(dtype)}.") from err
    if resolved.kind != "f":
        raise ArgumentTypeError(f"dtype must be a floating type such as float32; got {resolved}.")
    return resolved


def check_choice(value: object, name: str, choices: tuple[str, ...]) -> str:
    """One of a fixed set of names."""
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {listed}; got {_shown(value)}.")
    return value


def check_array(values: object, name: str, *, min_ndim: int = 0, max_ndim: int | None = None,
                finite: bool = True, allow_nan: bool = False) -> np.ndarray:
    """Numbers as an array of ints or floats (as given; callers convert ints explicitly): bools,
    strings, objects and complex numbers refused; NaN and ±inf refused when ``finite`` (NaN
    allowed with ``allow_nan``, where it means "no value"); size capped."""
    array = np.asarray(values) if not isinstance(values, np.ndarray) else values
    if array.dtype.kind not in "iuf":
        raise ArgumentTypeError(f"{name} must hold real numbers (ints or floats); got {_kind(array)}.")
    if array.ndim < min_ndim or (max_ndim is not None and array.ndim > max_ndim):
        wanted = f"{min_ndim}" if max_ndim == min_ndim else f"at least {min_ndim}"
        if max_ndim is not None and max_ndim != min_ndim:
            wanted = f"{min_ndim} to {max_ndim}"
        raise ValueError(f"{name} must have {wanted} axes; got shape {array.shape}.")
    check_size(array.shape, name)
    if finite and array.dtype.kind == "f":
        if allow_nan and np.isinf(array).any():
            raise ValueError(f"{name} must not hold ±inf (NaN marks a missing value).")
        if not allow_nan and not np.isfinite(array).all():
            raise ValueError(f"{name} must hold finite numbers; got NaN or ±inf.")
    return array


def check_indices(values: object, size: int | None, name: str) -> np.ndarray:
    """Whole numbers ≥ 0 (and < ``size`` when given) as an int64 array, or a ValueError."""
    array = np.asarray(values)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise ValueError(f"{name} must be a list of whole numbers; got {values!r}.")
    array = array.astype(np.int64)
    if array.size and (array.min() < 0 or (size is not None and array.max() >= size)):
        bound = f" and below {size}" if size is not None else ""
        raise ValueError(f"{name} must be at least 0{bound}; got {array.min()} … {array.max()}.")
    return array


def check_finite(values: np.ndarray, what: str) -> np.ndarray:
    """Refuse a result that overflowed (±inf) or is undefined (NaN) instead of returning it."""
    if not np.isfinite(values).all():
        raise ValueError(f"{what} is not a finite number for these arguments (it overflows); "
                         "use smaller values.")
    return values


def _kind(array: np.ndarray) -> str:
    return {"b": "bools", "c": "complex numbers", "U": "text", "S": "bytes", "O": "Python objects",
            "M": "dates", "m": "time spans", "V": "raw records"}.get(array.dtype.kind, str(array.dtype))


def _shown(value: object) -> str:
    """A short description of a bad value: its repr when short, else its type."""
    text = repr(value)
    return text if len(text) <= 40 else f"a {type(value).__name__}"
