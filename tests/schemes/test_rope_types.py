"""LongRoPE and p-RoPE (``rope_type`` "longrope" and "proportional").

Pinned to Hugging Face transformers 5.23.0 (``modeling_rope_utils._compute_longrope_parameters`` and
``_compute_proportional_rope_parameters``, which compute in float32: equal to float32 rounding) over many
settings, then their closed forms in float64, their refusals, every consumer computing with them
(apply_rope, the torch module, the offset curve, precision, the formula, the app's settings) and
property-based tests with hostile arguments as tests/schemes/test_library_registry.py does.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import posenc
from library_fuzz import fuzz
from posenc.schemes.rope.entry import APP_LONGROPE_FACTORS, rope_keywords, rope_scores_at
from posenc.schemes.rope.rotation import rope_score_curve
from posenc.schemes.rope.scalings import (
    LONGROPE_RULES,
    longrope_factors,
    longrope_inv_freq,
    proportional_inv_freq,
    proportional_pairs,
    scales_whole_head,
    yarn_attention_factor,
)
from posenc.settings.constraints import valid_settings
from reference_precision import float32_rtol

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # an overflow warning is a silent inf: fail

RNG = np.random.default_rng(2402_13753)
ROPE = posenc.SCHEMES["rope"]


def theta(d: int, base: float = 10000.0) -> np.ndarray:
    return base ** (-np.arange(0, d, 2) / d)


def float32_list(values) -> list[float]:
    """Numbers float32 holds exactly: HF turns the lists into float32 tensors, so both sides see the same factors."""
    return np.asarray(values, dtype=np.float32).astype(np.float64).tolist()


# --- the reference: Hugging Face transformers ---------------------------------------------------

def hf_inv_freq(rope_type: str, d: int, base: float, *, seq_len=None, max_position_embeddings=4096,
                **rope_parameters) -> tuple[np.ndarray, float]:
    """ROPE_INIT_FUNCTIONS[rope_type] of transformers for a head of d, as float64 numpy."""
    rope_utils = pytest.importorskip("transformers.modeling_rope_utils")
    transformers = pytest.importorskip("transformers")
    transformers.logging.set_verbosity_error()  # p-RoPE's validator calls its own "factor" unrecognised
    config = transformers.PretrainedConfig(
        hidden_size=d, num_attention_heads=1, head_dim=d, max_position_embeddings=max_position_embeddings,
        rope_parameters={"rope_type": rope_type, "rope_theta": base, **rope_parameters})
    inv_freq, attention = rope_utils.ROPE_INIT_FUNCTIONS[rope_type](config, None, seq_len=seq_len)
    return inv_freq.double().numpy(), float(attention)


LONGROPE_CASE = st.fixed_dictionaries({
    "d": st.sampled_from([8, 16, 64, 96, 128]),
    "fraction": st.sampled_from([1.0, 0.5, 0.25]),
    "base": st.sampled_from([1.0, 100.0, 10000.0, 500000.0, 1e9]),
    "original": st.sampled_from([16, 512, 4096, 131072]),
    "factor": st.sampled_from([None, 1.0, 2.5, 32.0, 64.0]),
    "longest": st.sampled_from([256, 8192, 131072]),  # max_position_embeddings, used when factor is None
    "at": st.sampled_from([None, 0, 1, "L0", "L0+1", "4L0"]),
    "attention_factor": st.sampled_from([None, None, 0.0, 0.7, 1.3]),
    "seed": st.integers(0, 2**32 - 1),
})


@given(LONGROPE_CASE)
def test_longrope_equals_transformers(case):
    d, fraction, base, original = case["d"], case["fraction"], case["base"], case["original"]
    pairs = int(d * fraction) // 2
    rng = np.random.default_rng(case["seed"])
    short, long = float32_list(rng.uniform(0.5, 2.0, pairs)), float32_list(rng.uniform(1.0, 80.0, pairs))
    seq_len = {"L0": original, "L0+1": original + 1, "4L0": 4 * original}.get(case["at"], case["at"])
    optional = {k: v for k, v in (("factor", case["factor"]), ("attention_factor", case["attention_factor"]))
                if v is not None}
    expected, expected_attention = hf_inv_freq(
        "longrope", d, base, seq_len=seq_len, max_position_embeddings=case["longest"], short_factor=short,
        long_factor=long, original_max_position_embeddings=original, partial_rotary_factor=fraction, **optional)
    got, attention = posenc.rope_inv_freq(
        d, base, rope_type="longrope", seq_len=seq_len, rotary_fraction=fraction, short_factor=short,
        long_factor=long, original_max_position_embeddings=original, max_position_embeddings=case["longest"],
        **optional)
    assert got.shape == expected.shape == (pairs,)
    np.testing.assert_allclose(got, expected, rtol=float32_rtol(base), atol=0)
    assert attention == pytest.approx(expected_attention, rel=1e-15)  # both in Python floats


PROPORTIONAL_CASE = st.fixed_dictionaries({
    "d": st.one_of(st.sampled_from([2, 3, 64, 128, 256, 512]), st.integers(1, 600)),
    "fraction": st.one_of(st.sampled_from([0.0, 0.25, 0.3, 0.5, 0.99, 1.0]), st.floats(0.0, 1.0)),
    "base": st.sampled_from([1.0, 10000.0, 1e6, 1e9]),
    "factor": st.sampled_from([None, 1.0, 2.0, 8.0, 64.0]),
})


@given(PROPORTIONAL_CASE)
def test_proportional_equals_transformers(case):
    d, fraction, base = case["d"], case["fraction"], case["base"]
    # HF's config refuses a fully rotated odd head wider than 4 (its cos/sin could not cover it); posenc
    # rotates its d // 2 pairs and leaves the last dimension (test_apply_rope_under_proportional_…)
    assume(not (d > 4 and d % 2 and int(d * fraction) == d))
    factor = {} if case["factor"] is None else {"factor": case["factor"]}
    expected, expected_attention = hf_inv_freq("proportional", d, base, partial_rotary_factor=fraction, **factor)
    got, attention = posenc.rope_inv_freq(d, base, rope_type="proportional", rotary_fraction=fraction, **factor)
    assert got.shape == expected.shape == (d // 2,)
    np.testing.assert_array_equal(got == 0, expected == 0)  # the same pairs left unrotated
    np.testing.assert_allclose(got, expected, rtol=float32_rtol(base), atol=0)
    assert attention == expected_attention == 1.0


def test_gemma_shaped_p_rope_and_phi3_shaped_longrope_equal_transformers():
    # Gemma 4's global layers: p = 0.25 of a 512-wide head, base 1e6: 64 of the 256 pairs turn
    expected, _ = hf_inv_freq("proportional", 512, 1e6, partial_rotary_factor=0.25)
    got, _ = posenc.rope_inv_freq(512, 1e6, rope_type="proportional", rotary_fraction=0.25)
    assert np.count_nonzero(got) == 64 and got[63] == pytest.approx(1e6 ** (-126 / 512))
    np.testing.assert_allclose(got, expected, rtol=float32_rtol(1e6), atol=0)
    # Phi-3 128k: 96-wide heads, L₀ = 4096, max_position_embeddings = 131072 and no factor: s = 32
    transformers = pytest.importorskip("transformers")
    rope_utils = pytest.importorskip("transformers.modeling_rope_utils")
    short, long = float32_list(np.linspace(1.0, 1.2, 48)), float32_list(np.geomspace(1.0, 60.0, 48))
    config = transformers.Phi3Config(
        hidden_size=3072, num_attention_heads=32, max_position_embeddings=131072,
        original_max_position_embeddings=4096,
        rope_parameters={"rope_type": "longrope", "short_factor": short, "long_factor": long,
                         "rope_theta": 10000.0, "original_max_position_embeddings": 4096})
    for seq_len in (4096, 4097):
        expected, expected_attention = rope_utils.ROPE_INIT_FUNCTIONS["longrope"](config, None, seq_len=seq_len)
        got, attention = posenc.rope_inv_freq(96, rope_type="longrope", seq_len=seq_len, short_factor=short,
                                              long_factor=long, original_max_position_embeddings=4096,
                                              max_position_embeddings=131072)
        np.testing.assert_allclose(got, expected.double().numpy(), rtol=float32_rtol(1e4), atol=0)
        assert attention == pytest.approx(expected_attention, rel=1e-15)
        assert attention == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-15)


# --- LongRoPE's closed form -------------------------------------------------------------------

SHORT = float32_list(np.linspace(1.0, 1.5, 32))
LONG = float32_list(np.geomspace(1.0, 16.0, 32))
LONGROPE = {"short_factor": SHORT, "long_factor": LONG, "factor": 16.0, "original_max_position_embeddings": 512}


def test_longrope_short_up_to_the_original_context_and_long_beyond():
    for seq_len in (None, 0, 1, 511, 512):
        inv_freq, _ = posenc.rope_inv_freq(64, rope_type="longrope", seq_len=seq_len, **LONGROPE)
        np.testing.assert_allclose(inv_freq, theta(64) / np.array(SHORT), rtol=1e-15)
    for seq_len in (513, 10**6):
        inv_freq, _ = posenc.rope_inv_freq(64, rope_type="longrope", seq_len=seq_len, **LONGROPE)
        np.testing.assert_allclose(inv_freq, theta(64) / np.array(LONG), rtol=1e-15)


def test_longrope_attention_factor():
    _, attention = posenc.rope_inv_freq(64, rope_type="longrope", **LONGROPE)
    assert attention == pytest.approx(math.sqrt(1 + math.log(16) / math.log(512)), rel=1e-15)  # 1.20185
    _, given_attention = posenc.rope_inv_freq(64, rope_type="longrope", **LONGROPE | {"attention_factor": 0.9})
    assert given_attention == 0.9
    _, at_one = posenc.rope_inv_freq(64, rope_type="longrope", **LONGROPE | {"factor": 1.0})
    assert at_one == 1.0
    # no factor: s = max_position_embeddings / L₀ (HF, as Phi-3's configs); s ≤ 1 gives 1
    without = {k: v for k, v in LONGROPE.items() if k != "factor"}
    _, derived = posenc.rope_inv_freq(64, rope_type="longrope", max_position_embeddings=8192, **without)
    assert derived == pytest.approx(math.sqrt(1 + math.log(16) / math.log(512)), rel=1e-15)
    _, shorter = posenc.rope_inv_freq(64, rope_type="longrope", max_position_embeddings=256, **without)
    assert shorter == 1.0
    # an explicit factor wins over max_position_embeddings, as in HF
    _, both = posenc.rope_inv_freq(64, rope_type="longrope", max_position_embeddings=256, **LONGROPE)
    assert both == attention


def test_longrope_rules_the_app_uses():
    np.testing.assert_array_equal(longrope_factors("ones", 4, 8.0), [1.0, 1.0, 1.0, 1.0])
    geometric = longrope_factors("geometric", 4, 8.0)
    np.testing.assert_allclose(geometric, [1.0, 2.0, 4.0, 8.0], rtol=1e-15)  # 8^(i/3)
    np.testing.assert_array_equal(longrope_factors("geometric", 1, 8.0), [1.0])  # one pair: the fastest, kept
    assert longrope_factors("geometric", 0, 8.0).shape == (0,)
    keywords = rope_keywords(ROPE.defaults() | {"rope_type": "longrope"})
    assert {k: keywords[k] for k in APP_LONGROPE_FACTORS} == {"short_factor": "ones", "long_factor": "geometric"}
    assert "short_factor" not in rope_keywords(ROPE.defaults() | {"rope_type": "yarn"})
    long, _ = posenc.rope_inv_freq(64, rope_type="longrope", seq_len=513, short_factor="ones",
                                   long_factor="geometric", factor=4.0, original_max_position_embeddings=512)
    np.testing.assert_allclose(long, theta(64) / 4.0 ** (np.arange(32) / 31), rtol=1e-15)
    assert long[0] == 1.0 and long[-1] == pytest.approx(theta(64)[-1] / 4, rel=1e-15)
    # explicit lists are used as given
    keywords = rope_keywords(ROPE.defaults() | {"rope_type": "longrope", "short_factor": SHORT, "long_factor": LONG})
    assert keywords["short_factor"] is SHORT and keywords["long_factor"] is LONG


# --- p-RoPE's closed form ---------------------------------------------------------------------

def test_proportional_keeps_full_ropes_fast_pairs_and_stops_the_rest():
    inv_freq, attention = posenc.rope_inv_freq(64, rope_type="proportional", rotary_fraction=0.25)
    assert inv_freq.shape == (32,) and attention == 1.0
    np.testing.assert_allclose(inv_freq[:8], theta(64)[:8], rtol=1e-15)  # denominator: the whole head
    np.testing.assert_array_equal(inv_freq[8:], 0.0)
    partial, _ = posenc.rope_inv_freq(64, rotary_fraction=0.25)  # partial rotary: denominator d_rot = 16
    np.testing.assert_allclose(partial, theta(16), rtol=1e-15)
    assert not np.allclose(partial, inv_freq[:8])
    scaled, _ = posenc.rope_inv_freq(64, rope_type="proportional", rotary_fraction=0.25, factor=4.0)
    np.testing.assert_allclose(scaled, inv_freq / 4, rtol=1e-15)
    full, _ = posenc.rope_inv_freq(64, rope_type="proportional", factor=4.0)  # p = 1: linear scaling
    np.testing.assert_allclose(full, posenc.rope_inv_freq(64, rope_type="linear", factor=4.0)[0], rtol=1e-15)
    assert proportional_pairs(63, 0.3) == 9 and proportional_pairs(64, 0.3) == 9  # ⌊18.9/2⌋, ⌊19.2/2⌋
    odd, _ = posenc.rope_inv_freq(63, rope_type="proportional", rotary_fraction=0.3)
    assert odd.shape == (31,) and np.count_nonzero(odd) == 9
    np.testing.assert_allclose(odd[:9], 10000.0 ** (-np.arange(0, 18, 2) / 63), rtol=1e-15)
    wavelengths = posenc.rope_wavelengths(64, 10000.0, "proportional", rotary_fraction=0.25)
    np.testing.assert_allclose(wavelengths[:8], 2 * math.pi / theta(64)[:8], rtol=1e-15)
    assert np.isposinf(wavelengths[8:]).all()  # never turn
    assert scales_whole_head("proportional") and not scales_whole_head("longrope")


# --- refusals ---------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"short_factor": [1.0] * 7}, r"short_factor must have d_rot/2 = 8 entries, one per rotated pair; got 7"),
        ({"long_factor": [1.0] * 9}, r"long_factor must have d_rot/2 = 8 entries"),
        ({"long_factor": [1.0] * 7 + [math.nan]}, r"long_factor must hold finite numbers"),
        ({"short_factor": [1.0] * 7 + [math.inf]}, r"short_factor must hold finite numbers"),
        ({"short_factor": [1.0] * 7 + [0.0]}, r"short_factor must hold numbers greater than 0 .*got 0"),
        ({"long_factor": [1.0] * 7 + [-2.0]}, r"long_factor must hold numbers greater than 0"),
        ({"long_factor": "linear"}, r"long_factor must be a list of 8 numbers .* or one of 'ones', 'geometric'"),
        ({"long_factor": [[1.0] * 8]}, r"long_factor must have 1 axes"),
        ({"short_factor": ["a"] * 8}, r"short_factor must hold real numbers"),
        ({"factor": None}, r"LongRoPE needs factor, or max_position_embeddings"),
        ({"factor": 0.5}, r"factor must be a finite number of at least 1"),
        ({"factor": None, "max_position_embeddings": 0}, r"max_position_embeddings must be at least 1"),
        ({"original_max_position_embeddings": 1}, r"divides by ln L₀, so original_max_position_embeddings must"),
        ({"attention_factor": -1.0}, r"attention_factor must be a finite number of at least 0"),
    ],
)
def test_longrope_refuses(kwargs, match):
    arguments = {"short_factor": [1.0] * 8, "long_factor": [2.0] * 8, "factor": 4.0,
                 "original_max_position_embeddings": 64} | kwargs
    with pytest.raises(ValueError, match=match):
        posenc.rope_inv_freq(16, rope_type="longrope", **arguments)


def test_longrope_rotates_pairs_like_the_others():
    with pytest.raises(ValueError, match=r"int\(d·rotary_fraction\) must be even; d = 15 and rotary_fraction = 1 give 15"):
        posenc.rope_inv_freq(15, rope_type="longrope", short_factor="ones", long_factor="ones", factor=2.0,
                             original_max_position_embeddings=64)


def test_longrope_needs_both_lists():
    with pytest.raises(ValueError, match=r"'longrope' scaling takes .*missing \['short_factor', 'long_factor'\]"):
        posenc.rope_inv_freq(16, rope_type="longrope", factor=4.0, original_max_position_embeddings=64)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rotary_fraction": 1.5}, r"rotary_fraction must be a finite number of at least 0 and at most 1"),
        ({"rotary_fraction": -0.1}, r"rotary_fraction must be a finite number of at least 0"),
        ({"rotary_fraction": math.nan}, r"rotary_fraction must be a finite number"),
        ({"factor": 0.5}, r"factor must be a finite number of at least 1"),
        ({"original_max_position_embeddings": 64}, r"unexpected \['original_max_position_embeddings'\]"),
    ],
)
def test_proportional_refuses(kwargs, match):
    with pytest.raises(ValueError, match=match):
        posenc.rope_inv_freq(16, rope_type="proportional", **kwargs)


# --- every consumer ---------------------------------------------------------------------------

@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("d", [64, 63])
@pytest.mark.parametrize("fraction", [0.3, 1.0])
def test_apply_rope_under_proportional_rotates_only_the_first_pairs(layout, d, fraction):
    x = RNG.normal(size=(20, d))
    positions = np.arange(20) * 13.0
    out = posenc.apply_rope(x, positions, 500.0, layout=layout, rope_type="proportional", rotary_fraction=fraction)
    rotated, half = proportional_pairs(d, fraction), d // 2
    first = np.arange(half) * 2 if layout == "interleaved" else np.arange(half)
    second = first + 1 if layout == "interleaved" else first + half
    z, z_out = x[:, first] + 1j * x[:, second], out[:, first] + 1j * out[:, second]
    angles = positions[:, None] * 500.0 ** (-2 * np.arange(rotated) / d)
    np.testing.assert_allclose(z_out[:, :rotated], z[:, :rotated] * np.exp(1j * angles), atol=1e-12)
    np.testing.assert_array_equal(z_out[:, rotated:], z[:, rotated:])  # θ = 0: untouched, exactly
    if d % 2:
        np.testing.assert_array_equal(out[:, -1], x[:, -1])  # the unpaired last dimension


def test_apply_rope_under_longrope_picks_the_list_by_the_last_position():
    x = RNG.normal(size=(2, 64))
    scale = math.sqrt(1 + math.log(16) / math.log(512))
    for last, factors in ((511, SHORT), (512, LONG)):  # seq_len = last + 1 = 512 (short) or 513 (long)
        out = posenc.apply_rope(x, np.array([0.0, last]), rope_type="longrope", **LONGROPE)
        angles = last * theta(64) / np.array(factors)
        z = x[1, 0::2] + 1j * x[1, 1::2]
        np.testing.assert_allclose(out[1, 0::2] + 1j * out[1, 1::2], scale * z * np.exp(1j * angles), atol=1e-12)
        np.testing.assert_allclose(out[0], scale * x[0], atol=1e-15)


@pytest.mark.parametrize(("d", "options"), [
    (32, {"rope_type": "longrope", **LONGROPE, "short_factor": SHORT[:16], "long_factor": LONG[:16],
          "original_max_position_embeddings": 16}),
    (32, {"rope_type": "longrope", "short_factor": "ones", "long_factor": "geometric", "factor": 8.0,
          "original_max_position_embeddings": 16, "rotary_fraction": 0.5}),
    (32, {"rope_type": "proportional", "rotary_fraction": 0.25, "factor": 2.0}),
    (33, {"rope_type": "proportional", "rotary_fraction": 0.3}),
])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_torch_module_matches_numpy(d, options, layout):
    torch = pytest.importorskip("torch")
    from posenc.modules.rope import RotaryEmbedding

    module = RotaryEmbedding(d, 100.0, layout=layout, **options)
    assert module.rotary_dims == (2 * (d // 2) if options["rope_type"] == "proportional"
                                  else int(d * options.get("rotary_fraction", 1.0)))
    x = RNG.normal(size=(2, 3, 40, d))
    for length in (10, 40):  # longrope: 10 ≤ L₀ = 16 < 40, short then long factors
        got = module(torch.from_numpy(x[..., :length, :])).numpy()
        np.testing.assert_allclose(got, posenc.apply_rope(x[..., :length, :], None, 100.0, layout=layout, **options),
                                   atol=1e-6)
    positions = RNG.integers(0, 12, size=(2, 1, 40))
    got = module(torch.from_numpy(x), torch.from_numpy(positions), seq_len=100).numpy()
    expected = posenc.apply_rope(x, positions, 100.0, layout=layout, seq_len=100, **options)
    np.testing.assert_allclose(got, expected, atol=1e-6)


APP_CASES = [
    (300, 64, 10000.0, {"rope_type": "longrope", "original_max_position_embeddings": 128, "factor": 8.0}),
    (100, 64, 10000.0, {"rope_type": "longrope", "original_max_position_embeddings": 128, "layout": "half"}),
    (200, 48, 500.0, {"rope_type": "longrope", "original_max_position_embeddings": 16, "rotary_fraction": 0.5}),
    (100, 64, 10000.0, {"rope_type": "proportional", "rotary_fraction": 0.25, "factor": 2.0}),
    (150, 63, 1e6, {"rope_type": "proportional", "rotary_fraction": 0.3, "layout": "half"}),
    (60, 10, 1.0, {"rope_type": "proportional", "rotary_fraction": 0.0}),
]


@pytest.mark.parametrize(("length", "d_model", "base", "options"), APP_CASES)
def test_offset_curve_from_frequencies_equals_rotated_vectors(length, d_model, base, options):
    options = ROPE.defaults() | options
    offsets, curve = ROPE.offset_curve(length, d_model, base, **options)  # rotates vectors with apply_rope
    np.testing.assert_allclose(rope_scores_at(offsets, length, d_model, base, **options), curve, atol=1e-9)
    _, raw = rope_score_curve(length, d_model, base, **rope_keywords(options))
    np.testing.assert_allclose(raw / d_model, curve, atol=1e-12)


@pytest.mark.parametrize(("length", "d_model", "base", "options"), APP_CASES)
def test_precision_cos_sin_use_the_same_frequencies(length, d_model, base, options):
    pytest.importorskip("torch")
    from posenc.precision.tables import precision_table, rope_frequencies

    options = ROPE.defaults() | options
    inv_freq, scale, _ = rope_frequencies(length, d_model, base, options)
    keywords = {k: v for k, v in rope_keywords(options).items() if k != "layout"}
    expected, expected_scale = posenc.rope_inv_freq(d_model, base, seq_len=length, **keywords)
    np.testing.assert_array_equal(inv_freq, expected)
    assert scale == expected_scale
    table = precision_table("rope", length, d_model, base, "bfloat16", **options)
    assert all(np.isfinite(errors).all() for errors in table.errors.values())


@pytest.mark.parametrize(("length", "d_model", "base", "options"), APP_CASES)
def test_formula_states_the_numbers_computed(length, d_model, base, options):
    options = ROPE.defaults() | options
    formula = ROPE.formula(d_model, base, **options)
    if options["rope_type"] == "longrope":
        pairs = int(d_model * options["rotary_fraction"]) // 2
        s, original = options["factor"], options["original_max_position_embeddings"]
        assert rf"f^{{\text{{long}}}}_i = {s:g}^{{i/{pairs - 1}}} & L > {original}" in formula
        assert rf"f^{{\text{{short}}}}_i = 1 & L \le {original}" in formula
        assert f"{math.sqrt(1 + math.log(s) / math.log(original)):.4f}" in formula
    else:
        rotated = proportional_pairs(d_model, options["rotary_fraction"])
        assert rf"\rfloor = {rotated}" in formula
        if rotated:
            assert rf"^{{-2i/{d_model}}}" in formula
        if d_model % 2:
            assert rf"x'_j = x_j \quad \text{{for }} j = {d_model - 1}" in formula


def test_formula_shows_given_lists_and_a_derived_factor():
    formula = ROPE.formula(64, 10000.0, rope_type="longrope", short_factor=SHORT, long_factor=LONG, factor=None,
                           max_position_embeddings=8192, original_max_position_embeddings=512)
    assert r"\left(1, 1.01613, 1.03226, \dots, 1.5\right)_i" in formula
    assert r"\sqrt{1 + \ln 16 / \ln 512} = 1.2019" in formula


@pytest.mark.parametrize(("mscale", "mscale_all_dim", "shown"), [
    (None, None, r"(0.1 \ln 4 + 1) = 1.1386"),  # YaRN's own
    (1.0, 1.0, r"\frac{0.1 \cdot 1\,\ln 4 + 1}{0.1 \cdot 1\,\ln 4 + 1} = 1.0000"),  # Mistral 4's, Ministral 3's
    (1.0, 0.5, r"\frac{0.1 \cdot 1\,\ln 4 + 1}{0.1 \cdot 0.5\,\ln 4 + 1} = 1.0648"),
    (0.707, None, r"(0.1 \ln 4 + 1) = 1.1386"),  # one of the two: transformers ignores it
])
def test_yarn_s_factor_on_cos_and_sin_is_written_as_computed(mscale, mscale_all_dim, shown):
    """YaRN multiplies cos and sin by 0.1·ln s + 1, or, given DeepSeek's mscale and mscale_all_dim both, by
    (0.1·mscale·ln s + 1)/(0.1·mscale_all_dim·ln s + 1) (transformers 5.23's _compute_yarn_parameters, as
    yarn_attention_factor computes it). The formula wrote (0.1 ln s + 1) = 1.0000 for Mistral 4's and Ministral 3's
    mscale = mscale_all_dim = 1: a formula that was not the one computed."""
    options = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 512, "rotary_fraction": 1.0,
               **({"mscale": mscale} if mscale is not None else {}),
               **({"mscale_all_dim": mscale_all_dim} if mscale_all_dim is not None else {})}
    formula = ROPE.formula(64, 10000.0, **ROPE.defaults() | options)
    assert shown in formula
    assert f"{yarn_attention_factor(4.0, mscale, mscale_all_dim):.4f}" in shown


# --- the app's settings -----------------------------------------------------------------------

def test_constraints_correct_longrope_and_leave_proportional_alone():
    settings, messages = valid_settings("rope", 8, 100, 1e4, {"rope_type": "longrope", "rotary_fraction": 0.33})
    assert settings["options"]["rotary_fraction"] == 0.32 and len(messages) == 1
    assert "rope.rotary_fraction=0.33 rotates int(100·0.33) = 33 dimensions, which must be even" in messages[0]
    settings, messages = valid_settings("rope", 8, 63, 1e4, {"rope_type": "longrope"})
    assert settings["d_model"] == 62 and "using d_model=62" in messages[0]
    for d_model, fraction in ((63, 1.0), (100, 0.33), (2, 0.5), (1023, 0.99)):
        options = {"rope_type": "proportional", "rotary_fraction": fraction}
        settings, messages = valid_settings("rope", 8, d_model, 1e4, options)
        assert messages == [] and settings["d_model"] == d_model


@given(st.integers(2, 1024), st.floats(1.0, 1e9), st.integers(2, 64), st.sampled_from(["longrope", "proportional"]),
       st.floats(0.0, 1.0), st.floats(1.0, 64.0), st.integers(16, 16384), st.sampled_from(["interleaved", "half"]))
def test_every_in_range_setting_is_computed_after_the_constraints(d_model, base, length, rope_type, fraction, factor,
                                                                   original, layout):
    options = {"rope_type": rope_type, "rotary_fraction": fraction, "factor": factor,
               "original_max_position_embeddings": original, "layout": layout}
    settings, messages = valid_settings("rope", length, d_model, base, options)
    assert bool(messages) == (rope_type == "longrope" and int(d_model * fraction) % 2 == 1)
    length, d_model, base, options = (settings[k] for k in ("length", "d_model", "base", "options"))
    assert isinstance(ROPE.formula(d_model, base, **options), str)
    offsets, curve = ROPE.offset_curve(length, d_model, base, **options)
    keywords = {k: v for k, v in rope_keywords(options).items() if k != "layout"}
    inv_freq, scale = posenc.rope_inv_freq(d_model, base, seq_len=length, **keywords)
    turning = 2 * len(inv_freq)  # dimensions the rotation acts on: 2s² each at offset 0, the others 1
    assert np.isfinite(curve).all()
    assert curve[length - 1] == pytest.approx((2 * scale**2 * len(inv_freq) + d_model - turning) / d_model, rel=1e-12)


# --- property-based: random and hostile arguments ---------------------------------------------

RULE_OR_LIST = st.one_of(st.sampled_from(LONGROPE_RULES), st.integers(0, 2**32 - 1))


def longrope(d, base, seq_len, fraction, short, long, factor, original, attention_factor):
    drawn = isinstance(d, int) and 1 <= d <= 256 and isinstance(fraction, float) and 0 <= fraction <= 1  # else hostile
    pairs = int(d * fraction) // 2 if drawn else 0
    lists = [np.random.default_rng(v).uniform(0.1, 100.0, pairs) if isinstance(v, int) and not isinstance(v, bool)
             else v for v in (short, long)]
    return posenc.rope_inv_freq(d, base, rope_type="longrope", seq_len=seq_len, rotary_fraction=fraction,
                                short_factor=lists[0], long_factor=lists[1], factor=factor,
                                original_max_position_embeddings=original, attention_factor=attention_factor)


def check_frequencies(result, a):
    inv_freq, attention = result
    assert isinstance(inv_freq, np.ndarray) and inv_freq.dtype == np.float64
    assert np.isfinite(inv_freq).all() and np.isfinite(2 * math.pi / inv_freq[inv_freq != 0]).all()
    assert math.isfinite(attention) and attention >= 0


def odd_rotated(a):
    return isinstance(a["d"], int) and int(a["d"] * a["fraction"]) % 2 == 1


test_longrope_fuzz = fuzz(
    longrope,
    dict(d=st.integers(1, 256), base=st.one_of(st.floats(1.0, 1e9), st.just(1e300)),
         seq_len=st.one_of(st.none(), st.integers(0, 10**6)), fraction=st.sampled_from([1.0, 0.5, 0.25, 0.0, 0.33]),
         short=RULE_OR_LIST, long=RULE_OR_LIST, factor=st.floats(1.0, 1e6), original=st.integers(2, 10**6),
         attention_factor=st.one_of(st.none(), st.floats(0.0, 10.0))),
    check_frequencies,
    refuses=odd_rotated,
)


def proportional(d, base, fraction, factor):
    return posenc.rope_inv_freq(d, base, rope_type="proportional", rotary_fraction=fraction, factor=factor)


def check_proportional(result, a):
    check_frequencies(result, a)
    inv_freq, d, fraction = result[0], int(a["d"]), float(a["fraction"])  # a whole float16 d is accepted
    assert inv_freq.shape == (d // 2,)
    assert np.count_nonzero(inv_freq) == int(fraction * d // 2)


test_proportional_fuzz = fuzz(
    proportional,
    dict(d=st.integers(1, 4096), base=st.one_of(st.floats(1.0, 1e300), st.just(1e300)), fraction=st.floats(0.0, 1.0),
         factor=st.floats(1.0, 1e6)),
    check_proportional,
)

test_longrope_function_fuzz = fuzz(
    longrope_inv_freq,
    dict(dim=st.integers(1, 64).map(lambda h: 2 * h), base=st.floats(1.0, 1e9),
         seq_len=st.one_of(st.none(), st.integers(0, 10**6)), short_factor=st.sampled_from(LONGROPE_RULES),
         long_factor=st.sampled_from(LONGROPE_RULES), factor=st.floats(1.0, 64.0),
         original_max_position_embeddings=st.integers(2, 10**5)),
    check_frequencies, positional=2,
)
test_proportional_function_fuzz = fuzz(
    proportional_inv_freq,
    dict(dim=st.integers(0, 1024), base=st.floats(1.0, 1e9), seq_len=st.none(), rotary_fraction=st.floats(0.0, 1.0),
         factor=st.floats(1.0, 64.0)),
    check_frequencies, positional=2,
)


@given(st.integers(1, 64).map(lambda h: 2 * h), st.floats(1.0, 1e6), st.integers(2, 10**4), st.integers(0, 10**5),
       st.sampled_from(["interleaved", "half"]), st.sampled_from(["longrope", "proportional"]), st.floats(0.0, 1.0))
def test_rotation_keeps_norms_and_scores_see_the_offset_only(d, base, original, shift, layout, rope_type, fraction):
    params = ({"short_factor": "ones", "long_factor": "geometric", "factor": 4.0,
               "original_max_position_embeddings": original} if rope_type == "longrope"
              else {"rotary_fraction": fraction, "factor": 2.0})
    rng = np.random.default_rng(d)
    q, k = rng.normal(size=d), rng.normal(size=d)
    before, after = posenc.rope_shift_invariance(q, k, 3, 40, shift, base, layout=layout, rope_type=rope_type,
                                                 **params)
    assert math.isclose(before, after, rel_tol=1e-6, abs_tol=1e-6 * d)
    x = rng.normal(size=(5, d))
    out = posenc.apply_rope(x, np.arange(5) * 997.0, base, layout=layout, rope_type=rope_type, **params)
    _, scale = posenc.rope_inv_freq(d, base, rope_type=rope_type, seq_len=4 * 997 + 1, **params)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), scale * np.linalg.norm(x, axis=1), rtol=1e-10)
