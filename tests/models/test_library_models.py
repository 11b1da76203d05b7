"""Property-based tests of posenc.models' public functions and apply_mrope's interleaved layout.

Each gets valid arguments (a preset's name, one of its layer types, short lengths), or one argument replaced
by a hostile value (see library_fuzz.py). It must refuse with a ValueError/TypeError sentence, or return
finite numbers of the documented shape. Then invariants over random presets and positions: the temperature
never falls with the position, sinks only take attention away, a mask row sees itself and no more than its
window, receptive fields never shrink. Budget: tests/conftest.py (POSENC_FUZZ).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc
from library_fuzz import finite_array, fuzz
from posenc import models

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # an overflow warning is a silent inf: fail

NAMES = st.sampled_from(models.names())
NAME_AND_TYPE = NAMES.flatmap(lambda name: st.tuples(st.just(name), st.sampled_from(sorted(set(
    models.get(name).layer_types)))))
ROTARY = [(name, layer_type) for name in models.names() for layer_type in sorted(set(models.get(name).layer_types))
          if models.get(name).positional(layer_type).scheme == "rope"]
POSITIONS = st.one_of(st.integers(0, 10**7), st.lists(st.integers(0, 2**40), min_size=0, max_size=6))


test_get = fuzz(models.get, dict(name=NAMES), lambda r, a: isinstance(r, models.Model), positional=1)
test_softmax_scale = fuzz(models.softmax_scale, dict(name=NAMES), lambda r, a: 0 < r <= 1 and math.isfinite(r),
                          positional=1)
test_receptive_field = fuzz(models.receptive_field, dict(name=NAMES),
                            lambda r, a: finite_array(r, shape=(len(models.get(a["name"]).layer_types),)) is not None
                            and (np.diff(r) >= 0).all(), positional=1)
test_layer_reach = fuzz(models.layer_reach, dict(name=NAMES),
                        lambda r, a: finite_array(r, shape=(len(models.get(a["name"]).layer_types),)) is not None
                        and (r >= 0).all() and (r < models.get(a["name"]).context_length).all(), positional=1)


def rope_inv_freq(case, seq_len):
    return models.rope_inv_freq(*case, seq_len=seq_len)


def check_inv_freq(result, a):
    inv_freq, scaling = result
    name, layer_type = a["case"]
    finite_array(inv_freq, shape=(models.get(name).positional(layer_type).rotary_dims // 2,))
    assert (inv_freq > 0).all() and math.isfinite(scaling) and scaling >= 1


test_rope_inv_freq = fuzz(rope_inv_freq, dict(case=st.sampled_from(ROTARY), seq_len=st.one_of(
    st.none(), st.integers(0, 10**7))), check_inv_freq)
test_query_scale = fuzz(models.query_scale, dict(name=NAMES, positions=POSITIONS),
                        lambda r, a: finite_array(r, shape=np.shape(a["positions"])) is not None and (r >= 1).all(),
                        positional=2)
test_attention_temperature = fuzz(
    models.attention_temperature,
    dict(positions=POSITIONS, floor_scale=st.one_of(st.floats(1e-3, 1e6), st.integers(1, 10**6)),
         attn_scale=st.floats(0.0, 10.0), offset=st.sampled_from([0, 1])),
    lambda r, a: finite_array(r, shape=np.shape(a["positions"])) is not None and (r >= 1).all(), positional=3)


def attention_mask(case, length, queries):
    return models.attention_mask(*case, length, queries)


def check_mask(result, a):
    assert result.dtype == bool
    rows = int(a["length"]) if a["queries"] is None else len(a["queries"])
    assert result.shape == (rows, int(a["length"]))


test_attention_mask = fuzz(
    attention_mask,
    dict(case=NAME_AND_TYPE, length=st.integers(1, 300),
         queries=st.one_of(st.none(), st.lists(st.integers(0, 0), min_size=1, max_size=3))),
    check_mask)


def decoupled_rope(x, positions):
    return models.decoupled_rope(x, positions)


test_decoupled_rope = fuzz(
    decoupled_rope,
    dict(x=st.integers(1, 5).map(lambda n: np.random.default_rng(n).normal(size=(n, 192))),
         positions=st.integers(1, 5).map(lambda n: np.arange(n) * 1000)),
    lambda r, a: finite_array(r, shape=np.shape(a["x"]), dtype=np.float64) is not None,
    refuses=lambda a: len(a["x"]) != len(a["positions"]))


def sinks_case(seed):
    rng = np.random.default_rng(seed)
    heads, lq, lk, d = (int(v) for v in rng.integers(1, 5, size=4))
    return rng.normal(size=(heads, lq, d)), rng.normal(size=(heads, lk, d)), rng.normal(size=(heads, lk, 3)), \
        rng.normal(size=heads) * 4


def attention_with_sinks(case, scale):
    return models.attention_with_sinks(*case, scale)


def check_sinks(result, a):
    output, weights = result
    q, k, v, _ = a["case"]
    finite_array(output, shape=(q.shape[0], q.shape[1], v.shape[2]))
    finite_array(weights, shape=(q.shape[0], q.shape[1], k.shape[1]))
    assert (weights >= 0).all() and (weights.sum(-1) < 1 + 1e-12).all()


test_attention_with_sinks = fuzz(attention_with_sinks, dict(case=st.integers(0, 10**6).map(sinks_case),
                                                            scale=st.floats(0.0, 4.0)), check_sinks)


def apply_mrope(x, positions, base, interleaved):
    return posenc.apply_mrope(x, positions, base, (24, 20, 20), interleaved=interleaved)


test_apply_mrope_interleaved = fuzz(
    apply_mrope,
    dict(x=st.integers(1, 4).map(lambda n: np.random.default_rng(n).normal(size=(n, 128))),
         positions=st.integers(1, 4).map(lambda n: np.arange(3 * n).reshape(3, n) * 7),
         base=st.floats(1.0, 1e7), interleaved=st.booleans()),
    lambda r, a: finite_array(r, shape=np.shape(a["x"])) is not None,
    refuses=lambda a: np.shape(a["x"])[0] != np.shape(a["positions"])[1])


# --- invariants ---------------------------------------------------------------------------------------

@given(st.lists(st.integers(0, 10**8), min_size=2, max_size=20))
def test_the_temperature_never_falls_with_the_position(positions):
    positions = np.sort(positions)
    assert (np.diff(models.query_scale("llama-4-scout", positions)) >= 0).all()


@given(NAME_AND_TYPE, st.integers(1, 200))
def test_a_mask_row_sees_itself_and_no_more_than_its_window(case, length):
    name, layer_type = case
    model, positional = models.get(name), models.get(name).positional(layer_type)
    mask = models.attention_mask(name, layer_type, length)
    assert mask.diagonal().all()
    widest = length if positional.window is None else (positional.window if model.causal else 2 * positional.window + 1)
    assert (mask.sum(axis=1) <= widest).all()
    if model.causal:
        assert not np.triu(mask, 1).any()


@given(st.integers(0, 10**6), st.floats(-30, 30))
def test_a_sink_takes_attention_away(seed, sink):
    q, k, v, sinks = sinks_case(seed)
    _, with_sink = models.attention_with_sinks(q, k, v, np.full(len(sinks), sink), 0.5)
    _, without = models.attention_with_sinks(q, k, v, np.full(len(sinks), -1e300), 0.5)
    np.testing.assert_allclose(with_sink * (1 + np.exp(sink) / np.exp(0.5 * q @ k.transpose(0, 2, 1)).sum(-1,
                               keepdims=True)), without, rtol=1e-9)


@given(st.sampled_from(ROTARY), st.one_of(st.none(), st.integers(0, 10**7)))
def test_rotary_presets_turn_slower_pair_by_pair(case, seq_len):
    inv_freq, _ = models.rope_inv_freq(*case, seq_len=seq_len)
    assert 0 < inv_freq[0] <= 1.0 and (np.diff(inv_freq) < 0).all()  # θ'_0 = 1, 1/8 (Gemma's linear), 1/1.1 (Phi-3)
