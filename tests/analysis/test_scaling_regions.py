"""posenc.analysis.scaling_regions: each pair's wavelength before and after a context extension, and its region,
against the scalings' own θ' and transformers' formulas (YaRN's ramp, Llama 3's bands)."""

import math

import numpy as np
import pytest

from posenc.analysis.scaling_regions import (
    EXTRAPOLATED,
    IN_BETWEEN,
    INTERPOLATED,
    SCALING_BOUNDS,
    classify,
    scaling_regions,
    takes_trained_context,
)
from posenc.models.presets import _LLAMA3_SCALING
from posenc.schemes.rope.scalings import ROPE_SCALINGS

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def theta(d: int, base: float) -> np.ndarray:
    return base ** (-np.arange(0, d, 2) / d)


def test_every_context_extension_has_an_entry():
    assert set(SCALING_BOUNDS) == set(ROPE_SCALINGS) - {"default", "proportional"}


def test_llama_3_1_bands():
    """transformers' _compute_llama3_parameters: λ < L₀/high keeps θ, λ > L₀/low gives θ/s, smooth between."""
    found = scaling_regions(128, 500_000.0, "llama3", context=131_072, **_LLAMA3_SCALING)
    wavelength = 2 * math.pi / theta(128, 500_000.0)
    np.testing.assert_allclose(found.before, wavelength, rtol=1e-12)
    expected = np.where(wavelength < 8192 / 4.0, EXTRAPOLATED, np.where(wavelength > 8192 / 1.0, INTERPOLATED,
                                                                          IN_BETWEEN))
    np.testing.assert_array_equal(found.region, expected)
    assert (found.count(EXTRAPOLATED), found.count(IN_BETWEEN), found.count(INTERPOLATED)) == (29, 6, 29)
    assert found.bounds == (2048.0, 8192.0) and found.factor == 8.0
    assert found.original == 8192 and found.context == 131_072
    np.testing.assert_allclose(found.after[found.region == INTERPOLATED],
                               8 * wavelength[found.region == INTERPOLATED], rtol=1e-12)


@pytest.mark.parametrize(("d", "base", "factor", "original", "fast", "slow"),
                         [(128, 10_000.0, 32.0, 4096, 32.0, 1.0), (64, 150_000.0, 40.0, 4096, 32.0, 1.0),
                          (16, 500.0, 8.0, 64, 8.0, 2.0)])
def test_yarn_ramp(d, base, factor, original, fast, slow):
    """transformers' find_correction_range and linear_ramp_factor: ramp 0 keeps θ, 1 interpolates."""
    def correction_dim(rotations):
        return d * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))
    low = max(math.floor(correction_dim(fast)), 0)
    high = min(math.ceil(correction_dim(slow)), d - 1)
    high = high + 0.001 if low == high else high
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
    expected = np.where(ramp == 0, EXTRAPOLATED, np.where(ramp == 1, INTERPOLATED, IN_BETWEEN))
    found = scaling_regions(d, base, "yarn", factor=factor, original_max_position_embeddings=original,
                            beta_fast=fast, beta_slow=slow)
    np.testing.assert_array_equal(found.region, expected)
    inv = theta(d, base)
    np.testing.assert_allclose(2 * math.pi / found.after, inv / factor * ramp + inv * (1 - ramp), rtol=1e-12)
    assert found.bounds == (original / fast, original / slow) and found.context == round(factor * original)


def test_linear_interpolates_every_pair_and_ntk_keeps_the_first():
    linear = scaling_regions(64, 10_000.0, "linear", factor=4.0, original_max_position_embeddings=2048)
    assert linear.count(INTERPOLATED) == 32 and linear.bounds is None
    np.testing.assert_allclose(linear.ratio, 4.0)
    ntk = scaling_regions(64, 10_000.0, "ntk", factor=4.0, original_max_position_embeddings=2048)
    assert ntk.region[0] == EXTRAPOLATED and ntk.region[-1] == INTERPOLATED  # the slowest pair: exactly ×s
    assert (ntk.region[1:-1] == IN_BETWEEN).all()
    assert np.all(np.diff(ntk.ratio) > 0)


