"""Property-based tests of posenc's public numpy API: valid, boundary and hostile arguments.

Every public function gets valid arguments, or one of them replaced by a hostile value (NaN,
±inf, huge, negative, fractions, bools, numpy scalars, int/bool/text arrays, wrong shapes,
strings, None). It must refuse with a ValueError/TypeError sentence, or return finite numbers
of the documented shape. Budget: the hypothesis profile in tests/conftest.py (POSENC_FUZZ).
The registry callables are in test_library_registry.py, the torch modules in test_library_modules.py.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc
from library_fuzz import finite_array, fuzz

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # an overflow warning is a silent inf: fail

LENGTHS = st.integers(0, 24)
WIDTHS = st.integers(1, 24)
EVEN = st.integers(1, 12).map(lambda h: 2 * h)
BASES = st.one_of(st.floats(1.0, 1e6), st.sampled_from([1.0, 2.0, 10000.0, 1e300]))
SEEDS = st.one_of(st.integers(0, 2**64 - 1), st.just(0))
OFFSETS = st.integers(-30, 30)


def as_int(value):
    return int(value)


# --- sinusoidal ---------------------------------------------------------------------------------

def check_table(result, a):
    finite_array(result, shape=(as_int(a["length"]), as_int(a["d_model"])), dtype=np.dtype(a["dtype"]))
    assert np.abs(result.astype(np.float64)).max(initial=0) <= 1 + 1e-3


test_sinusoidal = fuzz(
    posenc.sinusoidal,
    dict(length=LENGTHS, d_model=WIDTHS, base=BASES, layout=st.sampled_from(["interleaved", "split"]),
         dtype=st.sampled_from([np.float64, np.float32, np.float16]),
         spacing=st.sampled_from(["vaswani", "tensor2tensor"])),
    check_table, refuses=lambda a: a["layout"] == "split" and a["d_model"] % 2,
)


def check_frequencies(result, a):
    finite_array(result, shape=((as_int(a["d_model"]) + 1) // 2,))
    assert (result > 0).all()


SPACING = st.sampled_from(["vaswani", "tensor2tensor"])
test_frequencies = fuzz(posenc.frequencies, dict(d_model=WIDTHS, base=BASES, spacing=SPACING), check_frequencies)
test_wavelengths = fuzz(posenc.wavelengths, dict(d_model=WIDTHS, base=BASES, spacing=SPACING), check_frequencies)


def check_blocks(result, a):
    half = as_int(a["d_model"]) // 2
    finite_array(result, shape=(half, 2, 2))
    np.testing.assert_allclose(result @ result.transpose(0, 2, 1), np.broadcast_to(np.eye(2), (half, 2, 2)), atol=1e-12)


ROTATION = dict(k=OFFSETS, d_model=EVEN, base=st.floats(1.0, 1e6), spacing=SPACING)
test_rotation_blocks = fuzz(posenc.rotation_blocks, ROTATION, check_blocks)


def check_matrix(result, a):
    finite_array(result, shape=(as_int(a["d_model"]),) * 2)
    np.testing.assert_allclose(result @ result.T, np.eye(len(result)), atol=1e-12)


test_rotation_matrix = fuzz(posenc.rotation_matrix, ROTATION, check_matrix)


@st.composite
def tables(draw):
    d_model = draw(EVEN)
    return posenc.sinusoidal(draw(st.integers(1, 12)), d_model, dtype=draw(st.sampled_from([np.float32, np.float64])))


def check_rotated(result, a):
    table = np.asarray(a["table"])
    expected = table.dtype if table.dtype.kind == "f" else np.float64
    finite_array(result, shape=table.shape, dtype=expected)


test_apply_rotation = fuzz(posenc.apply_rotation, dict(k=OFFSETS, table=tables(), base=st.just(10000.0)),
                           check_rotated, positional=2)


@given(st.integers(2, 40), EVEN, st.integers(-20, 20), st.floats(2.0, 1e5))
def test_apply_rotation_moves_rows_by_k(length, d_model, k, base):
    """PE[p + k] = M_k·PE[p] for every p with p + k inside, and an int table is rotated as floats."""
    table = posenc.sinusoidal(length + abs(k), d_model, base)
    rows = np.arange(max(0, -k), min(length + abs(k), length + abs(k) - k))
    np.testing.assert_allclose(posenc.apply_rotation(k, table[rows], base), table[rows + k], atol=1e-9)
    integers = np.ones((3, d_model), dtype=np.int64)
    np.testing.assert_array_equal(posenc.apply_rotation(k, integers, base), posenc.apply_rotation(k, integers * 1.0, base))


def check_rotation_check(result, a):
    assert isinstance(result, posenc.RotationCheck) and math.isfinite(result.max_abs_error)
    finite_array(result.errors)
    assert result.max_abs_error < 1e-2


test_rotation_check = fuzz(
    posenc.rotation_check,
    dict(length=st.integers(1, 30), d_model=EVEN, base=st.floats(1.0, 1e6), k=OFFSETS,
         dtype=st.sampled_from([np.float64, np.float32]), spacing=SPACING),
    check_rotation_check, refuses=lambda a: abs(a["k"]) >= a["length"],
)


# --- learned, NoPE, Shaw, T5, ALiBi -------------------------------------------------------------

def check_learned(result, a):
    length, table_size = as_int(a["length"]), as_int(a["table_size"])
    finite_array(result, shape=(length, as_int(a["d_model"])), allow_nan=True)
    assert not np.isnan(result[:table_size]).any() and np.isnan(result[table_size:]).all()


test_learned_absolute = fuzz(
    posenc.learned_absolute,
    dict(length=LENGTHS, d_model=WIDTHS, table_size=st.integers(1, 30), seed=SEEDS,
         std=st.one_of(st.floats(1e-6, 10.0), st.just(1e100))),
    check_learned,
)


def check_zeros(result, a):
    assert not finite_array(result, shape=(as_int(a["length"]), as_int(a["d_model"]))).any()


test_nope = fuzz(posenc.nope, dict(length=LENGTHS, d_model=WIDTHS), check_zeros)

CLIP = st.integers(0, 10)


def check_clipped(result, a):
    length, k = as_int(a["length"]), as_int(a["max_relative_position"])
    finite_array(result, shape=(length, length))
    assert result.dtype.kind == "i" and np.abs(result).max(initial=0) <= k


test_shaw_relative_positions = fuzz(posenc.shaw_relative_positions, dict(length=LENGTHS, max_relative_position=CLIP),
                                    check_clipped)
test_shaw_embeddings = fuzz(
    posenc.shaw_embeddings, dict(max_relative_position=CLIP, d_head=WIDTHS, seed=SEEDS, std=st.floats(1e-3, 1.0)),
    lambda r, a: finite_array(r, shape=(2 * as_int(a["max_relative_position"]) + 1, as_int(a["d_head"]))),
)
test_shaw_bias = fuzz(
    posenc.shaw_bias, dict(length=LENGTHS, max_relative_position=CLIP, d_head=WIDTHS, seed=SEEDS),
    lambda r, a: finite_array(r, shape=(1, as_int(a["length"]), as_int(a["length"]))),
)


@st.composite
def t5_settings(draw):
    bidirectional = draw(st.booleans())
    num_buckets = draw(st.integers(4 if bidirectional else 2, 64))
    exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
    return dict(bidirectional=bidirectional, num_buckets=num_buckets,
                max_distance=draw(st.integers(exact + 1, exact + 300)))


def call_t5_bucket(relative_position, setting, bidirectional, num_buckets, max_distance):
    kwargs = {**setting}
    for name, value in (("bidirectional", bidirectional), ("num_buckets", num_buckets), ("max_distance", max_distance)):
        if value is not KEEP:
            kwargs[name] = value
    return posenc.t5_relative_bucket(relative_position, **kwargs)


KEEP = object()


def check_buckets(result, a):
    num_buckets = as_int(a["num_buckets"] if a["num_buckets"] is not KEEP else a["setting"]["num_buckets"])
    values = np.asarray(result)
    assert values.dtype.kind == "i" and values.shape == np.shape(a["relative_position"])
    assert values.min(initial=0) >= 0 and values.max(initial=0) < num_buckets


test_t5_relative_bucket = fuzz(
    call_t5_bucket,
    dict(relative_position=st.one_of(st.integers(-5000, 5000), st.lists(st.integers(-5000, 5000)).map(lambda r: np.array(r, dtype=np.int64))),
         setting=t5_settings(), bidirectional=st.just(KEEP), num_buckets=st.just(KEEP), max_distance=st.just(KEEP)),
    check_buckets,
)
test_t5_bias = fuzz(
    posenc.t5_bias, dict(length=LENGTHS, num_heads=st.integers(1, 8), seed=SEEDS, std=st.floats(1e-3, 2.0)),
    lambda r, a: finite_array(r, shape=(as_int(a["num_heads"]), as_int(a["length"]), as_int(a["length"]))),
)


def check_slopes(result, a):
    finite_array(result, shape=(as_int(a["num_heads"]),))
    assert ((result > 0) & (result <= 1)).all()


test_alibi_slopes = fuzz(posenc.alibi_slopes, dict(num_heads=st.integers(1, 300)), check_slopes)


def check_alibi(result, a):
    heads, length = as_int(a["num_heads"]), as_int(a["length"])
    finite_array(result, shape=(heads, length, length), allow_neginf=True)
    upper = np.triu(np.ones((length, length), dtype=bool), 1)
    assert np.isneginf(result).any(axis=0).sum() == (upper.sum() if a["causal"] else 0)


test_alibi_bias = fuzz(posenc.alibi_bias, dict(length=LENGTHS, num_heads=st.integers(1, 16), causal=st.booleans()),
                       check_alibi)


# --- scheme lookup and measurements -------------------------------------------------------------

test_get_scheme = fuzz(posenc.get_scheme, dict(key=st.sampled_from(list(posenc.SCHEMES))),
                       lambda r, a: isinstance(r, posenc.Scheme))


@st.composite
def encoding_tables(draw):
    table = posenc.learned_absolute(draw(st.integers(1, 16)), draw(WIDTHS), table_size=draw(st.integers(1, 16)))
    return table


def check_similarity(result, a):
    table = np.asarray(a["table"], dtype=np.float64)
    finite_array(result, shape=(len(table), len(table)), allow_nan=True)


test_similarity_matrix = fuzz(posenc.similarity_matrix, dict(table=encoding_tables()), check_similarity)
test_offset_similarity = fuzz(
    posenc.offset_similarity, dict(table=encoding_tables()),
    lambda r, a: finite_array(r[1], shape=(max(2 * len(np.asarray(a["table"])) - 1, 0),), allow_nan=True),
)
