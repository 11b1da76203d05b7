"""Llama 4's query temperature, gpt-oss's sinks and the presets' masks against transformers 5.23's code.

- query_scale: a small Llama4TextAttention (a NoPE layer, floor_scale 4 so that steps happen within 40
  tokens) runs forward; the queries its attention function receives must equal q_proj(x) times
  attention_temperature(positions, 4, 0.1); Scout's own numbers are pinned.
- attention_with_sinks: transformers' gpt_oss ``eager_attention_forward`` on tiny random tensors, with and
  without gpt-oss's 128-token window.
- attention_mask: transformers' mask functions (causal, sliding causal, sliding bidirectional, chunked) on
  every index pair; receptive_field: known values.
"""

from __future__ import annotations

import importlib
import math
from types import SimpleNamespace

import numpy as np
import pytest

from posenc.models import (
    MODELS,
    attention_mask,
    attention_temperature,
    attention_with_sinks,
    query_scale,
    receptive_field,
)
from posenc.models.families import FAMILIES

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from transformers import Llama4TextConfig, masking_utils  # noqa: E402  (transformers is for the tests only)
from transformers.models.gpt_oss import modeling_gpt_oss as hf_gpt_oss  # noqa: E402
from transformers.models.llama4 import modeling_llama4 as hf_llama4  # noqa: E402

from transformers_rotary import TEXT_MODELS  # noqa: E402

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


# --- Llama 4: the temperature of its NoPE layers' queries -------------------------------------------

def test_query_scale_equals_llama4_attention(monkeypatch):
    config = Llama4TextConfig(hidden_size=16, num_attention_heads=2, num_key_value_heads=2, head_dim=8,
                              num_hidden_layers=4, no_rope_layers=[1, 1, 1, 0], floor_scale=4, attn_scale=0.1,
                              attn_temperature_tuning=True, use_qk_norm=False, attention_chunk_size=8)
    config._attn_implementation = "eager"
    torch.manual_seed(0)
    attention = hf_llama4.Llama4TextAttention(config, layer_idx=3).double().eval()
    assert not attention.use_rope  # layer 3 is a NoPE layer
    seen = {}
    original = hf_llama4.eager_attention_forward

    def capture(module, query, key, value, attention_mask, **kwargs):
        seen["query"] = query.detach()
        return original(module, query, key, value, attention_mask, **kwargs)

    monkeypatch.setattr(hf_llama4, "eager_attention_forward", capture)
    length = 40
    x = torch.randn(1, length, 16, dtype=torch.float64)
    with torch.no_grad():
        attention(x, position_embeddings=None, attention_mask=None)
        plain = attention.q_proj(x).view(1, length, 2, 8).transpose(1, 2)  # (1, heads, L, d)
    ratio = seen["query"] / plain
    expected = attention_temperature(np.arange(length), 4, 0.1)
    # transformers computes the temperature in float32 (positions.float()), then scales the float64 queries
    np.testing.assert_allclose(ratio[0, 0, :, 0].numpy(), expected, rtol=2e-7)
    np.testing.assert_allclose(ratio.numpy(), np.broadcast_to(expected[:, None], (1, 2, length, 8)), rtol=2e-7)
    assert len(np.unique(expected)) == 11  # 1, then a step at p = 3, 7, …, 39, where (p + 1) / 4 is whole


def test_scout_query_scale_known_values():
    positions = np.array([0, 8190, 8191, 16383, 10_485_759])
    expected = [1.0, 1.0, 1 + 0.1 * math.log(2), 1 + 0.1 * math.log(3), 1 + 0.1 * math.log(1 + 1280)]
    np.testing.assert_allclose(query_scale("llama-4-scout", positions), expected, rtol=1e-15)
    # the same expression transformers evaluates, in float32 as it does, at Scout's longest positions
    p = torch.tensor(positions)
    hf = torch.log1p(torch.floor((p.float() + 1.0) / 8192)) * 0.1 + 1.0
    np.testing.assert_allclose(query_scale("llama-4-scout", positions), hf.double().numpy(), rtol=1e-7)
    np.testing.assert_array_equal(query_scale("llama-3.1-8b", positions), np.ones(5))
    assert query_scale("gpt2", np.zeros((2, 3))).shape == (2, 3)


def test_query_scale_refuses_what_is_not_a_position():
    with pytest.raises(ValueError, match=r"positions must be whole numbers from 0"):
        query_scale("llama-4-scout", [0.5])
    with pytest.raises(ValueError, match=r"Unknown model 'llama4'"):
        query_scale("llama4", [0])


