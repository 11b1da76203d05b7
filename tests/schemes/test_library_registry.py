"""Property-based tests of the registry callables, RoPE, the RoPE scalings and posenc.analysis/properties.

Each gets valid arguments (the sidebar's ranges, a short length), or one argument replaced by a
hostile value (see library_fuzz.py). It must refuse with a ValueError/TypeError sentence, or
return finite numbers of the documented shape. Budget: tests/conftest.py (POSENC_FUZZ).
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc
from library_fuzz import finite_array, fuzz, hostile, outcome
from posenc.analysis import distances, properties, similarity
from posenc.schemes import offsets
from posenc.schemes.rope import frequencies, scalings
from posenc.settings.constraints import valid_settings

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # an overflow warning is a silent inf: fail

BASES = st.one_of(st.floats(1.0, 1e9), st.sampled_from([1.0, 10000.0, 1e9]))


def option_strategy(option):
    if option.choices:
        return st.sampled_from(option.choices)
    if isinstance(option.default, int):
        return st.integers(int(option.minimum), int(option.maximum))
    return st.one_of(st.floats(float(option.minimum), float(option.maximum)),
                     st.sampled_from([option.minimum, option.maximum]))


def refused_by_constraints(key, length, d_model, base, options):
    """Whether posenc.settings.constraints would correct these in-range settings (the scheme refuses them)."""
    return bool(valid_settings(key, length, d_model, base, options)[1])


# --- registry callables: table, bias, offset_bias, offset_curve, formula ---------------------------

def registry_case(key):
    scheme = posenc.SCHEMES[key]
    names = [o.name for o in scheme.options]
    strategies = {o.name: option_strategy(o) for o in scheme.options}
    return scheme, names, strategies


PARTS = [(key, part) for key, scheme in posenc.SCHEMES.items()
         for part in ("table", "bias", "offset_bias", "offset_curve", "formula") if getattr(scheme, part) is not None]


@pytest.mark.parametrize(("key", "part"), PARTS, ids=[f"{key}.{part}" for key, part in PARTS])
def test_registry_callable(key, part):
    scheme, names, strategies = registry_case(key)
    function = getattr(scheme, part)

    @given(st.integers(1, 12), st.integers(2, 1024), BASES, st.fixed_dictionaries(strategies),
           st.one_of(st.none(), st.sampled_from(["length", "d_model", "base", *names])), hostile())
    def check(length, d_model, base, options, victim, bad):
        shared = {"length": length, "d_model": d_model, "base": base}
        valid = not refused_by_constraints(key, max(length, 2), d_model, base, options)
        if victim in shared:
            shared[victim] = bad
        elif victim is not None:
            options = {**options, victim: bad}
        if part == "formula":
            kind, result = outcome(lambda: function(shared["d_model"], shared["base"], **options))
        else:
            kind, result = outcome(lambda: function(shared["length"], shared["d_model"], shared["base"], **options))
        if kind == "refused":
            assert victim is not None or not valid, f"valid settings refused: {shared} {options}"
            return
        if part == "formula":
            assert isinstance(result, str) and "=" in result
            return
        n = int(shared["length"])
        if part == "table":
            finite_array(result, shape=(n, int(shared["d_model"])), allow_nan=key == "learned")
        elif part == "bias":
            assert result.shape[1:] == (n, n)
            finite_array(result, allow_neginf=True)
        else:
            offsets, values = result
            assert list(offsets) == list(range(1 - n, n)) and values.shape[-1] == max(2 * n - 1, 0)
            finite_array(values, allow_nan=part == "offset_curve" and key in ("learned", "alibi", "kerple", "transformer_xl"),
                         allow_neginf=part == "offset_bias")

    check()


# --- RoPE ---------------------------------------------------------------------------------------

ROPE_TYPES = list(posenc.ROPE_SCALINGS)


def scaling_params(rope_type, factor, original):
    accepted = scalings.rope_scaling_parameters(rope_type)
    lists = (("short_factor", "ones"), ("long_factor", "geometric"))  # longrope: factor lists the width needs
    return {name: value for name, value in (("factor", factor), ("original_max_position_embeddings", original),
                                            *lists) if name in accepted}


def rope_refuses(a):
    d_rot = int(a["d"] * a["rotary_fraction"]) if isinstance(a.get("d"), int) else 2
    return bool(d_rot % 2 or (a["rope_type"] in ("ntk", "dynamic") and d_rot == 2)
                or (a["rope_type"] == "yarn" and a["base"] <= 1))


def rope_inv_freq(d, base, rope_type, factor, original, rotary_fraction):
    return posenc.rope_inv_freq(d, base, rope_type=rope_type, rotary_fraction=rotary_fraction,
                                **scaling_params(rope_type, factor, original))


ROPE = dict(d=st.integers(1, 64), base=BASES, rope_type=st.sampled_from(ROPE_TYPES), factor=st.floats(1.0, 64.0),
            original=st.integers(16, 16384), rotary_fraction=st.sampled_from([1.0, 0.5, 0.25, 0.0, 0.33]))


def check_inv_freq(result, a):
    inv_freq, attention = result
    finite_array(inv_freq)
    if a.get("rope_type") == "proportional":  # p-RoPE: θ = 0 for the pairs it leaves unrotated
        inv_freq = inv_freq[inv_freq != 0]
    assert (inv_freq > 0).all() and np.isfinite(2 * math.pi / inv_freq).all() and math.isfinite(attention)


test_rope_inv_freq = fuzz(rope_inv_freq, ROPE, check_inv_freq, refuses=rope_refuses)


def rope_wavelengths(d, base, rope_type, factor, original, rotary_fraction):
    return posenc.rope_wavelengths(d, base, rope_type, rotary_fraction=rotary_fraction,
                                   **scaling_params(rope_type, factor, original))


test_rope_wavelengths = fuzz(rope_wavelengths, ROPE, lambda r, a: (r > 0).all() and finite_array(
    r[np.isfinite(r)] if a["rope_type"] == "proportional" else r) is not None, refuses=rope_refuses)  # p-RoPE: inf


def apply_rope(x, positions, base, rope_type, factor, original, layout):
    return posenc.apply_rope(x, positions, base, layout=layout, rope_type=rope_type,
                             **scaling_params(rope_type, factor, original))


def check_rotated(result, a):
    x = np.asarray(a["x"])
    finite_array(result, shape=x.shape, dtype=x.dtype if x.dtype.kind == "f" else np.float64)


EVEN = st.integers(2, 16).map(lambda h: 2 * h)
test_apply_rope = fuzz(
    apply_rope,
    dict(x=st.tuples(st.integers(1, 6), EVEN).map(lambda s: np.random.default_rng(s[0]).normal(size=s)),
         positions=st.one_of(st.none(), st.floats(-1e6, 1e6)), base=BASES, rope_type=st.sampled_from(ROPE_TYPES),
         factor=st.floats(1.0, 64.0), original=st.integers(16, 4096), layout=st.sampled_from(["interleaved", "half"])),
    check_rotated, refuses=lambda a: a["rope_type"] == "yarn" and a["base"] <= 1,
)


@given(EVEN, st.floats(-1e4, 1e4), st.floats(-1e4, 1e4), st.floats(-1e4, 1e4), st.floats(2.0, 1e6),
       st.sampled_from(ROPE_TYPES))
def test_rope_scores_depend_on_the_offset_only(d, m, n, shift, base, rope_type):
    rng = np.random.default_rng(d)
    q, k = rng.normal(size=d), rng.normal(size=d)
    params = scaling_params(rope_type, 4.0, 64)
    kind, result = outcome(lambda: posenc.rope_shift_invariance(q, k, m, n, shift, base, rope_type=rope_type, **params))
    assert kind == "ok" or (rope_type in ("ntk", "dynamic") and d == 2)
    if kind == "ok":
        before, after = result
        assert math.isclose(before, after, rel_tol=1e-6, abs_tol=1e-6 * d)


test_rope_scores = fuzz(
    posenc.rope_scores,
    dict(q=st.just(np.ones(8)), k=st.just(np.linspace(-1, 1, 8)), query_positions=st.lists(st.integers(-50, 50),
         min_size=1, max_size=5), key_positions=st.lists(st.floats(-50, 50), min_size=1, max_size=5), base=BASES),
    lambda r, a: finite_array(r, shape=(len(np.atleast_1d(a["query_positions"])),
                                        len(np.atleast_1d(a["key_positions"])))),
    positional=5,
)
test_rope_score_curve = fuzz(
    posenc.rope_score_curve, dict(length=st.integers(0, 16), d=EVEN, base=BASES),
    lambda r, a: finite_array(r[1], shape=(max(2 * int(a["length"]) - 1, 0),)),
)

# --- the scaling functions themselves -------------------------------------------------------------

test_yarn_correction_range = fuzz(
    scalings.yarn_correction_range,
    dict(dim=EVEN, base=st.floats(1.0001, 1e9), original_max_position_embeddings=st.integers(1, 10**6),
         beta_fast=st.floats(1.0, 64.0), beta_slow=st.floats(0.01, 1.0), truncate=st.booleans()),
    lambda r, a: all(math.isfinite(v) for v in r),
)
test_yarn_attention_factor = fuzz(
    scalings.yarn_attention_factor,
    dict(factor=st.floats(0.01, 1e6), mscale=st.one_of(st.none(), st.floats(0.0, 10.0)),
         mscale_all_dim=st.one_of(st.none(), st.floats(0.0, 10.0))),
    lambda r, a: math.isfinite(r) and r > 0,
)
test_rotary_dims = fuzz(frequencies.rotary_dims, dict(d=st.integers(1, 1024), rotary_fraction=st.floats(0.0, 1.0)),
                        lambda r, a: isinstance(r, int) and r % 2 == 0,
                        refuses=lambda a: int(a["d"] * a["rotary_fraction"]) % 2)
test_rope_scaling_parameters = fuzz(scalings.rope_scaling_parameters, dict(rope_type=st.sampled_from(ROPE_TYPES)),
                                    lambda r, a: isinstance(r, dict))


@pytest.mark.parametrize("rope_type", ROPE_TYPES)
def test_scaling_function(rope_type):
    function = posenc.ROPE_SCALINGS[rope_type]
    accepted = scalings.rope_scaling_parameters(rope_type)
    valid = dict(dim=EVEN, base=st.floats(1.5, 1e9), seq_len=st.one_of(st.none(), st.integers(0, 10**6)))
    valid.update({name: st.floats(1.0, 64.0) for name in ("factor",) if name in accepted})
    valid.update({name: st.integers(16, 10**5) for name in ("original_max_position_embeddings",) if name in accepted})
    valid.update({name: st.sampled_from(scalings.LONGROPE_RULES) for name in ("short_factor", "long_factor")
                  if name in accepted})
    fuzz(function, valid, check_inv_freq, positional=2)()


# --- analysis and properties ---------------------------------------------------------------------

MATRICES = st.tuples(st.integers(1, 12), st.integers(1, 6)).map(lambda s: np.random.default_rng(s[0]).normal(size=s))
test_self_attention = fuzz(similarity.self_attention, dict(x=MATRICES),
                           lambda r, a: finite_array(r, shape=np.shape(a["x"])))
test_min_distance = fuzz(distances.min_distance, dict(vectors=MATRICES),
                         lambda r, a: isinstance(r[0], float) and r[0] >= 0 or math.isnan(r[0]))
test_pair_distances = fuzz(distances.pair_distances, dict(vectors=MATRICES),
                           lambda r, a: finite_array(r, shape=(len(a["vectors"]),) * 2, allow_nan=True))
test_offset_spread = fuzz(distances.offset_spread, dict(matrix=st.integers(1, 8).map(lambda n: np.ones((2, n, n)))),
                          lambda r, a: math.isfinite(r) and r >= 0)
test_largest_change = fuzz(distances.largest_change, dict(first=MATRICES, second=MATRICES),
                           lambda r, a: isinstance(r, float) and not math.isnan(r),
                           refuses=lambda a: np.shape(a["first"]) != np.shape(a["second"]))
test_same_bits = fuzz(distances.same_bits, dict(first=MATRICES, second=MATRICES), lambda r, a: isinstance(r, bool))
test_max_abs = fuzz(distances.max_abs, dict(values=MATRICES), lambda r, a: math.isfinite(r) and r >= 0)
test_toeplitz_view = fuzz(
    offsets.toeplitz_view,
    dict(values=st.integers(1, 8).map(lambda n: np.arange(2 * n - 1, dtype=float)[None]),
         rows=st.just(np.array([0])), cols=st.just(np.array([0]))),
    lambda r, a: finite_array(r, shape=(*np.shape(a["values"])[:-1], 1, 1)),
)
test_permutation_gap = fuzz(similarity.permutation_gap,
                            dict(length=st.integers(1, 16), d_model=st.integers(1, 16), table=st.none()),
                            lambda r, a: math.isfinite(r) and r < 1e-9)


@pytest.mark.parametrize("key", list(posenc.SCHEMES))
def test_measure_properties(key):
    scheme, _, strategies = registry_case(key)
    fuzz(properties.measure_properties,
         dict(scheme_key=st.just(key), length=st.integers(2, 8), d_model=st.integers(2, 16).map(lambda h: 2 * h),
              base=BASES, options=st.fixed_dictionaries(strategies)),
         lambda r, a: isinstance(r, properties.SchemeProperties) and math.isfinite(r.max_at_length),
         positional=5,
         refuses=lambda a: refused_by_constraints(key, a["length"], a["d_model"], a["base"], a["options"]))()


@pytest.mark.parametrize("rope_type", ["dynamic", "ntk"])
def test_a_float16_dim_is_refused_before_the_ntk_base_is_computed(rope_type):
    """The long run (POSENC_FUZZ=long): dim = np.float16(65504) reached NTK's exponent unchecked (the check sat in
    the step after), and base · ratio ** exponent was cast to float16 and overflowed. It is refused with a sentence."""
    params = {"factor": 1.0, "original_max_position_embeddings": 16}
    params = {k: v for k, v in params.items() if k in scalings.rope_scaling_parameters(rope_type)}
    with pytest.raises(ValueError, match="even whole number"):
        posenc.ROPE_SCALINGS[rope_type](np.float16(65504), 65520.0, **params)
