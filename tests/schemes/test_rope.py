"""Rotary position embedding: rotation, invariants, scalings, numpy↔torch parity."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from posenc.modules.rope import RotaryEmbedding
from posenc.schemes.rope.entry import SCHEMES
from posenc.schemes.rope.frequencies import rope_inv_freq, rope_wavelengths
from posenc.schemes.rope.rotation import apply_rope, rope_score_curve, rope_scores, rope_shift_invariance
from posenc.schemes.rope.scalings import ROPE_SCALINGS, yarn_correction_range

RNG = np.random.default_rng(2104_09864)
THETA_64 = 10000.0 ** (-np.arange(0, 64, 2) / 64)  # θ_i for d = 64, base 10000

# One parameter set per scaling, used by the parity and curve tests.
SCALINGS = {
    "default": {},
    "linear": {"factor": 4.0},
    "ntk": {"factor": 4.0},
    "dynamic": {"factor": 4.0, "original_max_position_embeddings": 16},
    "yarn": {"factor": 4.0, "original_max_position_embeddings": 16},
    "llama3": {"factor": 8.0, "original_max_position_embeddings": 64},
    "longrope": {"short_factor": "ones", "long_factor": "geometric", "factor": 4.0,
                 "original_max_position_embeddings": 16},
    "proportional": {"factor": 2.0},
}


def test_every_scaling_has_parameters_here():
    assert set(SCALINGS) == set(ROPE_SCALINGS)


# --- the rotation -----------------------------------------------------------------------------


def test_rotation_direction_of_one_pair():
    # (1, 0) at position 1 with θ_0 = 1 turns counter-clockwise to (cos 1, sin 1).
    x = np.array([[1.0, 0.0], [1.0, 0.0]])
    out = apply_rope(x)
    np.testing.assert_allclose(out[1], [0.5403023058681398, 0.8414709848078965], atol=1e-15)
    np.testing.assert_allclose(out[0], [1.0, 0.0])


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rope_is_complex_multiplication(layout):
    x = RNG.normal(size=(3, 10, 64))
    positions = np.arange(10) * 7.0
    out = apply_rope(x, positions, layout=layout)
    if layout == "interleaved":  # pairs (2i, 2i+1): RoFormer, GPT-J
        z, z_out = x[..., 0::2] + 1j * x[..., 1::2], out[..., 0::2] + 1j * out[..., 1::2]
    else:  # pairs (i, i + d/2): GPT-NeoX, Llama
        z, z_out = x[..., :32] + 1j * x[..., 32:], out[..., :32] + 1j * out[..., 32:]
    expected = z * np.exp(1j * positions[:, None] * THETA_64)
    np.testing.assert_allclose(z_out, expected, atol=1e-12)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rotation_preserves_norm(layout):
    x = RNG.normal(size=(50, 32))
    out = apply_rope(x, RNG.uniform(-1000, 1000, size=50), base=500.0, layout=layout)
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_partial_rotary_leaves_tail_and_uses_rotated_width(layout):
    x = RNG.normal(size=(12, 64))
    out = apply_rope(x, layout=layout, rotary_fraction=0.25)  # d_rot = 16
    np.testing.assert_array_equal(out[:, 16:], x[:, 16:])
    # θ_i = base^(−2i/16): the head equals RoPE of a 16-dimensional vector
    np.testing.assert_allclose(out[:, :16], apply_rope(x[:, :16], layout=layout), atol=1e-14)


@pytest.mark.parametrize("rope_type", list(SCALINGS))
def test_score_depends_on_offset_only(rope_type):
    q, k = RNG.normal(size=32), RNG.normal(size=32)
    for m, n, shift in [(3, 11, 50), (40, 2, 1000), (0, 0, 7)]:
        before, after = rope_shift_invariance(q, k, m, n, shift, layout="half", rope_type=rope_type,
                                              **SCALINGS[rope_type])
        assert after == pytest.approx(before, abs=1e-10)
    scores = rope_scores(q, k, np.arange(6), np.arange(6))
    for offset in range(-5, 6):
        diagonal = np.diagonal(scores, offset)  # all pairs with key − query = −offset
        np.testing.assert_allclose(diagonal, diagonal[0], atol=1e-12)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_score_curve_is_sum_of_cosines(layout):
    offsets, scores = rope_score_curve(20, 64, layout=layout)
    np.testing.assert_array_equal(offsets, np.arange(-19, 20))
    closed_form = (2 * np.cos(offsets[:, None] * THETA_64)).sum(axis=1)
    np.testing.assert_allclose(scores, closed_form, atol=1e-10)
    assert scores[19] == pytest.approx(64.0)


def test_score_curve_partial_and_yarn_closed_forms():
    _, partial = rope_score_curve(8, 64, rotary_fraction=0.5)  # 32 rotated, 32 untouched
    theta_32 = 10000.0 ** (-np.arange(0, 32, 2) / 32)
    offsets = np.arange(-7, 8)
    closed_form = (2 * np.cos(offsets[:, None] * theta_32)).sum(axis=1) + 32
    np.testing.assert_allclose(partial, closed_form, atol=1e-10)
    _, yarn = rope_score_curve(8, 64, rope_type="yarn", factor=4.0, original_max_position_embeddings=512)
    assert yarn[7] == pytest.approx(64 * (0.1 * math.log(4) + 1) ** 2)


# --- the scalings -----------------------------------------------------------------------------


def test_default_and_wavelengths():
    inv_freq, scaling = rope_inv_freq(64)
    np.testing.assert_allclose(inv_freq, THETA_64, rtol=1e-15)
    assert scaling == 1.0
    wavelengths = rope_wavelengths(64, 10000.0)
    assert wavelengths[0] == pytest.approx(2 * math.pi)
    assert wavelengths[-1] == pytest.approx(2 * math.pi * 10000 ** (62 / 64))


def test_linear_divides_theta_by_factor():
    inv_freq, scaling = rope_inv_freq(64, rope_type="linear", factor=4.0)
    np.testing.assert_allclose(inv_freq, THETA_64 / 4, rtol=1e-15)
    assert scaling == 1.0


def test_ntk_raises_the_base():
    inv_freq, _ = rope_inv_freq(64, rope_type="ntk", factor=4.0)
    new_base = 41829.36592889948  # 10000·4^(64/62)
    np.testing.assert_allclose(inv_freq, new_base ** (-np.arange(0, 64, 2) / 64), rtol=1e-12)
    assert inv_freq[0] == 1.0 and inv_freq[-1] == pytest.approx(THETA_64[-1] / 4)  # slowest pair: θ/s


def test_dynamic_changes_nothing_within_the_original_context():
    params = {"factor": 2.0, "original_max_position_embeddings": 512}
    for seq_len in (None, 1, 512):
        np.testing.assert_allclose(rope_inv_freq(64, rope_type="dynamic", seq_len=seq_len, **params)[0],
                                   THETA_64, rtol=1e-15)
    # factor·L₀/L₀ − (factor − 1) is 1 − 2⁻⁴⁷ in floats here: a base of 1 was taken below 1 and refused
    odd = {"factor": 34.69618050899116, "original_max_position_embeddings": 951}
    for seq_len in (None, 951):
        np.testing.assert_array_equal(rope_inv_freq(4, 1.0, rope_type="dynamic", seq_len=seq_len, **odd)[0], [1, 1])
    inv_freq, _ = rope_inv_freq(64, rope_type="dynamic", seq_len=1024, **params)
    new_base = 31082.236667168814  # 10000·(2·1024/512 − 1)^(64/62) = 10000·3^(64/62)
    np.testing.assert_allclose(inv_freq, new_base ** (-np.arange(0, 64, 2) / 64), rtol=1e-12)


def test_llama3_bands_with_llama_3_1_parameters():
    params = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
              "original_max_position_embeddings": 8192}
    inv_freq, scaling = rope_inv_freq(128, 500000.0, rope_type="llama3", **params)
    theta = 500000.0 ** (-np.arange(0, 128, 2) / 128)
    assert scaling == 1.0
    # i = 0: wavelength 2π < 8192/4 = 2048, high frequency, kept
    assert inv_freq[0] == 1.0
    # i = 63: wavelength 2.56e6 > 8192, low frequency, divided by 8
    assert inv_freq[63] == pytest.approx(2.455140791131609e-06 / 8, rel=1e-12)
    # i = 30: wavelength 2948.30 in [2048, 8192]; σ = (8192/2948.30 − 1)/3 = 0.592849
    sigma = (8192 / 2948.3026167007256 - 1) / 3
    assert inv_freq[30] == pytest.approx((1 - sigma) * theta[30] / 8 + sigma * theta[30], rel=1e-12)
    assert inv_freq[30] == pytest.approx(0.0013718935677611381, rel=1e-12)
    # the medium band is exactly i = 29, …, 34
    medium = ~np.isclose(inv_freq, theta) & ~np.isclose(inv_freq, theta / 8)
    np.testing.assert_array_equal(np.flatnonzero(medium), np.arange(29, 35))


def test_yarn_correction_range_attention_factor_and_ends():
    # i(r) = 64·ln(512/(2π·r)) / (2·ln 10000): i(32) = 3.2475, i(1) = 15.2887
    assert yarn_correction_range(64, 10000.0, 512) == (3, 16)
    low, high = yarn_correction_range(64, 10000.0, 512, truncate=False)
    assert (low, high) == (pytest.approx(3.247520914382478), pytest.approx(15.288720740941724))
    params = {"factor": 4.0, "original_max_position_embeddings": 512}
    inv_freq, scaling = rope_inv_freq(64, rope_type="yarn", **params)
    assert scaling == pytest.approx(1.138629436111989)  # 0.1·ln 4 + 1
    np.testing.assert_allclose(inv_freq[:4], THETA_64[:4], rtol=1e-15)  # fast pairs kept
    np.testing.assert_allclose(inv_freq[16:], THETA_64[16:] / 4, rtol=1e-15)  # slow pairs interpolated
    ramp = 5 / 13  # i = 8: (8 − 3)/(16 − 3)
    assert inv_freq[8] == pytest.approx(ramp * THETA_64[8] / 4 + (1 - ramp) * THETA_64[8], rel=1e-14)
    _, given = rope_inv_freq(64, rope_type="yarn", attention_factor=1.0, **params)
    assert given == 1.0


# --- numpy ↔ torch ----------------------------------------------------------------------------


@pytest.mark.parametrize("rope_type", list(SCALINGS))
@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("fraction", [1.0, 0.5])
def test_torch_module_matches_numpy(rope_type, layout, fraction):
    options = {"layout": layout, "rotary_fraction": fraction, "rope_type": rope_type, **SCALINGS[rope_type]}
    module = RotaryEmbedding(32, 100.0, **options)
    x = RNG.normal(size=(2, 3, 40, 32))  # (batch, heads, length, d); dynamic: 40 > L₀ = 16
    expected = apply_rope(x, None, 100.0, **options)
    np.testing.assert_allclose(module(torch.from_numpy(x)).numpy(), expected, atol=1e-6)
    positions = RNG.integers(0, 100, size=(2, 1, 40))  # per batch, shared by the heads
    expected = apply_rope(x, positions, 100.0, **options)
    got = module(torch.from_numpy(x), torch.from_numpy(positions)).numpy()
    np.testing.assert_allclose(got, expected, atol=1e-6)
    x32 = x.astype(np.float32)
    got32 = module(torch.from_numpy(x32)).numpy()
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, apply_rope(x32, None, 100.0, **options), atol=1e-5)


def test_torch_module_buffer_is_not_saved():
    module = RotaryEmbedding(16)
    assert "inv_freq" not in module.state_dict()
    np.testing.assert_allclose(module.inv_freq.numpy(), 10000.0 ** (-np.arange(0, 16, 2) / 16))


# --- the registry entry -----------------------------------------------------------------------


def test_scheme_entry():
    (scheme,) = SCHEMES
    assert (scheme.key, scheme.family, scheme.table, scheme.bias) == ("rope", "rotary", None, None)
    assert [o.name for o in scheme.options] == ["layout", "rope_type", "factor",
                                                "original_max_position_embeddings", "rotary_fraction"]
    assert scheme.options[1].choices == tuple(ROPE_SCALINGS)
    offsets, values = scheme.offset_curve(16, 64, 10000.0, **scheme.defaults())
    np.testing.assert_array_equal(offsets, np.arange(-15, 16))
    assert values[15] == 1.0  # normalised by d_model
    np.testing.assert_allclose(values, values[::-1])
    assert values[16] == pytest.approx(2 * np.cos(THETA_64).sum() / 64)
    assert r"10000^{-2i/64}" in scheme.formula(64, 10000.0, **scheme.defaults())


@pytest.mark.parametrize("rope_type", list(SCALINGS))
def test_scheme_callables_for_every_scaling(rope_type):
    (scheme,) = SCHEMES
    options = {**scheme.defaults(), "rope_type": rope_type, "layout": "half", "rotary_fraction": 0.5}
    offsets, values = scheme.offset_curve(600, 64, 10000.0, **options)
    assert offsets.shape == values.shape == (1199,) and np.isfinite(values).all()
    formula = scheme.formula(64, 10000.0, **options)
    assert formula.startswith(r"\begin{gathered}")
    if rope_type == "proportional":  # p-RoPE: every pair of the head, the first 16 with exponent 2i/64
        assert r"10000^{-2i/64} / 4 & i = 0, \dots, 15" in formula and "j = " not in formula
    else:
        assert r"j = 32, \dots, 63" in formula
    if rope_type == "yarn":
        assert "1.1386" in formula and r"\tfrac{i - 1}{8 - 1}" in formula


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rope_type": "xpos"},
         r"rope_type must be one of 'default', 'linear', 'dynamic', 'ntk', 'yarn', 'llama3'"),
        ({"rope_type": "linear", "factor": 0.5}, r"factor must be a finite number of at least 1"),
        ({"rope_type": "linear"}, r"'linear' scaling takes factor; missing \['factor'\]"),
        ({"rope_type": "default", "factor": 2.0}, r"unexpected \['factor'\]"),
        ({"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 0},
         r"original_max_position_embeddings must be at least 1"),
        ({"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 64, "beta_fast": 0.5},
         r"beta_fast \(0.5\) must be at least beta_slow"),
        ({"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 64,
          "high_freq_factor": 0.5},
         r"high_freq_factor \(0.5\) must be at least low_freq_factor"),
        ({"rotary_fraction": 1.5}, r"rotary_fraction must be between 0 and 1"),
        ({"rotary_fraction": 0.2},
         r"int\(d·rotary_fraction\) must be even; d = 16 and rotary_fraction = 0.2 give 3"),
        ({"rope_type": "ntk", "factor": 2.0, "rotary_fraction": 0.125}, r"at least 4 rotated dimensions"),
    ],
)
def test_bad_parameters_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        rope_inv_freq(16, **kwargs)
    with pytest.raises(ValueError, match=match):
        RotaryEmbedding(16, **kwargs)


def test_bad_shapes_and_layouts_raise():
    with pytest.raises(ValueError, match=r"int\(d·rotary_fraction\) must be even; d = 7"):
        apply_rope(np.ones((3, 7)))
    with pytest.raises(ValueError, match=r"at least two axes"):
        apply_rope(np.ones(8))
    with pytest.raises(ValueError, match=r"positions of shape \(4,\) do not fit x"):
        apply_rope(np.ones((3, 8)), np.arange(4))
    with pytest.raises(ValueError, match=r"layout must be one of 'interleaved', 'half'; got 'split'"):
        apply_rope(np.ones((3, 8)), layout="split")
    with pytest.raises(ValueError, match=r"base must be a finite number greater than 0"):
        rope_inv_freq(8, base=-1.0)
    with pytest.raises(ValueError, match=r"x must have shape \(\.\.\., length, 8\)"):
        RotaryEmbedding(8)(torch.ones(3, 6))
    with pytest.raises(ValueError, match=r"positions of shape \(4,\) do not fit x"):
        RotaryEmbedding(8)(torch.ones(3, 8), torch.arange(4))
    with pytest.raises(ValueError, match=r"RoPE has no option heads"):
        SCHEMES[0].offset_curve(4, 8, 10000.0, heads=2)