# --- gpt-oss: attention sinks -------------------------------------------------------------------------

def hf_sink_attention(q, k, v, sinks, scale, visible=None):
    module = SimpleNamespace(num_key_value_groups=1, sinks=torch.from_numpy(sinks), training=False)
    mask = None if visible is None else torch.from_numpy(np.where(visible, 0.0, -np.inf))[None, None]
    output, weights = hf_gpt_oss.eager_attention_forward(
        module, torch.from_numpy(q)[None], torch.from_numpy(k)[None], torch.from_numpy(v)[None], mask, scale)
    return output[0].transpose(0, 1).numpy(), weights[0].numpy()  # (heads, Lq, dv), (heads, Lq, Lk)


@pytest.mark.parametrize(("length", "windowed"), [(7, False), (150, True)])
def test_attention_with_sinks_equals_gpt_oss(length, windowed):
    rng = np.random.default_rng(length)
    heads, d = 3, 8
    q, k, v = rng.normal(size=(heads, length, d)), rng.normal(size=(heads, length, d)), rng.normal(size=(heads, length, 5))
    sinks = rng.normal(size=heads) * 3
    visible = attention_mask("gpt-oss-20b", "sliding_attention" if windowed else "full_attention", length)
    expected_output, expected_weights = hf_sink_attention(q, k, v, sinks, d ** -0.5, visible)
    output, weights = attention_with_sinks(q, k, v, sinks, d ** -0.5, visible)
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(output, expected_output, rtol=1e-12, atol=1e-14)
    assert (weights.sum(-1) < 1).all()  # the sink keeps a share of every row


def test_a_sink_at_minus_infinity_is_plain_softmax():
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(2, 4, 6)), rng.normal(size=(2, 4, 6)), rng.normal(size=(2, 4, 6))
    _, weights = attention_with_sinks(q, k, v, np.full(2, -1e300), 0.5)
    logits = 0.5 * q @ k.transpose(0, 2, 1)
    np.testing.assert_allclose(weights, np.exp(logits) / np.exp(logits).sum(-1, keepdims=True), rtol=1e-12)


def test_attention_with_sinks_refuses_shapes_that_disagree():
    with pytest.raises(ValueError, match=r"must agree"):
        attention_with_sinks(np.ones((2, 3, 4)), np.ones((2, 3, 4)), np.ones((2, 3, 4)), np.ones(3), 1.0)
    with pytest.raises(ValueError, match=r"visible must be booleans of shape \(Lq, Lk\) = \(3, 3\)"):
        attention_with_sinks(np.ones((2, 3, 4)), np.ones((2, 3, 4)), np.ones((2, 3, 4)), np.ones(2), 1.0,
                             np.ones((3, 3)))


# --- windows: the masks of transformers' masking_utils ------------------------------------------------

def hf_mask(function, length: int, queries=None) -> np.ndarray:
    rows = torch.arange(length) if queries is None else torch.as_tensor(queries)
    i, j = rows[:, None], torch.arange(length)[None, :]
    return function(0, 0, i, j).expand(len(rows), length).numpy()


def reference_mask(name: str, layer_type: str, length: int, queries=None) -> np.ndarray:
    """The mask function transformers 5.23 builds for this model's layer type."""
    model, positional = MODELS[name], MODELS[name].positional(layer_type)
    if positional.chunk is not None:
        return hf_mask(masking_utils.chunked_causal_mask_function(positional.chunk, torch.zeros(1, dtype=torch.long)),
                       length, queries)
    if positional.window is not None:
        make = (masking_utils.sliding_window_causal_mask_function if model.causal
                else masking_utils.sliding_window_bidirectional_mask_function)
        return hf_mask(make(positional.window), length, queries)
    return hf_mask(masking_utils.causal_mask_function if model.causal else masking_utils.bidirectional_mask_function,
                   length, queries)


MASK_CASES = [(name, layer_type) for name, model in MODELS.items() for layer_type in dict.fromkeys(model.layer_types)]


