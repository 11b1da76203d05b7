"""Every number a derivation step shows, pinned: seeds' printed values, identities, and the LaTeX."""

import math

import numpy as np
import pytest

import posenc
from posenc.derivation import latex as L
from posenc.derivation import steps, torch_module

# Seed 000 (d_model=4, n=10000): "Positional Encodings (first 3 positions)" and PE[10].
SEED_000 = np.array([[0.0, 1.0, 0.0, 1.0],
                     [0.84147098, 0.54030231, 0.00999983, 0.99995],
                     [0.90929743, -0.41614684, 0.01999867, 0.99980001]])
SEED_000_PE_10 = np.array([-0.54402111, -0.83907153, 0.09983342, 0.99500417])
# Seed 001: getPositionEncoding(seq_len=4, d=4, n=100).
SEED_001 = np.array([[0.0, 1.0, 0.0, 1.0],
                     [0.84147098, 0.54030231, 0.09983342, 0.99500417],
                     [0.90929743, -0.41614684, 0.19866933, 0.98006658],
                     [0.14112001, -0.9899925, 0.29552021, 0.95533649]])
# Seed 003: positional_encoding_denominators for d_model=16 (θ_i, printed to 5 digits).
SEED_003_THETA = np.array([1.0, 3.1623e-01, 1.0e-01, 3.1623e-02, 1.0e-02, 3.1623e-03, 1.0e-03, 3.1623e-04])
# Seed 003: rows of its dropout output (x + PE) / 0.8, zeros where dropped; printed to 4 decimals.
SEED_003_OUTPUT_ROW_1 = [21.0518, 21.9254, 22.8887, 24.9380, 25.1248, 27.4938, 27.5395, 29.9994, 30.0125,
                         32.4999, 0.0, 35.0000, 35.0013, 37.5000, 37.5004, 40.0000]


def test_step_1_first_rows_are_seed_000_and_seed_001():
    np.testing.assert_allclose(steps.formula_step(4, 10000.0, 0, 0, rows=3).rows, SEED_000, atol=5e-9)
    np.testing.assert_allclose(steps.formula_step(4, 100.0, 0, 0, rows=4).rows, SEED_001, atol=5e-9)
    np.testing.assert_allclose(posenc.sinusoidal(11, 4)[10], SEED_000_PE_10, atol=5e-9)


def test_step_1_instance_is_the_table_entry_and_its_formula():
    s = steps.formula_step(128, 10000.0, 37, 5)
    table = posenc.sinusoidal(38, 128)
    assert s.theta == pytest.approx(10000.0 ** (-10 / 128), rel=1e-15)
    assert s.phase == pytest.approx(37 * s.theta, rel=1e-15)
    assert s.sin_value == pytest.approx(table[37, 10], abs=1e-15) and s.cos_value == pytest.approx(table[37, 11], abs=1e-15)
    assert s.rows.shape == (4, 8)
    general, instance = L.formula_latex(steps.formula_step(4, 10000.0, 1, 1))
    assert r"10000^{2i/4}" in general
    assert r"\frac{1}{10000^{2/4}}" in instance and "= 0.00999983" in instance and "= 0.99995" in instance


def test_step_2_both_ways_measured_against_extended_precision():
    s = steps.theta_step(16, 10000.0, 3)
    np.testing.assert_allclose(s.values["exp float32"], SEED_003_THETA, rtol=5e-5)
    for name, values in s.values.items():
        np.testing.assert_allclose(values, 10000.0 ** (-np.arange(0, 16, 2) / 16), rtol=1e-6, err_msg=name)
        assert values.dtype == np.dtype(name.split()[1])
    assert s.max_errors["power float64"] < 4e-16 and s.max_errors["exp float64"] < 4e-15
    assert s.max_errors["power float32"] < 2 * np.finfo(np.float32).eps
    assert s.max_errors["exp float32"] < 8 * np.finfo(np.float32).eps
    assert s.gap64 == np.abs(s.values["power float64"] - s.values["exp float64"]).max()
    assert s.gap32 == np.abs(s.values["power float32"] - s.values["exp float32"]).max()
    # the pinned verdict at the paper's settings: the exp form is not the more accurate one
    s = steps.theta_step(512, 10000.0, 0)
    assert s.max_errors["exp float32"] > s.max_errors["power float32"]
    assert "the exp form is the less accurate" in s.verdict and "not stability" in s.verdict
    assert f"{s.max_errors['exp float32']:.1e}" in s.verdict


