"""Property-based tests of posenc.analysis.table_cells: the cells a chart draws, computed without the full table.

Valid arguments (positions and dimensions drawn inside the table) must give exactly the full
table's cells; one argument replaced by a hostile value must be refused with a sentence or give
the same kind of result. Budget: the hypothesis profile in tests/conftest.py (POSENC_FUZZ).
"""

import numpy as np
import pytest
from hypothesis import strategies as st

import posenc
from library_fuzz import finite_array, fuzz
from posenc.analysis import table_cells
from posenc.schemes.absolute import learned_cells
from posenc.schemes.sinusoidal import sinusoidal_cells

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # an overflow warning is a silent inf: fail

BASES = st.one_of(st.floats(1.0, 1e6), st.sampled_from([1.0, 2.0, 10000.0, 1e300]))
LENGTH, D_MODEL = 40, 24  # fixed, so that valid rows and columns can be drawn independently


def picks(bound: int) -> st.SearchStrategy:
    """A few whole numbers in 0 … bound − 1 (repeats and any order allowed), as an int64 array."""
    return st.lists(st.integers(0, bound - 1), max_size=12).map(lambda v: np.array(v, dtype=np.int64))


def valid_cells(result, rows, cols, full) -> None:
    """The cells equal the full table's, whenever rows and cols were valid index arrays."""
    if all(isinstance(i, np.ndarray) and i.dtype == np.int64 for i in (rows, cols)):
        np.testing.assert_array_equal(result, full[np.ix_(rows, cols)])


def untouched(a: dict, **expected) -> bool:
    """Whether the arguments named in ``expected`` still hold their valid values (no hostile swap)."""
    return all(type(a[name]) is kind for name, kind in expected.items())


def check_sinusoidal(result, a):
    finite_array(result)
    if a["d_model"] == D_MODEL and untouched(a, d_model=int, base=float):
        valid_cells(result, a["positions"], a["dims"], posenc.sinusoidal(LENGTH, D_MODEL, a["base"]))


test_sinusoidal_cells = fuzz(
    sinusoidal_cells, dict(positions=picks(LENGTH), dims=picks(D_MODEL), d_model=st.just(D_MODEL), base=BASES),
    check_sinusoidal,
)


def check_learned(result, a):
    finite_array(result, allow_nan=True)
    if (a["d_model"] == D_MODEL and untouched(a, d_model=int, table_size=int, seed=int)
            and 1 <= a["table_size"] <= 40 and 0 <= a["seed"] <= 2**32):  # the valid draws, not a hostile int
        full = posenc.learned_absolute(LENGTH, D_MODEL, table_size=a["table_size"], seed=a["seed"])
        valid_cells(result, a["positions"], a["dims"], full)


test_learned_cells = fuzz(
    learned_cells, dict(positions=picks(LENGTH), dims=picks(D_MODEL), d_model=st.just(D_MODEL),
                              table_size=st.integers(1, 40), seed=st.integers(0, 2**32)),
    check_learned,
)


def check_clip(result, a):
    assert result.dtype == np.int64 and np.abs(result).max(initial=0) <= int(a["max_relative_position"])
    if a["length"] == LENGTH:
        full = posenc.shaw_relative_positions(LENGTH, int(a["max_relative_position"]))
        valid_cells(result, a["rows"], a["cols"], full)


test_shaw_clip_cells = fuzz(
    table_cells.shaw_clip_cells,
    dict(length=st.just(LENGTH), max_relative_position=st.integers(0, 50), rows=picks(LENGTH), cols=picks(LENGTH)),
    check_clip,
)


@pytest.mark.parametrize("name", ["rows", "cols", "length", "d_model", "base"])
@pytest.mark.parametrize("bad", [-1, 10**6, 2.5, np.nan, "3", None, np.array([[1]]), np.array([True])])
def test_table_cells_refuses_each_bad_argument(name, bad):
    arguments = dict(scheme="sinusoidal", length=8, d_model=6, base=1e4, rows=np.array([0, 7]), cols=np.array([5]))
    if name in ("rows", "cols") and isinstance(bad, int) and bad == 10**6:
        bad = np.array([bad])
    arguments[name] = bad
    try:
        result = table_cells.table_cells(**arguments)
    except (ValueError, TypeError) as err:
        assert len(str(err)) > 15 and " " in str(err)
    else:
        finite_array(result)


def test_aliased_columns_and_wavelengths():
    waves = table_cells.column_wavelengths("sinusoidal", 16, 1e4)
    np.testing.assert_allclose(waves[::2], posenc.wavelengths(16, 1e4))
    assert table_cells.column_wavelengths("alibi", 16, 1e4) is None
    np.testing.assert_array_equal(table_cells.aliased_columns(waves, 16), np.flatnonzero(waves < 32))
    assert table_cells.aliased_columns(waves, 1).size == 0 and table_cells.aliased_columns(None, 16).size == 0
