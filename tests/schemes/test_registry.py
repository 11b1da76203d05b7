"""Every registry entry: one signature, consistent numbers across its callables."""

import numpy as np
import pytest

import posenc
from posenc.schemes.offsets import toeplitz_view

SCHEMES = list(posenc.SCHEMES.values())


@pytest.mark.parametrize("scheme", SCHEMES, ids=lambda s: s.key)
def test_entry_shapes_and_formula(scheme):
    options = scheme.defaults()
    offsets, curve = scheme.offset_curve(12, 8, 10000.0, **options)
    assert list(offsets) == list(range(-11, 12)) and curve.shape == (23,)
    assert isinstance(scheme.formula(8, 10000.0, **options), str) and "=" in scheme.formula(8, 10000.0, **options)
    assert "arXiv:" in scheme.paper
    if scheme.family == "absolute":
        assert scheme.table(12, 8, 10000.0, **options).shape == (12, 8)
    if scheme.family == "bias":
        assert scheme.bias(12, 8, 10000.0, **options).shape[1:] == (12, 12)


def test_bias_matrices_equal_the_library_functions():
    length = 40
    np.testing.assert_array_equal(posenc.SCHEMES["alibi"].bias(length, 8, 1e4, num_heads=12, direction="bidirectional"),
                                  posenc.alibi_bias(length, 12))
    np.testing.assert_array_equal(posenc.SCHEMES["alibi"].bias(length, 8, 1e4, num_heads=12),  # opens causal
                                  posenc.alibi_bias(length, 12, causal=True))
    np.testing.assert_array_equal(posenc.SCHEMES["alibi"].bias(length, 8, 1e4, num_heads=6, direction="causal"),
                                  posenc.alibi_bias(length, 6, causal=True))
    np.testing.assert_array_equal(posenc.SCHEMES["t5"].bias(length, 8, 1e4, num_heads=4, max_distance=20, seed=3),
                                  posenc.t5_bias(length, 4, max_distance=20, seed=3))
    np.testing.assert_array_equal(posenc.SCHEMES["t5"].bias(length, 8, 1e4, direction="causal"),
                                  posenc.t5_bias(length, 8, bidirectional=False))
    np.testing.assert_allclose(posenc.SCHEMES["shaw"].bias(length, 16, 1e4, max_relative_position=5),
                               posenc.shaw_bias(length, 5, 16) / np.sqrt(16), atol=1e-15)  # its share of e_ij


@pytest.mark.parametrize("key", ["shaw", "t5", "alibi"])
def test_offset_bias_view_matches_full_bias_at_thinned_cells(key):
    scheme = posenc.SCHEMES[key]
    full = scheme.bias(50, 8, 1e4)
    _, values = scheme.offset_bias(50, 8, 1e4)
    rows, cols = np.array([0, 7, 33, 49]), np.array([2, 3, 40])
    np.testing.assert_array_equal(toeplitz_view(values, rows, cols), full[:, rows][:, :, cols])


def test_offset_curve_of_a_bias_scheme_is_head_zero():
    offsets, curve = posenc.SCHEMES["alibi"].offset_curve(10, 8, 1e4, direction="bidirectional")
    np.testing.assert_array_equal(curve, -0.5 * np.abs(offsets))
    _, causal = posenc.SCHEMES["alibi"].offset_curve(10, 8, 1e4)  # opens causal, as the paper
    assert np.isnan(causal[offsets > 0]).all() and (causal[offsets <= 0] == -0.5 * np.abs(offsets[offsets <= 0])).all()