def test_step_2_verdict_follows_the_numbers():
    equal = {"power float64": 1e-16, "exp float64": 1e-16, "power float32": 1e-7, "exp float32": 1e-7}
    assert "agree in accuracy" in steps._verdict(equal) and "not stability" not in steps._verdict(equal)
    better = dict(equal, **{"exp float32": 1e-8})
    assert "the exp form is the more accurate" in steps._verdict(better)


def test_step_2_latex_shows_the_computed_values():
    s = steps.theta_step(128, 10000.0, 3)
    power, exp = L.theta_latex(s, 128, 10000.0)
    assert r"\frac{1}{10000^{6/128}}" in power and r"6\cdot\left(-\frac{\ln 10000}{128}\right)" in exp
    assert L.num(s.values["power float32"][3], 9) in power and L.num(s.values["exp float64"][3], 17) in exp


@pytest.mark.parametrize("pos, k, i", [(3, 5, 2), (10, -7, 0), (0, 0, 63), (4000, 95, 1)])
def test_step_3_angle_addition_both_sides(pos, k, i):
    s = steps.angle_step(128, 10000.0, pos, k, i)
    table = posenc.sinusoidal(max(pos, pos + k) + 1, 128)
    assert s.sin_pos == pytest.approx(table[pos, 2 * i], abs=1e-12) and s.cos_pos == pytest.approx(table[pos, 2 * i + 1], abs=1e-12)
    assert s.sin_sum == pytest.approx(table[pos + k, 2 * i], abs=1e-12)
    assert s.cos_sum == pytest.approx(table[pos + k, 2 * i + 1], abs=1e-12)
    assert s.sin_k == math.sin(k * s.theta) and s.cos_k == math.cos(k * s.theta)
    assert s.gap < 1e-12
    _, sin, cos = L.angle_latex(s)
    assert L.num(s.sin_sum, 9) in sin and L.num(s.sin_rhs, 9) in sin and L.num(s.cos_rhs, 9) in cos


def test_step_4_block_and_block_diagonal_matrix():
    s = steps.block_step(128, 10000.0, 5, 2)
    angle = 5 * posenc.frequencies(128)[2]
    np.testing.assert_allclose(s.block, [[math.cos(angle), math.sin(angle)], [-math.sin(angle), math.cos(angle)]], atol=1e-15)
    assert s.angle == pytest.approx(angle) and s.determinant == pytest.approx(1.0, abs=1e-15)
    assert s.corner.shape == (64, 64)
    np.testing.assert_array_equal(s.corner, posenc.rotation_matrix(5, 128)[:64, :64])
    np.testing.assert_array_equal(s.corner[4:6, 4:6], s.block)
    assert np.count_nonzero(s.corner[:2, 2:]) == 0  # nothing outside the blocks
    assert steps.block_step(8, 100.0, 1, 0).corner.shape == (8, 8)
    block, whole = L.block_latex(s)
    assert r"\cos(5\theta_{2})" in block and L.num(s.block[0, 1]) in block and r"B_{63}" in whole


@pytest.mark.parametrize("pos, k", [(3, 5), (9, -9), (0, 1)])
def test_step_5_residual_is_rounding(pos, k):
    s = steps.residual_step(64, 10000.0, pos, k)
    table = posenc.sinusoidal(20, 64)
    np.testing.assert_allclose(s.rotated, posenc.rotation_matrix(k, 64) @ table[pos], atol=1e-15)
    np.testing.assert_array_equal(s.target, table[pos + k])
    assert s.max_abs == np.abs(s.rotated - s.target).max() and s.max_abs < 1e-14
    product, worst = L.residual_latex(s, 1)
    assert L.num(s.rotated[2], 9) in product and L.num(s.target[3], 9) in product and L.num(s.max_abs, 3) in worst
    with pytest.raises(ValueError, match="pos \\+ k"):
        steps.residual_step(64, 10000.0, 2, -3)


