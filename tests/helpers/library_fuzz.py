"""Shared pieces of the library's property-based tests (not a test module itself).

``fuzz(function, valid, check)`` builds a hypothesis test: each example draws valid keyword
arguments from ``valid`` (name -> strategy), then maybe replaces one of them with a hostile
value; the call must either raise ValueError/TypeError with a sentence, or return a result
that ``check`` accepts (finite, of the documented shape and dtype).
"""

from __future__ import annotations

import math
import time

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

MAX_SECONDS = 10.0  # a call on the sizes drawn here takes milliseconds (even on a busy machine); a hang fails

HOSTILE_SCALARS = [
    math.nan, math.inf, -math.inf, 1e300, -1e300, 1e-300, 2**63, -(2**63), 2**53 + 1, -1, 0, 0.5, -0.5, 2.5,
    True, False, np.True_, np.int64(3), np.uint8(3), np.float32(2.0), np.float64(np.nan), "4", "", "x" * 1000,
    None, [1], (), {}, object(), 1 + 2j, np.ones((2, 2), dtype=np.int64), np.array(["a"]), np.array([True, False]),
    np.float16(65504.0),
]
HOSTILE_ARRAYS = [
    np.ones((3, 4), dtype=np.int64), np.ones((3, 4), dtype=bool), np.full((3, 4), np.nan), np.full((3, 4), np.inf),
    np.full((3, 4), 1e308), np.ones((0, 4)), np.ones((3, 0)), np.ones(4), np.ones((2, 3, 4)), np.array(3.0),
    np.array([["a", "b"]]), np.ones((3, 4), dtype=np.complex128), np.ones((3, 4), dtype=np.float16),
    np.ones((3, 4), dtype=np.uint64) * np.uint64(2**63), [[1, 2], [3]], "abc", None, 5,
]


def hostile() -> st.SearchStrategy:
    """Scalars and arrays a careless script passes: NaN, ±inf, huge, negative, fractions, bools,
    numpy scalars, int/bool/complex/text arrays, wrong shapes, strings, None, plus random numbers."""
    return st.one_of(
        st.sampled_from(HOSTILE_SCALARS),
        st.sampled_from(HOSTILE_ARRAYS),
        st.integers(-(10**30), 10**30),
        st.floats(allow_nan=True, allow_infinity=True),
    )


def outcome(call):
    """call() -> ("refused", message) or ("ok", result); anything else (another exception, a hang) fails."""
    start = time.perf_counter()
    try:
        result = call()
    except (ValueError, TypeError) as err:
        message = str(err)
        assert len(message) > 15 and " " in message, f"a refusal without a sentence: {message!r}"
        assert "Traceback" not in message
        result = None
        kind = "refused"
    else:
        kind = "ok"
    assert time.perf_counter() - start < MAX_SECONDS, "the call took too long"
    return kind, result


def finite_array(value, *, shape=None, dtype=None, allow_nan=False, allow_neginf=False) -> np.ndarray:
    """Assert ``value`` is a numpy array of real numbers, finite (NaN/−inf only where allowed)."""
    assert isinstance(value, np.ndarray), type(value)
    assert value.dtype.kind in "iuf", value.dtype
    if shape is not None:
        assert value.shape == tuple(shape), (value.shape, shape)
    if dtype is not None:
        assert value.dtype == np.dtype(dtype), (value.dtype, dtype)
    if value.dtype.kind == "f":
        bad = ~np.isfinite(value)
        if allow_nan:
            bad &= ~np.isnan(value)
        if allow_neginf:
            bad &= ~np.isneginf(value)
        assert not bad.any(), "a non-finite number where none is documented"
    return value


def fuzz(function, valid: dict[str, st.SearchStrategy], check, *, positional: int = 0, refuses=None):
    """A hypothesis test of ``function``: valid arguments, or one of them replaced by a hostile value.

    The first ``positional`` arguments are passed by position (in ``valid``'s order), the others by name.
    ``check(result, arguments)`` runs on every call that is not refused; drawn valid arguments must
    not be refused unless ``refuses(arguments)`` says the combination is one the function refuses.
    """
    names = list(valid)

    @given(st.fixed_dictionaries(valid), st.one_of(st.none(), st.sampled_from(names)), hostile())
    def test(arguments, victim, bad):
        if victim is not None:
            arguments = {**arguments, victim: bad}
        args = [arguments[name] for name in names[:positional]]
        kwargs = {name: arguments[name] for name in names[positional:]}
        kind, result = outcome(lambda: function(*args, **kwargs))
        if kind == "ok":
            check(result, arguments)
        elif victim is None and not (refuses and refuses(arguments)):
            raise AssertionError(f"valid arguments were refused: {arguments}")

    return test
