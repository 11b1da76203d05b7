"""Shaw, T5 and ALiBi: pinned numbers, the references they follow, torch parity, the registry."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from posenc.modules.relative import (
    ALiBiBias,
    ShawRelativePositions,
    T5RelativeBias,
    relative_position_bucket,
)
from posenc.schemes import alibi, shaw, t5
from posenc.schemes.alibi import alibi_bias, alibi_slopes
from posenc.schemes.shaw import shaw_bias, shaw_embeddings, shaw_lookup, shaw_query, shaw_relative_positions
from posenc.schemes.t5 import t5_bias, t5_bucket_values, t5_relative_bucket
from t5_reference import hf_relative_position_bucket

SCHEMES = shaw.SCHEMES + t5.SCHEMES + alibi.SCHEMES

SCHEME = {s.key: s for s in SCHEMES}
RELATIVE = np.arange(-1000, 1001)


# --- independent references, copied from the original code (T5's: t5_reference.py) ---------


def press_get_slopes(n):
    """ofirpress/attention_with_linear_biases, fairseq/models/transformer.py."""

    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2)
        + press_get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )


# --- Shaw ------------------------------------------------------------------------------------


def test_shaw_positions_are_clipped_offsets():
    expected = [
        [0, 1, 2, 2, 2],
        [-1, 0, 1, 2, 2],
        [-2, -1, 0, 1, 2],
        [-2, -2, -1, 0, 1],
        [-2, -2, -2, -1, 0],
    ]
    np.testing.assert_array_equal(shaw_relative_positions(5, 2), expected)
    assert not shaw_relative_positions(4, 0).any()
    np.testing.assert_array_equal(shaw_relative_positions(3, 10), [[0, 1, 2], [-1, 0, 1], [-2, -1, 0]])


def test_shaw_lookup_picks_rows_of_the_table():
    table = shaw_embeddings(3, 6, seed=1)
    assert table.shape == (7, 6)
    lookup = shaw_lookup(9, 3, 6, seed=1)
    assert lookup.shape == (9, 9, 6)
    np.testing.assert_array_equal(lookup[0, 8], table[6])  # j − i = 8 → clipped to 3 → a_3
    np.testing.assert_array_equal(lookup[8, 0], table[0])  # −8 → a_−3
    np.testing.assert_array_equal(lookup[4, 5], table[4])  # +1 → a_1
    np.testing.assert_array_equal(lookup[2, 2], lookup[7, 7])


def test_shaw_bias_is_the_unit_query_times_the_vectors():
    query = shaw_query(6, seed=1)
    assert np.linalg.norm(query) == pytest.approx(1.0)
    bias = shaw_bias(9, 3, 6, seed=1)
    assert bias.shape == (1, 9, 9)
    np.testing.assert_allclose(bias[0], shaw_lookup(9, 3, 6, seed=1) @ query, rtol=1e-12)


def test_torch_shaw_matches_numpy():
    module = ShawRelativePositions(4, 16, seed=2)
    np.testing.assert_allclose(module(20).detach().numpy(), shaw_lookup(20, 4, 16, seed=2), atol=1e-6)


# --- T5 --------------------------------------------------------------------------------------

BIDIRECTIONAL = {0: 0, -1: 1, 1: 17, -7: 7, 7: 23, -8: 8, 8: 24, -15: 9, 15: 25, -16: 10, 16: 26,
                 -63: 13, -64: 14, -127: 15, 127: 31, -128: 15, 128: 31, -1000: 15, 1000: 31}
CAUSAL = {0: 0, 1: 0, 1000: 0, -1: 1, -15: 15, -16: 16, -31: 21, -32: 21, -127: 31, -128: 31, -1000: 31}


@pytest.mark.parametrize(("relative", "bucket"), BIDIRECTIONAL.items())
def test_t5_bidirectional_buckets_by_hand(relative, bucket):
    # 16 buckets a side, 8 exact; 8 + ⌊ln(n/8)/ln(16)·8⌋, e.g. n=15: ⌊1.81⌋ → 9; positive r → +16.
    assert t5_relative_bucket(relative) == bucket


@pytest.mark.parametrize(("relative", "bucket"), CAUSAL.items())
def test_t5_causal_buckets_by_hand(relative, bucket):
    # 32 buckets, 16 exact; 16 + ⌊ln(n/16)/ln(8)·16⌋, e.g. n=31: ⌊5.09⌋ → 21; future keys → 0.
    assert t5_relative_bucket(relative, bidirectional=False) == bucket


def test_t5_float32_truncation_case():
    # ln(4)/ln(32)·5 is exactly 2: float32 rounds it to 2.0 (bucket 7), float64 to 1.99… (6).
    assert t5_relative_bucket(-20, bidirectional=False, num_buckets=10, max_distance=160) == 7
    assert hf_relative_position_bucket(torch.tensor(-20), False, 10, 160).item() == 7


SETTINGS = [(32, 128), (16, 128), (64, 256), (20, 100), (8, 32), (32, 64), (128, 1000), (10, 160), (6, 20)]


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(("num_buckets", "max_distance"), SETTINGS)
def test_t5_buckets_equal_hugging_face(bidirectional, num_buckets, max_distance):
    ours = t5_relative_bucket(RELATIVE, bidirectional=bidirectional, num_buckets=num_buckets,
                              max_distance=max_distance)
    reference = hf_relative_position_bucket(torch.from_numpy(RELATIVE), bidirectional, num_buckets, max_distance)
    np.testing.assert_array_equal(ours, reference.numpy())
    module = relative_position_bucket(torch.from_numpy(RELATIVE), bidirectional, num_buckets, max_distance)
    np.testing.assert_array_equal(module.numpy(), reference.numpy())


def test_t5_bucket_keeps_shape_and_scalars():
    assert isinstance(t5_relative_bucket(np.int32(-3)), int)
    assert t5_relative_bucket(np.array([[1, -1], [0, 200]])).tolist() == [[17, 1], [0, 31]]


def test_t5_bias_reads_the_bucket_table():
    values = t5_bucket_values(32, 4, seed=3)
    assert values.shape == (32, 4)
    bias = t5_bias(40, 4, seed=3)
    assert bias.shape == (4, 40, 40)
    assert bias[2, 10, 10] == values[0, 2]
    assert bias[1, 0, 39] == values[16 + t5_relative_bucket(39) - 16, 1]
    assert bias[3, 39, 0] == values[t5_relative_bucket(-39), 3]
    np.testing.assert_array_equal(bias[:, 5, 7], bias[:, 20, 22])  # depends on j − i only


def test_torch_t5_matches_numpy():
    for bidirectional in (True, False):
        module = T5RelativeBias(6, 32, 128, bidirectional, seed=4)
        expected = t5_bias(150, 6, bidirectional=bidirectional, seed=4)
        np.testing.assert_allclose(module(150, 150).detach().numpy(), expected, atol=1e-6)
        assert module(5, 9).shape == (6, 5, 9)


# --- ALiBi -----------------------------------------------------------------------------------


def test_alibi_slopes_8_heads():
    np.testing.assert_array_equal(alibi_slopes(8), [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256])


def test_alibi_slopes_12_heads():
    slopes = alibi_slopes(12)
    np.testing.assert_array_equal(slopes, press_get_slopes(12))
    np.testing.assert_allclose(slopes[:8], 2.0 ** -np.arange(1, 9), rtol=1e-15)
    np.testing.assert_allclose(slopes[8:], [0.7071067811865476, 0.35355339059327373, 0.1767766952966369,
                                            0.08838834764831845], rtol=1e-15)


@pytest.mark.parametrize("num_heads", [1, 2, 3, 5, 6, 7, 16, 24, 33, 64])
def test_alibi_slopes_equal_press_reference(num_heads):
    np.testing.assert_array_equal(alibi_slopes(num_heads), press_get_slopes(num_heads))


def test_alibi_bias_values():
    bias = alibi_bias(3, 4)  # slopes 1/4, 1/16, 1/64, 1/256
    distance = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]])
    np.testing.assert_array_equal(bias[0], -0.25 * distance)
    np.testing.assert_array_equal(bias[3], -distance / 256)


def test_alibi_causal_masks_the_future():
    bias = alibi_bias(4, 2, causal=True)  # slopes 1/16, 1/256
    assert bias[0, 3, 0] == -3 / 16 and bias[1, 2, 1] == -1 / 256
    assert np.isneginf(bias[:, 0, 1:]).all()
    assert np.isneginf(bias[0][np.triu_indices(4, 1)]).all()
    np.testing.assert_array_equal(np.tril(bias[0]), np.tril(alibi_bias(4, 2)[0]))


def test_torch_alibi_matches_numpy():
    for causal in (False, True):
        for num_heads in (8, 12):
            module_bias = ALiBiBias(num_heads, causal)(64).numpy()
            np.testing.assert_allclose(module_bias, alibi_bias(64, num_heads, causal=causal), rtol=1e-6, atol=1e-6)


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: shaw_relative_positions(4, -1), "max_relative_position must be at least 0"),
        (lambda: shaw_embeddings(2, 0), "d_head must be at least 1"),
        (lambda: shaw_lookup(-3, 2, 4), "length must be at least 0"),
        (lambda: alibi_slopes(0), "num_heads must be at least 1"),
        (lambda: alibi_bias(4, 2.5), "num_heads must be a whole number"),
        (lambda: t5_bias(4, 0), "num_heads must be at least 1"),
        (lambda: t5_relative_bucket(1.5), "relative_position must hold whole numbers"),
        (lambda: t5_relative_bucket(3, num_buckets=2), "no exact bucket"),
        (lambda: t5_relative_bucket(3, max_distance=8), "max_distance=8 must be larger than the 8 exact"),
        (lambda: t5_bias(4, 2, seed=-1), "seed must be at least 0"),
        (lambda: T5RelativeBias(2, num_buckets=3), "no exact bucket"),
        (lambda: ALiBiBias(0), "num_heads must be at least 1"),
        (lambda: SCHEME["alibi"].bias(4, 8, 1e4, num_heads=2, direction="sideways"), "direction must be one of"),
    ],
)
def test_bad_arguments_raise_a_sentence(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- registry --------------------------------------------------------------------------------


def test_registry_keys():
    assert [s.key for s in SCHEMES] == ["shaw", "t5", "alibi"]
    assert all(s.family == "bias" and s.table is None and "arXiv:" in s.paper for s in SCHEMES)


OPTIONS = [
    ("shaw", {}), ("shaw", {"max_relative_position": 0, "seed": 3}),
    ("t5", {}), ("t5", {"num_heads": 3, "num_buckets": 16, "max_distance": 64, "direction": "causal"}),
    ("alibi", {}), ("alibi", {"num_heads": 12, "direction": "causal"}),
]


@pytest.mark.parametrize(("key", "options"), OPTIONS)
@pytest.mark.parametrize(("length", "d_model"), [(1, 4), (33, 8)])
def test_registry_entry_shapes_and_curve(key, options, length, d_model):
    scheme = SCHEME[key]
    options = {**scheme.defaults(), **options}
    heads = options.get("num_heads", 1)
    bias = scheme.bias(length, d_model, 10000.0, **options)
    assert bias.shape == (heads, length, length)
    offsets, values = scheme.offset_curve(length, d_model, 10000.0, **options)
    np.testing.assert_array_equal(offsets, np.arange(-(length - 1), length))
    # the curve is head 0 of the bias along its first row/column (masked offsets: NaN)
    along = np.concatenate([bias[0, ::-1, 0][:-1], bias[0, 0, :]])
    finite = np.isfinite(along)
    np.testing.assert_allclose(values[finite], along[finite], rtol=1e-12)
    assert np.isnan(values[~finite]).all()
    formula = scheme.formula(d_model, 10000.0, **options)
    assert isinstance(formula, str) and formula.strip()


def test_registry_formulas_substitute_values():
    assert "k = 16" in SCHEME["shaw"].formula(64, 1e4, **SCHEME["shaw"].defaults())
    assert r"\ln(128/8)" in SCHEME["t5"].formula(64, 1e4, **SCHEME["t5"].defaults())
    assert "2^{-8h/8}" in SCHEME["alibi"].formula(64, 1e4, **SCHEME["alibi"].defaults())
    assert r"-\infty" in SCHEME["alibi"].formula(64, 1e4, num_heads=6, direction="causal")
