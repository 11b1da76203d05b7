"""The sinusoidal encoding, pinned to the seeds' printed values and to its invariants."""

import numpy as np
import pytest

import posenc

# Seed 000 (d_model=4, base 10000): the first three rows and row 10, as printed.
SEED_000_ROWS = {
    0: [0.0, 1.0, 0.0, 1.0],
    1: [0.84147098, 0.54030231, 0.00999983, 0.99995],
    2: [0.90929743, -0.41614684, 0.01999867, 0.99980001],
    10: [-0.54402111, -0.83907153, 0.09983342, 0.99500417],
}
# Seed 001: getPositionEncoding(seq_len=4, d=4, n=100), as printed.
SEED_001 = [
    [0.0, 1.0, 0.0, 1.0],
    [0.84147098, 0.54030231, 0.09983342, 0.99500417],
    [0.90929743, -0.41614684, 0.19866933, 0.98006658],
    [0.14112001, -0.9899925, 0.29552021, 0.95533649],
]
# Seed 003: the frequencies exp(2i · (−ln 10000 / 16)) at d_model=16, as printed (5 significant digits).
SEED_003_FREQUENCIES = [1.0, 3.1623e-01, 1.0000e-01, 3.1623e-02, 1.0000e-02, 3.1623e-03, 1.0000e-03, 3.1623e-04]


def test_seed_000_rows():
    table = posenc.sinusoidal(11, 4)
    for pos, row in SEED_000_ROWS.items():
        np.testing.assert_allclose(table[pos], row, atol=5e-9)


def test_seed_001_base_100():
    np.testing.assert_allclose(posenc.sinusoidal(4, 4, 100.0), SEED_001, atol=5e-9)


def test_seed_003_frequencies():
    np.testing.assert_allclose(posenc.frequencies(16), SEED_003_FREQUENCIES, rtol=5e-5)


def test_frequencies_are_the_paper_formula():
    i = np.arange(256)
    np.testing.assert_allclose(posenc.frequencies(512), 10000.0 ** (-2 * i / 512), rtol=1e-14)


def test_wavelengths_geometric_from_2pi():
    waves = posenc.wavelengths(512)
    assert waves[0] == pytest.approx(2 * np.pi)
    ratios = waves[1:] / waves[:-1]
    np.testing.assert_allclose(ratios, ratios[0], rtol=1e-12)
    assert waves[-1] == pytest.approx(2 * np.pi * 10000 ** (510 / 512))


def test_tensor2tensor_spacing_reaches_base_exactly():
    waves = posenc.wavelengths(512, spacing="tensor2tensor")
    assert waves[0] == pytest.approx(2 * np.pi)
    assert waves[-1] == pytest.approx(2 * np.pi * 10000.0)
    assert waves[-1] > posenc.wavelengths(512)[-1] * 1.03  # visibly longer than Vaswani's


def test_matches_direct_formula_at_large_size():
    length, d_model = 3000, 64
    table = posenc.sinusoidal(length, d_model)
    phase = np.arange(length)[:, None] * posenc.frequencies(d_model)
    np.testing.assert_allclose(table[:, 0::2], np.sin(phase), atol=1e-12)
    np.testing.assert_allclose(table[:, 1::2], np.cos(phase), atol=1e-12)


def test_values_bounded_and_rows_unit_norm_per_pair():
    table = posenc.sinusoidal(500, 64)
    assert np.abs(table).max() <= 1.0
    pair_norms = table[:, 0::2] ** 2 + table[:, 1::2] ** 2
    np.testing.assert_allclose(pair_norms, 1.0, atol=1e-14)


def test_float32_is_the_float64_table_rounded():
    t64 = posenc.sinusoidal(1000, 96)
    t32 = posenc.sinusoidal(1000, 96, dtype=np.float32)
    assert t32.dtype == np.float32
    np.testing.assert_array_equal(t32, t64.astype(np.float32))


def test_odd_d_model_ends_with_a_sine():
    table = posenc.sinusoidal(20, 5)
    theta = posenc.frequencies(5)
    assert table.shape == (20, 5) and len(theta) == 3
    np.testing.assert_allclose(table[:, 4], np.sin(np.arange(20) * theta[2]), atol=1e-15)
    np.testing.assert_allclose(table[:, :4], posenc.sinusoidal(20, 5)[:, :4])


def test_split_layout_is_sines_then_cosines():
    inter = posenc.sinusoidal(30, 8)
    split = posenc.sinusoidal(30, 8, layout="split")
    np.testing.assert_array_equal(split[:, :4], inter[:, 0::2])
    np.testing.assert_array_equal(split[:, 4:], inter[:, 1::2])


def test_split_layout_rejects_odd_d_model():
    with pytest.raises(ValueError, match="split layout.*even"):
        posenc.sinusoidal(10, 7, layout="split")


