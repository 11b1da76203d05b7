"""posenc.analysis.offset_curves: every scheme's offset curve at chosen offsets, up to a model's real context.

At lengths the registry builds, the curve at the offsets equals the registry's ``offset_curve`` at those
offsets (every scheme, several options); at 131,072 and 10,485,760 positions: known values and invariants.
"""

import math

import numpy as np
import pytest

import posenc
from posenc.analysis import offset_curves
from posenc.models.presets import _LLAMA3_SCALING

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

OPTIONS = [
    ("rope", dict(rope_type="yarn", factor=8.0, original_max_position_embeddings=64)),
    ("rope", dict(rope_type="dynamic", factor=4.0, original_max_position_embeddings=64)),
    ("rope", dict(rope_type="llama3", factor=8.0, original_max_position_embeddings=64, low_freq_factor=1.0,
                  high_freq_factor=4.0)),
    ("rope", dict(rope_type="longrope", factor=8.0, original_max_position_embeddings=64)),
    ("rope", dict(rope_type="proportional", rotary_fraction=0.5)),
    ("rope", dict(rope_type="linear", factor=2.0, rotary_fraction=0.5, layout="half")),
    ("alibi", dict(direction="bidirectional", num_heads=5)),
    ("t5", dict(direction="causal", num_buckets=16, max_distance=40)),
    ("kerple", dict(variant="power", r1=0.5, r2=0.7)),
    ("sinusoidal", dict(layout="split", spacing="tensor2tensor")),
    ("learned", dict(table_size=20, seed=3)),
    ("xpos", dict(scale_base=64.0)),
    ("shaw", dict(max_relative_position=3, seed=2)),
]


def registry_and_reach(key, length, d_model, base, options):
    scheme = posenc.SCHEMES[key]
    chosen = scheme.defaults() | options
    offsets, expected = scheme.offset_curve(length, d_model, base, **chosen)
    return expected, offset_curves.offset_curve_at(key, offsets, length, d_model, base, **chosen)


@pytest.mark.parametrize("key", list(posenc.SCHEMES))
@pytest.mark.parametrize(("length", "d_model"), [(1, 16), (2, 16), (37, 16), (300, 16), (300, 15), (41, 9)])
def test_every_scheme_equals_the_registry_at_its_offsets(key, length, d_model):
    try:
        expected, got = registry_and_reach(key, length, d_model, 500.0, {})
    except ValueError:  # an odd d_model for a pairing scheme: refused on both routes
        with pytest.raises(ValueError):
            registry_and_reach(key, length, d_model, 500.0, {})  # the registry's own refusal, kept
        with pytest.raises(ValueError):
            offset_curves.offset_curve_at(key, [0], length, d_model, 500.0, **posenc.SCHEMES[key].defaults())
        return
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(("key", "options"), OPTIONS, ids=[f"{k}-{i}" for i, (k, _) in enumerate(OPTIONS)])
@pytest.mark.parametrize("length", [5, 100, 300])
def test_options_equal_the_registry(key, options, length):
    expected, got = registry_and_reach(key, length, 16, 500.0, options)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)


def test_every_scheme_states_its_curve_at_chosen_offsets():
    assert all(callable(scheme.offset_curve_at) for scheme in posenc.SCHEMES.values())


@pytest.mark.parametrize("length", [1, 2, 3, 100, 4096, 131_072, 10_485_760])
def test_log_offsets(length):
    offsets = offset_curves.log_offsets(length)
    assert offsets.dtype == np.int64 and offsets[0] == 0 and offsets[-1] == length - 1
    assert (np.diff(offsets) > 0).all()
    if length > 1:
        assert offsets[1] == 1
    assert len(offsets) <= 256 + 3
    if length == 131_072:  # evenly spread on a log axis: no decade is left empty
        assert all(((offsets >= 10**k) & (offsets < 10 ** (k + 1))).any() for k in range(5))