def test_step_6_transpose_looks_back():
    s = steps.transpose_step(64, 10000.0, 3, 5, 1)
    np.testing.assert_array_equal(s.block_minus, posenc.rotation_blocks(-5, 64)[1])
    np.testing.assert_array_equal(s.block_transposed, posenc.rotation_blocks(5, 64)[1].T)
    assert s.gap == 0.0 and s.back_residual < 1e-14
    assert r"M_{-5} - M_{5}^\top\rvert = 0" in L.transpose_latex(s, 3)[1]


def test_step_7_similarity_depends_only_on_the_offset():
    s = steps.similarity_step(100, 64, 10000.0, 3, 5)
    table = posenc.sinusoidal(100, 64)
    assert s.dot == pytest.approx(table[3] @ table[8], abs=1e-12)
    assert s.cos_sum == pytest.approx(np.cos(5 * posenc.frequencies(64)).sum(), abs=1e-12)
    assert s.dot == pytest.approx(s.cos_sum, abs=1e-12) and s.lone_sine == 0.0
    np.testing.assert_array_equal(s.positions, np.arange(95))
    np.testing.assert_allclose(s.diagonal, np.diagonal(table @ table.T, 5), atol=1e-12)
    assert s.spread < 1e-12 and s.spread_all < 1e-12 and s.spread_positions == 100
    back = steps.similarity_step(100, 64, 10000.0, 10, -4)
    assert back.positions[0] == 4 and back.dot == pytest.approx(np.cos(4 * posenc.frequencies(64)).sum())


def test_step_7_odd_d_model_is_not_flat():
    s = steps.similarity_step(100, 7, 10000.0, 3, 5)
    table = posenc.sinusoidal(100, 7)
    assert s.lone_sine == pytest.approx(table[3, 6] * table[8, 6])
    assert s.dot == pytest.approx(s.cos_sum + s.lone_sine, abs=1e-12)
    assert s.spread > 1e-4  # the lone sine makes the diagonal depend on p
    assert "+ PE_{3,\\,6}PE_{8,\\,6}" in L.similarity_latex(s, 7)[0]
    block = L.pair_block_latex(steps.angle_step(7, 10000.0, 3, 5, 2))  # a pair still rotates with odd d_model
    angle = 5 * posenc.frequencies(7)[2]
    assert L.num(np.cos(angle)) in block and L.num(-np.sin(angle)) in block


def test_step_8_right_hand_dimensions_barely_change():
    s = steps.variation_step(100, 128, 10000.0, 2)
    table = posenc.sinusoidal(100, 128)
    np.testing.assert_array_equal(s.ranges, table.max(0) - table.min(0))
    quiet = np.flatnonzero(s.ranges < steps.QUIET_RANGE)
    assert s.quiet == len(quiet) == 35 and s.first_quiet == quiet[0] == 81
    assert s.ranges[:8].min() > 1.0 and s.ranges[-1] < 1e-3  # left: full swings; right: nearly still
    assert s.phase_span == pytest.approx(99 * posenc.frequencies(128)[2])
    assert s.pair_ranges == (s.ranges[4], s.ranges[5])


def test_step_9_module_buffer_and_dropout_on_seed_003_input():
    s = torch_module.module_step()
    assert s.parameters == [] and s.buffers == [("pe", (5000, 16), "float32")]
    np.testing.assert_array_equal(s.inputs, np.arange(128, dtype=np.float32).reshape(2, 4, 16))
    np.testing.assert_allclose(s.summed, s.inputs + posenc.sinusoidal(4, 16).astype(np.float32), atol=1e-5)
    assert s.scale == 1.25 and s.dropout == pytest.approx(0.2)
    assert s.kept_gap == 0.0  # every kept value is exactly (x + PE)·1.25
    assert s.dropped == int(((s.output == 0) & (s.summed != 0)).sum()) and 0 < s.dropped < 64
    assert torch_module.module_step().output.tolist() == s.output.tolist()  # seeded: the same draw every time
    # seed 003's own printed output: its kept values are (x + PE) / 0.8 as well
    expected = (s.summed[0, 1] * 1.25).round(4)
    for printed, value in zip(SEED_003_OUTPUT_ROW_1, expected):
        assert printed == 0.0 or printed == pytest.approx(value, abs=1e-4)


def test_pairs_are_checked():
    with pytest.raises(ValueError, match="has 3 \\(sin, cos\\) pairs"):
        steps.formula_step(7, 10000.0, 0, 3)
    assert steps.pair_count(7) == 3 and len(steps.STEPS) == 9