def test_dynamic_depends_on_the_context():
    """Dynamic NTK at L₀ changes nothing; at 4·L₀ its base grows by (4·4 − 3)^(d/(d−2))."""
    same = scaling_regions(64, 10_000.0, "dynamic", factor=4.0, original_max_position_embeddings=2048, context=2048)
    assert same.count(EXTRAPOLATED) == 32
    longer = scaling_regions(64, 10_000.0, "dynamic", factor=4.0, original_max_position_embeddings=2048)
    scaled = 10_000.0 * 13.0 ** (64 / 62)
    np.testing.assert_allclose(longer.after, 2 * math.pi / theta(64, scaled), rtol=1e-12)


def test_phi3_longrope_long_factors():
    from posenc.models.presets import PHI3_MINI_128K_LONG_FACTOR, PHI3_MINI_128K_SHORT_FACTOR

    found = scaling_regions(96, 10_000.0, "longrope", original_max_position_embeddings=4096,
                            max_position_embeddings=131_072, context=131_072, long_factor=PHI3_MINI_128K_LONG_FACTOR,
                            short_factor=PHI3_MINI_128K_SHORT_FACTOR)
    np.testing.assert_allclose(found.ratio, PHI3_MINI_128K_LONG_FACTOR, rtol=1e-12)
    assert found.factor == 32.0 and found.count(INTERPOLATED) == sum(f >= 32 for f in PHI3_MINI_128K_LONG_FACTOR)


def test_against_transformers_inv_freq():
    rope_utils = pytest.importorskip("transformers.modeling_rope_utils")
    transformers = pytest.importorskip("transformers")
    config = transformers.PretrainedConfig(hidden_size=128, num_attention_heads=1, head_dim=128,
                                           max_position_embeddings=131_072,
                                           rope_parameters={"rope_type": "llama3", "rope_theta": 500_000.0,
                                                            **_LLAMA3_SCALING})
    inv_freq, _ = rope_utils.ROPE_INIT_FUNCTIONS["llama3"](config, None)
    found = scaling_regions(128, 500_000.0, "llama3", context=131_072, **_LLAMA3_SCALING)
    np.testing.assert_allclose(found.after, 2 * math.pi / inv_freq.double().numpy(), rtol=1e-5)


def test_classify_and_errors():
    np.testing.assert_array_equal(classify([1.0, 2.0, 4.0, 5.0], 4.0),
                                  [EXTRAPOLATED, IN_BETWEEN, INTERPOLATED, INTERPOLATED])
    with pytest.raises(ValueError, match="rope_type"):
        scaling_regions(64, 1e4, "default", factor=2.0, original_max_position_embeddings=64)
    with pytest.raises(ValueError, match="original_max_position_embeddings"):
        scaling_regions(64, 1e4, "linear", factor=2.0)
    with pytest.raises(ValueError, match="factor"):
        scaling_regions(64, 1e4, "linear", factor=0.5, original_max_position_embeddings=64)
    with pytest.raises(ValueError, match="region"):
        scaling_regions(64, 1e4, "linear", factor=2.0, original_max_position_embeddings=64).count("far")


def test_linear_and_ntk_need_no_trained_context_at_a_given_context():
    """Gemma 3's config: linear ×8 and no original_max_position_embeddings (linear and NTK read none)."""
    assert [takes_trained_context(t) for t in ("linear", "ntk", "dynamic", "yarn", "llama3", "longrope")] == [
        False, False, True, True, True, True]
    linear = scaling_regions(256, 1e6, "linear", factor=8.0, context=131_072)
    assert linear.original is None and linear.factor == 8.0 and linear.count(INTERPOLATED) == 128
    np.testing.assert_allclose(linear.after, 8.0 * linear.before, rtol=1e-12)
    ntk = scaling_regions(64, 10_000.0, "ntk", factor=4.0, context=8192)
    np.testing.assert_array_equal(ntk.after, scaling_regions(64, 10_000.0, "ntk", factor=4.0, context=8192,
                                                             original_max_position_embeddings=2048).after)
    assert ntk.original is None
    with pytest.raises(ValueError, match="original_max_position_embeddings"):  # dynamic reads L₀
        scaling_regions(64, 10_000.0, "dynamic", factor=4.0, context=8192)
    with pytest.raises(ValueError, match="factor"):
        scaling_regions(64, 10_000.0, "linear", factor=0.5, context=8192)
