"""posenc.settings.constraints.valid_settings: after it, every callable of the scheme runs.

Settings are drawn over the sidebar's ranges (and beyond, and not numbers at all); the
corrected settings must be accepted by table / bias / offset_bias / offset_curve / formula,
be a fixed point (correcting them again changes nothing) and every message must show
numbers and fixed names only, never the text it was given.
"""

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import posenc
from posenc.settings.constraints import valid_for_all, valid_settings
from posenc.settings.parsing import SHARED_CONTROLS

SHARED = {o.name: o for o in SHARED_CONTROLS}
HOSTILE = ["[Log in again](https://evil.example)", "**bold**", "<b>x</b>", "", "nan", "inf", "-inf",
           "1e999", "٣", "x" * 200, ":red[x]"]


def option_value(option):
    """A value for one option: inside its range, at its ends, just outside, or not a number at all."""
    if option.choices:
        return st.one_of(st.sampled_from(option.choices), st.sampled_from(HOSTILE))
    if isinstance(option.default, int):
        inside = st.integers(int(option.minimum), int(option.maximum))
    else:
        inside = st.floats(float(option.minimum), float(option.maximum))
    ends = st.sampled_from([option.minimum, option.maximum, option.default])
    return st.one_of(inside, inside, ends, st.floats(allow_nan=True), st.sampled_from(HOSTILE),
                     st.sampled_from([option.minimum - 1, option.maximum + 1, 0.5, -1, True]))


@st.composite
def settings_of(draw, scheme_key, *, inside_only=False):
    scheme = posenc.SCHEMES[scheme_key]
    if inside_only:
        d_model = draw(st.integers(2, 1024))
        base = draw(st.one_of(st.just(1.0), st.floats(1.0, 1e9)))
        options = {o.name: draw(st.sampled_from(o.choices) if o.choices else
                                st.integers(int(o.minimum), int(o.maximum)) if isinstance(o.default, int)
                                else st.floats(float(o.minimum), float(o.maximum)))
                   for o in scheme.options}
    else:
        d_model = draw(option_value(SHARED["d_model"]))
        base = draw(option_value(SHARED["n"]))
        options = {o.name: draw(option_value(o)) for o in scheme.options if draw(st.integers(0, 4))}
    length = draw(st.integers(2, 9))  # small: the property is about d_model, n and options
    return length, d_model, base, options


def run_every_callable(scheme_key, settings):
    scheme = posenc.SCHEMES[scheme_key]
    length, d_model, base, options = (settings[k] for k in ("length", "d_model", "base", "options"))
    assert isinstance(scheme.formula(d_model, base, **options), str)
    offsets, curve = scheme.offset_curve(length, d_model, base, **options)
    assert curve.shape == (2 * length - 1,) and list(offsets) == list(range(1 - length, length))
    if scheme.table is not None:
        assert scheme.table(length, d_model, base, **options).shape == (length, d_model)
    if scheme.bias is not None:
        assert scheme.bias(length, d_model, base, **options).shape[1:] == (length, length)
        assert scheme.offset_bias(length, d_model, base, **options)[1].shape[1] == 2 * length - 1


def check_messages(messages, raw_values):
    for message in messages:
        for raw in raw_values:
            if raw in HOSTILE and raw and _number_or_none(raw) is None:
                assert raw not in message, "a message echoes text from the request"
        assert "[" not in message and "<" not in message and "*" not in message


def _number_or_none(text):
    try:
        return float(text)
    except ValueError:
        return None


@pytest.mark.parametrize("scheme_key", list(posenc.SCHEMES))
def test_after_valid_settings_every_callable_runs(scheme_key):
    @given(settings_of(scheme_key))
    def check(drawn):
        length, d_model, base, options = drawn
        settings, messages = valid_settings(scheme_key, length, d_model, base, options)
        run_every_callable(scheme_key, settings)
        check_messages(messages, [d_model, base, *options.values()])
        again, more = valid_settings(scheme_key, settings["length"], settings["d_model"], settings["base"],
                                     settings["options"])
        assert again == settings and more == []

    check()