def test_at_llama_3_1_context():
    """Llama 3.1 8B at 131,072: RoPE's score is 1 at Δ = 0 and symmetric; ALiBi's line, T5's far bucket."""
    offsets = offset_curves.log_offsets(131_072)
    options = dict(layout="half", rope_type="llama3", rotary_fraction=1.0, **_LLAMA3_SCALING)
    score = offset_curves.offset_curve_at("rope", offsets, 131_072, 128, 500_000.0, **options)
    assert score[0] == pytest.approx(1.0, abs=1e-12) and np.abs(score).max() <= 1.0 + 1e-12
    np.testing.assert_allclose(offset_curves.offset_curve_at("rope", -offsets, 131_072, 128, 500_000.0, **options), score)
    alibi = offset_curves.offset_curve_at("alibi", -offsets, 131_072, 128, 1e4, num_heads=8)
    np.testing.assert_array_equal(alibi, -0.5 * offsets)  # head 0's slope 2^(−8/8)
    assert np.isnan(offset_curves.offset_curve_at("alibi", [1], 131_072, 128, 1e4)).all()  # causal: no key after the query
    t5 = offset_curves.offset_curve_at("t5", -offsets, 131_072, 128, 1e4)
    assert np.unique(t5[offsets >= 128]).size == 1  # past max_distance every offset shares the last bucket


def test_at_ten_million_positions():
    """Llama 4 Scout's 10,485,760: exact values from the formula at a few large offsets, in float64."""
    offsets = np.array([0, 1, 8191, 8192, 1_000_003, 10_485_759])
    d_model, base = 128, 500_000.0
    theta = base ** (-np.arange(0, d_model, 2) / d_model)
    expected = np.array([sum(math.cos(int(o) * t) for t in theta) for o in offsets])
    np.testing.assert_allclose(offset_curves.offset_curve_at("sinusoidal", offsets, 10_485_760, d_model, base), expected,
                               rtol=1e-9, atol=1e-8)
    np.testing.assert_allclose(offset_curves.offset_curve_at("rope", offsets, 10_485_760, d_model, base),
                               2 * expected / d_model, rtol=1e-9, atol=1e-10)
    kerple = offset_curves.offset_curve_at("kerple", -offsets, 10_485_760, d_model, base, r1=1.0, r2=1.0, variant="log")
    np.testing.assert_allclose(kerple, -np.log1p(offsets))
    learned = offset_curves.offset_curve_at("learned", -offsets, 10_485_760, d_model, base)
    assert np.isfinite(learned[:2]).all() and np.isnan(learned[2:]).all()  # 512 rows: no pair that far apart
    assert np.isnan(offset_curves.offset_curve_at("transformer_xl", [5], 10_485_760, d_model, base)).all()
    assert np.isfinite(offset_curves.offset_curve_at("transformer_xl", -offsets, 10_485_760, d_model, base)).all()


def test_cost_is_the_offsets_not_the_length():
    """256 offsets at 10,485,760 positions: the curve of every scheme in well under a second."""
    import time

    offsets = -offset_curves.log_offsets(10_485_760)
    start = time.perf_counter()
    for key, scheme in posenc.SCHEMES.items():
        offset_curves.offset_curve_at(key, offsets, 10_485_760, 128, 500_000.0, **scheme.defaults())
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize(("args", "message"), [
    (([0.5], 10), "whole offsets"),
    (([10], 10), r"between −9 and 9"),
    (([0], 0), "length must be"),
    (([0], (1 << 24) + 1), "length must be"),
])
def test_bad_arguments_are_named(args, message):
    with pytest.raises(ValueError, match=message):
        offset_curves.offset_curve_at("rope", *args, 16, 1e4)


def test_unknown_options_are_named():
    with pytest.raises(ValueError, match="ALiBi has no option slope"):
        offset_curves.offset_curve_at("alibi", [0], 10, 16, 1e4, slope=1.0)
    with pytest.raises(ValueError, match="RoPE has no option"):
        offset_curves.offset_curve_at("rope", [0], 10, 16, 1e4, slope=1.0)


def test_bad_options_are_named():
    with pytest.raises(ValueError, match="table_size"):
        offset_curves.offset_curve_at("learned", [0], 10, 16, 1e4, table_size=0)
    with pytest.raises(ValueError, match="max_relative_position"):
        offset_curves.offset_curve_at("shaw", [0], 10, 16, 1e4, max_relative_position=-1)
    with pytest.raises(ValueError, match="split layout needs an even d_model"):
        offset_curves.offset_curve_at("sinusoidal", [0], 10, 15, 1e4, layout="split")


def test_xpos_refuses_the_key_far_after_the_query():
    """ζ_i^(−Δ/γ) grows with a key after the query: at Δ = +10⁶ it overflows and is refused; the key before the
    query (Δ < 0) has decayed below 1e−100 at 10⁷."""
    with pytest.raises(ValueError, match="xPos score"):
        offset_curves.offset_curve_at("xpos", [1_000_000], 10_485_760, 128, 1e4)
    far = offset_curves.offset_curve_at("xpos", [-10_485_759], 10_485_760, 128, 1e4)
    assert abs(far[0]) < 1e-100
