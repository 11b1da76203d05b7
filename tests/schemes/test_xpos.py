"""xPos (Sun et al. 2022, arXiv:2212.10554): torchscale parity, the decay, the registry entry, refusals."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import posenc
from posenc.analysis.offset_curves import offset_curve
from posenc.modules import XPos
from posenc.precision.tables import precision_table, xpos_cos_sin
from posenc.schemes.xpos import (
    apply_xpos,
    xpos_centre,
    xpos_decay,
    xpos_keywords,
    xpos_scales,
    xpos_score_curve,
    xpos_scores,
    xpos_scores_at,
    xpos_zeta,
)
from posenc.settings.constraints import valid_settings
from reference_precision import float64_default
from xpos_reference import XPOS

RNG = np.random.default_rng(2212_10554)
U32 = 2.0**-24  # float32's unit roundoff

# (batch·heads, length, head_dim, offset, scale_base): even and tiny widths, offsets up to far past the length
SHAPES = [(1, 1, 2, 0, 512), (2, 7, 8, 0, 512), (3, 16, 64, 5, 512), (1, 33, 6, 100, 512), (2, 128, 32, 0, 16),
          (1, 5, 128, 4091, 512), (4, 64, 16, 17, 2048), (1, 256, 256, 0, 512), (2, 10, 4, 1, 1.5)]


@pytest.fixture
def float64():
    """torchscale builds ζ, θ and its positions in the default dtype: float64 makes its XPOS exact to 1e-16."""
    with float64_default():
        yield


# --- torchscale parity ------------------------------------------------------------------------------


@pytest.mark.parametrize("downscale", [False, True])
@pytest.mark.parametrize(("batch", "length", "d", "offset", "gamma"), SHAPES)
def test_module_equals_torchscale_in_float64(float64, batch, length, d, offset, gamma, downscale):
    x = torch.from_numpy(RNG.normal(size=(batch, length, d)))
    expected = XPOS(d, gamma)(x, offset=offset, downscale=downscale)
    got = XPos(d, gamma)(x, offset=offset, downscale=downscale)
    assert got.dtype == torch.float64
    # θ is computed two ways (1/n^(j/(d/2)) against n^(−2j/d)), a few float64 ulps apart: the angle p·θ by ~p ulps
    tolerance = 16 * 2.0**-53 * (float(expected.abs().max()) + 1.0) * (offset + length + 16)
    torch.testing.assert_close(got, expected, rtol=0, atol=tolerance)


@pytest.mark.parametrize("downscale", [False, True])
@pytest.mark.parametrize(("batch", "length", "d", "offset", "gamma"), SHAPES)
def test_module_equals_torchscale_in_float32_to_its_rounding(batch, length, d, offset, gamma, downscale):
    """torchscale computes in float32: θ_j = 1/10000^(j/(d/2)) (its exponent j/(d/2) rounded, then amplified by
    ln 10000 ≈ 9.2, the power and the reciprocal: ≤ 12u), the angle p·θ_j (≤ 13u·p relative to θ_0 = 1, so
    absolute ≤ 13u·p), ζ (3u) raised to e = p̂/γ (≤ (3|e| + |e·ln ζ_0| + 2)u), then the products and the sum
    (≤ 4u each side). Our module rounds its float64 cos·s, sin·s once and then multiplies in float32 (≤ 3u).
    Per entry: |error| ≤ 2·max|x|·max s·u·(13·p_max + 3|e| + |e·ln ζ_0| + 16), u = 2^−24."""
    x = torch.from_numpy(RNG.normal(size=(batch, length, d))).float()
    expected = XPOS(d, gamma)(x, offset=offset, downscale=downscale).double()
    got = XPos(d, gamma)(x, offset=offset, downscale=downscale)
    assert got.dtype == torch.float32
    positions = np.arange(offset, offset + length)
    scales = xpos_scales(positions, d, gamma, downscale=downscale)
    exponent = np.abs(positions - xpos_centre(offset + length)).max() / gamma
    log_zeta = abs(np.log(xpos_zeta(d)[0]))
    tolerance = 2 * float(x.abs().max()) * scales.max() * U32 * (13 * positions.max() + 3 * exponent
                                                                  + exponent * log_zeta + 16)
    error = float((got.double() - expected).abs().max())
    assert error <= tolerance, (error, tolerance)
    exact = apply_xpos(x.double().numpy(), positions, scale_base=gamma, downscale=downscale)  # float64 of x
    assert float(np.abs(got.double().numpy() - exact).max()) <= 4 * U32 * np.abs(exact).max() + 1e-30


def test_float32_tolerance_is_not_vacuous():
    """At p ≈ 4096 torchscale's float32 angles p·θ_j are off by up to ~1e-4·θ_j: its output differs from the
    exact values some 30 times more than ours (rounded once from float64), both inside the bound above."""
    x = torch.ones(1, 8, 64)
    positions = np.arange(4088, 4096)
    exact = apply_xpos(np.ones((1, 8, 64)), positions)
    theirs = float(np.abs(XPOS(64)(x, offset=4088).double().numpy() - exact).max())
    ours = float(np.abs(XPos(64)(x, offset=4088).double().numpy() - exact).max())
    assert ours < 2e-7 < 1e-6 < theirs < 1e-4 and theirs > 10 * ours


@pytest.mark.parametrize(("length", "d", "gamma"), [(50, 16, 512), (700, 600, 64), (9, 2, 16), (4096, 64, 512)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("downscale", [False, True])
def test_precision_torchscale_variant_is_torchscale_bit_for_bit(length, d, gamma, dtype, downscale):
    """x = (1, 0, 1, 0, …) makes XPOS return exactly its multipliers cos·s and sin·s (× 1, + 0)."""
    x = torch.zeros(1, length, d, dtype=dtype)
    x[..., 0::2] = 1
    out = XPOS(d, gamma).to(dtype)(x, downscale=downscale)[0]
    cos, sin = xpos_cos_sin(length, d, 10000.0, str(dtype).removeprefix("torch."), "torchscale",
                            scale_base=gamma, downscale=downscale)
    assert torch.equal(out[:, 0::2], cos) and torch.equal(out[:, 1::2], sin)


def test_incremental_decoding_as_torchscale_uses_it():
    """torchscale's MultiheadAttention: keys xpos(k, offset=0, downscale=True), the new query
    xpos(q, offset=src_len − 1): one centre ⌈src_len/2⌉, so the scores are apply_xpos's with one seq_len."""
    q, k = RNG.normal(size=(1, 1, 16)), RNG.normal(size=(1, 9, 16))
    scores = (XPos(16)(torch.from_numpy(q), offset=8) @ XPos(16)(torch.from_numpy(k), downscale=True).mT)[0, 0]
    expected = xpos_scores(q[0, 0], k[0], [8], np.arange(9))[0]
    np.testing.assert_allclose(scores.numpy(), expected, rtol=1e-12, atol=1e-14)