@pytest.mark.parametrize("k", [1, 5, -3, 37, -99])
def test_rotation_maps_pos_to_pos_plus_k(k):
    table = posenc.sinusoidal(100, 32)
    matrix = posenc.rotation_matrix(k, 32)
    for pos in range(max(0, -k), min(100, 100 - k), 7):
        np.testing.assert_allclose(matrix @ table[pos], table[pos + k], atol=1e-13)


def test_rotation_matrix_is_orthogonal_and_transpose_is_inverse():
    m = posenc.rotation_matrix(13, 16, 500.0)
    np.testing.assert_allclose(m.T @ m, np.eye(16), atol=1e-15)
    np.testing.assert_allclose(posenc.rotation_matrix(-13, 16, 500.0), m.T, atol=0)


def test_rotation_matrix_block_values():
    m = posenc.rotation_matrix(2, 4)
    theta = posenc.frequencies(4)
    c, s = np.cos(2 * theta), np.sin(2 * theta)
    expected = np.array([[c[0], s[0], 0, 0], [-s[0], c[0], 0, 0], [0, 0, c[1], s[1]], [0, 0, -s[1], c[1]]])
    np.testing.assert_array_equal(m, expected)


def test_apply_rotation_equals_dense_product():
    table = posenc.sinusoidal(50, 24)
    np.testing.assert_allclose(posenc.apply_rotation(7, table), table @ posenc.rotation_matrix(7, 24).T, atol=1e-15)


def test_rotation_check_float64_and_float32():
    r64 = posenc.rotation_check(200, 64, k=5)
    assert list(r64.positions) == list(range(195))
    assert r64.max_abs_error < 1e-13
    r32 = posenc.rotation_check(200, 64, k=5, dtype=np.float32)
    assert 1e-9 < r32.max_abs_error < 1e-6
    back = posenc.rotation_check(200, 64, k=-5)
    assert list(back.positions) == list(range(5, 200)) and back.max_abs_error < 1e-13


@pytest.mark.parametrize("k", [100, -100, 250])
def test_rotation_check_rejects_offsets_beyond_length(k):
    with pytest.raises(ValueError, match="offset k"):
        posenc.rotation_check(100, 16, k=k)


def test_odd_d_model_has_no_rotation():
    with pytest.raises(ValueError, match="no cosine partner"):
        posenc.rotation_matrix(1, 7)
    with pytest.raises(ValueError, match="no cosine partner"):
        posenc.rotation_check(10, 7)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: posenc.sinusoidal(-1, 8), "length must be at least 0"),
        (lambda: posenc.sinusoidal(2.5, 8), "length must be a whole number"),
        (lambda: posenc.sinusoidal(10, 0), "d_model must be at least 1"),
        (lambda: posenc.sinusoidal(10, 8, 0.0), "base must be a finite number greater than 0"),
        (lambda: posenc.sinusoidal(10, 8, float("inf")), "base must be a finite number"),
        (lambda: posenc.sinusoidal(10, 8, float("nan")), "base must be a finite number"),
        (lambda: posenc.sinusoidal(10, 8, -5), "greater than 0"),
        (lambda: posenc.sinusoidal(10, 8, layout="diagonal"), "layout must be one of"),
        (lambda: posenc.sinusoidal(10, 8, dtype=np.int32), "dtype must be a floating type"),
        (lambda: posenc.frequencies("64"), "d_model must be a whole number"),
        (lambda: posenc.wavelengths(8, "10000"), "base must be a positive number"),
    ],
)
def test_bad_input_explains_itself(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_empty_length_is_an_empty_table():
    assert posenc.sinusoidal(0, 8).shape == (0, 8)


def test_similarity_depends_only_on_offset():
    table = posenc.sinusoidal(64, 32)
    sim = posenc.similarity_matrix(table)
    theta = posenc.frequencies(32)
    for p, q in [(0, 5), (10, 15), (40, 45), (7, 0), (50, 43)]:
        assert sim[p, q] == pytest.approx(np.cos((p - q) * theta).sum(), abs=1e-12)


def test_offset_similarity_is_the_closed_form():
    offsets, mean = posenc.offset_similarity(posenc.sinusoidal(80, 16))
    assert offsets[0] == -79 and offsets[-1] == 79
    np.testing.assert_allclose(mean, np.cos(offsets[:, None] * posenc.frequencies(16)).sum(axis=1), atol=1e-12)


def test_offset_similarity_skips_undefined_rows():
    table = posenc.sinusoidal(10, 4)
    table[6:] = np.nan
    offsets, mean = posenc.offset_similarity(table)
    assert np.isnan(mean[offsets == 9]).all() and np.isnan(mean[offsets == 6]).all()
    expected = np.mean([table[i] @ table[i + 2] for i in range(4)])
    assert mean[offsets == 2][0] == pytest.approx(expected, abs=1e-12)