@pytest.mark.parametrize(("name", "layer_type"), MASK_CASES, ids=[f"{n}.{t}" for n, t in MASK_CASES])
def test_attention_mask_equals_transformers_mask_functions(name, layer_type):
    length = 1100  # every query, past gpt-oss's 128, ModernBERT's 64 and Gemma 3's 1024
    np.testing.assert_array_equal(attention_mask(name, layer_type, length), reference_mask(name, layer_type, length))
    # a few queries of a long sequence: past Mistral's 4096 and across Llama 4's chunks of 8192
    length, queries = 20_000, [0, 4095, 4096, 8191, 8192, 12_000, 19_999]
    np.testing.assert_array_equal(attention_mask(name, layer_type, length, queries),
                                  reference_mask(name, layer_type, length, queries))


def test_windows_known_values():
    gpt_oss = attention_mask("gpt-oss-20b", "sliding_attention", 300)
    assert gpt_oss[200].sum() == 128 and gpt_oss[200, 73] and not gpt_oss[200, 72]  # i − w < j ≤ i
    modernbert = attention_mask("modernbert-base", "sliding_attention", 300)
    assert modernbert[150].sum() == 129 and modernbert[150, 214] and not modernbert[150, 215]  # |i − j| ≤ 64
    gemma = attention_mask("gemma-3-4b", "sliding_attention", 1100)
    assert gemma[1099].sum() == 1024 and not gemma[1099, 75]
    assert attention_mask("bert-base", "full_attention", 5).all()
    mistral = attention_mask("mistral-7b-v0.1", "sliding_attention", 10_000, [5000])[0]
    assert mistral.sum() == 4096 and mistral[905] and not mistral[904]
    scout = attention_mask("llama-4-scout", "chunked_attention", 10_000, [8191, 8192, 9000])
    assert scout.sum(axis=1).tolist() == [8192, 1, 809]  # a new chunk starts at 8192
    np.testing.assert_array_equal(attention_mask("llama-4-scout", "nope", 6), np.tri(6, dtype=bool))


def test_receptive_field_known_values():
    mistral = receptive_field("mistral-7b-v0.1")
    np.testing.assert_array_equal(mistral[:9], [4095 * k for k in range(1, 9)] + [32_767])  # arXiv:2310.06825, Fig. 1
    assert (mistral[8:] == 32_767).all() and mistral.shape == (32,)
    np.testing.assert_array_equal(receptive_field("gemma-3-4b")[:7], [1023, 2046, 3069, 4092, 5115, 131_071, 131_071])
    np.testing.assert_array_equal(receptive_field("gpt-oss-20b")[:3], [127, 131_071, 131_071])
    np.testing.assert_array_equal(receptive_field("llama-4-scout")[:5], [8191, 8191, 8191, 10_485_759, 10_485_759])
    assert (receptive_field("modernbert-base") == 8191).all()  # layer 0 is global
    assert (receptive_field("llama-2-7b") == 4095).all()


def test_attention_mask_refusals():
    with pytest.raises(ValueError, match=r"has no layer type 'sliding_attention'; its layer types are 'full_attention'"):
        attention_mask("llama-2-7b", "sliding_attention", 4)
    with pytest.raises(ValueError, match=r"the mask of shape \(8192, 8192\) would hold"):
        attention_mask("llama-2-7b", "full_attention", 8192)
    with pytest.raises(ValueError, match=r"queries must be whole numbers from 0 to length − 1 = 9"):
        attention_mask("llama-2-7b", "full_attention", 10, [10])


_MODEL_CLASSES = {"pop2piano": "Pop2PianoForConditionalGeneration", "pix2struct_text_model": "Pix2StructTextModel"}
"""The model classes of the types AutoModel maps to none."""


@pytest.mark.parametrize("model_type", sorted(FAMILIES))
def test_eager_only_is_each_class_s_own(model_type):
    """The oracle is transformers 5.23's model class of the type (AutoModel's, a text model's, or
    :data:`_MODEL_CLASSES`'): ``Family.eager_only`` is true exactly where the class has no sdpa attention, eager
    being its default. The check says from it whether generation through a cache of a listed layer_types fails
    everywhere or under eager attention only (test_each_family_masks_its_layers_as_its_model_does's cached step)."""
    if model_type in TEXT_MODELS:
        module, name = TEXT_MODELS[model_type]
        model_class = getattr(importlib.import_module(f"transformers.models.{module}"), name)
    elif model_type in _MODEL_CLASSES:
        model_class = getattr(transformers, _MODEL_CLASSES[model_type])
    else:
        model_class = transformers.AutoModel._model_mapping[type(transformers.AutoConfig.for_model(model_type))]
    assert FAMILIES[model_type].eager_only == (not model_class._supports_sdpa), model_class.__name__