def test_numpy_equals_module_for_any_leading_axes_and_positions():
    x = RNG.normal(size=(2, 3, 12, 10))
    positions = np.arange(40, 52)
    got = apply_xpos(x, positions, 500.0, scale_base=64, downscale=True, seq_len=52)
    module = XPos(10, 64, base=500.0)(torch.from_numpy(x.reshape(6, 12, 10)), offset=40, downscale=True)
    np.testing.assert_allclose(got.reshape(6, 12, 10), module.numpy(), rtol=0, atol=1e-13)


# --- the formula: ζ, centre, decay, scores ---------------------------------------------------------


def test_zeta_and_centre_follow_torchscale():
    np.testing.assert_allclose(xpos_zeta(8), [0.4 / 1.4, 0.65 / 1.4, 0.9 / 1.4, 1.15 / 1.4], rtol=1e-15)
    assert xpos_zeta(1024)[0] == pytest.approx(2 / 7) and xpos_zeta(1024)[-1] == pytest.approx((1.4 - 2 / 1024) / 1.4)
    for total in range(1, 12):  # torchscale: min_pos = −(length + offset)//2 is −⌈total/2⌉
        assert xpos_centre(total) == -(-total // 2) == -(-(total) // 2)


def test_rotated_pair_is_scaled_by_zeta_to_the_centred_position():
    x = RNG.normal(size=(20, 16))
    positions = np.arange(20)
    for downscale, sign in ((False, 1), (True, -1)):
        out = apply_xpos(x, positions, scale_base=8, downscale=downscale)
        norm_in = np.hypot(x[:, 0::2], x[:, 1::2])
        norm_out = np.hypot(out[:, 0::2], out[:, 1::2])
        expected = xpos_zeta(16) ** (sign * (positions[:, None] - 10) / 8)  # centre ⌈20/2⌉ = 10
        np.testing.assert_allclose(norm_out, norm_in * expected, rtol=1e-13)
    np.testing.assert_allclose(apply_xpos(x, positions, seq_len=21)[10:11], apply_xpos(x[10:11], [10], seq_len=21))
    assert np.allclose(np.hypot(*apply_xpos(x, positions, seq_len=21)[11, :2]), np.hypot(*x[11, :2]))  # p̂ = 0


@pytest.mark.parametrize("gamma", [16.0, 512.0])
def test_score_is_ropes_times_the_decay_of_each_pair(gamma):
    d, m, n = 12, 37, 5
    q, k = RNG.normal(size=d), RNG.normal(size=d)
    zq, zk = q[0::2] + 1j * q[1::2], k[0::2] + 1j * k[1::2]
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    per_pair = np.real(zq * np.conj(zk) * np.exp(1j * (m - n) * theta))  # RoPE's pair i
    expected = np.sum(xpos_zeta(d) ** ((m - n) / gamma) * per_pair)
    assert xpos_scores(q, k, [m], [n], scale_base=gamma)[0, 0] == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(xpos_decay([m - n], d, gamma)[0], xpos_zeta(d) ** ((m - n) / gamma), rtol=1e-15)
    for i in range(d // 2):  # q and k in pair i only: the score is RoPE's times that pair's decay
        qi, ki = np.zeros(d), np.zeros(d)
        qi[2 * i: 2 * i + 2], ki[2 * i: 2 * i + 2] = q[2 * i: 2 * i + 2], k[2 * i: 2 * i + 2]
        ratio = xpos_scores(qi, ki, [m], [n], scale_base=gamma)[0, 0] / posenc.rope_scores(qi, ki, [m], [n])[0, 0]
        assert ratio == pytest.approx(xpos_decay([m - n], d, gamma)[0, i], rel=1e-10)


def test_score_depends_only_on_the_offset():
    d, length = 32, 300
    q, k = RNG.normal(size=d), RNG.normal(size=d)
    positions = np.arange(length)
    scores = xpos_scores(q, k, positions, positions, scale_base=32)  # one seq_len for all
    for offset in (-40, -3, 0, 1, 25):  # every diagonal j − i = offset is constant
        diagonal = np.diagonal(scores, offset)
        np.testing.assert_allclose(diagonal, diagonal[0], rtol=1e-11, atol=1e-12 * np.abs(diagonal).max())
    # another centre (another seq_len) moves nothing either: it cancels between query and key
    np.testing.assert_allclose(xpos_scores(q, k, [90], [70], scale_base=32, seq_len=1000),
                               xpos_scores(q, k, [90], [70], scale_base=32, seq_len=91), rtol=1e-12)


def test_decay_shrinks_with_distance_and_fast_pairs_fade_first():
    decay = xpos_decay(np.arange(0, 2000, 100), 64)  # (20, 32)
    assert (decay[0] == 1).all() and (np.diff(decay, axis=0) < 0).all()  # every pair, every step further back
    assert (np.diff(decay[1:], axis=1) > 0).all()  # pair 0 (ζ = 0.286) fades fastest, the last pair slowest
    assert decay[-1, 0] == pytest.approx((0.4 / 1.4) ** (1900 / 512))
    assert (xpos_decay([-100], 64) > 1).all()  # a key after the query is amplified


def test_score_curve_is_the_closed_form_and_the_registry_curve():
    length, d, gamma = 200, 24, 32.0
    offsets, scores = xpos_score_curve(length, d, 500.0, scale_base=gamma)
    theta = 500.0 ** (-np.arange(0, d, 2) / d)
    expected = (2 * xpos_zeta(d) ** (-offsets[:, None] / gamma) * np.cos(offsets[:, None] * theta)).sum(axis=1)
    np.testing.assert_allclose(scores, expected, rtol=1e-10, atol=1e-10 * np.abs(expected).max())
    entry = posenc.get_scheme("xpos")
    np.testing.assert_allclose(entry.offset_curve(length, d, 500.0, scale_base=gamma)[1], scores / d, rtol=1e-14)
    np.testing.assert_allclose(xpos_scores_at(offsets, length, d, 500.0, scale_base=gamma), scores / d,
                               rtol=1e-9, atol=1e-12 * np.abs(scores).max() / d)
    assert scores[length - 1] == 2 * (d // 2)  # offset 0: every pair 2·cos 0·ζ^0


@pytest.mark.parametrize(("length", "d", "gamma"), [(2, 2, 512), (64, 8, 16), (4096, 1024, 512), (4096, 1024, 16)])
def test_offset_curve_closed_form_equals_the_registry_at_the_caps(length, d, gamma):
    """analysis.offset_curves computes the curve from z_i^Δ by angle addition; the registry rotates (2L, d) vectors."""
    _, registry = posenc.get_scheme("xpos").offset_curve(length, d, 10000.0, scale_base=gamma)
    _, fast = offset_curve("xpos", length, d, 10000.0, scale_base=gamma)
    # a sum of terms 2·ζ_i^(−Δ/γ)·cos(Δθ_i)/d: each is off by the float64 rounding of its angle Δθ_i (~Δ ulps)
    # and of its power, so the error is some ulps × length × Σ_i |term|, not a share of a (cancelling) sum
    terms = (2 * xpos_zeta(d) ** (-(length - 1) / gamma)).sum() / d
    np.testing.assert_allclose(fast, registry, rtol=1e-12, atol=8 * 2.0**-53 * (length + 64) * terms)


def test_a_large_scale_base_is_rope():
    ones = np.ones(16)
    np.testing.assert_allclose(xpos_scores(ones, ones, [50], np.arange(100), scale_base=1e12),
                               posenc.rope_scores(ones, ones, [50], np.arange(100)), rtol=1e-9, atol=1e-9)


def test_formula_shows_the_numbers_computed():
    latex = posenc.get_scheme("xpos").formula(64, 500.0, scale_base=128)
    assert "500^{-2i/64}" in latex and r"\gamma = 128" in latex and "0.2857" in latex
    assert f"{xpos_zeta(64)[-1]:.4f}" in latex and r"\lceil L/2 \rceil" in latex and "i = 0, \\dots, 31" in latex
    assert "(m-n)/128" in latex and r"\hat p/128" in latex


def test_precision_table_measures_the_scaled_cos_sin():
    result = precision_table("xpos", 300, 32, 10000.0, "float32", scale_base=64)
    assert result.what == "scaled cos/sin of m·θᵢ" and len(result.errors) == 3
    assert all(np.nanmax(e) < 1e-4 for e in result.errors.values())
    overflow = precision_table("xpos", 4096, 32, 10000.0, "float16", scale_base=16)  # ζ^(±2048/16) > 65504
    assert any("largest number" in note for note in overflow.notes)


def test_shift_residual_exact_score_and_its_drift_in_low_precision():
    from posenc.precision.residuals import unit_query_key
    from posenc.precision.tables import xpos_shift_residual

    q, _ = unit_query_key(64)
    positions, residual, exact = xpos_shift_residual(q, 4096, 10000.0, "float32", 7, "torchscale")
    assert list(positions) == list(range(7, 4096)) and exact == pytest.approx(xpos_scores(q, q, [7], [0])[0, 0])
    assert residual.max() < 1e-4  # float32: rounding of the angles (p up to 4095) and of the scales
    _, all_in_bf16, _ = xpos_shift_residual(q, 4096, 10000.0, "bfloat16", 7, "all in dtype")
    _, torchscale_bf16, _ = xpos_shift_residual(q, 4096, 10000.0, "bfloat16", 7, "torchscale")
    # torchscale casts its float32 angles m·θ to the dtype before cos/sin: in bfloat16 (8 bits) an angle near
    # 4000 is off by up to 8 radians, and its scores drift almost as far as with everything in bfloat16
    assert np.nanmax(torchscale_bf16) > 0.1 and np.nanmax(all_in_bf16) > 0.1 and residual.max() < 1e-4
    with pytest.raises(ValueError, match="leaves no query and key"):
        xpos_shift_residual(q, 10, 10000.0, "float32", 10, "torchscale")


# --- settings and refusals ------------------------------------------------------------------------


def test_settings_need_an_even_width():
    settings, messages = valid_settings("xpos", 64, 7, 10000.0)
    assert settings["d_model"] in (6, 8) and "xPos rotates and scales pairs" in messages[0]
    assert valid_settings("xpos", 64, 8, 10000.0, {"scale_base": 4})[0]["options"]["scale_base"] == 16


@pytest.mark.parametrize(("call", "message"), [
    (lambda: apply_xpos(np.ones((4, 7))), "width must be even"),
    (lambda: apply_xpos(np.ones(8)), "at least two axes"),
    (lambda: apply_xpos(np.ones((4, 8)), scale_base=0), "scale_base must be a finite number greater than 0"),
    (lambda: apply_xpos(np.ones((4, 8)), scale_base=float("nan")), "scale_base"),
    (lambda: apply_xpos(np.ones((4, 8)), scale_base=True), "scale_base must be a number"),
    (lambda: apply_xpos(np.ones((4, 8)), downscale="False"), "downscale must be True or False"),
    (lambda: apply_xpos(np.ones((4, 8)), np.arange(3)), "do not fit x"),
    (lambda: apply_xpos(np.ones((4, 8)), seq_len=-1), "seq_len must be at least 0"),
    (lambda: apply_xpos(np.ones((4, 8)), np.arange(4) * 1e6, scale_base=1.0), "overflows"),
    (lambda: apply_xpos(np.full((4, 8), np.nan)), "finite numbers"),
    (lambda: xpos_scores(np.ones(8), np.ones(6), [1], [2]), "same size"),
    (lambda: xpos_keywords({"layout": "half"}), "xPos has no option layout"),
    (lambda: xpos_decay([-1e9], 8, 1.0), "overflows"),
    (lambda: posenc.get_scheme("xpos").offset_curve(10, 5, 10000.0), "width must be even"),
    (lambda: XPos(7), "width must be even"),
    (lambda: XPos(8, -5), "scale_base"),
    (lambda: XPos(8)(torch.ones(2, 3, 8, dtype=torch.int64)), "floating-point tensor"),
    (lambda: XPos(8)(torch.ones(3, 8)), "(batch·heads, length, 8)"),
    (lambda: XPos(8)(torch.ones(1, 3, 8), offset=-1), "offset must be at least 0"),
    (lambda: XPos(8)(torch.ones(1, 3, 8), offset=2.5), "offset must be a whole number"),
    (lambda: XPos(8, 1.0)(torch.ones(1, 3, 8), offset=10**6, downscale=True), "overflows"),
    (lambda: XPos(8, 16.0)(torch.ones(1, 3000, 8, dtype=torch.float16)), "overflows torch.float16"),
])
def test_bad_input_is_refused_with_a_sentence(call, message):
    with pytest.raises((ValueError, TypeError)) as err:
        call()
    text = str(err.value)
    assert message in text and text.endswith(".") and " " in text