@pytest.mark.parametrize("scheme_key", list(posenc.SCHEMES))
def test_settings_inside_the_sidebar_ranges_are_corrected_only_when_a_scheme_refuses_them(scheme_key):
    @given(settings_of(scheme_key, inside_only=True))
    def check(drawn):
        length, d_model, base, options = drawn
        settings, messages = valid_settings(scheme_key, length, d_model, base, options)
        run_every_callable(scheme_key, settings)
        if not messages:
            assert (settings["d_model"], settings["base"], settings["options"]) == (d_model, base, options)

    check()


@pytest.mark.parametrize("d_model", [2, 3, 4, 5, 7, 63, 1023, 1024])
@pytest.mark.parametrize("rope_type", list(posenc.ROPE_SCALINGS))
@pytest.mark.parametrize("fraction", [0.0, 0.01, 0.29, 0.33, 0.5, 0.57, 0.99, 1.0])
def test_rope_edges_of_width_and_fraction(d_model, rope_type, fraction):
    settings, _ = valid_settings("rope", 5, d_model, 1.0, {"rope_type": rope_type, "rotary_fraction": fraction})
    run_every_callable("rope", settings)
    if rope_type == "proportional":  # p-RoPE rotates ⌊fraction·d/2⌋ pairs of any width: nothing to correct
        assert (settings["d_model"], settings["options"]["rotary_fraction"]) == (d_model, fraction)
        return
    d_rot = posenc.schemes.rope.frequencies.rotary_dims(settings["d_model"], settings["options"]["rotary_fraction"])
    assert d_rot % 2 == 0 and abs(settings["d_model"] - d_model) <= 2


@given(st.integers(4, 128), st.integers(2, 4096), st.sampled_from(["bidirectional", "causal"]))
def test_t5_max_distance_is_raised_past_the_exact_buckets(num_buckets, max_distance, direction):
    options = {"num_buckets": num_buckets, "max_distance": max_distance, "direction": direction}
    settings, messages = valid_settings("t5", 5, 8, 1e4, options)
    exact = (num_buckets if direction == "causal" else num_buckets // 2) // 2
    assert settings["options"]["max_distance"] == max(max_distance, exact + 1)
    assert bool(messages) == (max_distance <= exact)
    run_every_callable("t5", settings)


def test_the_issue_links_are_corrected_with_the_url_keys():
    cases = [
        ("rope", {"rope_type": "yarn"}, 8, 1.0, "n=1: YaRN divides by ln n"),
        ("rope", {"rotary_fraction": 0.33}, 100, 1e4, "rope.rotary_fraction=0.33"),
        ("rope", {"rope_type": "ntk"}, 2, 1e4, "using d_model=4"),
        ("t5", {"max_distance": 8}, 64, 1e4, "t5.max_distance=8 must be larger than the 8 exact buckets"),
        ("sinusoidal", {"layout": "split"}, 7, 1e4, "using d_model=6"),
    ]
    for key, options, d_model, base, expected in cases:
        settings, messages = valid_settings(key, 100, d_model, base, options)
        assert any(expected in m for m in messages), messages
        run_every_callable(key, settings)


def test_a_fraction_is_the_value_used():
    settings, messages = valid_settings("sinusoidal", "64.6", 64.6, 1e4, {})
    assert settings["d_model"] == 65 and settings["length"] == 65
    assert messages == ["length=64.6 must be a whole number; using 65.", "d_model=64.6 must be a whole number; using 65."]


@given(st.one_of(st.integers(-5, 2000), st.floats(allow_nan=True), st.sampled_from(HOSTILE)),
       st.one_of(st.floats(allow_nan=True), st.sampled_from(HOSTILE)))
@example(7, 1.0)
def test_valid_for_all_lets_every_scheme_run_with_its_defaults(d_model, base):
    shared, messages = valid_for_all(6, d_model, base)
    check_messages(messages, [d_model, base])
    for key, scheme in posenc.SCHEMES.items():
        run_every_callable(key, {**shared, "options": scheme.defaults()})
    assert shared["d_model"] % 2 == 0 and math.isfinite(shared["base"]) and 2 <= shared["d_model"] <= 1024
    assert np.isfinite(posenc.rope_inv_freq(shared["d_model"], shared["base"])[0]).all()


def test_an_unknown_scheme_is_refused():
    with pytest.raises(ValueError, match="Unknown scheme"):
        valid_settings("nonsense", 5, 8, 1e4, {})
