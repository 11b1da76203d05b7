"""posenc.models.from_config against the presets and against transformers 5.23's own rotary embeddings.

tests/models/configs/ holds config.json files, each citing in "_source" where it comes from (a copy read from a
public repository, or the preset's cited fields where no copy could be read: see configs/README.md). For each:

- a preset's config gives exactly the preset (layers, every layer type's Positional, context, causality, the
  softmax's d);
- transformers builds its configuration class from the same file (AutoConfig, no download), then the family's
  RotaryEmbedding; its ``inv_freq`` (``<layer_type>_inv_freq`` for per-layer-type classes) and
  ``attention_scaling`` equal posenc.models.rope_inv_freq(from_config(file), layer_type) for every rotary layer
  type, to float32 rounding;
- the same configuration written back by transformers (v5's layout: ``rope_parameters``, nested per layer type
  for Gemma 3 and ModernBERT) reads to the same model.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import itertools
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

import posenc
from posenc import models
from posenc.models import MODELS, check, from_config, rope_inv_freq
from posenc.models.config_file import FOLDED_TEXT_FIELDS
from posenc.models.families import FAMILIES
from reference_precision import float32_rtol

CONFIGS = Path(__file__).parent / "configs"
FILES = sorted(CONFIGS.glob("*.json"))


def test_every_preset_has_a_config_file():
    assert set(MODELS) <= {path.stem for path in FILES}


def equal_models(got: models.Model, expected: models.Model) -> None:
    assert got.layer_types == expected.layer_types
    assert (got.context_length, got.causal, got.softmax_dim) == (expected.context_length, expected.causal,
                                                                 expected.softmax_dim)
    assert set(got.positionals) == set(expected.positionals)
    for layer_type, positional in expected.positionals.items():
        mine = got.positionals[layer_type]
        assert mine._replace(options={}, extra={}) == positional._replace(options={}, extra={}), layer_type
        assert dict(mine.options) == dict(positional.options), layer_type
        assert dict(mine.extra) == dict(positional.extra), layer_type


@pytest.mark.parametrize("name", list(MODELS))
def test_a_presets_config_reads_as_the_preset(name):
    equal_models(from_config(CONFIGS / f"{name}.json"), MODELS[name])


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_config_cites_its_source_and_reads_from_a_dict_a_text_and_a_path(path):
    text = path.read_text()
    config = json.loads(text)
    assert len(config["_source"]) > 60
    by_path = from_config(path)
    equal_models(from_config(config), by_path)
    equal_models(from_config(text), by_path)
    equal_models(from_config(str(path)), by_path)


# --- transformers 5.23 ------------------------------------------------------------------------------------

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
transformers.logging.set_verbosity_error()  # Llama 4 Scout's high = low frequency factor is only warned about

from transformers_attention import SCALED_IN_CODE, fitted_scale, softmax_scale_of  # noqa: E402
from transformers_rotary import hf_frequencies, hf_rotary, hf_rotated_queries, hf_text_config  # noqa: E402


def test_transformers_refuses_phi3_su(tmp_path):
    """What posenc.models.check reports as an error: Phi-3's "su" lists, read by transformers 5.23, raise."""
    (tmp_path / "config.json").write_text((CONFIGS / "phi-3-vision-128k-instruct.json").read_text())
    with pytest.raises(KeyError, match="original_max_position_embeddings"):
        transformers.AutoConfig.from_pretrained(tmp_path)


ROTARY_CASES = [(path, layer_type) for path in FILES for layer_type, positional in from_config(path).positionals.items()
                if positional.scheme == "rope"]


@pytest.mark.parametrize(("path", "layer_type"), ROTARY_CASES, ids=[f"{p.stem}.{t}" for p, t in ROTARY_CASES])
def test_frequencies_equal_the_family_rotary_embedding(path, layer_type, tmp_path):
    model = from_config(path)
    config = hf_text_config(path, tmp_path)
    positional = model.positional(layer_type)
    got, scaling = rope_inv_freq(model, layer_type)
    assert got.shape == (positional.rotary_dims // 2,)
    if config.model_type == "gptj":  # no rotary class: create_sinusoidal_positions' θ_i = 10000^(−2i/rotary_dim)
        from transformers.models.gptj.modeling_gptj import create_sinusoidal_positions
        table = create_sinusoidal_positions(2, config.rotary_dim).double().numpy()  # (2, rotary_dim): sin, cos
        np.testing.assert_allclose(np.sin(got), table[1, : config.rotary_dim // 2], rtol=1e-6)
        assert scaling == 1.0
        return
    expected, expected_scaling = hf_frequencies(hf_rotary(config), layer_type)
    np.testing.assert_allclose(got, expected, rtol=float32_rtol(positional.base), atol=0)
    assert scaling == pytest.approx(expected_scaling, rel=1e-12)


@pytest.mark.parametrize("path", [p for p in FILES if from_config(p).positionals.keys() - {"nope"}
                                  and any(q.scheme == "rope" for q in from_config(p).positionals.values())],
                         ids=lambda p: p.stem)
def test_transformers_v5_layout_reads_to_the_same_model(path, tmp_path):
    """The config as transformers 5.23 writes it (rope_parameters, nested per layer type) reads the same."""
    config = hf_text_config(path, tmp_path)
    written = json.loads(config.to_json_string(use_diff=False))
    assert "rope_scaling" not in written
    got, expected = from_config(written), from_config(path)
    equal_models(got, expected)


def test_phi3_vision_su_lists_switch_past_4096_as_transformers(tmp_path):
    path = CONFIGS / "phi-3-vision-128k-instruct.json"
    rotary = hf_rotary(hf_text_config(path, tmp_path))
    rotary(torch.zeros(1, dtype=torch.float32), torch.tensor([[4096]]))  # forward at 4097 tokens: long factors
    got, scaling = rope_inv_freq(from_config(path), seq_len=4097)
    np.testing.assert_allclose(got, rotary.inv_freq.double().numpy(), rtol=float32_rtol(10_000.0), atol=0)
    assert scaling == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-15)


# The sizes of a small config of any rotary family (6 layers: Gemma 3's pattern has a global one). No head_dim: a class
# with a default of its own (Gemma's 256) takes it, FalconConfig's is a property of these two.
SIZES = {"hidden_size": 256, "num_attention_heads": 4, "num_key_value_heads": 4, "num_hidden_layers": 6}


def _sizes(model_type: str) -> dict:
    """:data:`SIZES`, and head_dim where the class needs it given (HunYuan's: its model fails without); heads of
    128 for ERNIE 4.5 VL, whose default mrope_section ([22, 22, 20] pairs) fits no other; Cohere Compass's RoPE
    parameters, nested by layer type, without which its model fails (KeyError 'full_attention')."""
    return SIZES | ({"head_dim": 64} if FAMILIES[model_type].head_dim_unset == "model" else {}) | (
        {"hidden_size": 512} if model_type == "ernie4_5_vl_moe_text" else {}) | (
        {"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 10_000.0}}}
        if model_type == "cohere_compass_text" else {})


def _refused_type(model_type: str, config: dict, rope_type: str) -> bool:
    """Whether the class refuses RoPE scalings of ``rope_type`` (Phi-3's validate_rope, ERNIE 4.5 VL's rotary
    embedding: its ``rope_types``): then the check gives an error on the scaling (posenc draws it as written)."""
    accepted = FAMILIES[model_type].rope_types
    if not accepted or FAMILIES[model_type].rope_type(rope_type) in accepted:
        return False
    assert any(f.severity == "error" and f"accepts only {' and '.join(map(repr, accepted))}" in f.message
               for f in check(config))
    return True


def _fails_at_first_forward(model_type: str, config: dict, rotary) -> bool:
    """Whether the rotary embedding ``rotary`` of a class that computes its frequencies for head_dim × its share
    (Mistral 4) covers another width than its attention rotates (qk_rope_head_dim): then its model fails at the
    first forward pass (test_mistral_4_refuses_what_its_model_cannot_run), and posenc refuses the config, naming
    the two widths."""
    if not FAMILIES[model_type].head_share:
        return False
    width = 2 * len(hf_frequencies(rotary, "full_attention")[0])
    if width == FAMILIES[model_type].defaults["qk_rope_head_dim"]:
        return False
    with pytest.raises(ValueError, match=f"frequencies for {width} dimensions.*fails at the model's first forward"):
        from_config(config)
    return True


# Every rotary family's class (tests/models/configs has a file for most): which original context a llama3, YaRN
# or LongRoPE scaling is computed with when the top level and the scaling state different ones, or one of them alone.
_TRAINED = {"both": ({"original_max_position_embeddings": 4096}, {"original_max_position_embeddings": 8192}),
            "top only": ({"original_max_position_embeddings": 4096}, {}),
            "scaling only": ({}, {"original_max_position_embeddings": 8192}),
            "neither": ({}, {})}


@pytest.mark.parametrize("case", list(_TRAINED))
@pytest.mark.parametrize("model_type", [key for key, family in FAMILIES.items()
                                        if family.scheme == "rope" and not family.rotary_dim])
def test_the_trained_context_is_the_one_transformers_computes_with(model_type, case):
    """transformers 5.23 (the oracle: its rope function, which standardizes the parameters again once the config
    holds every field of the file) computes with the config's own original_max_position_embeddings over the
    scaling's (the top level's, or Phi-3's class default 4,096), except where it keeps the parameters per layer
    type (Gemma 3, ModernBERT): there the scaling's. config.rope_parameters, read before the model is built, shows
    the scaling's; an oracle reading it passed a posenc that computed a Llama with 4096 at the top and 8192 in
    rope_scaling at 8192. posenc read a Phi-3 scaling's own 8192 over the class's 4096, and the top level's in
    Gemma 3 and ModernBERT and in a flat Qwen2-VL config, whose text config takes only its class's fields (the
    oracle builds the config as from_pretrained does, by model_type)."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    top, own = _TRAINED[case]
    scaling = ({"rope_type": "longrope", "short_factor": [1.0] * 32, "long_factor": [2.0] * 32}
               if model_type in ("phi3", "phi4_multimodal") else {"rope_type": "yarn", "factor": 4.0})
    names = FAMILIES[model_type].attribute_map  # DBRX's max_seq_len: the class's own names, as its files write them
    config = {"model_type": model_type, **{names.get(key, key): value for key, value in _sizes(model_type).items()},
              names.get("max_position_embeddings", "max_position_embeddings"): 32768, **top,
              "rope_scaling": scaling | own}
    if _refused_type(model_type, config, scaling["rope_type"]):
        return
    try:
        oracle = transformers.AutoConfig.for_model(**json.loads(json.dumps(config))).get_text_config()  # edits dicts
        rotary = hf_rotary(oracle)
    except Exception:  # noqa: BLE001 - Gemma 4 reads a flat scaling as its nested parameters, and fails
        if FAMILIES[model_type].head_dim_unset:  # Mixtral's: YaRN reads a head_dim the class keeps None
            with pytest.raises(ValueError, match="reads head_dim, and the config gives none"):
                from_config(config)
            return
        if FAMILIES[model_type].mscale_pair:  # PhiMoE's: every scaling needs its short_mscale and long_mscale
            with pytest.raises(ValueError, match="gives no short_mscale"):
                from_config(config)
            return
        assert FAMILIES[model_type].v5_only
        with pytest.raises(ValueError, match="nested by layer type"):
            from_config(config)
        return
    if _fails_at_first_forward(model_type, config, rotary):
        return
    model = from_config(config)
    for layer_type, positional in model.positionals.items():
        if positional.scheme != "rope" or positional.options.get("rope_type") == "default":
            continue
        per_layer = "rope_type" not in oracle.rope_parameters
        expected, _ = ROPE_INIT_FUNCTIONS[scaling["rope_type"]](oracle, None, **(
            {"layer_type": layer_type} if per_layer else {}))
        used = (oracle.rope_parameters[layer_type] if per_layer else oracle.rope_parameters)[
            "original_max_position_embeddings"]
        assert positional.options["original_max_position_embeddings"] == used, (layer_type, used)
        got, _ = rope_inv_freq(model, layer_type)
        np.testing.assert_allclose(got, expected.double().numpy(), rtol=float32_rtol(positional.base), atol=0)


@pytest.mark.parametrize("model_type", [key for key, family in FAMILIES.items() if family.scheme == "rope"
                                        and not family.rotary_dim])
def test_a_config_without_theta_or_context_reads_as_its_class_defaults(model_type):
    """A config that gives only sizes: θ of every layer type and the context are the family class's defaults in
    transformers 5.23 (the oracle). posenc read Qwen2-VL's and Qwen2.5-VL's θ as 10,000 (their class: 1,000,000),
    Qwen3-VL's as 5,000,000 (the released model's value; the class's is 500,000), and refused every Qwen config
    without max_position_embeddings (the class's default: 32,768)."""
    config = {"model_type": model_type, **_sizes(model_type)}
    oracle = getattr(transformers, FAMILIES[model_type].class_name).from_dict(dict(config))
    model = from_config(config)
    assert model.context_length == oracle.max_position_embeddings
    parameters = oracle.rope_parameters
    for layer_type, positional in model.positionals.items():
        if positional.scheme == "rope":
            expected = parameters[layer_type] if "rope_type" not in parameters else parameters
            assert positional.base == expected["rope_theta"], layer_type


@pytest.mark.parametrize("model_type", [key for key, family in FAMILIES.items()
                                        if family.windows in ("qwen", "max_window_layers", "qwen2_moe")])
def test_a_windowed_config_without_max_window_layers_windows_as_its_class(model_type):
    """A config asking for windows (use_sliding_window, a sliding_window) over 96 layers without max_window_layers:
    the layers posenc windows are those the family's class makes sliding from its own default (its configuration's
    layer_types, transformers 5.23: the oracle; Qwen3-MoE's keeps none, and windows every layer: the masks test).
    posenc windowed Qwen2-VL's and Qwen2.5-VL's from layer 28 on, Qwen2's default; their classes' is 80."""
    config = {"model_type": model_type, **_sizes(model_type), "num_hidden_layers": 96, "use_sliding_window": True,
              "sliding_window": 64}
    oracle = getattr(transformers, FAMILIES[model_type].class_name).from_dict(dict(config))
    assert list(from_config(config).layer_types) == list(oracle.layer_types)


@pytest.mark.parametrize("given", [{}, {"rope_scaling": None}, {"rope_parameters": None}, {"rope_parameters": {}},
                                   {"rope_theta": 20_000.0}])
@pytest.mark.parametrize("model_type", [key for key, family in FAMILIES.items() if family.scheme == "rope"
                                        and not family.rotary_dim])
def test_a_config_without_rope_parameters_computes_as_its_class(model_type, given):
    """A config with no RoPE parameters (absent or null; or an empty v5 dict, which is not absent): every rotary
    layer type's frequencies and attention factor are the ones the family's rotary embedding computes (the oracle:
    transformers 5.23), θ given at the top level or not. GptOssConfig sets its own YaRN (×32 from 4,096 tokens) when
    the file gives neither rope_scaling nor rope_parameters; posenc read default RoPE. ApertusConfig sets llama3
    parameters with their own θ (12,000,000), which a top-level rope_theta does not replace."""
    config = {"model_type": model_type, **_sizes(model_type), **given}
    try:
        rotary = hf_rotary(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))).get_text_config())
    except Exception:  # noqa: BLE001 - Gemma 4 takes a null or empty dict as written, and fails
        if FAMILIES[model_type].section_required:  # Cosmos3-Edge's: the check's error says so
            assert ("error", "rope_parameters.mrope_section") in [(f.severity, f.field) for f in check(config)]
            return
        assert FAMILIES[model_type].v5_only and (given in ({"rope_scaling": None}, {"rope_parameters": {}})
                                                 or not FAMILIES[model_type].default_parameters)  # Cohere Compass
        with pytest.raises(ValueError, match="rope_scaling is null|nested by layer type"):
            from_config(config)
        return
    if _fails_at_first_forward(model_type, config, rotary):
        return
    model = from_config(config)  # (a copy to transformers, which fills an empty dict in place)
    for layer_type, positional in model.positionals.items():
        if positional.scheme == "rope":
            expected, scaling = hf_frequencies(rotary, layer_type)
            got, got_scaling = rope_inv_freq(model, layer_type)
            np.testing.assert_allclose(got, expected, rtol=float32_rtol(positional.base), atol=0, err_msg=layer_type)
            assert got_scaling == pytest.approx(scaling, rel=1e-6), layer_type


_WHOLE_HEADS = {  # model_type: (config class, model class, sizes beyond the common ones)
    "llama": ("LlamaConfig", "LlamaModel", {}),
    "gemma2": ("Gemma2Config", "Gemma2Model", {"head_dim": 32}),
    "deepseek_v3": ("DeepseekV3Config", "DeepseekV3Model", {
        "qk_rope_head_dim": 16, "qk_nope_head_dim": 16, "v_head_dim": 16, "kv_lora_rank": 16, "q_lora_rank": 16,
        "n_routed_experts": 2, "num_experts_per_tok": 1, "moe_intermediate_size": 16, "first_k_dense_replace": 1,
        "n_group": 1, "topk_group": 1}),
}


@pytest.mark.parametrize("model_type", list(_WHOLE_HEADS))
@pytest.mark.parametrize("rope_type", ["default", "yarn"])
def test_a_class_that_rotates_whole_heads_ignores_a_share_or_cannot_run_it(model_type, rope_type):
    """transformers 5.23 (the oracle: a one-layer model's forward pass): a class with no share of a head to rotate
    ignores partial_rotary_factor under default RoPE, and under a scaling computes frequencies for the share and
    fails. posenc rotated the share in both (a Llama config with partial_rotary_factor 0.5 drew half-head views)."""
    config_class, model_class, extra = _WHOLE_HEADS[model_type]
    sizes = dict(hidden_size=64, num_attention_heads=2, num_key_value_heads=2, num_hidden_layers=1,
                 intermediate_size=64, vocab_size=10, max_position_embeddings=256, **extra)
    scaling = {"rope_type": rope_type} | ({"factor": 2.0} if rope_type == "yarn" else {})
    config = {"model_type": model_type, **sizes, "partial_rotary_factor": 0.5, "rope_scaling": scaling}
    oracle = getattr(transformers, model_class)(getattr(transformers, config_class)(
        **sizes, partial_rotary_factor=0.5, rope_scaling=dict(scaling))).eval()
    if rope_type == "default":
        oracle(torch.tensor([[1, 2, 3]]))
        got, _ = rope_inv_freq(from_config(config))
        np.testing.assert_allclose(got, oracle.rotary_emb.inv_freq.double().numpy(), rtol=float32_rtol(10_000.0))
    else:
        with pytest.raises(RuntimeError, match="must match the size"):
            oracle(torch.tensor([[1, 2, 3]]))
        with pytest.raises(ValueError, match="takes no share of a head to rotate"):
            from_config(config)


@pytest.mark.parametrize("fields", [{"rope_theta": 20000.0}, {"partial_rotary_factor": 0.5},
                                    {"rope_theta": 20000.0, "rotary_emb_base": 40000.0, "rotary_pct": 0.5},
                                    {"rope_scaling": {"rope_type": "default", "rope_theta": 30000.0,
                                                      "partial_rotary_factor": 0.5}}])
def test_gpt_neox_reads_its_own_names_first(fields, tmp_path):
    """GPTNeoXConfig sets θ and the share from rotary_emb_base and rotary_pct (defaults 10,000 and 0.25) where the
    scaling gives none, and ignores a top-level rope_theta or partial_rotary_factor; posenc read those over them
    (the oracle: GPTNeoXRotaryEmbedding's frequencies)."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(json.loads((CONFIGS / "pythia-160m.json").read_text()) | fields))
    expected, _ = hf_frequencies(hf_rotary(hf_text_config(path, tmp_path)), "full_attention")
    got, _ = rope_inv_freq(from_config(path))
    np.testing.assert_allclose(got, expected, rtol=float32_rtol(40_000.0), atol=0)


@pytest.mark.parametrize("inside", [True, False])
def test_a_trained_context_counts_where_the_language_model_s_config_is_built_from(inside, tmp_path):
    """In a file with a text_config, the language model's own original_max_position_embeddings is the one inside
    it: one beside text_config belongs to the outer config, and transformers 5.23 (the oracle) computes with the
    scaling's; posenc laid it over the text config's fields and read it."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config = json.loads((CONFIGS / "qwen3-vl-8b.json").read_text())
    text = config["text_config"]
    text["rope_scaling"] = dict(text.get("rope_scaling") or {}, rope_type="yarn", factor=2.0,
                                original_max_position_embeddings=2048)
    (text if inside else config)["original_max_position_embeddings"] = 4096
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    oracle = hf_text_config(path, tmp_path)
    expected, _ = ROPE_INIT_FUNCTIONS["yarn"](oracle, None)
    assert oracle.rope_parameters["original_max_position_embeddings"] == (4096 if inside else 2048)
    model = from_config(config)
    assert model.positional("full_attention").options["original_max_position_embeddings"] == (4096 if inside else 2048)
    got, _ = rope_inv_freq(model, "full_attention")
    np.testing.assert_allclose(got, expected.double().numpy(), rtol=float32_rtol(5_000_000.0), atol=0)


def computes_as(model: models.Model, oracle) -> None:
    """Every rotary layer type of ``model`` has the frequencies and cos/sin factor of ``oracle``, a transformers
    rotary embedding."""
    for layer_type, positional in model.positionals.items():
        expected, expected_scaling = hf_frequencies(oracle, layer_type)
        got, scaling = rope_inv_freq(model, layer_type)
        np.testing.assert_allclose(got, expected, rtol=float32_rtol(positional.base), atol=0, err_msg=layer_type)
        assert scaling == pytest.approx(expected_scaling, rel=1e-12), layer_type


# Scalings a class that keeps its RoPE parameters per layer type (Gemma 3, ModernBERT) reads otherwise than Llama.
_PER_LAYER = {
    "v4 type": {"rope_scaling": {"type": "linear", "factor": 8.0}},  # merged under the class's rope_type 'default'
    "flat v5": {"rope_parameters": {"rope_type": "linear", "factor": 8.0}},  # Gemma 3: not read; ModernBERT: refused
    "untruncated": {"rope_scaling": {"rope_type": "yarn", "factor": 4.0, "truncate": False}},  # truncate not read
    "nested v4": {"rope_scaling": {"full_attention": {"rope_type": "linear", "factor": 8.0}}},  # merged: not read
    "nested untruncated": {"rope_parameters": {  # nor here
        "full_attention": {"rope_type": "yarn", "factor": 4.0, "truncate": False},
        "sliding_attention": {"rope_type": "default"}}},
    "v4 rope_type": {"rope_scaling": {"rope_type": "yarn", "factor": 4.0, "beta_fast": 16.0}},  # read as Llama's
}


@pytest.mark.parametrize("case", list(_PER_LAYER))
@pytest.mark.parametrize("model_type", [key for key, family in FAMILIES.items() if family.per_layer_parameters])
def test_a_class_that_keeps_parameters_per_layer_type_computes_as_transformers(model_type, case):
    """Gemma3TextConfig and ModernBertConfig (transformers 5.23, the oracle: their rotary embedding's frequencies)
    merge a v4 rope_scaling into parameters of their own per layer type, which already say rope_type 'default': v4's
    'type' does not replace it, so the scaling is dropped, and one nested by layer type is merged as one flat dict.
    A flat v5 rope_parameters is not read by Gemma 3 (default RoPE on both layer types) and refused by ModernBERT.
    YaRN's truncate is read from the outer dict, which holds only layer types, so a nested scaling's truncate false
    is not read. posenc computed all four as written."""
    config = {"model_type": model_type, **_sizes(model_type), "max_position_embeddings": 32768,
              **json.loads(json.dumps(_PER_LAYER[case]))}
    try:
        oracle = hf_rotary(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))).get_text_config())
    except Exception:  # noqa: BLE001 - a strict dataclass's validation error; Gemma 4's rotary embedding failing
        assert (case == "flat v5" and FAMILIES[model_type].flat_parameters == "refused") or FAMILIES[model_type].v5_only
        with pytest.raises(ValueError, match="nested by layer type|has no"):
            from_config(config)
        return
    computes_as(from_config(config), oracle)


@pytest.mark.parametrize("model_type", [key for key, family in FAMILIES.items() if family.scheme == "rope"
                                        and not family.rotary_dim])
def test_parameters_nested_by_layer_type_are_read_as_the_class_reads_them(model_type):
    """rope_parameters nested by layer type (v5's layout for Gemma 3 and ModernBERT) given to any rotary class.
    transformers 5.23 (the oracle: the family's rotary embedding) reads them per layer type only in Gemma 3 and
    ModernBERT; a class without layer_types reads the dict as flat, finds no rope_type and computes default RoPE; a
    class with layer_types keeps it nested and its rotary embedding, which reads one flat dict, fails. posenc read
    every class's nested parameters per layer type."""
    config = {"model_type": model_type, **_sizes(model_type), "max_position_embeddings": 32768, "rope_parameters": {
        "full_attention": {"rope_type": "linear", "factor": 8.0}, "sliding_attention": {"rope_type": "linear",
                                                                                         "factor": 2.0}}}
    try:
        oracle = hf_rotary(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))).get_text_config())
    except KeyError:  # the rotary embedding reads config.rope_parameters["rope_type"]
        if FAMILIES[model_type].section_required:  # (its class's validation reads mrope_section): the check says so
            assert any(f.severity == "error" and f.field.endswith("mrope_section") for f in check(config))
            return
        with pytest.raises(ValueError, match="reads one flat dict"):
            from_config(config)
        assert FAMILIES[model_type].nested_parameters == "refused"
        return
    except TypeError:  # Gemma 4 fills in no rope_theta: its rotary embedding computes None ** …
        assert FAMILIES[model_type].v5_only
        with pytest.raises(ValueError, match="has no rope_theta"):
            from_config(config)
        return
    if _fails_at_first_forward(model_type, config, oracle):
        return
    computes_as(from_config(config), oracle)


@pytest.mark.parametrize(("name", "change"), [
    ("mistral-7b-v0.1", {"sliding_window": None}),  # Mistral-7B-v0.2's config: no window
    ("mistral-7b-v0.1", {"use_sliding_window": False}),  # a Qwen field MistralConfig does not read
    ("gpt-oss-20b", {"layer_types": None}),  # GptOssConfig's own rule: sliding, full, sliding, …
])
def test_windows_are_the_ones_transformers_builds(name, change):
    """The layers' windows as transformers 5.23 (the oracle) builds them: config.layer_types, else every layer
    windowed when the class has a sliding_window that is not None (Mistral's models mask with it whenever it is
    set). posenc read an explicit "sliding_window": null as absent and gave Mistral v0.2 the class's 4,096-token
    window, read Mistral's window off when use_sliding_window was false, and read gpt-oss without layer_types as
    all full attention."""
    config = json.loads((CONFIGS / f"{name}.json").read_text())
    config.update(change)
    config = {key: value for key, value in config.items() if not (key == "layer_types" and value is None)}
    oracle = transformers.AutoConfig.for_model(**json.loads(json.dumps(config)))
    window = oracle.sliding_window
    kinds = getattr(oracle, "layer_types", None) or ["sliding_attention" if window is not None
                                                      else "full_attention"] * oracle.num_hidden_layers
    model = from_config(config)
    expected = ["full_attention" if kind == "sliding_attention" and (window is None or window >= model.context_length)
                else kind for kind in kinds]
    assert list(model.layer_types) == expected
    for kind, positional in model.positionals.items():
        assert positional.window == (window if kind == "sliding_attention" else None)


@pytest.mark.parametrize("model_type", [key for key, family in FAMILIES.items() if family.scheme == "rope"
                                        and not family.rotary_dim])
def test_each_family_windows_its_layers_as_its_class_does(model_type):
    """A config that turns windows on the Qwen way (use_sliding_window, max_window_layers 2) and gives no
    sliding_window or layer_types: each class builds its layers by its own rule (the oracle: transformers 5.23's
    config.layer_types and sliding_window, every layer windowed by a class that has no layer_types). posenc gave
    the Qwen families no default window (theirs: 4,096), and read Qwen2-MoE (even layers below max_window_layers)
    and Qwen3-MoE (every layer) by Qwen2's rule."""
    config = {"model_type": model_type, **_sizes(model_type), "max_window_layers": 2,
              **({} if model_type == "iquestcoder" else {"use_sliding_window": True})}  # a field its class refuses
    oracle = transformers.AutoConfig.for_model(**dict(config)).get_text_config()
    window = getattr(oracle, "sliding_window", None) or None  # Qwen2-MoE writes 0 for none
    window = None if model_type in _WINDOW_UNUSED else window  # (stored, never applied: Kyutai's default 375)
    kinds = getattr(oracle, "layer_types", None) or ["sliding_attention" if window else "full_attention"] * SIZES[
        "num_hidden_layers"]
    kinds = ["full_attention" if kind == "hybrid" else kind for kind in kinds]  # Falcon-H1's: attention and Mamba-2
    model = from_config(config)
    got = [(kind, model.positionals[kind].window if kind in model.positionals else None) for kind in model.layer_types]
    expected = [("full_attention", None) if kind == "sliding_attention" and (window is None or window >= model.context_length)
                else (kind, window if kind == "sliding_attention" else None) for kind in kinds]
    got = [("full_attention", None) if kind == "nope" else (kind, window) for kind, window in got]  # NoPE layers
    assert got == expected  # (Llama 4's, SmolLM3's) attend to the whole context
    if FAMILIES[model_type].windows == "none":  # the window its cache reads, which its forward pass ignores
        assert FAMILIES[model_type].defaults.get("sliding_window") == getattr(oracle, "sliding_window", None)


def _declared(config: object, name: str) -> bool:
    """Whether transformers' configuration class of ``config`` has the field ``name`` (any other keyword a config
    is given is kept as an attribute that no model reads: LlamaConfig's sliding_window)."""
    return any(name in getattr(cls, "__annotations__", {}) for cls in type(config).__mro__)


_WINDOW_UNUSED = ("moshi", "kyutai_speech_to_text", "qwen3_omni_moe_text")
"""Classes that declare sliding_window and whose models' forward pass never applies it (MoshiConfig: stored by its
decoder layers, as Kyutai's speech-to-text's; Qwen3-Omni's thinker's attention sets its own to None; the oracle that shows it is the model itself,
test_each_family_masks_its_layers_as_its_model_does, test_kyutai_speech_to_text_applies_no_window…), though their
cache reads it (posenc's family defaults hold the class's: test_each_family_windows_its_layers_as_its_class_does)."""


@pytest.mark.parametrize("model_type", [key for key, family in FAMILIES.items() if family.scheme == "rope"
                                        and not family.rotary_dim and family.window_field[0] == "sliding_window"])
def test_the_window_fields_are_read_as_each_class_reads_them(model_type):
    """Every combination of sliding_window (0, 64, past the context) and use_sliding_window (absent, false, true):
    each layer's window as transformers 5.23 (the oracle) masks it: config.layer_types (else every layer windowed by
    a class that has the field sliding_window and no layer_types) and config.sliding_window, where its class has that
    field (LlamaConfig keeps it as an attribute no model reads). posenc refused a sliding_window of 0 that no layer
    uses, as Qwen2-MoE's class writes it when use_sliding_window is false (so a file transformers saved could not be
    read), read Phi-3's window off when use_sliding_window was false (Phi3Config does not read it), and left
    SmolLM3's layers without positions unwindowed, which its class makes sliding_attention when use_sliding_window is
    true. A window of 0 on a layer that uses it masks every key: posenc refuses it, naming the field."""
    for window, switch in itertools.product([0, 64, 10**6], [None, False, True]):
        config = {"model_type": model_type, **_sizes(model_type), "max_position_embeddings": 4096,
                  "sliding_window": window}
        if switch is not None:
            config["use_sliding_window"] = switch
        try:
            oracle = transformers.AutoConfig.for_model(**dict(config)).get_text_config()
        except Exception:  # noqa: BLE001 - a strict class refuses a window of 0 on its sliding layers (Kolibri 1)
            if model_type == "iquestcoder" and switch:  # its class refuses use_sliding_window true: so does posenc
                with pytest.raises(ValueError, match="use_sliding_window is True, which IQuestCoderConfig refuses"):
                    from_config(config)
                continue
            assert window == 0
            with pytest.raises(ValueError, match="sliding_window must be a whole number from 1"):
                from_config(config)
            continue
        masked = oracle.sliding_window if _declared(oracle, "sliding_window") and model_type not in _WINDOW_UNUSED \
            else None
        kinds = getattr(oracle, "layer_types", None) or [
            "sliding_attention" if masked is not None else "full_attention"] * SIZES["num_hidden_layers"]
        expected = [masked if kind == "sliding_attention" else None for kind in kinds]
        if 0 in expected:
            with pytest.raises(ValueError, match="sliding_window must be a whole number from 1"):
                from_config(config)
            continue
        model = from_config(config)
        context = model.context_length  # a window past the context is kept on a layer whose θ is its own (Gemma 3)
        got = [model.positionals[kind].window for kind in model.layer_types]
        assert [w if w is not None and w < context else None for w in got] == \
            [w if w is not None and w < context else None for w in expected], config


@pytest.mark.parametrize("changes", [
    {"use_sliding_window": True}, {"use_sliding_window": False},
    {"use_sliding_window": False, "layer_types": ["full_attention"] * 3 + ["sliding_attention"]},
    {"use_sliding_window": True, "layer_types": ["full_attention"] * 3 + ["sliding_attention"]},
])
def test_smollm3_s_layers_without_positions_see_the_keys_its_model_attends_to(changes):
    """The oracle is the model itself: a four-layer SmolLM3 whose last layer has no positions (no_rope_layers 0),
    run eagerly on 12 tokens; the keys the last token attends to on that layer are the ones posenc's window lets it
    see (4 with a window of 4, all 12 without). posenc drew every such layer without a window."""
    torch = pytest.importorskip("torch")
    config = {"model_type": "smollm3", "hidden_size": 32, "num_attention_heads": 2, "num_key_value_heads": 2,
              "num_hidden_layers": 4, "intermediate_size": 32, "vocab_size": 64, "pad_token_id": 0,
              "max_position_embeddings": 64, "sliding_window": 4, "no_rope_layers": [1, 1, 1, 0], **changes}
    torch.manual_seed(0)
    oracle = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**dict(config)),
                                                attn_implementation="eager").eval()
    with torch.no_grad():
        weights = oracle(torch.arange(3, 15)[None], output_attentions=True).attentions[3][0, :, 11]
    seen = int((weights > 0).sum(dim=-1).unique().item())
    model = from_config(config)
    assert model.layer_types[3] == "nope"
    window = model.positionals["nope"].window
    assert seen == (12 if window is None else min(window, 12))


def _rotation_calls(config: dict, module, seen) -> tuple[object, list]:
    """A model of ``config`` (transformers 5.23, eager) run on 12 tokens, and ``seen(q, cos)`` of each call of its
    modeling ``module``'s apply_rotary_pos_emb, in layer order: which layers rotate, how wide, how fast."""
    oracle = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))),
                                                attn_implementation="eager").eval()
    calls, original = [], module.apply_rotary_pos_emb
    module.apply_rotary_pos_emb = lambda q, k, cos, sin, **kw: (calls.append(seen(q, cos)),
                                                                original(q, k, cos, sin, **kw))[1]
    try:
        with torch.no_grad():
            oracle(input_ids=torch.arange(3, 15)[None])
    finally:
        module.apply_rotary_pos_emb = original
    return oracle, calls


def test_cohere2_rotates_its_sliding_window_layers_only():
    """The oracle is the model: a four-layer Cohere 2 (transformers 5.23, eager; one full-attention layer in four)
    calls apply_rotary_pos_emb on its three sliding-window layers only, on heads of the file's head_dim (its class
    sets hidden_size / heads, which a head_dim in the file replaces). posenc read every layer as rotating."""
    from transformers.models.cohere2 import modeling_cohere2

    config = {"model_type": "cohere2", "hidden_size": 128, "num_attention_heads": 2, "num_key_value_heads": 2,
              "num_hidden_layers": 4, "intermediate_size": 64, "vocab_size": 64, "pad_token_id": 0,
              "max_position_embeddings": 256, "sliding_window": 8, "head_dim": 32}
    _, widths = _rotation_calls(config, modeling_cohere2, lambda q, cos: q.shape[-1])
    model = from_config(config)
    assert model.layer_types == ("sliding_attention",) * 3 + ("nope",) and len(widths) == 3
    assert model.positional("sliding_attention").rotary_dims == widths[0] == 32
    assert model.positional("sliding_attention").window == 8


_EXAONE_MOE = {"num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 16, "first_k_dense_replace": 1}


@pytest.mark.parametrize(("model_type", "windowed"), [("exaone4", True), ("exaone4", False), ("exaone_moe", True),
                                                      ("exaone4_5_text", True), ("exaone4_5_text", False)])
def test_exaone_4_rotates_its_sliding_window_layers_only_when_it_has_a_window(model_type, windowed):
    """The oracle is the model: a four-layer EXAONE 4 (transformers 5.23, eager; its class makes every fourth layer
    full attention) calls apply_rotary_pos_emb on its sliding-window layers only when sliding_window is set (its
    full-attention layers have no positions, as EXAONE-4.0-32B's), and on every layer when it is null. EXAONE 4.5's
    text model (exaone4_5_text, which its class renames exaone4) is one. posenc read them as Llama-style decoders,
    every layer rotating. (ExaoneMoeConfig refuses a null sliding_window.)"""
    from transformers.models.exaone4 import modeling_exaone4
    from transformers.models.exaone_moe import modeling_exaone_moe

    config = {"model_type": model_type, "hidden_size": 128, "num_attention_heads": 2, "num_key_value_heads": 2,
              "num_hidden_layers": 4, "intermediate_size": 64, "vocab_size": 64, "pad_token_id": 0,
              "max_position_embeddings": 256, "sliding_window": 8 if windowed else None, "head_dim": 32,
              **(_EXAONE_MOE if model_type == "exaone_moe" else {}),
              **({} if windowed else {"layer_types": ["full_attention"] * 4})}
    built = {**config, "model_type": "exaone4"} if model_type == "exaone4_5_text" else config
    module = modeling_exaone_moe if model_type == "exaone_moe" else modeling_exaone4
    _, calls = _rotation_calls(built, module, lambda q, cos: q.shape[-1])
    for source in (config, {"model_type": "exaone4_5", "text_config": config}):
        model = from_config(source)
        if windowed:
            assert model.layer_types == ("sliding_attention",) * 3 + ("nope",) and len(calls) == 3
            assert model.positional("sliding_attention").window == 8
        else:
            assert model.layer_types == ("full_attention",) * 4 and len(calls) == 4
        assert "Exaone" in model.source


_ONLY_WINDOWS_ROTATE = {  # model_type: (its modeling module, sizes beyond the common ones, the layers posenc reads)
    "afmoe": ("afmoe", {"global_attn_every_n_layers": 4, "num_dense_layers": 1, "num_experts": 4,
                        "num_experts_per_tok": 2, "moe_intermediate_size": 16},
              ("sliding_attention",) * 3 + ("nope", "sliding_attention", "sliding_attention")),
    "flint": ("flint", {"num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 16},
              ("nope", "nope", "sliding_attention", "sliding_attention", "sliding_attention", "nope")),
    "kolibri1": ("kolibri1", {"num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 16},
                 ("sliding_attention",) * 4 + ("nope", "sliding_attention")),
}


@pytest.mark.parametrize("model_type", list(_ONLY_WINDOWS_ROTATE))
def test_a_class_whose_sliding_window_layers_alone_rotate_is_read_so(model_type):
    """The oracle is the model (transformers 5.23, eager, six layers, each class's own layer pattern): AFMoE (Arcee's
    Trinity), Flint and Kolibri 1 call apply_rotary_pos_emb on their sliding-window layers only; their
    full-attention layers have no positions (Flint: layers 0, 1, every fourth from 1 and the last are full
    attention; AFMoE: one in global_attn_every_n_layers; Kolibri 1: one in five). posenc read them as Llama-style
    decoders, every layer rotating, every layer windowed."""
    name, extra, expected = _ONLY_WINDOWS_ROTATE[model_type]
    module = importlib.import_module(f"transformers.models.{name}.modeling_{name}")
    config = {"model_type": model_type, "hidden_size": 128, "num_attention_heads": 2, "num_key_value_heads": 2,
              "num_hidden_layers": 6, "intermediate_size": 64, "vocab_size": 64, "pad_token_id": 0,
              "max_position_embeddings": 256, "sliding_window": 8, "head_dim": 32, **extra}
    oracle, calls = _rotation_calls(config, module, lambda q, cos: q.shape[-1])
    model = from_config(config)
    assert list(oracle.config.layer_types) == ["full_attention" if kind == "nope" else kind for kind in expected]
    assert model.layer_types == expected and len(calls) == expected.count("sliding_attention")
    assert model.positional("sliding_attention").window == 8 and calls[0] == 32


_GRANITE_SWA_MOE = {"num_local_experts": 4, "num_experts_per_tok": 2}


@pytest.mark.parametrize("model_type", ["granite_swa", "granitemoe_swa"])
@pytest.mark.parametrize("thetas", [None, [0, 10_000.0, 10_000.0, 10_000.0], [250_000.0, 0, 0, 0],
                                    [0, 10_000.0, 0, 10_000.0]])
def test_granite_swa_turns_each_layer_at_its_own_theta(model_type, thetas):
    """The oracle is the model: a four-layer Granite SWA (transformers 5.23, eager; its class makes layer 0 of every
    four full attention, the others sliding-window ones) rotates layer i at layer_rope_theta[i], not at all where it
    is 0 (NoPE), and at rope_theta on every layer without the list. posenc read it as a Llama-style decoder, every
    layer at rope_theta; it now refuses only a list that gives layers of one type different θ, or θ to some and none
    to others, which no view of one θ per layer type draws."""
    module = importlib.import_module(f"transformers.models.{model_type}.modeling_{model_type}")
    config = {"model_type": model_type, "hidden_size": 128, "num_attention_heads": 2, "num_key_value_heads": 2,
              "num_hidden_layers": 4, "intermediate_size": 64, "vocab_size": 64, "pad_token_id": 0,
              "max_position_embeddings": 256, "sliding_window": 8, "rope_theta": 500_000.0,
              **(_GRANITE_SWA_MOE if model_type == "granitemoe_swa" else {}),
              **({"layer_rope_theta": thetas} if thetas is not None else {})}
    oracle, calls = _rotation_calls(config, module, lambda q, cos: cos[0, 1, 1].item())
    listed = thetas or [500_000.0] * 4
    kinds = list(oracle.config.layer_types)
    assert kinds == ["full_attention"] + ["sliding_attention"] * 3
    if any(len({theta for theta, k in zip(listed, kinds) if k == kind}) > 1 for kind in set(kinds)):
        with pytest.raises(ValueError, match="layer_rope_theta"):
            from_config(config)
        return
    model = from_config(config)
    assert "GraniteMoeSWAConfig" in model.source or "GraniteSWAConfig" in model.source
    assert list(model.layer_types) == ["nope" if theta == 0 else kind for theta, kind in zip(listed, kinds)]
    assert len(calls) == sum(theta != 0 for theta in listed)
    for kind, positional in model.positionals.items():
        if positional.scheme == "rope":  # the second frequency's cosine at position 1, as the model computed it
            theta = next(t for t, k in zip(listed, kinds) if k == kind)
            assert positional.base == theta
            got, _ = rope_inv_freq(model, kind)
            assert math.cos(got[1]) == pytest.approx(calls[[k for t, k in zip(listed, kinds) if t].index(kind)],
                                                     rel=1e-6)


@pytest.mark.parametrize(("model_type", "sizes"), [
    ("bamba", {"attn_layer_indices": [2], "rope_theta": 10_000.0}),
    ("zamba2", {"use_mem_rope": True, "rope_theta": 10_000.0, "num_hidden_layers": 4,
                "layers_block_type": ["linear_attention", "hybrid", "linear_attention", "hybrid"]}),
    ("lfm2", {"full_attn_idxs": [1, 3], "rope_theta": 10_000.0}),
    ("lfm2_moe", {"layer_types": ["conv", "full_attention", "conv", "full_attention"], "rope_theta": 10_000.0}),
])
def test_a_hybrid_of_state_space_and_attention_layers_is_refused(model_type, sizes):
    """Bamba and Zamba 2 (transformers 5.23) run most of their layers as Mamba state-space layers, LFM2 and LFM2-MoE as
    short convolutions, which have no attention to draw (config.layer_types: linear_attention, conv), and attention
    only on some; posenc read every layer as full attention with RoPE (LFM2 given its full_attn_idxs). Refused,
    naming the class."""
    oracle = transformers.AutoConfig.for_model(model_type, **{"hidden_size": 128, "num_attention_heads": 2,
                                                              "num_key_value_heads": 2, "num_hidden_layers": 4,
                                                              **sizes})
    assert {"linear_attention", "conv"} & set(oracle.layer_types)
    with pytest.raises(ValueError, match=type(oracle).__name__):
        from_config(json.loads(oracle.to_json_string()))
    with pytest.raises(ValueError, match=type(oracle).__name__):
        from_config({"model_type": model_type, "hidden_size": 128, "num_attention_heads": 2, **sizes,
                     "num_hidden_layers": 4})


@pytest.mark.parametrize("model_type", ["qwen3_next", "qwen3_5_text", "bailing_hybrid"])
def test_a_hybrid_of_linear_and_softmax_attention_is_refused_saying_why(model_type):
    """Qwen3-Next, Qwen3.5 and Bailing's hybrid (transformers 5.23: their config's layer_types) run most layers as
    linear attention, which has no positions to draw: refused, saying that posenc draws softmax attention only (it
    said only which layer types it knew)."""
    oracle = transformers.AutoConfig.for_model(model_type, hidden_size=128, num_attention_heads=2,
                                               num_key_value_heads=2, num_hidden_layers=4)
    assert "linear_attention" in oracle.layer_types
    with pytest.raises(ValueError, match="'linear_attention', a layer posenc does not draw: its views are of softmax"):
        from_config(json.loads(oracle.to_json_string()))


_GEMMA_4 = {"model_type": "gemma4_text", "hidden_size": 64, "num_attention_heads": 2, "num_key_value_heads": 1,
            "head_dim": 16, "intermediate_size": 32, "vocab_size": 40, "vocab_size_per_layer_input": 40,
            "hidden_size_per_layer_input": 8, "max_position_embeddings": 128, "sliding_window": 6}
"""A small Gemma 4 text model, in the fields of its class (google/gemma-4-e2b-it's)."""

_GEMMA_4_CASES = {
    "class defaults": {"global_head_dim": 32},
    "saved by transformers": "saved",  # the file save_pretrained writes: per_layer_config, nested rope_parameters
    "its own parameters": {"global_head_dim": 32, "rope_parameters": {
        "sliding_attention": {"rope_type": "default", "rope_theta": 20_000.0},
        "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.5, "rope_theta": 500_000.0,
                           "factor": 2.0}}},
    "no share": {"global_head_dim": 32, "rope_parameters": {
        "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
        "full_attention": {"rope_type": "proportional", "rope_theta": 1_000_000.0}}},
    "v4 fields, unread": {"global_head_dim": 32, "rope_theta": 50_000.0, "rope_local_base_freq": 5_000.0},
    "a flat scaling": {"global_head_dim": 32, "rope_scaling": {"rope_type": "linear", "factor": 4.0}},
    "a sliding last layer": {"global_head_dim": 32, "layer_types": ["sliding_attention", "sliding_attention"]},
    "a top-level θ and share, copied in by p-RoPE": {"global_head_dim": 32, "rope_theta": 20_000.0,
                                                      "partial_rotary_factor": 0.5, "rope_parameters": {
        "sliding_attention": {"rope_type": "default"},
        "full_attention": {"rope_type": "proportional", "rope_theta": 1_000_000.0}}},
    "p-RoPE without its θ": {"global_head_dim": 32, "rope_theta": 20_000.0, "rope_parameters": {
        "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
        "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25}}},
}


@pytest.mark.parametrize("case", list(_GEMMA_4_CASES))
def test_gemma_4_rotates_each_layer_type_as_its_model_does(case):
    """Gemma4TextConfig (transformers 5.23; the oracle: a two-layer Gemma4TextModel's rotary embedding and its
    attention, eager) rotates its sliding-window layers by default RoPE (θ 10,000) on heads of head_dim, and its
    full-attention layers by p-RoPE ("proportional": the first partial_rotary_factor of the pairs at full RoPE's
    θᵢ = θ^(−2i/d), the rest not at all; θ 1,000,000, a quarter) on heads of global_head_dim (per_layer_config in a
    file transformers saved), reading rope_parameters (or a v4 rope_scaling in its place) by layer type only (a
    rope_local_base_freq is unread, a top-level rope_theta or partial_rotary_factor too, but where p-RoPE's function
    standardizes the parameters, copying them into every layer type's that lack them; p-RoPE's own θ is required; a
    flat dict fails building the model, and is refused), its last layer full attention whatever layer_types says. posenc refused every Gemma 4 config (p-RoPE's rope_type, as a
    Llama-style decoder's)."""
    torch = pytest.importorskip("torch")
    given = _GEMMA_4_CASES[case]
    config = _GEMMA_4 | {"num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"]}
    if given == "saved":
        config = json.loads(transformers.AutoConfig.for_model(**json.loads(json.dumps(
            config | {"global_head_dim": 32}))).to_json_string())
        assert "per_layer_config" in config and "global_head_dim" not in config
    else:
        config |= given
    if case in ("a flat scaling", "p-RoPE without its θ"):
        with pytest.raises(KeyError, match="full_attention" if case == "a flat scaling" else "rope_theta"):
            transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))))
        with pytest.raises(ValueError, match="nested by layer type|without a rope_theta of its own"):
            from_config(config)
        return
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))),
                                               attn_implementation="eager").eval()
    model = from_config(config)
    assert "Gemma4TextConfig" in model.source
    assert list(model.layer_types) == list(built.config.layer_types) == ["sliding_attention", "full_attention"]
    for index, kind in enumerate(model.layer_types):
        positional = model.positional(kind)
        assert positional.head_dim == built.layers[index].self_attn.head_dim, kind
        expected, scaling = hf_frequencies(built.rotary_emb, kind)
        got, got_scaling = rope_inv_freq(model, kind)
        np.testing.assert_allclose(got, expected, rtol=float32_rtol(positional.base), atol=0, err_msg=kind)
        assert got_scaling == scaling == 1.0
    with torch.no_grad():
        attentions = built(input_ids=torch.arange(3, 15)[None], output_attentions=True).attentions
    for index, kind in enumerate(model.layer_types):
        np.testing.assert_array_equal((attentions[index][0, 0] > 0).numpy(), models.attention_mask(model, kind, 12))


@pytest.mark.parametrize("both_ways", [None, "all", "vision"])
def test_gemma_4_sees_both_ways_only_when_told_all(both_ways):
    """use_bidirectional_attention "all" makes every Gemma 4 layer see the keys after the query too, its sliding
    window (sliding_window // 2) + 1 wide either side as its class sets it; "vision" lets image tokens alone see
    both ways, so text attends causally. The oracle: a two-layer model's attention weights (transformers 5.23,
    eager) against posenc's mask of each layer."""
    torch = pytest.importorskip("torch")
    config = _GEMMA_4 | {"num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"],
                         "global_head_dim": 32, "use_bidirectional_attention": both_ways}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))),
                                               attn_implementation="eager").eval()
    with torch.no_grad():
        attentions = built(input_ids=torch.arange(3, 15)[None], output_attentions=True).attentions
    model = from_config(config)
    assert model.causal == (both_ways != "all")
    for index, kind in enumerate(model.layer_types):
        np.testing.assert_array_equal((attentions[index][0, 0] > 0).numpy(), models.attention_mask(model, kind, 12),
                                      err_msg=kind)


@pytest.mark.parametrize("is_decoder", [None, False, True])
def test_a_bert_style_model_type_posenc_does_not_know_attends_as_its_model_masks(is_decoder):
    """A model_type posenc has no record of, read as a learned table because its file says position_embedding_type
    "absolute" (BERT's field, which every v4-era file of BERT's kin writes), is an encoder unless is_decoder is true.
    The oracle: a one-layer RoCBert (a BERT-style encoder posenc has no record of; transformers 5.23, eager), which
    tokens its output depends on. posenc drew every such model causal, as it draws an unknown decoder."""
    config = {"model_type": "roc_bert", "hidden_size": 32, "num_attention_heads": 2, "num_hidden_layers": 1,
              "intermediate_size": 16, "vocab_size": 20, "pronunciation_vocab_size": 20, "shape_vocab_size": 20,
              "max_position_embeddings": 64, "position_embedding_type": "absolute",
              **({} if is_decoder is None else {"is_decoder": is_decoder})}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config),
                                               attn_implementation="eager").eval()
    depends = _dependencies(built, 8)
    model = from_config(config)
    assert model.causal == bool(is_decoder) == (not depends[0, 7])
    np.testing.assert_array_equal(depends, models.attention_mask(model, "full_attention", 8))


_OTHERWISE_POSITIONED = ("longformer", "led", "big_bird", "bigbird_pegasus", "layoutlm", "layoutlmv2", "layoutlmv3",
                         "lilt", "bros", "markuplm", "udop", "tapas", "deberta", "deberta-v2", "reformer", "fnet",
                         "nystromformer", "yoso", "mra", "canine", "funnel", "xlnet", "luke", "t5gemma", "t5gemma2")


@pytest.mark.parametrize("model_type", _OTHERWISE_POSITIONED)
def test_a_class_that_places_tokens_otherwise_is_refused_naming_it(model_type):
    """Classes of transformers 5.23 whose positions or attention no view draws (Longformer's and LED's local windows
    and global tokens, BigBird's block-sparse attention, the layout models' 2-D boxes or XPaths, UDOP's 2-D biases
    beside T5's buckets, TAPAS's positions restarting in each cell, DeBERTa's disentangled relative attention,
    Reformer's axial positions, FNet's Fourier mixing in place of attention; Nyströmformer's, YOSO's and MRA's
    approximated attention, CANINE's character blocks and downsampling, Funnel's pooling and relative terms,
    XLNet's relative sinusoids both ways, LUKE's entity positions, T5Gemma's nested encoder and decoder): their
    v4-era files say position_embedding_type
    "absolute" (UDOP's, relative_attention_num_buckets), and posenc read them as a plain learned table (or T5's
    buckets), causal, or both ways from row 0 (Nyströmformer, YOSO, MRA: their tokens read row p + 2), or refused
    them for want of a field, without saying why. Refused, naming the class."""
    config = json.loads(transformers.AutoConfig.for_model(model_type).to_json_string(use_diff=False))
    if "relative_attention_num_buckets" not in config:
        config["position_embedding_type"] = "absolute"
    with pytest.raises(ValueError, match=type(transformers.AutoConfig.for_model(model_type)).__name__):
        from_config(config)


def test_beam_s_layers_without_positions_and_their_query_scale_are_refused():
    """BeamConfig's full-attention layers have no rope_parameters (transformers 5.23: no positions, and each query
    scaled by (1 + (p + 1)/2048)^0.1, a temperature of its own); posenc read them as rotating at θ 10,000. Refused,
    naming the class, rather than drawn wrong."""
    config = json.loads(transformers.AutoConfig.for_model("beam", hidden_size=128, num_attention_heads=2,
                                                          num_key_value_heads=2, num_hidden_layers=6).to_json_string())
    assert config["rope_parameters"]["full_attention"] is None
    with pytest.raises(ValueError, match="BeamConfig"):
        from_config(config)


@pytest.mark.parametrize("model_type", [key for key, family in FAMILIES.items() if family.scheme != "rope"])
def test_a_learned_t5_or_alibi_config_without_sizes_reads_as_its_class_defaults(model_type):
    """A config that gives only its model_type: heads, layers, the head's width, the width a learned table is added
    to and the table's length are the class's defaults in transformers 5.23 (the oracle). posenc refused GPT-2,
    BERT, RoBERTa and BLOOM configs without their widths (the classes' 768 and 64). T5 and BLOOM have no length
    field: posenc takes T5's n_positions 512 and BLOOM's training length 2,048 from their model cards."""
    oracle = transformers.AutoConfig.for_model(model_type)
    given = {"model_type": model_type}
    if model_type == "esm":  # EsmConfig has no pad_token_id, and ESM's model numbers positions from it: refused
        with pytest.raises(ValueError, match="the config has no 'pad_token_id'"):
            from_config(given)
        given["pad_token_id"] = oracle.pad_token_id = 1
    model = from_config(given)
    positional = model.positionals[model.layer_types[0]]  # LongT5's layers are local: a window of local_radius
    assert positional.window == getattr(oracle, "local_radius", None)
    assert len(model.layer_types) == oracle.num_hidden_layers
    if model_type == "gpt_neo":  # every other layer local, in a window of 256 (its class's attention_layers)
        assert [kind == "sliding_attention" for kind in model.layer_types] == [
            kind == "local" for kind in oracle.attention_layers] and model.positional("sliding_attention").window == 256
    heads = positional.options.get("num_heads", oracle.num_attention_heads)
    assert heads == oracle.num_attention_heads
    split = getattr(oracle, "true_hidden_size", oracle.hidden_size)  # MobileBERT's heads split its bottleneck
    assert positional.head_dim == (getattr(oracle, "d_kv", None) or split // oracle.num_attention_heads)
    if positional.scheme == "learned":
        rows = FAMILIES[model_type].row_offset  # OPT: 2,050 rows, 2,048 tokens
        assert positional.options["table_size"] == oracle.max_position_embeddings + rows
        offset = oracle.pad_token_id + 1 if FAMILIES[model_type].padding_offset else 0  # RoBERTa: 512 rows, 510 tokens
        assert model.context_length == oracle.max_position_embeddings - offset
        assert positional.extra["model_width"] == getattr(oracle, _TABLE_WIDTH.get(model_type, "hidden_size"))


_ENCODER_DECODER_SIZES = {"d_model": 16, "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_layers": 1,
                          "decoder_layers": 1, "encoder_ffn_dim": 16, "decoder_ffn_dim": 16, "vocab_size": 10,
                          "max_position_embeddings": 12}
_OWN_SIZES = {  # classes whose sizes have names of their own (their attribute_map)
    "gpt2": {"n_embd": 16, "n_head": 2, "n_layer": 1, "vocab_size": 10, "n_positions": 12},
    "distilbert": {"dim": 16, "n_heads": 2, "n_layers": 1, "hidden_dim": 16, "vocab_size": 10,
                   "max_position_embeddings": 12},
    "xlm": {"emb_dim": 16, "n_heads": 2, "n_layers": 1, "vocab_size": 10, "max_position_embeddings": 12},
    "flaubert": {"emb_dim": 16, "n_heads": 2, "n_layers": 1, "vocab_size": 10, "max_position_embeddings": 12},
}
_GPT_SIZES = {"n_embd": 16, "n_head": 2, "n_layer": 1, "vocab_size": 10, "n_positions": 12}
_OWN_SIZES |= {"openai-gpt": _GPT_SIZES, "gpt_bigcode": _GPT_SIZES,
               "gpt_neo": {"hidden_size": 16, "num_heads": 2, "num_layers": 2, "attention_types": [[["global", "local"], 1]],
                           "window_size": 4, "vocab_size": 10, "max_position_embeddings": 12},
               "ctrl": {"n_embd": 16, "n_head": 2, "n_layer": 1, "dff": 16, "vocab_size": 10, "n_positions": 12}}
_BERT_SIZES = {"hidden_size": 16, "num_attention_heads": 2, "num_hidden_layers": 1, "intermediate_size": 16,
               "vocab_size": 10, "max_position_embeddings": 12}
_OWN_SIZES |= {  # a table narrower than the hidden size: the embeddings' own width
    "albert": _BERT_SIZES | {"embedding_size": 8}, "electra": _BERT_SIZES | {"embedding_size": 8},
    "convbert": _BERT_SIZES | {"embedding_size": 8}, "squeezebert": _BERT_SIZES | {"embedding_size": 16},
    "rembert": _BERT_SIZES | {"input_embedding_size": 8, "output_embedding_size": 8},
    "mobilebert": _BERT_SIZES | {"embedding_size": 8, "true_hidden_size": 16, "intra_bottleneck_size": 16},
}
_OWN_SIZES["esm"] = _BERT_SIZES | {"pad_token_id": 1}  # ESM's positions count from it
_OWN_SIZES["xmod"] = _BERT_SIZES | {"default_language": "en_XX"}  # X-MOD's adapters need a language
_TABLE_WIDTH = {"albert": "embedding_size", "electra": "embedding_size", "convbert": "embedding_size",
                "rembert": "input_embedding_size"}  # the field each class's table width is (checked above: 8, not 16)
_BIDIRECTIONAL = ("esm", "bert", "roberta", "xlm-roberta", "camembert", "distilbert", "xlm", "flaubert", "albert", "electra",
                  "mobilebert", "convbert", "squeezebert", "rembert", "ernie", "megatron-bert", "splinter",
                  "bert-generation", "data2vec-text", "xlm-roberta-xl", "ibert", "roberta-prelayernorm",
                  "xmod")  # encoders
_OFFSET_TABLES = {"opt": 2, "bart": 2, "mbart": 2, "plbart": 2, "mvp": 2, "biogpt": 2}  # rows before a token's


@pytest.mark.parametrize(("model_type", "pad_token_id"), [("bert", 0), ("roberta", 1), ("roberta", 3),
                                                          ("xlm-roberta", 1), ("camembert", 1), ("gpt2", None),
                                                          ("opt", 1), ("bart", 1), ("mbart", 1), ("plbart", 1),
                                                          ("mvp", 1), ("biogpt", 1), ("blenderbot", 0),
                                                          ("blenderbot-small", 0), ("distilbert", 0), ("xlm", 2),
                                                          ("flaubert", 2), ("albert", 0), ("electra", 0),
                                                          ("mobilebert", 0), ("convbert", 1), ("squeezebert", 0),
                                                          ("rembert", 0), ("ernie", 0), ("megatron-bert", 0),
                                                          ("splinter", 0), ("bert-generation", 0),
                                                          ("data2vec-text", 1), ("data2vec-text", 3),
                                                          ("xlm-roberta-xl", 1), ("ibert", 1), ("openai-gpt", None),
                                                          ("gpt_bigcode", None), ("gpt_neo", None), ("esm", 1),
                                                          ("roberta-prelayernorm", 1), ("roberta-prelayernorm", 3),
                                                          ("xmod", 1)])
def test_a_learned_table_holds_the_tokens_its_model_accepts(model_type, pad_token_id):
    """The context of a learned table is the longest input the model runs (transformers 5.23, the oracle: a one-layer
    model's forward pass; an encoder-decoder's encoder and decoder each). RoBERTa and its kin number positions from
    pad_token_id + 1, so a table of max_position_embeddings rows holds max_position_embeddings − pad_token_id − 1
    tokens (roberta-base's 514 rows: 512); posenc said 514. OPT's table has two rows more than
    max_position_embeddings and reads row p + 2 (posenc refused its config: no positional field), as BART, mBART,
    PLBart, MVP and BioGPT do; Blenderbot's, DistilBERT's, XLM's and FlauBERT's tables have max_position_embeddings
    rows from row 0, as ALBERT's and the other BERT kin's do (Data2VecText's, XLM-R XL's and I-BERT's from
    pad_token_id + 1, as RoBERTa's); ALBERT's, ELECTRA's, ConvBERT's and RemBERT's are as wide as their embeddings,
    not their hidden size. posenc refused all of these but OPT's for want of a positional field, and read none of their own
    names for sizes (BART's d_model, encoder_attention_heads, encoder_layers: its class's attribute_map)."""
    if model_type in _OWN_SIZES:
        sizes = _OWN_SIZES[model_type]  # GPT-Neo's: two layers, the second a local one
    elif "encoder_layers" in transformers.AutoConfig.for_model(model_type).to_dict():
        sizes = _ENCODER_DECODER_SIZES
    else:
        sizes = _BERT_SIZES
    config = {"model_type": model_type, **sizes, **({"pad_token_id": pad_token_id} if pad_token_id is not None else {})}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config)).eval()
    parts = [built.get_encoder(), built.get_decoder()] if built.config.is_encoder_decoder else [built]

    def runs(length: int) -> bool:
        try:
            with torch.no_grad():
                for part in parts:
                    part(input_ids=torch.full((1, length), 5 if pad_token_id != 5 else 6))
        except (IndexError, RuntimeError):
            return False
        return True

    accepted = max(length for length in range(1, 16) if runs(length))
    assert not runs(accepted + 1)
    model = from_config(config)
    assert model.context_length == accepted
    rows = {tuple(weight.shape) for name, weight in built.named_parameters() if "position" in name or "wpe" in name}
    width = 8 if model_type in _TABLE_WIDTH else 16  # ALBERT's table is embedding_size wide, 8 here
    assert rows == {(12 + _OFFSET_TABLES.get(model_type, 0), width)}  # every table's rows, all of them (the oracle's)
    assert model.positional("full_attention").extra["model_width"] == width
    assert model.positional("full_attention").options["table_size"] == 12 + _OFFSET_TABLES.get(model_type, 0)
    assert len(model.layer_types) == (2 if model_type == "gpt_neo" else 1)
    assert model.positional("full_attention").head_dim == 8
    assert model.causal == (not built.config.is_encoder_decoder and model_type not in _BIDIRECTIONAL)
    scale = softmax_scale_of(built)  # the softmax's scale, where the class keeps it
    if scale is None:  # as read in its code: 1/√8, GPT-Neo's 1 (measured: test_gpt_neo_takes_q_k_unscaled…)
        assert model_type in SCALED_IN_CODE, model_type
        scale = 1.0 if model_type == "gpt_neo" else 8 ** -0.5
    assert models.softmax_scale(model) == pytest.approx(scale, rel=1e-12)


@pytest.mark.parametrize(("model_type", "pad_token_id", "first"), [("marian", 9, 0), ("pegasus", 0, 0),
                                                                   ("m2m_100", 1, 2), ("m2m_100", 3, 4),
                                                                   ("nllb-moe", 1, 2), ("xglm", 1, 2), ("xglm", 3, 2),
                                                                   ("fsmt", 1, 2), ("fsmt", 3, 4)])
def test_a_sinusoidal_config_encodes_each_token_as_its_model_does(model_type, pad_token_id, first):
    """Marian, Pegasus, M2M100, NLLB-MoE and XGLM add fixed sinusoids: the oracle is what each one-layer model's
    ``embed_positions`` returns for 20 tokens in transformers 5.23 (float32). posenc refused their configs (no
    positional field). All put the sines of a row before its cosines (posenc's split layout); Marian and Pegasus
    space the frequencies as Vaswani et al., θᵢ = 10000^(−2i/d), from position 0, in a table of
    max_position_embeddings rows (a longer input fails); M2M100 and NLLB-MoE (fairseq's) spread them from 1 to
    1/10000 over d/2 − 1 steps (posenc's tensor2tensor spacing) and number a token's position from pad_token_id + 1,
    as FSMT does;
    XGLM as they, from 2 whatever its pad_token_id, and the row of position pad_token_id is zero in all three: a
    token reads it in XGLM when pad_token_id ≥ 2."""
    if model_type == "xglm":
        sizes = {"d_model": 16, "attention_heads": 2, "num_layers": 1, "ffn_dim": 16}
    else:
        sizes = {key: value for key, value in _ENCODER_DECODER_SIZES.items() if key != "vocab_size"}
    config = {"model_type": model_type, **sizes, "vocab_size": 12, "max_position_embeddings": 24,
              "pad_token_id": pad_token_id, "decoder_start_token_id": 0,
              **({"langs": ["en", "de"], "src_vocab_size": 12, "tgt_vocab_size": 12} if model_type == "fsmt" else {})}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config)).eval()
    part = built.get_encoder() if built.config.is_encoder_decoder else built
    seen = []
    hook = part.embed_positions.register_forward_hook(lambda module, args, out: seen.append(out.double().numpy()))
    with torch.no_grad():
        part(input_ids=torch.full((1, 20), 5))
    hook.remove()
    model = from_config(config)
    positional = model.positional("full_attention")
    assert positional.scheme == "sinusoidal" and positional.extra["model_width"] == 16
    assert positional.extra.get("first_position", 0) == first
    table = posenc.get_scheme("sinusoidal").table(first + 20, 16, positional.base, **positional.options)[first:]
    if model_type == "xglm" and pad_token_id >= first:  # its row pad_token_id is zeroed, and a token reads it
        table[pad_token_id - first] = 0.0  # (the check warns: test_model_check.py)
    np.testing.assert_allclose(seen[0].reshape(20, 16), table, atol=2e-6)
    assert model.context_length == 24 and model.causal == (model_type == "xglm")
    assert len(model.layer_types) == 1 and positional.head_dim == 8
    assert models.softmax_scale(model) == pytest.approx(softmax_scale_of(built), rel=1e-12)
    if model_type in ("marian", "pegasus"):  # a table of 24 rows: a 25th token has none
        assert positional.extra["table_rows"] == 24
        with pytest.raises(IndexError), torch.no_grad():
            part(input_ids=torch.full((1, 25), 5))
    else:  # fairseq's sinusoids grow with the input
        assert "table_rows" not in positional.extra
        with torch.no_grad():
            part(input_ids=torch.full((1, 40), 5))


@pytest.mark.parametrize(("model_type", "field"), [("marian", "d_model"), ("m2m_100", "d_model"), ("ctrl", "n_embd")])
def test_a_sinusoidal_config_of_odd_width_is_refused_naming_its_width(model_type, field):
    """The sines of a row before its cosines: posenc's split layout needs an even width, so an odd width is refused,
    under the class's name for it (transformers pads fairseq's with a zero column and gives Marian's one sine
    more)."""
    with pytest.raises(ValueError, match=f"^{field} is 17: "):
        from_config({"model_type": model_type, field: 17, "encoder_attention_heads": 1, "encoder_layers": 1,
                     "n_head": 1, "n_layer": 1})


def test_ctrl_s_sinusoids_are_its_buffer():
    """CTRL adds fixed sinusoids, each row's sines before its cosines, θᵢ = 10000^(−2i/d), from position 0, n_positions
    rows of them: the oracle is a one-layer model's pos_encoding (transformers 5.23), which a longer input overruns.
    posenc read CTRL's config as a learned table (its model_type unknown, its n_positions a table's length)."""
    config = {"model_type": "ctrl", **_OWN_SIZES["ctrl"]}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config)).eval()
    model = from_config(config)
    positional = model.positional("full_attention")
    assert positional.scheme == "sinusoidal" and dict(positional.options) == {"layout": "split", "spacing": "vaswani"}
    assert positional.extra == {"model_width": 16, "table_rows": 12} and model.context_length == 12 and model.causal
    np.testing.assert_allclose(built.pos_encoding.double().numpy(), posenc.get_scheme("sinusoidal").table(
        12, 16, positional.base, **positional.options), atol=1e-6)
    with torch.no_grad():
        built(input_ids=torch.full((1, 12), 5))
        with pytest.raises(IndexError):
            built(input_ids=torch.full((1, 13), 5))


@pytest.mark.parametrize("window", [4, 12, 20])
def test_gpt_neo_s_local_layers_are_windowed_as_its_model_masks_them(window):
    """GPT-Neo alternates global layers with local ones, each of those attending to the window_size keys up to its
    query: the oracle is a two-layer model's attention weights (transformers 5.23, eager), zero exactly where posenc's
    window masks (0 ≤ i − j < window). A window as long as the context masks nothing: those layers are full
    attention. posenc refused GPT-Neo's config (no positional field). A file's layer_types its forward pass ignores
    (posenc windowed the listed layers)."""
    config = {"model_type": "gpt_neo", **_OWN_SIZES["gpt_neo"], "window_size": window}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config),
                                               attn_implementation="eager").eval()
    with torch.no_grad():
        attentions = built(input_ids=torch.tensor([[4, 5, 6, 7, 8, 9, 4, 5, 6, 7, 8, 9]]),
                           output_attentions=True).attentions
    seen = [(weights[0, 0] > 0).numpy() for weights in attentions]
    i, j = np.indices((12, 12))
    model = from_config(config)
    for layer, kind in enumerate(model.layer_types):
        reach = model.positional(kind).window or 12
        np.testing.assert_array_equal(seen[layer], (i - j >= 0) & (i - j < reach))
    assert model.layer_types == (("full_attention", "sliding_attention") if window < 12 else ("full_attention",) * 2)
    assert model.positional(model.layer_types[-1]).scheme == "learned"
    given = {**config, "attention_layers": ["local", "global"]}  # GPTNeoConfig keeps the file's over attention_types
    oracle = transformers.AutoConfig.for_model(**given).attention_layers
    assert [kind == "sliding_attention" for kind in from_config(given).layer_types] == [
        kind == "local" and window < 12 for kind in oracle]
    with pytest.raises(ValueError, match="attention_layers lists 3 layers, but num_layers is 2"):
        from_config({**config, "attention_layers": ["local", "global", "local"]})
    listed = {**config, "layer_types": ["sliding_attention", "full_attention"]}  # which its forward pass ignores
    listed_model = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**listed),
                                                      attn_implementation="eager").eval()
    with torch.no_grad():  # (its cache reads the list, and finds no sliding_window: that path fails)
        attended = listed_model(input_ids=torch.tensor([[4, 5, 6, 7, 8, 9, 4, 5, 6, 7, 8, 9]]),
                                output_attentions=True, use_cache=False).attentions
        with pytest.raises(AttributeError, match="sliding_window"):
            listed_model(input_ids=torch.tensor([[4, 5, 6]]), use_cache=True)
    assert [bool(((weights[0, 0] > 0).numpy() == mask).all()) for weights, mask in zip(attended, seen)] == [True] * 2
    assert from_config(listed).layer_types == model.layer_types  # posenc read the list: a window on layer 0
    said = [f for f in models.check(listed) if f.field == "layer_types"]
    assert len(said) == 1 and "GPTNeoConfig's model in transformers 5.23 does not read in its forward pass" in said[
        0].message and said[0].severity == "error" and "finds no sliding_window" in said[0].message  # (its cache)


@pytest.mark.parametrize(("model_type", "switch", "width"), [("distilbert", "sinusoidal_pos_embds", 16),
                                                              ("distilbert", "sinusoidal_pos_embds", 9),
                                                              ("xlm", "sinusoidal_embeddings", 16),
                                                              ("flaubert", "sinusoidal_embeddings", 16)])
def test_a_config_that_asks_for_sinusoids_reads_as_the_paper_s(model_type, switch, width):
    """DistilBERT's sinusoidal_pos_embds and XLM's (FlauBERT's) sinusoidal_embeddings fill the position table with
    the sinusoids of "Attention Is All You Need" as written: sin and cos interleaved, θᵢ = 10000^(−2i/d), from
    position 0, a table of max_position_embeddings rows (the oracle: each one-layer model's table in transformers
    5.23, float32). posenc refused these configs (no positional field); without the field they read as learned."""
    names = {key: value for key, value in _OWN_SIZES[model_type].items() if key not in ("dim", "emb_dim")}
    heads = {"n_heads": 3} if width % 2 else {}
    config = {"model_type": model_type, **names, **heads, ("dim" if model_type == "distilbert" else "emb_dim"): width,
              switch: True}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config)).eval()
    (table,) = [weight.detach().double().numpy() for name, weight in built.named_parameters()
                if "position_embeddings" in name]
    model = from_config(config)
    positional = model.positional("full_attention")
    assert positional.scheme == "sinusoidal" and dict(positional.options) == {"layout": "interleaved",
                                                                              "spacing": "vaswani"}
    assert positional.extra == {"model_width": width, "table_rows": 12} and model.context_length == 12
    np.testing.assert_allclose(table, posenc.get_scheme("sinusoidal").table(12, width, positional.base,
                                                                             **positional.options), atol=1e-6)
    assert from_config({key: value for key, value in config.items() if key != switch}).positional(
        "full_attention").scheme == "learned"


@pytest.mark.parametrize("flag", [False, True])
@pytest.mark.parametrize("model_type", ["xlm", "flaubert", "bert", "roberta", "xlm-roberta", "camembert", "electra",
                                        "rembert", "ernie", "megatron-bert", "bert-generation", "data2vec-text",
                                        "xlm-roberta-xl", "albert", "mobilebert", "convbert", "squeezebert",
                                        "splinter", "ibert", "distilbert", "esm"])
def test_a_causal_field_says_whether_a_token_sees_the_ones_after_it(model_type, flag):
    """XLMConfig's causal (FlauBERT's too) and BERT's is_decoder (RoBERTa's and their kin's) make a model causal; ALBERT,
    MobileBERT, ConvBERT, SqueezeBERT, Splinter, I-BERT and DistilBERT attend both ways whatever is_decoder says.
    The oracle is the model itself, whose first token's output does not change with the last token's exactly when
    it is causal (transformers 5.23). posenc read BERT, RoBERTa, XLM-R and CamemBERT with is_decoder true as
    bidirectional."""
    field = "causal" if model_type in ("xlm", "flaubert") else "is_decoder"
    config = {"model_type": model_type, **_OWN_SIZES.get(model_type, _BERT_SIZES), field: flag}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config)).eval()
    with torch.no_grad():
        first = [built(input_ids=torch.tensor([[4, 5, 6, last]])).last_hidden_state[0, 0] for last in (7, 8)]
    causal = bool(torch.equal(*first))
    assert causal == (flag and model_type not in ("albert", "mobilebert", "convbert", "squeezebert", "splinter",
                                                  "ibert", "distilbert"))  # what the oracle says, stated
    assert from_config(config).causal == causal


@pytest.mark.parametrize("kind", ["relative_key", "relative_key_query"])
@pytest.mark.parametrize("model_type", ["bert", "roberta", "electra"])
def test_a_position_type_transformers_no_longer_reads_is_read_as_its_model_runs(model_type, kind):
    """BERT's kin in transformers 5.23 read no position_embedding_type: a config asking for relative_key builds a
    model with its learned table and no distance embeddings, which runs as many tokens as with "absolute" (the
    oracle). posenc refused these configs ("posenc reads 'absolute' only"); it reads them as the model runs, and
    its check warns (test_model_check.py)."""
    config = {"model_type": model_type, **_OWN_SIZES.get(model_type, _BERT_SIZES), "pad_token_id": 1,
              "position_embedding_type": kind}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config))
    names = [name for name, _ in built.named_parameters()]
    assert "embeddings.position_embeddings.weight" in names and not any("distance" in name for name in names)
    absolute = from_config({**config, "position_embedding_type": "absolute"})
    assert from_config(config) == absolute and absolute.positional("full_attention").scheme == "learned"


@pytest.mark.parametrize("rope_theta", [None, 20_000.0])
def test_esm_s_rotary_position_type_rotates_its_heads_as_its_model_does(rope_theta):
    """ESM-2's position_embedding_type "rotary" rotates every head in halves from position 0 at rope_theta (10,000 by
    default), both ways (the oracle: a one-layer model's own apply_rotary_pos_emb on 20 tokens, transformers 5.23);
    "absolute" (ESM-1b) is a learned table counted from pad_token_id + 1, as RoBERTa's; another type adds no
    positions, which posenc refuses to draw as a table. posenc refused ESM-2's config (no positional field)."""
    from transformers_rotary import hf_rotated_queries

    config = {"model_type": "esm", **_BERT_SIZES, "hidden_size": 32, "max_position_embeddings": 40,
              "position_embedding_type": "rotary", "pad_token_id": 1, "mask_token_id": 2, "vocab_size": 30,
              **({"rope_theta": rope_theta} if rope_theta else {})}
    before, after = hf_rotated_queries(config, 20)
    model = from_config(config)
    positional = model.positional("full_attention")
    assert positional.scheme == "rope" and positional.rotary_dims == 16 and not model.causal
    got = posenc.apply_rope(before, np.arange(20), base=positional.base, layout=positional.options["layout"])
    np.testing.assert_allclose(got, after, atol=5e-6, rtol=0)
    table = from_config({**config, "position_embedding_type": "absolute"})
    assert table.positional("full_attention").options["table_size"] == 40 and table.context_length == 38
    with pytest.raises(ValueError, match="position_embedding_type is 'relative_key'"):
        from_config({**config, "position_embedding_type": "relative_key"})


def _dependencies(built, length: int) -> np.ndarray:
    """depends[i, j]: whether a one-layer model's output at token i changes when token j does (its attention mask)."""
    tokens = torch.arange(3, 3 + length)[None]
    with torch.no_grad():
        base = built(input_ids=tokens).last_hidden_state[0]
        depends = np.zeros((length, length), dtype=bool)
        for j in range(length):
            changed = tokens.clone()
            changed[0, j] = 2
            depends[:, j] = (built(input_ids=changed).last_hidden_state[0] != base).any(-1).numpy()
    return depends


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("layer_type", ["sliding_attention", "full_attention"])
def test_gemma_3_s_bidirectional_attention_sees_both_ways_in_half_its_window(layer_type, bidirectional):
    """Gemma3TextConfig's use_bidirectional_attention (EmbeddingGemma's) makes its layers see keys after the query too,
    its sliding-window layers those within sliding_window // 2 either side (the class halves the window): the oracle
    is a one-layer model, whose output at token i changes with token j exactly where posenc's mask of that layer sees
    j from i (transformers 5.23). posenc read such a config as causal, with the whole window behind each query."""
    config = {"model_type": "gemma3_text", "hidden_size": 32, "num_attention_heads": 2, "num_key_value_heads": 2,
              "head_dim": 16, "num_hidden_layers": 1, "intermediate_size": 16, "vocab_size": 20,
              "max_position_embeddings": 64, "sliding_window": 6, "layer_types": [layer_type],
              "use_bidirectional_attention": bidirectional}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config)).eval()
    model = from_config(config)
    assert model.causal == (not bidirectional)
    np.testing.assert_array_equal(_dependencies(built, 12), models.attention_mask(model, layer_type, 12))


_GEMMA_3N = {"model_type": "gemma3n_text", "hidden_size": 32, "num_attention_heads": 2, "num_key_value_heads": 2,
             "head_dim": 16, "intermediate_size": 16, "vocab_size": 20, "vocab_size_per_layer_input": 20,
             "hidden_size_per_layer_input": 8, "laurel_rank": 4, "num_kv_shared_layers": 0,
             "max_position_embeddings": 64, "sliding_window": 4, "rope_theta": 1_000_000.0,
             "rope_local_base_freq": 10_000.0}
"""A small Gemma 3n text model written with the fields of gemma-3n-E2B's text_config (θ 1,000,000 for global
layers, rope_local_base_freq 10,000 for the sliding-window ones), no layer sharing another's keys."""


@pytest.mark.parametrize("layer_type", ["sliding_attention", "full_attention"])
def test_gemma_3n_turns_its_local_layers_at_rope_local_base_freq(layer_type):
    """Gemma3nTextConfig (transformers 5.23; the oracle: a one-layer Gemma3nTextModel, its rotary embedding's
    frequencies for the layer's type and which tokens its output depends on) turns its sliding-window layers at
    rope_local_base_freq and its full-attention layers at rope_theta, as Gemma 3 does. posenc had no record of
    gemma3n_text and read it as a Llama-style decoder: its local layers turned at rope_theta (1,000,000), 100 times
    slower than the model's."""
    config = _GEMMA_3N | {"num_hidden_layers": 1, "layer_types": [layer_type], "activation_sparsity_pattern": [0.0]}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))),
                                               attn_implementation="eager").eval()
    model = from_config(config)
    assert "Gemma3nTextConfig" in model.source
    expected, scaling = hf_frequencies(built.rotary_emb, layer_type)
    got, got_scaling = rope_inv_freq(model, layer_type)
    np.testing.assert_allclose(got, expected, rtol=float32_rtol(model.positional(layer_type).base), atol=0)
    assert got_scaling == scaling == 1.0
    np.testing.assert_array_equal(_dependencies(built, 10), models.attention_mask(model, layer_type, 10))


def test_gemma_3n_s_layers_follow_its_class_s_pattern_without_layer_types():
    """Without layer_types, Gemma3nTextConfig makes every fifth layer full attention, the others sliding-window ones
    (512 tokens by default), and its composite config (model_type gemma3n) nests them in text_config."""
    config = _GEMMA_3N | {"num_hidden_layers": 10}
    del config["sliding_window"]
    oracle = transformers.AutoConfig.for_model(**json.loads(json.dumps(config)))
    for source in (config, {"model_type": "gemma3n", "text_config": config}):
        model = from_config(source)
        assert list(model.layer_types) == oracle.layer_types
        assert model.positional("sliding_attention").window == oracle.sliding_window == 512
        assert model.positional("sliding_attention").base == 10_000.0


@pytest.mark.parametrize(("model_type", "attention"), [("gemma", "eager"), ("gemma", "sdpa"), ("gemma2", "eager"),
                                                       ("gemma3_text", "eager"), ("gemma3_text", "sdpa")])
def test_gemma_told_to_see_both_ways_is_read_as_its_eager_model_masks(model_type, attention):
    """use_bidirectional_attention true: Gemma 3's masks see both ways in eager and sdpa attention alike, Gemma's in
    sdpa only (its eager mask ignores the field), Gemma 2's in neither it runs here (it refuses sdpa). The oracle is
    a one-layer model of each, under each attention (which tokens its output depends on). posenc draws the eager
    model's masks, and the check warns where the attentions differ (test_model_check.py)."""
    config = {"model_type": model_type, "hidden_size": 32, "num_attention_heads": 2, "num_key_value_heads": 2,
              "head_dim": 16, "num_hidden_layers": 1, "intermediate_size": 16, "vocab_size": 20,
              "max_position_embeddings": 64, "use_bidirectional_attention": True,
              **({"layer_types": ["full_attention"]} if model_type != "gemma" else {})}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config),
                                               attn_implementation=attention).eval()
    both_ways = bool(_dependencies(built, 6)[0, 5])
    assert both_ways == (model_type == "gemma3_text" or attention == "sdpa")
    model = from_config(config)
    assert model.causal == (model_type != "gemma3_text")
    if attention == "eager":
        np.testing.assert_array_equal(_dependencies(built, 6), models.attention_mask(model, "full_attention", 6))


def test_a_model_type_posenc_does_not_know_is_not_said_to_be_read_as_transformers_reads_it():
    """Glm4vMoeTextConfig (GLM-4.5V's language model; transformers 5.23, the oracle) rotates half of each head by
    default; posenc, which reads an unknown model_type as a Llama-style decoder from the file's fields, rotates all of
    it, and said it read the config "as transformers 5.23 reads it" (GLM's own, glm, is a family since). It now says
    how it read it; a family it knows still names its class."""
    config = {"model_type": "glm4v_moe_text", **SIZES, "head_dim": 64, "max_position_embeddings": 2048,
              "rope_theta": 10000.0}
    from transformers.models.glm4v_moe.modeling_glm4v_moe import Glm4vMoeTextRotaryEmbedding

    oracle = Glm4vMoeTextRotaryEmbedding(transformers.AutoConfig.for_model(**config))
    model = from_config(config)
    assert oracle.inv_freq.shape == (16,) and model.positional("full_attention").rotary_dims == 64  # 32 pairs
    assert "read as transformers 5.23 reads it" not in model.source
    assert "read as a Llama-style decoder: posenc does not know this model_type" in model.source
    assert from_config({"model_type": "llama", **SIZES}).source.endswith("read as transformers 5.23 reads it "
                                                                          "(LlamaConfig)")
    kin = from_config({"model_type": "my_t5", "d_model": 512, "num_heads": 6, "d_kv": 64, "num_layers": 8,
                       "relative_attention_num_buckets": 32})  # a T5 kin, read by its buckets: no Llama-style claim
    assert "read as a model with T5 relative bias: posenc does not know this model_type" in kin.source


@pytest.mark.parametrize("attention", [{"alibi": True}, {"alibi": True, "alibi_bias_max": 8},
                                       {"alibi": True, "alibi_bias_max": 16}, {"alibi": False}, None])
def test_mpt_adds_alibi_with_its_own_slopes_over_max_seq_len_keys_whatever_attn_config_says(attention):
    """transformers 5.23's MPT (the oracle: a one-layer model) adds ALiBi with the slopes of a bias max of 8,
    2^(−8k/n) (BLOOM's), for 12 heads as for 8, whatever attn_config says: its forward pass builds the bias with
    neither attn_config.alibi nor alibi_bias_max (its output is the same under each), for exactly max_seq_len keys, so
    a longer input fails. posenc refused a bias max of 16 and a config whose attn_config turns ALiBi off, and took its
    context from max_position_embeddings before max_seq_len; MosaicML's own code (trust_remote_code) reads them, and
    the check says so (test_model_check.py)."""
    config = {"model_type": "mpt", "d_model": 48, "n_heads": 12, "n_layers": 1, "max_seq_len": 12,
              "vocab_size": 20, "expansion_ratio": 1, **({"attn_config": attention} if attention is not None else {})}

    def built(given: dict):
        torch.manual_seed(0)
        return transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**given)).eval()

    model, plain = built(config), built({**config, "attn_config": {"alibi": True, "alibi_bias_max": 8}})
    tokens = torch.arange(3, 13)[None]
    with torch.no_grad():
        assert torch.equal(model(input_ids=tokens).last_hidden_state, plain(input_ids=tokens).last_hidden_state)
        model(input_ids=torch.full((1, 12), 5))
        with pytest.raises(RuntimeError):
            model(input_ids=torch.full((1, 13), 5))
    bias = model.build_mpt_alibi_tensor(12, 3).reshape(12, 3).double().numpy()  # what its forward pass calls
    read = from_config(config | {"max_position_embeddings": 4096})  # a field MPT's class does not read
    (positional,) = read.positionals.values()
    assert (positional.scheme, positional.options["num_heads"], read.context_length) == ("alibi", 12, 12)
    from posenc.schemes.alibi import alibi_slopes

    np.testing.assert_allclose(alibi_slopes(12), bias[:, 1] - bias[:, 0], rtol=1e-6)
    assert len(read.layer_types) == 1 and positional.head_dim == 4 and read.causal


def test_an_unknown_model_type_s_alibi_bias_max_other_than_8_is_refused():
    """A model_type posenc does not know, read from its fields alone: attn_config's alibi_bias_max other than 8 gives
    other slopes in MosaicML's code, which posenc does not draw: refused, naming it."""
    config = {"model_type": "my_mpt", "d_model": 48, "n_heads": 12, "n_layers": 1, "max_seq_len": 12,
              "attn_config": {"alibi": True, "alibi_bias_max": 16}}
    with pytest.raises(ValueError, match="alibi_bias_max is 16"):
        from_config(config)
    assert from_config(config | {"attn_config": {"alibi": True}}).positional("full_attention").scheme == "alibi"


def test_falcon_reads_its_top_level_alibi_only():
    """FalconConfig reads ``alibi`` at its top level (transformers 5.23): an attn_config's is not its field, and its
    model rotates. posenc read Falcon with attn_config.alibi true as ALiBi."""
    config = {"model_type": "falcon", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 1,
              "vocab_size": 20, "attn_config": {"alibi": True}}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config))
    assert not built.config.alibi and built.rotary_emb is not None
    assert from_config(config).positional("full_attention").scheme == "rope"


@pytest.mark.parametrize("model_type", [key for key, family in FAMILIES.items() if family.rotary_dim])
def test_a_class_that_rotates_rotary_dim_rotates_adjacent_pairs_of_it(model_type):
    """GPT-J and CodeGen (transformers 5.23, the oracle: their create_sinusoidal_positions and rotate_every_two)
    rotate the first rotary_dim dimensions of a head in adjacent pairs, θ_i = 10000^(−2i/rotary_dim). posenc read a
    CodeGen config as a Llama-style decoder: the whole head, in halves."""
    module = importlib.import_module(f"transformers.models.{model_type}.modeling_{model_type}")
    config = {"model_type": model_type, "n_embd": 256, "n_head": 4, "n_layer": 2, "n_positions": 2048, "rotary_dim": 32}
    positional = from_config(config).positional("full_attention")
    assert (positional.rotary_dims, positional.head_dim, positional.options["layout"]) == (32, 64, "interleaved")
    table = module.create_sinusoidal_positions(2, 32).double().numpy()  # (2, rotary_dim): sin, then cos
    got, _ = rope_inv_freq(from_config(config))
    np.testing.assert_allclose(np.sin(got), table[1, :16], rtol=1e-6)
    pair = torch.tensor([[[[1.0, 2.0, 3.0, 4.0]]]])
    assert module.rotate_every_two(pair).tolist() == [[[[-2.0, 1.0, -4.0, 3.0]]]]  # adjacent pairs turn together


def test_a_model_type_posenc_does_not_know_reads_its_nested_parameters_as_written():
    """posenc cannot say how an unknown class reads parameters nested by layer type (in transformers 5.23 some read
    them per layer type, others as one flat dict): it reads them as written, and the check claims nothing of the class
    beyond what the unknown-family note says."""
    from posenc.models import check

    config = {"model_type": "glm4v_moe_text", **SIZES, "head_dim": 64, "max_position_embeddings": 4096,
              "rope_theta": 1e4,
              "layer_types": ["full_attention"] * 6,
              "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0}}}
    positional = from_config(config).positional("full_attention")
    assert positional.options["rope_type"] == "linear" and positional.options["factor"] == 8.0
    assert [f.field for f in check(config)] == ["model_type"]


def test_falcon_with_alibi_reads_as_alibi_with_its_slopes_to_bfloat16_rounding():
    """FalconConfig's "alibi": true (transformers 5.23, the oracle: Falcon's build_alibi_tensor) gives BLOOM's slopes
    rounded to bfloat16 (its code calls .bfloat16() on them: 2^(−1/2) is 0.70703125 there); posenc draws them exact,
    within bfloat16's unit roundoff 2^−8 of Falcon's. Without it, Falcon rotates (θ 10,000, 2,048 positions)."""
    from transformers.models.falcon.modeling_falcon import build_alibi_tensor

    from posenc.schemes.alibi import alibi_slopes

    sizes = {"model_type": "falcon", "hidden_size": 384, "num_attention_heads": 12, "num_hidden_layers": 2}
    model = from_config(sizes | {"alibi": True})
    (positional,) = model.positionals.values()
    assert (positional.scheme, positional.options["num_heads"], model.context_length) == ("alibi", 12, 2048)
    bias = build_alibi_tensor(torch.ones(1, 3), 12, torch.float32).reshape(12, 3).double().numpy()
    np.testing.assert_allclose(alibi_slopes(12), bias[:, 1] - bias[:, 0], rtol=2.0**-8)
    assert not np.allclose(alibi_slopes(12), bias[:, 1] - bias[:, 0], rtol=1e-6)  # rounded: not float32's slopes
    rotary = from_config(sizes).positional("full_attention")
    assert (rotary.scheme, rotary.base) == ("rope", 10_000.0)
    computes_as(from_config(sizes), hf_rotary(transformers.AutoConfig.for_model(**sizes)))


@pytest.mark.parametrize(("pad_token_id", "buckets"), [(1, 32), (3, 32), (1, 64)])
def test_mpnet_adds_a_learned_table_and_draws_t5_s_buckets_as_its_model_computes_them(pad_token_id, buckets):
    """MPNet (all-mpnet-base-v2's) adds a learned table to its embeddings, as RoBERTa does but from position 2 whatever
    pad_token_id says (its code fixes its padding index at 1), and a bias shared by every layer from T5's bidirectional buckets, computed with 32 buckets out to 128 whatever
    relative_attention_num_buckets says (it sizes only the bias's embedding). The oracle: a one-layer model of
    transformers 5.23, the longest input it runs and its own ``relative_position_bucket``. posenc read such a config
    as T5's buckets alone, over max_position_embeddings tokens (514 for all-mpnet-base-v2, which runs 512) and the
    file's count of buckets."""
    config = {"model_type": "mpnet", **_BERT_SIZES, "pad_token_id": pad_token_id,
              "relative_attention_num_buckets": buckets}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config)).eval()

    def runs(length: int) -> bool:
        try:
            with torch.no_grad():
                built(input_ids=torch.full((1, length), 5))
        except IndexError:
            return False
        return True

    model = from_config(config)
    positional = model.positional("full_attention")
    assert runs(model.context_length) and not runs(model.context_length + 1)
    assert model.context_length == 12 - 2
    assert not model.causal and len(model.layer_types) == 1 and positional.head_dim == 8
    relative = torch.arange(-300, 301)
    expected = built.encoder.relative_position_bucket(relative).numpy()
    options = positional.options
    assert (positional.scheme, options["num_buckets"], options["max_distance"]) == ("t5", 32, 128)
    np.testing.assert_array_equal(posenc.t5_relative_bucket(relative.numpy(), bidirectional=True, num_buckets=32,
                                                            max_distance=128), expected)
    table = built.embeddings.position_embeddings.weight
    assert positional.extra["added_table"] == table.shape[0] == 12
    assert positional.extra["first_position"] == 2


def test_mpnet_with_fewer_than_32_buckets_is_refused_as_its_model_fails():
    """MPNet's code computes 32 buckets whatever relative_attention_num_buckets says: with fewer, its bias embedding
    has no row for the last ones, and transformers 5.23's model raises an index error on any input."""
    config = {"model_type": "mpnet", **_BERT_SIZES, "relative_attention_num_buckets": 16}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config)).eval()
    with pytest.raises(IndexError), torch.no_grad():
        built(input_ids=torch.full((1, 4), 5))
    with pytest.raises(ValueError, match="relative_attention_num_buckets is 16: MPNetConfig's model computes 32"):
        from_config(config)


def test_whisper_s_encoder_adds_its_sinusoids_to_exactly_max_source_positions_frames():
    """Whisper (the oracle: transformers 5.23's one-layer model) adds to its encoder's frames the rows of a fixed table
    of sinusoids, sines before cosines, spread from 1 to 1/10000 over d/2 − 1 steps (posenc's tensor2tensor spacing),
    one row for each of exactly max_source_positions frames: its encoder refuses mel features of any other length
    than twice that (its two convolutions halve them). posenc refused its config (no positional field)."""
    config = {"model_type": "whisper", "d_model": 16, "encoder_attention_heads": 2, "decoder_attention_heads": 2,
              "encoder_layers": 1, "decoder_layers": 1, "encoder_ffn_dim": 16, "decoder_ffn_dim": 16,
              "vocab_size": 12, "num_mel_bins": 4, "max_source_positions": 12, "max_target_positions": 8,
              "pad_token_id": 0, "decoder_start_token_id": 1}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config)).eval()
    encoder = built.get_encoder()
    with torch.no_grad():
        encoder(input_features=torch.zeros(1, 4, 24))
        for frames in (22, 26):
            with pytest.raises(ValueError, match="Whisper expects the mel input features to be of length 24"):
                encoder(input_features=torch.zeros(1, 4, frames))
    model = from_config(config)
    positional = model.positional("full_attention")
    assert (positional.scheme, positional.options["layout"], positional.options["spacing"]) == (
        "sinusoidal", "split", "tensor2tensor")
    table = posenc.get_scheme("sinusoidal").table(12, 16, positional.base, **positional.options)
    np.testing.assert_allclose(encoder.embed_positions.weight.double().numpy(), table, atol=2e-6)
    assert model.context_length == 12 and not model.causal and len(model.layer_types) == 1
    assert positional.head_dim == 8 and positional.extra["model_width"] == 16
    assert positional.extra["table_rows"] == 12 and positional.extra["exact_length"] == 12


@pytest.mark.parametrize("radius", [3, 6, 15])
def test_longt5_s_local_attention_sees_local_radius_keys_either_side_as_its_model_does(radius):
    """LongT5's encoder with local attention (its class's default) attends to the keys within local_radius of each
    query, both ways, with T5's buckets: the oracle is a one-layer encoder of transformers 5.23, whose output at token i
    changes with token j exactly where posenc's mask sees j from i (from local_radius 15 on, in a context of 16 tokens,
    every key: read as full attention). posenc read it as T5's buckets over full attention (a model_type it did not know).
    Transient-global attention (each token also sees every block's summary) is refused, naming the field."""
    config = {"model_type": "longt5", "d_model": 16, "d_kv": 8, "num_heads": 2, "num_layers": 1, "d_ff": 16,
              "vocab_size": 20, "local_radius": radius, "n_positions": 16}
    built = transformers.LongT5EncoderModel(transformers.AutoConfig.for_model(**config)).eval()
    model = from_config(config)
    layer = model.layer_types[0]
    assert layer == ("full_attention" if radius >= 15 else "sliding_attention") and not model.causal
    positional = model.positional(layer)
    assert (positional.scheme, positional.options["num_buckets"], positional.options["max_distance"]) == ("t5", 32, 128)
    assert positional.options["direction"] == "bidirectional" and positional.head_dim == 8
    np.testing.assert_array_equal(_dependencies(built, 16), models.attention_mask(model, layer, 16))
    with pytest.raises(ValueError, match="encoder_attention_type is 'transient-global'"):
        from_config(config | {"encoder_attention_type": "transient-global"})


def test_pix2struct_s_text_decoder_attends_causally_with_t5_s_one_way_buckets():
    """Pix2Struct's text model (DePlot's, MatCha's) is a decoder: each token sees the tokens before it, with T5's
    buckets counted one way (its compute_bias passes bidirectional=False whatever the config says). The oracle is a
    one-layer model of transformers 5.23: its bias for every query and key is its embedding's row at posenc's bucket,
    and its output at token i changes with token j exactly where posenc's causal mask sees j. posenc read it as T5's
    buckets both ways (a model_type it did not know). With is_decoder false it attends both ways with one-way
    buckets, which posenc's T5 does not draw (refused); its vision encoder, whose positions are learned rows and
    columns of patches and which never reads relative_attention_num_buckets, is refused too (posenc read it as T5's
    buckets)."""
    config = {"model_type": "pix2struct_text_model", "hidden_size": 16, "d_kv": 8, "num_heads": 2, "num_layers": 1,
              "d_ff": 16, "vocab_size": 20, "initializer_range": 0.02}  # (its model fails to build without it)
    built = transformers.Pix2StructTextModel(transformers.AutoConfig.for_model(**config)).eval()
    model = from_config(config)
    positional = model.positional("full_attention")
    assert model.causal and positional.options["direction"] == "causal" and positional.head_dim == 8
    assert (positional.options["num_buckets"], positional.options["max_distance"]) == (32, 128)
    attention = built.layer[0].self_attention.attention
    with torch.no_grad():
        bias = attention.compute_bias(200, 200)[0, 0].numpy()  # head 0, (queries, keys)
        table = attention.relative_attention_bias.weight[:, 0].numpy()
    offsets = np.arange(200)[None, :] - np.arange(200)[:, None]
    np.testing.assert_array_equal(bias, table[posenc.t5_relative_bucket(offsets, bidirectional=False)])

    def logits(tokens):
        return built(input_ids=tokens).logits[0]

    tokens = torch.arange(3, 11)[None]
    with torch.no_grad():
        base = logits(tokens)
        depends = np.zeros((8, 8), dtype=bool)
        for j in range(8):
            changed = tokens.clone()
            changed[0, j] = 2
            depends[:, j] = (logits(changed) != base).any(-1).numpy()
    np.testing.assert_array_equal(depends, models.attention_mask(model, "full_attention", 8))
    with pytest.raises(ValueError, match="is_decoder is false"):
        from_config(config | {"is_decoder": False})
    with pytest.raises(ValueError, match="Pix2StructVisionConfig"):
        from_config({"model_type": "pix2struct_vision_model", "hidden_size": 768, "num_attention_heads": 12,
                     "num_hidden_layers": 12, "relative_attention_num_buckets": 32})


@pytest.mark.parametrize("model_type", ["t5", "mt5", "umt5", "pop2piano", "switch_transformers"])
def test_t5_s_kin_add_t5_s_buckets_both_ways_in_their_encoders(model_type):
    """T5's kin (mT5, UMT5, whose every layer learns its own bias, Pop2Piano, Switch Transformers) add to their
    encoder's logits a bias from T5's buckets, counted both ways: the oracle is a one-layer model of transformers 5.23,
    whose first layer's bias for every query and key is its embedding's row at posenc's bucket. posenc read their
    configs as a model_type it did not know (T5's buckets, none of its class's defaults)."""
    sizes = {"d_model": 16, "d_kv": 8, "num_heads": 2, "num_layers": 1, "num_decoder_layers": 1, "d_ff": 16,
             "vocab_size": 20, **({"num_experts": 2} if model_type == "switch_transformers" else {})}
    config = transformers.AutoConfig.for_model(model_type, **sizes)
    built = (transformers.Pop2PianoForConditionalGeneration(config) if model_type == "pop2piano" else
             transformers.AutoModel.from_config(config)).get_encoder().eval()
    attention = built.block[0].layer[0].SelfAttention
    with torch.no_grad():
        bias = attention.compute_bias(200, 200)[0, 0].numpy()
    table = attention.relative_attention_bias.weight[:, 0].detach().numpy()
    model = from_config({"model_type": model_type, **sizes})
    positional = model.positional("full_attention")
    options = positional.options
    offsets = np.arange(200)[None, :] - np.arange(200)[:, None]
    buckets = posenc.t5_relative_bucket(offsets, bidirectional=options["direction"] == "bidirectional",
                                        num_buckets=options["num_buckets"], max_distance=options["max_distance"])
    np.testing.assert_array_equal(bias, table[buckets])
    assert not model.causal and positional.head_dim == 8 and options["num_heads"] == 2
    assert f"({type(config).__name__})" in model.source


@pytest.mark.parametrize("model_type", ["gte", "jina_embeddings_v3", "nomic_bert", "eurobert", "esmc"])
def test_rotary_encoders_attend_both_ways_as_their_models_do(model_type):
    """GTE, Jina Embeddings v3, Nomic BERT and EuroBERT (text encoders) and ESM C (proteins) rotate like Llama but attend both
    ways: the oracle is a one-layer model of transformers 5.23 built from the class's own defaults, whose output at
    token i changes with token j exactly where posenc's mask sees j (every j). posenc read them as Llama-style
    decoders (a model_type it did not know): causal, so a token was drawn blind to the tokens after it. Their rotation
    is each model's own (test_model_rope.py's oracle, which runs every family posenc knows)."""
    sizes = {"hidden_size": 32, "num_attention_heads": 2, "num_key_value_heads": 2, "head_dim": 16,
             "num_hidden_layers": 1, "intermediate_size": 32, "vocab_size": 40, "pad_token_id": 0}
    oracle = transformers.AutoConfig.for_model(model_type, **sizes)
    built = transformers.AutoModel.from_config(oracle).eval()
    model = from_config(json.loads(oracle.to_json_string()))
    assert not model.causal and f"({type(oracle).__name__})" in model.source
    np.testing.assert_array_equal(_dependencies(built, 8), models.attention_mask(model, "full_attention", 8))


@pytest.mark.parametrize("model_type", ["embedding_gemma2_text", "ultrabert", "neomme"])
def test_encoders_posenc_cannot_read_are_refused_not_drawn_causal(model_type):
    """EmbeddingGemma 2, UltraBERT and NeoMME attend both ways (the oracle: a one-layer model of transformers 5.23,
    whose first token's output changes with the last) in layers whose widths or windows posenc does not read (NeoMME:
    windows of two widths alternating over its sliding-window layers, in per_layer_config): refused, naming the class.
    posenc read them as causal Llama-style decoders."""
    sizes = {"hidden_size": 32, "num_attention_heads": 2, "num_key_value_heads": 2, "head_dim": 16,
             "num_hidden_layers": 1, "intermediate_size": 32, "vocab_size": 40}
    oracle = transformers.AutoConfig.for_model(model_type, **sizes)
    built = transformers.AutoModel.from_config(oracle).eval()
    torch.manual_seed(0)
    with torch.no_grad():  # weights drawn at random: NeoMME's output projections start at zero
        for weights in built.parameters():
            weights.normal_(0.0, 0.5)
    assert _dependencies(built, 6)[0, -1]
    with pytest.raises(ValueError, match=f"posenc does not draw {type(oracle).__name__}'s positions: it attends both"):
        from_config(json.loads(oracle.to_json_string()))


def test_a_recurrent_model_is_refused():
    """RecurrentGemma (transformers 5.23, the oracle: a built model's blocks) is two recurrent blocks for every
    local-attention one: refused, naming the class, where posenc read its file as a Llama-style decoder (or failed on
    its missing context, saying nothing of why)."""
    oracle = transformers.AutoConfig.for_model("recurrent_gemma", hidden_size=32, num_attention_heads=2,
                                               num_hidden_layers=3, intermediate_size=32, vocab_size=40,
                                               lru_width=32)
    built = transformers.AutoModel.from_config(oracle)
    assert [type(layer.temporal_block).__name__ for layer in built.layers] == [
        "RecurrentGemmaRecurrentBlock", "RecurrentGemmaRecurrentBlock", "RecurrentGemmaAttention"]
    saved = json.loads(oracle.to_json_string(use_diff=False))
    for config in (saved, saved | {"max_position_embeddings": 8192}):
        with pytest.raises(ValueError, match="posenc does not draw RecurrentGemmaConfig's positions: most of its "
                                             "blocks are recurrent"):
            from_config(config)


def test_a_model_whose_queries_keep_only_the_keys_a_learned_mask_ranks_is_refused():
    """Doge (transformers 5.23, the oracle: its attentions on 12 tokens with keep_window_size 4) lets each query
    attend only to the 4 keys its dynamic mask ranks highest once the input is longer than that: the last query
    weighs 4 of its 12 keys, not all. posenc read it as a Llama-style decoder, attending to every earlier key."""
    sizes = {"hidden_size": 32, "num_attention_heads": 2, "num_key_value_heads": 2, "num_hidden_layers": 1,
             "intermediate_size": 32, "vocab_size": 40, "keep_window_size": 4, "rope_theta": 10_000.0}
    oracle = transformers.AutoConfig.for_model("doge", **sizes)
    built = transformers.AutoModel.from_config(oracle, attn_implementation="eager").eval()
    with torch.no_grad():
        attentions = built(input_ids=torch.arange(3, 15)[None], output_attentions=True).attentions
    assert int((attentions[0][0, 0, -1] > 0).sum()) == 4
    with pytest.raises(ValueError, match="posenc does not draw DogeConfig's positions: beyond keep_window_size"):
        from_config({"model_type": "doge", **sizes})


@pytest.mark.parametrize("per_stack", [None, 2])
def test_a_model_whose_layers_run_in_cycles_is_refused(per_stack):
    """HRM's text model (transformers 5.23, the oracle: its attentions on 8 tokens) passes one stack of layers
    through H_cycles × (L_cycles + 1) times, each pass an attention of its own: a file of 2 layers without
    num_layers_per_stack attends 16 times, and one that gives it reads num_hidden_layers as the passes. posenc read
    it as a Llama-style decoder of num_hidden_layers layers: refused, naming the class."""
    sizes = {"hidden_size": 32, "num_attention_heads": 2, "head_dim": 16, "num_hidden_layers": 2,
             "intermediate_size": 32, "vocab_size": 40, "H_cycles": 2, "L_cycles": 3}
    oracle = transformers.AutoConfig.for_model("hrm_text", **sizes | (
        {"num_layers_per_stack": per_stack, "num_hidden_layers": 16} if per_stack else {}))
    built = transformers.AutoModel.from_config(oracle, attn_implementation="eager").eval()
    with torch.no_grad():
        attentions = built(input_ids=torch.arange(3, 11)[None], output_attentions=True).attentions
    assert len(attentions) == 16
    saved = json.loads(oracle.to_json_string(use_diff=False))
    for config in (saved, {**sizes, "model_type": "hrm_text", "rope_theta": 10_000.0}):
        with pytest.raises(ValueError, match="posenc does not draw HrmTextConfig's positions: its layers run in "
                                             "cycles"):
            from_config(config)


_SCALED = {  # one small config of each way a class scales q·k before its softmax (transformers 5.23)
    "llama": {"model_type": "llama", "hidden_size": 32, "num_attention_heads": 2, "num_hidden_layers": 1,
              "intermediate_size": 16, "vocab_size": 20},  # 1/√(head_dim)
    "gemma3_text": {"model_type": "gemma3_text", "hidden_size": 32, "num_attention_heads": 2, "head_dim": 16,
                    "num_hidden_layers": 1, "intermediate_size": 16, "vocab_size": 20,
                    "query_pre_attn_scalar": 64},  # 1/√(query_pre_attn_scalar)
    "gemma3n_text": _GEMMA_3N | {"num_hidden_layers": 1, "layer_types": ["full_attention"]},  # unscaled
    "gemma4_text": _GEMMA_4,  # unscaled
    "t5": {"model_type": "t5", "d_model": 16, "d_kv": 8, "num_heads": 2, "num_layers": 1, "d_ff": 16,
           "vocab_size": 20},  # unscaled
    "longt5": {"model_type": "longt5", "d_model": 16, "d_kv": 8, "num_heads": 2, "num_layers": 1, "d_ff": 16,
               "vocab_size": 20, "local_radius": 4, "encoder_attention_type": "local"},  # unscaled
    "mpnet": {"model_type": "mpnet", **_BERT_SIZES, "max_position_embeddings": 20},  # 1/√(head_dim), beside buckets
    "bert": {"model_type": "bert", **_BERT_SIZES},
    "mobilebert": {"model_type": "mobilebert", **_BERT_SIZES, "hidden_size": 32, "embedding_size": 8,
                   "intra_bottleneck_size": 16},  # its heads split intra_bottleneck_size: 1/√8
    **{f"{model_type}{label}": {"model_type": model_type, "hidden_size": 32, "num_attention_heads": 2,
                                "num_hidden_layers": 1, "intermediate_size": 16, "vocab_size": 20, **multiplier}
       for model_type in ("granite", "granitemoe", "granitemoeshared", "hyperclovax")
       for label, multiplier in (("", {}), (" (1/d)", {"attention_multiplier": 1 / 16}))},  # granite-3's: 1/d
    "granite_swa (1/d)": {"model_type": "granite_swa", "hidden_size": 32, "num_attention_heads": 2,
                          "num_hidden_layers": 1, "intermediate_size": 16, "vocab_size": 20,
                          "attention_multiplier": 1 / 16},
    **{f"{model_type} (YaRN with mscale_all_dim)": {  # 1/√(head_dim): only DeepSeek's kin take mscale² into it
        "model_type": model_type, "hidden_size": 32, "num_attention_heads": 2, "num_hidden_layers": 1,
        "intermediate_size": 16, "vocab_size": 20, "max_position_embeddings": 128,
        "rope_parameters": {"rope_type": "yarn", "rope_theta": 10_000.0, "factor": 4.0, "mscale": 1.0,
                            "mscale_all_dim": 1.0, "original_max_position_embeddings": 32}}
       for model_type in ("llama", "qwen2")},
    "ministral3 (YaRN with mscale_all_dim, as its files)": {  # 1/√(head_dim), as Llama's
        "model_type": "ministral3", "hidden_size": 32, "num_attention_heads": 2, "head_dim": 16,
        "num_hidden_layers": 1, "intermediate_size": 16, "vocab_size": 20, "max_position_embeddings": 128,
        "rope_parameters": {"rope_type": "yarn", "rope_theta": 10_000.0, "factor": 16.0, "mscale": 1.0,
                            "mscale_all_dim": 1.0, "original_max_position_embeddings": 8, "beta_fast": 32.0,
                            "beta_slow": 1.0, "llama_4_scaling_beta": 0.1}},
}


@pytest.mark.parametrize("model_type", list(_SCALED))
def test_the_softmax_s_scale_is_the_one_its_model_applies(model_type):
    """The factor a model multiplies q·k by before its softmax: 1/√softmax_dim, or 1 where softmax_dim is None. The
    oracle is the first self-attention module of the class's model (transformers 5.23): its ``scaling``, or, in the
    classes that divide by √attention_head_size in their code (MPNet), that width. posenc said MPNet's q·k went
    unscaled (it is T5-style buckets' model, but it divides as BERT does), gave Gemma 3n and Gemma 4, which take q·k
    unscaled, their head width, and gave MobileBERT's heads a quarter of hidden_size where its heads split
    intra_bottleneck_size (use_bottleneck: its true_hidden_size). Granite's classes and HyperCLOVA X multiply q·k by
    attention_multiplier (Granite's default 1; granite-3's files 1/head_dim; HyperCLOVA X's default 1/√head_dim):
    posenc said 1/√head_dim. Llama, Qwen2 and Ministral 3 (whose released files give YaRN with mscale_all_dim) keep
    1/√head_dim under YaRN with mscale_all_dim: posenc multiplied it by mscale² (Ministral 3's: 1.63×), as DeepSeek's
    kin do (their own tests: DeepSeek-V2, LongCat-Flash, MiniCPM3, Mistral 4)."""
    config = _SCALED[model_type]
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config), attn_implementation="eager")
    attention = next(module for name, module in built.named_modules()
                     if hasattr(module, "scaling") or hasattr(module, "attention_head_size"))
    model = from_config(config)
    assert models.softmax_scale(model) == pytest.approx(softmax_scale_of(built), rel=1e-12)
    width = (getattr(attention, "head_dim", None) or getattr(attention, "attention_head_size", None)
             or attention.key_value_proj_dim)  # T5's
    assert model.positional(model.layer_types[0]).head_dim == width


@pytest.mark.parametrize("given", [None, 0.5, 1 / 8], ids=["null", "1/2", "1/head_dim"])
def test_mpt_multiplies_q_k_by_its_attn_config_s_softmax_scale(given):
    """MPT multiplies q·k by its attn_config's softmax_scale, 1/√head_dim where it is null (transformers 5.23; the
    oracle: its model's attention, its softmax_scale); posenc said 1/√head_dim whatever the file gave."""
    config = {"model_type": "mpt", "d_model": 16, "n_heads": 2, "n_layers": 1, "vocab_size": 20, "max_seq_len": 32,
              "attn_config": {"alibi": True, "softmax_scale": given}}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config))
    assert models.softmax_scale(from_config(config)) == pytest.approx(softmax_scale_of(built), rel=1e-12)
    assert softmax_scale_of(built) == pytest.approx(given or 8 ** -0.5, rel=1e-12)


def test_granite_docling_s_text_model_multiplies_q_k_by_its_own_default():
    """GraniteDoclingTextConfig's attention_multiplier defaults to 1/64 (transformers 5.23, the oracle: its text
    model's attention scaling, read from the composite config as from_pretrained reads it); posenc had no record of
    granite_docling_text and said 1/√head_dim."""
    from transformers.models.granite_docling.modeling_granite_docling import GraniteDoclingTextModel

    config = {"model_type": "granite_docling", "text_config": {
        "model_type": "granite_docling_text", "hidden_size": 32, "num_attention_heads": 2, "num_hidden_layers": 1,
        "intermediate_size": 16, "vocab_size": 20, "pad_token_id": 0}, "vision_config": {"out_hidden_size": 32}}
    text = transformers.AutoConfig.for_model(**json.loads(json.dumps(config))).text_config
    built = GraniteDoclingTextModel(text)
    model = from_config(config)
    assert models.softmax_scale(model) == built.layers[0].self_attn.scaling == 1 / 64
    assert model.positional("full_attention").head_dim == built.layers[0].self_attn.head_dim == 16


def test_gpt_neo_takes_q_k_unscaled_as_its_model_does():
    """GPT-Neo's attention multiplies q·k by nothing (its _attn: query @ keyᵀ, in float32), where posenc said 1/√head_dim.
    The oracle is its model's attention weights (transformers 5.23, eager; a global and a local layer on 8 tokens),
    q and k taken from its projections by hooks, the factor found from the logits' differences."""
    config = {"model_type": "gpt_neo", **_OWN_SIZES["gpt_neo"]}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config),
                                               attn_implementation="eager").eval()
    model = from_config(config)
    seen = {}
    for layer, kind in zip(built.h, model.layer_types, strict=True):
        attention = layer.attn.attention
        hooks = [attention.q_proj.register_forward_hook(lambda module, args, out: seen.__setitem__("q", out)),
                 attention.k_proj.register_forward_hook(lambda module, args, out: seen.__setitem__("k", out))]
        with torch.no_grad():
            weights = attention(torch.randn(1, 8, 16, generator=torch.Generator().manual_seed(1)))[1]
        for hook in hooks:
            hook.remove()
        head = attention.head_dim
        factor = fitted_scale(weights[0, 0], seen["q"][0, :, :head], seen["k"][0, :, :head])
        assert factor == pytest.approx(models.softmax_scale(model), rel=1e-4), kind  # (float32 logits)
    assert models.softmax_scale(model) == 1.0


@pytest.mark.parametrize("key_multiplier", [None, 0.390625, 2.0], ids=["its default", "a file's", "above 1"])
def test_falcon_h1_s_softmax_scale_counts_the_key_multiplier(key_multiplier):
    """Falcon-H1 multiplies every key by its key_multiplier (1 by default; 0.390625 in Falcon-H1's files) before q·k,
    so q·k of what its projections give is multiplied by key_multiplier/√head_dim: posenc said 1/√head_dim. The
    oracle is its attention's own weights (transformers 5.23, eager): its module run on 6 random tokens without a
    mask and without a rotation (cos 1, sin 0), q and k taken from its projections by hooks, the factor found from
    the logits' differences, log w_ij − log w_i0 = s·(q_i·k_j − q_i·k_0)."""
    config = {"model_type": "falcon_h1", "hidden_size": 32, "num_attention_heads": 2, "num_key_value_heads": 2,
              "num_hidden_layers": 1, "intermediate_size": 16, "vocab_size": 20, "mamba_d_ssm": 64,
              "mamba_n_heads": 4, "mamba_d_state": 16, "mamba_chunk_size": 16, "max_position_embeddings": 64}
    if key_multiplier is not None:
        config["key_multiplier"] = key_multiplier
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config),
                                               attn_implementation="eager").eval()
    attention = built.layers[0].self_attn
    seen = {}
    attention.q_proj.register_forward_hook(lambda module, args, out: seen.__setitem__("q", out))
    attention.k_proj.register_forward_hook(lambda module, args, out: seen.__setitem__("k", out))
    hidden = torch.randn(1, 6, 32, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    identity = (torch.ones(1, 6, 16, dtype=torch.float64), torch.zeros(1, 6, 16, dtype=torch.float64))
    with torch.no_grad():
        _, weights = attention.double()(hidden, identity, None)
    factor = fitted_scale(weights[0, 0], seen["q"][0, :, :16], seen["k"][0, :, :16])  # head 0, its key head 0
    model = from_config(config)
    assert models.softmax_scale(model) == pytest.approx(factor, rel=1e-5)  # (its softmax runs in float32)
    assert models.softmax_scale(model) == pytest.approx((key_multiplier or 1.0) / 4, rel=1e-12)


@pytest.mark.parametrize("model_type", ["musicflamingo", "qwen3_vl", "gemma3", "llava", "mistral3"])
def test_a_composite_config_s_top_level_is_not_its_language_model_s(model_type):
    """transformers 5.23 builds a composite model's language model from text_config alone: a positional field at the
    top level is never read by it (the oracle: the class's text config, given a top-level θ and head width that
    text_config lacks; a scratch survey found the same for all 130 composite classes whose saved config has a
    text_config). MusicFlamingo's saved config holds its audio encoder's rotary fields there (rope_parameters at
    θ 1,200, head_dim 1,280): posenc read them as its Qwen2 language model's, heads of 1,280. The check names each."""
    saved = json.loads(transformers.AutoConfig.for_model(model_type).to_json_string(use_diff=False))
    text = {key: value for key, value in saved["text_config"].items()
            if key not in ("rope_parameters", "rope_theta", "rope_scaling", "head_dim")}
    given = {**saved, "text_config": text, "rope_parameters": {"rope_type": "default", "rope_theta": 12_345.0},
             "head_dim": 8}
    oracle = transformers.AutoConfig.for_model(**json.loads(json.dumps(given))).get_text_config()
    model, alone = from_config(given), from_config(text)
    assert model.layer_types == alone.layer_types and model.positionals == alone.positionals
    for layer_type, positional in model.positionals.items():
        parameters = oracle.rope_parameters.get(layer_type, oracle.rope_parameters)
        assert positional.base == parameters["rope_theta"] != 12_345.0
        assert positional.head_dim == (getattr(oracle, "head_dim", None)
                                       or oracle.hidden_size // oracle.num_attention_heads) != 8
    named = {finding.field for finding in check(given) if "outside text_config" in finding.message}
    assert named == {"rope_parameters", "head_dim"} | ({"max_position_embeddings"} & set(saved) - set(text))


def _language_model_types() -> dict[str, str]:
    """transformers 5.23's own table: every composite model_type whose class builds its text_config by a type
    posenc has a record of (its ``sub_configs_defaults``), that type; composites that are families themselves
    (Qwen2-VL's, flat) left out."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING, CONFIG_MAPPING_NAMES

    types = {}
    for model_type in CONFIG_MAPPING_NAMES:
        spec = (getattr(CONFIG_MAPPING[model_type], "sub_configs_defaults", None) or {}).get("text_config")
        if spec is not None and spec.model_type in FAMILIES and model_type not in FAMILIES:
            types[model_type] = spec.model_type
    return types


def test_the_language_model_types_are_transformers_own():
    from posenc.models.config_file import TEXT_CONFIG_TYPES

    assert TEXT_CONFIG_TYPES == _language_model_types()


@pytest.mark.parametrize("model_type", sorted(_language_model_types()))
def test_a_text_config_without_its_model_type_is_read_as_its_class_builds_it(model_type):
    """A composite file whose text_config gives no model_type: transformers 5.23 builds the language model's config by
    the type the outer class names (LLaVA's: llama; Mistral 3's: mistral; Florence-2's: bart), the oracle being the
    class of the text config it builds (its sub_configs_defaults where the outer class refuses these sizes). posenc
    took the outer model_type, a family it had no record of: 70 such files read as Llama-style decoders, the rest
    refused (BLIP-2's OPT, Florence-2's BART: no positional field). Now read exactly as the file that names it."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    text_type = _language_model_types()[model_type]
    text = json.loads(CONFIG_MAPPING[text_type]().to_json_string(use_diff=False))
    named = {"model_type": model_type, "text_config": text}
    unnamed = {"model_type": model_type, "text_config": {k: v for k, v in text.items() if k != "model_type"}}
    try:
        built = type(transformers.AutoConfig.for_model(**json.loads(json.dumps(unnamed))).get_text_config()).__name__
    except Exception:  # noqa: BLE001 - an outer class that refuses these sizes (Gemma 4's assistant): its spec
        built = CONFIG_MAPPING[CONFIG_MAPPING[model_type].sub_configs_defaults["text_config"].model_type].__name__
    assert built == FAMILIES[text_type].class_name or not FAMILIES[text_type].class_name
    try:
        expected = from_config(named)
    except ValueError as error:  # (a class's own defaults posenc refuses, as its model fails on them: HunYuan-VL's)
        with pytest.raises(ValueError, match=re.escape(str(error)[:60])):
            from_config(unnamed)
        return
    assert from_config(unnamed) == expected


def _unnamed(model: models.Model) -> models.Model:
    """The model without its label and source, which name a composite's own type and its language model's."""
    return dataclasses.replace(model, label="", source="")


@pytest.mark.parametrize("model_type", sorted(set(_language_model_types()) - set(FOLDED_TEXT_FIELDS)))
def test_a_composite_file_without_a_text_config_is_read_as_its_class_builds_it(model_type):
    """A composite file that gives no text_config (or a null one), with a θ at its top level: transformers 5.23 builds
    the language model from its class's default text config, whatever the top level says (the oracle: that text
    config, written out whole). posenc read the top level, as a family it did not know: "not a family posenc knows",
    or the top-level θ as the language model's; then refused it where posenc held no default of a size the text
    model needs (Llama's). Now read as that default, its class's sizes and the fields the outer class sets in it
    (Mistral 3's 40 layers at θ 1,000,000,000: posenc.models.class_defaults): the same model as the oracle's file;
    the top-level θ named as outside it, never drawn. (Three classes fold a flat file's top level into their text
    config: the tests below.)"""
    top = {"rope_parameters": {"rope_type": "default", "rope_theta": 12_345.0}}
    try:
        oracle = transformers.AutoConfig.for_model(model_type, **copy.deepcopy(top)).get_text_config()
    except Exception:  # noqa: BLE001 - an outer class that refuses its own defaults (Gemma 4's assistant): no model
        return
    assert type(oracle).__name__ == FAMILIES[_language_model_types()[model_type]].class_name or not FAMILIES[
        _language_model_types()[model_type]].class_name
    assert (getattr(oracle, "rope_parameters", None) or {}).get("rope_theta") != 12_345.0
    for given in ({"model_type": model_type, **top}, {"model_type": model_type, "text_config": None, **top}):
        try:
            expected = from_config(json.loads(oracle.to_json_string(use_diff=False)))
        except ValueError as error:  # (a class's own defaults posenc refuses, as its model fails on them)
            with pytest.raises(ValueError, match=f"{re.escape(str(error)[:60])}|this file gives none"):
                from_config(given)
            continue
        assert _unnamed(from_config(given)) == _unnamed(expected)  # (named after the composite: "gemma3 config")
        assert "rope_parameters" in {f.field for f in check(given) if "outside text_config" in f.message}


@pytest.mark.parametrize("given", [{}, {"thinker_config": None}, {"thinker_config": {}},
                                   {"thinker_config": {"text_config": None}}], ids=["none", "null", "empty", "null text"])
@pytest.mark.parametrize("model_type", ["qwen2_5_omni", "qwen3_omni_moe"])
def test_a_thinker_s_file_without_its_text_config_is_read_as_its_class_builds_it(model_type, given):
    """Qwen2.5-Omni's and Qwen3-Omni's files with no thinker_config, or no text_config in it: transformers 5.23 builds
    the thinker's default text config, whatever the top level says (the oracle). posenc said the file had no positional
    field, of a model_type it did not know; now it reads that default as the oracle's file reads, or refuses it saying
    the file gives no thinker_config.text_config (posenc held no default of the text model's depth; now its class's
    sizes, posenc.models.class_defaults)."""
    from posenc.models.config_file import THINKER_TEXT_TYPES

    given = {"model_type": model_type, "max_position_embeddings": 777, **given}
    oracle = transformers.AutoConfig.for_model(**copy.deepcopy(given)).thinker_config.text_config
    assert type(oracle).__name__ == FAMILIES[THINKER_TEXT_TYPES[model_type]].class_name
    assert oracle.max_position_embeddings != 777
    try:
        expected = from_config(json.loads(oracle.to_json_string(use_diff=False)))
    except ValueError as error:  # (Qwen3-Omni's defaults: 73-wide heads, which its rotation cannot turn)
        with pytest.raises(ValueError, match=f"{re.escape(str(error)[:60])}|fields in thinker_config.text_config, "
                                             "and this file gives none"):
            from_config(given)
        return
    assert _unnamed(from_config(given)) == _unnamed(expected)


def test_the_classes_that_fold_a_flat_file_s_fields_into_their_text_config_are_transformers_own():
    """Of the composites posenc reads, those whose class builds its text config from the top level where the file
    gives no text_config (their Hub checkpoints are flat: Fuyu-8B's, PaddleOCR-VL's, HunyuanOCR's), with the fields
    each folds (transformers 5.23's ``__post_init__``: Fuyu's its Persimmon spec's, and θ; the others' all of them)."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    folding = set()
    for model_type in _language_model_types():
        try:
            built = transformers.AutoConfig.for_model(model_type, max_position_embeddings=777).get_text_config()
        except Exception:  # noqa: BLE001 - an outer class that refuses its own defaults (Gemma 4's assistant)
            continue
        if getattr(built, "max_position_embeddings", None) == 777:
            folding.add(model_type)
    assert set(FOLDED_TEXT_FIELDS) == folding == {"fuyu", "hunyuan_vl", "paddleocr_vl"}
    assert FOLDED_TEXT_FIELDS["fuyu"] == set(CONFIG_MAPPING["fuyu"].sub_configs_defaults["text_config"].init_kwargs
                                             ) | {"rope_scaling", "rope_theta"}


@pytest.mark.parametrize("model_type", sorted(FOLDED_TEXT_FIELDS))
def test_a_flat_file_is_read_as_its_class_folds_it(model_type):
    """A flat file of a class that folds its top level into its text config (the Hub's Fuyu-8B, PaddleOCR-VL,
    HunyuanOCR): read as the text config transformers 5.23 builds from it (the oracle, written out whole), with a θ,
    a context and a depth of the file's own. posenc read it as a model_type it did not know (a Llama-style decoder,
    none of its class's defaults: Fuyu's partial rotation, PaddleOCR-VL's sections)."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    text_type = _language_model_types()[model_type]
    flat = {**json.loads(CONFIG_MAPPING[text_type]().to_json_string(use_diff=False)), "model_type": model_type,
            "rope_theta": 12_345.0, "max_position_embeddings": 777, "num_hidden_layers": 3}
    flat.pop("rope_parameters", None)
    oracle = transformers.AutoConfig.for_model(**copy.deepcopy(flat)).get_text_config()
    assert oracle.max_position_embeddings == 777 and oracle.num_hidden_layers == 3
    assert oracle.rope_parameters["rope_theta"] == 12_345.0
    try:
        expected = from_config(json.loads(oracle.to_json_string(use_diff=False)))
    except ValueError as error:  # (HunyuanOCR's class keeps head_dim None: its model fails to build)
        with pytest.raises(ValueError, match=re.escape(str(error)[:60])):
            from_config(flat)
        return
    model = from_config(flat)
    assert model == expected and model.context_length == 777
    assert {positional.base for positional in model.positionals.values()} == {12_345.0}
    assert not [f for f in check(flat) if "outside text_config" in f.message or "does not know" in f.message]


def test_voxtral_realtime_s_text_config_takes_its_outer_class_s_fields():
    """VoxtralRealtimeConfig sets its text_config's fields the file leaves out from its own table, "for backward
    compatibility" (transformers 5.23, the oracle: the text config it builds): a window of 8,192 and θ 1,000,000 where
    its text model's class keeps 4,096. posenc read the text model's class's window."""
    saved = json.loads(transformers.AutoConfig.for_model("voxtral_realtime").to_json_string(use_diff=False))
    text = {key: value for key, value in saved["text_config"].items()
            if key not in ("sliding_window", "rope_theta", "rope_parameters", "head_dim")}
    given = {**saved, "text_config": text}
    oracle = transformers.AutoConfig.for_model(**json.loads(json.dumps(given))).text_config
    assert oracle.sliding_window == 8192 and oracle.rope_parameters["rope_theta"] == 1_000_000.0
    model = from_config(given)
    assert {positional.window for positional in model.positionals.values()} == {oracle.sliding_window}
    assert {positional.base for positional in model.positionals.values()} == {oracle.rope_parameters["rope_theta"]}
    assert {positional.head_dim for positional in model.positionals.values()} == {oracle.head_dim}


_MINISTRAL_3 = {"model_type": "ministral3", "hidden_size": 64, "num_attention_heads": 2, "num_key_value_heads": 1,
                "head_dim": 32, "num_hidden_layers": 1, "intermediate_size": 32, "vocab_size": 40, "pad_token_id": 0,
                "max_position_embeddings": 64,
                "rope_parameters": {"rope_type": "yarn", "rope_theta": 1_000_000.0, "factor": 4.0,
                                    "original_max_position_embeddings": 8, "beta_fast": 32.0, "beta_slow": 1.0,
                                    "mscale_all_dim": 1.0, "mscale": 1.0, "llama_4_scaling_beta": 0.1}}
"""A small Ministral 3 text model, its RoPE parameters of the kind Ministral3Config sets (YaRN, llama_4_scaling_beta),
its original context 8 tokens so that the query scale steps within 40."""


@pytest.mark.parametrize("given", ["its own", "the class's"])
def test_ministral_3_scales_each_query_by_its_position_as_its_model_does(given):
    """Ministral3Config's model (transformers 5.23) multiplies every rotated query at position p by
    1 + β·ln(1 + ⌊p/L₀⌋), β its RoPE parameters' llama_4_scaling_beta and L₀ their original_max_position_embeddings
    (the oracle: its modeling module's get_llama_4_attn_scale, with the values its config holds); a file without
    rope_parameters takes the class's (YaRN ×16 from 16,384 at θ 1,000,000, β 0.1), whatever its rope_theta says
    (its rotary embedding: the rotary families' tests). posenc had no record of ministral3: it read such a file at
    θ 10,000 without scaling, and no query scale."""
    from transformers.models.ministral3 import modeling_ministral3

    config = _MINISTRAL_3 if given == "its own" else {
        key: value for key, value in _MINISTRAL_3.items() if key != "rope_parameters"} | {"rope_theta": 20_000.0}
    oracle = transformers.AutoConfig.for_model(**json.loads(json.dumps(config)))
    positions = np.arange(0, 40_000, 7) if given == "the class's" else np.arange(40)
    expected = modeling_ministral3.get_llama_4_attn_scale(
        torch.from_numpy(positions)[None], oracle.rope_parameters["llama_4_scaling_beta"],
        oracle.rope_parameters["original_max_position_embeddings"])[0, 0, :, 0].double().numpy()
    model = from_config(config)
    np.testing.assert_allclose(models.query_scale(model, positions), expected, rtol=1e-6)
    assert model.positional("full_attention").base == oracle.rope_parameters["rope_theta"]


def test_ministral_3_without_its_query_scale_s_beta_is_an_error():
    """Ministral3's attention reads llama_4_scaling_beta and original_max_position_embeddings from its RoPE
    parameters at every forward pass: a file whose rope_parameters lack either fails at the first (the oracle: a
    one-layer model's forward pass, transformers 5.23). The check said nothing of it."""
    parameters = {key: value for key, value in _MINISTRAL_3["rope_parameters"].items() if key != "llama_4_scaling_beta"}
    config = _MINISTRAL_3 | {"rope_parameters": parameters}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))))
    with pytest.raises(TypeError), torch.no_grad():
        built(input_ids=torch.tensor([[3, 4, 5]]))
    errors = [finding for finding in check(config) if finding.severity == "error"]
    assert [finding.field for finding in errors] == ["rope_parameters.llama_4_scaling_beta"]
    assert "fails at its first forward pass" in errors[0].message


_MISTRAL_4 = {"model_type": "mistral4", "hidden_size": 64, "num_attention_heads": 2, "num_key_value_heads": 2,
              "num_hidden_layers": 1, "intermediate_size": 32, "moe_intermediate_size": 16, "n_routed_experts": 2,
              "num_experts_per_tok": 1, "vocab_size": 40, "pad_token_id": 0, "kv_lora_rank": 16, "q_lora_rank": 16,
              "qk_rope_head_dim": 16, "qk_nope_head_dim": 16, "v_head_dim": 16, "max_position_embeddings": 64}
"""A small Mistral 4 (DeepSeek's multi-head latent attention: 16 of each 32-wide query-key head rotate)."""


def _mistral_4_runs(config: dict) -> bool:
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))),
                                               attn_implementation="eager").eval()
    try:
        with torch.no_grad():
            built(input_ids=torch.tensor([[3, 4, 5, 6]]))
    except (RuntimeError, TypeError):
        return False
    return True


_YARN = {"rope_type": "yarn", "rope_theta": 10_000.0, "factor": 4.0, "original_max_position_embeddings": 16,
         "llama_4_scaling_beta": 0.1}


@pytest.mark.parametrize("given", ["class default", "v5 yarn", "v5 yarn, its share", "v5 default", "v4 yarn",
                                   "v4 yarn, its share", "v5 yarn, a wrong share", "v4 yarn, a top-level share",
                                   "v4 yarn, a wrong top-level share", "v5 yarn, a wrong top-level share"])
def test_mistral_4_refuses_what_its_model_cannot_run(given):
    """Mistral4Config's rotary embedding (transformers 5.23) computes frequencies for head_dim × its parameters'
    partial_rotary_factor, which the class sets to qk_rope_head_dim / head_dim in v5's rope_parameters (and its own
    YaRN parameters when the file gives none) but not in a v4 rope_scaling, and default RoPE takes the whole head;
    its attention rotates qk_rope_head_dim; a v4 rope_scaling takes a top-level partial_rotary_factor, which v5's
    parameters do not. The oracle is a one-layer model's forward pass: posenc reads what runs, with the model's
    frequencies (the rotary families' tests), and refuses what fails, naming both widths (posenc refused a v4
    rope_scaling with a top-level share that runs, and named 32 dimensions where the model computes 8)."""
    parameters = {"class default": None, "v5 yarn": ("rope_parameters", _YARN),
                  "v5 yarn, its share": ("rope_parameters", _YARN | {"partial_rotary_factor": 0.5}),
                  "v5 default": ("rope_parameters", {"rope_type": "default", "rope_theta": 10_000.0,
                                                     "llama_4_scaling_beta": 0.1,
                                                     "original_max_position_embeddings": 16}),
                  "v4 yarn": ("rope_scaling", _YARN), "v4 yarn, its share": ("rope_scaling", _YARN | {
                      "partial_rotary_factor": 0.5}),
                  "v5 yarn, a wrong share": ("rope_parameters", _YARN | {"partial_rotary_factor": 0.25}),
                  "v4 yarn, a top-level share": ("rope_scaling", _YARN),
                  "v4 yarn, a wrong top-level share": ("rope_scaling", _YARN),
                  "v5 yarn, a wrong top-level share": ("rope_parameters", _YARN)}[given]
    top = {"partial_rotary_factor": 0.25 if "wrong top-level" in given else 0.5} if "top-level" in given else {}
    config = _MISTRAL_4 | top | (dict([parameters]) if parameters else {})
    if _mistral_4_runs(config):
        model = from_config(config)
        positional = model.positional("full_attention")
        assert (positional.rotary_dims, positional.head_dim, positional.options["layout"]) == (16, 32, "interleaved")
        assert [finding for finding in check(config) if "partial_rotary_factor" in finding.field] == []
    else:
        built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))))
        width = 2 * len(built.rotary_emb.inv_freq)
        with pytest.raises(ValueError, match=f"frequencies for {width} dimensions.*fails at the model's first forward"):
            from_config(config)


def test_mistral_4_rotates_adjacent_pairs_and_scales_its_queries_as_its_model_does():
    """The oracle is a one-layer Mistral 4 (transformers 5.23, eager) on 40 tokens: the rotated part of its query as
    its apply_rotary_pos_emb_interleave receives and returns it (adjacent pairs turned, returned with each pair's
    first members before its second ones, as DeepSeek-V3's), and its get_llama_4_attn_scale with its config's β and
    L₀. posenc read Mistral 4 as a Llama-style decoder: halves, not adjacent pairs, without the class's YaRN when the
    file gives none, and no query scale."""
    from transformers.models.mistral4 import modeling_mistral4

    config = _MISTRAL_4 | {"rope_parameters": _YARN, "vocab_size": 64}  # the helper's token ids 3 to 42
    before, after = hf_rotated_queries(config, 40)
    model = from_config(config)
    positional = model.positional("full_attention")
    options = {k: v for k, v in positional.options.items() if k not in ("layout", "rotary_fraction")}
    got = posenc.apply_rope(before, np.arange(40), base=positional.base, layout="interleaved", **options)
    heads, length, width = got.shape
    np.testing.assert_allclose(got.reshape(heads, length, width // 2, 2).swapaxes(-1, -2).reshape(got.shape), after,
                               atol=5e-6, rtol=0)
    oracle = transformers.AutoConfig.for_model(**json.loads(json.dumps(config)))
    expected = modeling_mistral4.get_llama_4_attn_scale(
        torch.arange(40)[None], oracle.rope_parameters["llama_4_scaling_beta"],
        oracle.rope_parameters["original_max_position_embeddings"])[0, 0, :, 0].double().numpy()
    np.testing.assert_allclose(models.query_scale(model, np.arange(40)), expected, rtol=1e-6)


@pytest.mark.parametrize("parameters", [_YARN, _YARN | {"mscale": 1.0, "mscale_all_dim": 1.0}, None],
                         ids=["YaRN", "YaRN with mscale_all_dim", "its class's"])
def test_mistral_4_s_softmax_scale_is_its_model_s(parameters):
    """Mistral 4 multiplies q·k by 1/√(qk_nope + qk_rope) times YaRN's mscale² at mscale_all_dim, as DeepSeek's kin
    do (its class's own parameters give mscale_all_dim 1, factor 128); the oracle is its one-layer model's attention
    (transformers 5.23), its scaling."""
    config = _MISTRAL_4 | ({"rope_parameters": parameters} if parameters else {})
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))),
                                               attn_implementation="eager")
    assert models.softmax_scale(from_config(config)) == pytest.approx(built.layers[0].self_attn.scaling, rel=1e-12)


_MIMO = {"model_type": "mimo_v2_flash", "hidden_size": 64, "num_attention_heads": 2, "num_key_value_heads": 1,
         "num_hidden_layers": 13, "intermediate_size": 32, "moe_intermediate_size": 16, "n_routed_experts": 2,
         "num_experts_per_tok": 1, "vocab_size": 40, "head_dim": 96, "v_head_dim": 32, "max_position_embeddings": 512}
"""A small MiMo-V2-Flash (heads 96 wide, of which int(96 × 0.334) = 32 rotate; 13 layers: 0, 5 and 11 full)."""

_MIMO_OWN = {"full_attention": {"rope_type": "yarn", "rope_theta": 1_000_000.0, "factor": 4.0,
                                "original_max_position_embeddings": 128},
             "sliding_attention": {"rope_type": "default", "rope_theta": 20_000.0}}
_MIMO_CASES = {
    "class defaults": {},
    "a top-level θ and share, unread": {"rope_theta": 20_000.0, "partial_rotary_factor": 0.5},
    "SGLang's window": {"sliding_window_size": 4},
    "both windows": {"sliding_window": 3, "sliding_window_size": 5},
    "its own window": {"sliding_window": 3},
    "its own parameters": {"rope_parameters": _MIMO_OWN},
    "its own shares": {"rope_parameters": {kind: {**parameters, "partial_rotary_factor": 0.5}
                                           for kind, parameters in _MIMO_OWN.items()}},
    "a v4 rope_scaling": {"rope_scaling": _MIMO_OWN},
    "its own layer types": {"num_hidden_layers": 3,
                            "layer_types": ["sliding_attention", "full_attention", "sliding_attention"]},
    "a top-level θ and share, read after a scaling": {
        "rope_theta": 20_000.0, "partial_rotary_factor": 0.5, "rope_parameters": {
            "full_attention": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1_000_000.0},
            "sliding_attention": {"rope_type": "default"}}},
}


_LAGUNA = {"model_type": "laguna", "hidden_size": 64, "num_attention_heads": 2, "num_key_value_heads": 1,
           "num_hidden_layers": 3, "intermediate_size": 32, "moe_intermediate_size": 16,
           "shared_expert_intermediate_size": 16, "num_experts": 2, "num_experts_per_tok": 1, "vocab_size": 40,
           "head_dim": 32, "max_position_embeddings": 512, "num_attention_heads_per_layer": [2, 4, 2],
           "layer_types": ["full_attention", "sliding_attention", "full_attention"]}
"""A small Laguna (poolside's; its class's defaults: half of each head rotating in full-attention layers, the whole
head in its sliding-window layers of 512 keys), its layers with heads of their own count."""

_LAGUNA_CASES = {
    "class defaults": {},
    "a top-level θ and share, unread": {"rope_theta": 20_000.0, "partial_rotary_factor": 0.25},
    "its own window": {"sliding_window": 4},
    "its own parameters": {"rope_parameters": _MIMO_OWN, "sliding_window": 5},
    "its own shares": {"rope_parameters": {kind: {**parameters, "partial_rotary_factor": 0.5}
                                           for kind, parameters in _MIMO_OWN.items()}},
    "a v4 rope_scaling": {"rope_scaling": _MIMO_OWN},
    "its class's layer types": {"layer_types": None, "num_attention_heads_per_layer": None},
    "a top-level θ and share, read after a scaling": {
        "rope_theta": 20_000.0, "partial_rotary_factor": 0.5, "rope_parameters": {
            "full_attention": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1_000_000.0},
            "sliding_attention": {"rope_type": "default"}}},
    "a top-level θ, read by a later scaling too": {
        "rope_theta": 20_000.0, "partial_rotary_factor": 0.5, "rope_parameters": {
            "full_attention": {"rope_type": "default", "rope_theta": 1_000_000.0, "partial_rotary_factor": 0.5},
            "sliding_attention": {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 128}}},
}


@pytest.mark.parametrize("case", list(_LAGUNA_CASES))
def test_laguna_reads_as_its_model_does(case):
    """LagunaConfig (transformers 5.23; the oracle: a LagunaModel, eager) makes every layer full attention unless
    layer_types says otherwise, its sliding-window layers 512 keys wide by default, and reads its RoPE parameters
    nested by layer type as written (θ 500,000 on half of each head in full-attention layers, 10,000 on the whole head
    in sliding-window ones; a top-level rope_theta or partial_rotary_factor is unread unless some layer type's
    parameters are a scaling, whose function copies them into every layer type's that lack them; a v4 rope_scaling
    replaces them; a layer type's parameters without a share rotate the whole head). posenc read it as a Llama-style decoder:
    whole heads at the top level's θ, its sliding-window layers without a window, and refused one without
    rope_theta."""
    _reads_as_its_model_does(_LAGUNA | _LAGUNA_CASES[case], "LagunaConfig")


_MELLUM = {"model_type": "mellum", "hidden_size": 64, "num_attention_heads": 2, "num_key_value_heads": 1,
           "num_hidden_layers": 3, "intermediate_size": 32, "moe_intermediate_size": 16, "num_experts": 2,
           "num_experts_per_tok": 1, "vocab_size": 40, "head_dim": 32, "max_position_embeddings": 512,
           "layer_types": ["full_attention", "sliding_attention", "full_attention"]}
"""A small Mellum (JetBrains'; its class's defaults: θ 500,000 in full-attention layers, 10,000 in sliding-window
ones of 1,024 keys)."""


@pytest.mark.parametrize("case", list(_LAGUNA_CASES))
def test_mellum_reads_as_its_model_does(case):
    """MellumConfig (transformers 5.23; the oracle: a MellumModel, eager) reads its RoPE parameters as Laguna's does,
    nested by layer type as written (θ 500,000 full, 10,000 sliding by default, whole heads; a top-level rope_theta
    or share unread but where a scaling copies them in), every layer full attention unless layer_types says otherwise,
    its windows sliding_window wide (1,024 by default); it rotates whole heads, and fails at the first forward pass
    given a share below 1 (refused). posenc read it as a Llama-style decoder: whole heads at the top level's θ, its
    sliding-window layers 1,024 wide only when the file said so, and refused one without rope_theta."""
    given = {key: value for key, value in _LAGUNA_CASES[case].items() if key != "num_attention_heads_per_layer"}
    if case not in _MELLUM_FAILS:
        _reads_as_its_model_does(_MELLUM | given, "MellumConfig")
        return
    config = _MELLUM | given
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))))
    with pytest.raises(RuntimeError), torch.no_grad():
        built(input_ids=torch.arange(3, 15)[None])
    with pytest.raises(ValueError, match="rotates the whole head, and transformers 5.23 fails at the model's first") \
            as refusal:
        from_config(config)
    if case == "a top-level θ and share, read after a scaling":  # named where it came from, not as the layer's own
        assert str(refusal.value).startswith("partial_rotary_factor (the top level's, which full_attention's scaling "
                                             "copies into rope_parameters.")


_MELLUM_FAILS = ("its own shares", "a top-level θ and share, read after a scaling", "a top-level θ, read by a later "
                 "scaling too")
"""Laguna's cases with a share below 1 in some layer type's parameters (their own, or the top level's copied in by
a scaling): Mellum's attention rotates whole heads, and its model fails at the first forward pass."""


@pytest.mark.parametrize("case", list(_MIMO_CASES))
def test_mimo_v2_flash_reads_as_its_model_does(case):
    """MiMoV2FlashConfig (transformers 5.23; the oracle: a MiMoV2FlashModel, eager) makes layer 0 and every sixth
    layer full attention, the rest sliding windows of sliding_window keys, or of sliding_window_size + 1 when the
    file gives SGLang's field (its keys before the query); it reads its RoPE parameters nested by layer type as
    written (θ 5,000,000 full, 10,000 sliding by default; a top-level rope_theta or partial_rotary_factor is unread
    unless a scaling copies them in, a v4 rope_scaling replaces them), its default RoPE rotating int(head_dim × 0.334) of a head unless its parameters
    give a share, its scalings the whole head; its sliding-window layers have attention sinks. posenc read such a
    file as a Llama-style decoder (whole heads at the top level's θ, every layer full attention, or windowed with
    sliding_window), and refused one without rope_theta."""
    _reads_as_its_model_does(_MIMO | _MIMO_CASES[case], "MiMoV2FlashConfig")


def _reads_as_its_model_does(config: dict, class_name: str) -> None:
    """posenc's reading of ``config`` against its model (transformers 5.23, eager): each layer's type, window, sinks,
    softmax scale, frequencies and attention factor, and the keys each layer's first head weighs over 12 tokens."""
    config = {key: value for key, value in config.items() if value is not None}
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))),
                                               attn_implementation="eager").eval()
    model = from_config(config)
    assert class_name in model.source
    assert list(model.layer_types) == list(built.config.layer_types)
    for index, kind in enumerate(model.layer_types):
        positional, attention = model.positional(kind), built.layers[index].self_attn
        assert positional.window == attention.sliding_window, index
        assert bool(positional.extra.get("attention_sinks")) == (getattr(attention, "sinks", None) is not None), index
        assert models.softmax_scale(model) == pytest.approx(attention.scaling, rel=1e-12)
        expected, scaling = hf_frequencies(built.rotary_emb, kind)
        got, got_scaling = rope_inv_freq(model, kind)
        np.testing.assert_allclose(got, expected, rtol=float32_rtol(positional.base), atol=0, err_msg=kind)
        assert got_scaling == pytest.approx(scaling, rel=1e-6), kind
    with torch.no_grad():
        attentions = built(input_ids=torch.arange(3, 15)[None], output_attentions=True).attentions
    for index, kind in enumerate(model.layer_types):
        np.testing.assert_array_equal((attentions[index][0, 0] > 0).numpy(), models.attention_mask(model, kind, 12),
                                      err_msg=f"layer {index} ({kind})")


@pytest.mark.parametrize(("given", "match"), [
    ({"rope_parameters": {"rope_type": "default", "rope_theta": 20_000.0}}, "nested by layer type"),
    ({"rope_scaling": {"rope_type": "linear", "factor": 2.0, "rope_theta": 20_000.0}}, "nested by layer type"),
    ({"rope_parameters": {"full_attention": _MIMO_OWN["full_attention"]}}, "no sliding_attention parameters"),
    ({"rope_parameters": {**_MIMO_OWN, "sliding_attention": {"rope_type": "default"}}}, "has no rope_theta"),
    ({"partial_rotary_factor": 0.5, "rope_parameters": {
        "full_attention": {"rope_type": "default", "rope_theta": 1_000_000.0},
        "sliding_attention": {"rope_type": "linear", "factor": 2.0, "rope_theta": 10_000.0}}},
     "reaches it once sliding_attention's scaling standardizes the parameters"),
])
@pytest.mark.parametrize("small", [_MIMO, _LAGUNA, _MELLUM], ids=["mimo_v2_flash", "laguna", "mellum"])
def test_classes_reading_parameters_per_layer_type_refuse_what_their_models_cannot_build(small, given, match):
    """MiMo-V2-Flash's, Laguna's and Mellum's rotary embeddings read one dict of parameters per layer type, each with its
    rope_theta: a flat one (v5 or v4), a layer type without parameters, or parameters without θ fail building the model
    (transformers 5.23); so does a top-level share that a later layer type's scaling copies into an earlier one's
    parameters, changing their width between the rotary embedding's frequencies and the weights' initialization.
    posenc refuses them, naming what is missing."""
    config = small | given
    with pytest.raises((KeyError, TypeError, RuntimeError)):  # a missing key; θ None; buffers of two widths
        transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))))
    with pytest.raises(ValueError, match=match):
        from_config(config)


def test_mimo_v2_flash_refuses_an_odd_rotated_width():
    """int(head_dim × 0.334) is odd for 64-wide heads (21): MiMo-V2-Flash's default RoPE then computes 11 frequencies
    θ^(−2i/21) and rotates 22 dimensions (transformers 5.23), a spacing posenc's RoPE does not draw. Refused, naming
    the width, rather than drawn with another spacing; the check says it too."""
    config = _MIMO | {"head_dim": 64}
    rotary = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**config)).rotary_emb
    assert len(hf_frequencies(rotary, "full_attention")[0]) == 11
    with pytest.raises(ValueError, match="21 of 64"):
        from_config(config)
    assert any(finding.severity == "error" and "21" in finding.message for finding in check(config))


_DEEPSEEK_V2 = {"model_type": "deepseek_v2", "hidden_size": 64, "num_attention_heads": 2, "num_key_value_heads": 2,
                "num_hidden_layers": 1, "intermediate_size": 32, "moe_intermediate_size": 16, "n_routed_experts": 2,
                "num_experts_per_tok": 1, "n_group": 1, "topk_group": 1, "first_k_dense_replace": 1, "vocab_size": 64,
                "kv_lora_rank": 16, "q_lora_rank": 16, "qk_rope_head_dim": 16, "qk_nope_head_dim": 16,
                "v_head_dim": 16, "max_position_embeddings": 128}
_LONGCAT = {"model_type": "longcat_flash", "hidden_size": 64, "num_attention_heads": 2, "num_key_value_heads": 2,
            "num_layers": 1, "ffn_hidden_size": 32, "expert_ffn_hidden_size": 16, "n_routed_experts": 2, "moe_topk": 2,
            "zero_expert_num": 0, "vocab_size": 64, "kv_lora_rank": 16, "q_lora_rank": 16, "qk_rope_head_dim": 16,
            "qk_nope_head_dim": 16, "v_head_dim": 16, "head_dim": 16, "max_position_embeddings": 128}
_LATENT_YARN = {"rope_type": "yarn", "rope_theta": 20_000.0, "factor": 4.0, "original_max_position_embeddings": 32,
                "mscale": 1.0, "mscale_all_dim": 1.0}


@pytest.mark.parametrize("given", [{}, {"rope_theta": 20_000.0}, {"rope_parameters": _LATENT_YARN}],
                         ids=["class defaults", "θ", "YaRN"])
def test_minicpm3_rotates_halves_of_its_latent_attention_s_rotary_part(given):
    """MiniCPM3 (transformers 5.23; the oracle: a one-layer model, eager, on 20 tokens) is DeepSeek-V2's latent
    attention rotating halves, not adjacent pairs, of its qk_rope_head_dim (32 by its class's default) part of each
    head, and scales q·k by 1/√(qk_nope + qk_rope) times YaRN's mscale². posenc refused a MiniCPM3 config that left
    its class's defaults out (no positional field), and rotated whole heads where the file gave head sizes only."""
    config = {"model_type": "minicpm3", "hidden_size": 64, "num_attention_heads": 2, "num_key_value_heads": 2,
              "num_hidden_layers": 1, "intermediate_size": 32, "vocab_size": 64, "kv_lora_rank": 16,
              "q_lora_rank": 16, "max_position_embeddings": 128, **given}
    before, after = hf_rotated_queries(config, 20)
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))),
                                               attn_implementation="eager")
    model = from_config(config)
    positional = model.positional("full_attention")
    assert "MiniCPM3Config" in model.source and positional.rotary_dims == before.shape[-1] == 32
    options = {k: v for k, v in positional.options.items() if k not in ("layout", "rotary_fraction")}
    got = posenc.apply_rope(before, np.arange(20), base=positional.base, layout=positional.options["layout"], **options)
    np.testing.assert_allclose(got, after, atol=5e-6, rtol=0)
    assert models.softmax_scale(model) == pytest.approx(built.layers[0].self_attn.scaling, rel=1e-12)


@pytest.mark.parametrize("given", [{}, {"rope_theta": 20_000.0}, {"rope_parameters": _LATENT_YARN},
                                   {"rope_interleave": False}], ids=["class defaults", "θ", "YaRN", "rope_interleave"])
@pytest.mark.parametrize("small", [_DEEPSEEK_V2, _LONGCAT], ids=["deepseek_v2", "longcat_flash"])
def test_deepseek_v2_and_longcat_flash_rotate_adjacent_pairs_as_their_models_do(small, given):
    """DeepSeek-V2 and LongCat-Flash (transformers 5.23; the oracle: a one-layer model, eager, on 20 tokens) rotate the
    qk_rope_head_dim part of each query in adjacent pairs, whatever a rope_interleave says (DeepSeek-V2 as complex
    numbers, returned in place; LongCat-Flash as DeepSeek-V3, each pair's first members before its second ones), at
    θ 10,000 (DeepSeek-V2) or 10,000,000 (LongCat-Flash's class default), and scale q·k by 1/√(qk_nope + qk_rope)
    times YaRN's mscale². posenc read both as Llama-style decoders, in halves (LongCat-Flash at θ 10,000)."""
    config = small | given
    before, after = hf_rotated_queries(config, 20)
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))),
                                               attn_implementation="eager")
    model = from_config(config)
    assert type(built.config).__name__ in model.source
    positional = model.positional("full_attention")
    assert positional.base == built.config.rope_parameters["rope_theta"]
    options = {k: v for k, v in positional.options.items() if k not in ("layout", "rotary_fraction")}
    got = posenc.apply_rope(before, np.arange(20), base=positional.base, layout=positional.options["layout"], **options)
    if small is _LONGCAT:  # returned as DeepSeek-V3's: each pair's first members, then its second ones
        got = got.reshape(*got.shape[:-1], -1, 2).swapaxes(-1, -2).reshape(got.shape)
    np.testing.assert_allclose(got, after, atol=5e-6, rtol=0)
    attention = built.layers[0].self_attn  # LongCat-Flash's layer: two attentions, alike
    for each in attention if isinstance(attention, torch.nn.ModuleList) else [attention]:
        assert models.softmax_scale(model) == pytest.approx(each.scaling, rel=1e-12)
    attentions = [module for module in built.modules() if type(module).__name__.endswith(("MLA", "Attention"))]
    assert len(attentions) == len(model.layer_types) * (2 if small is _LONGCAT else 1)  # (one layer here)
    assert ("two attentions" in model.positional("full_attention").extra.get("beside", "")) == (small is _LONGCAT)


@pytest.mark.parametrize("model_type", ["cohere", "deepseek_v3"])
def test_rope_interleave_is_read_only_by_the_classes_that_read_it(model_type):
    """A rope_interleave false: DeepSeek-V3 then rotates halves (its config field), Cohere adjacent pairs whatever it
    says (its class has no such field; the oracle: a one-layer model's own rotation, transformers 5.23). posenc read
    rope_interleave in every family that rotates adjacent pairs."""
    sizes = _WHOLE_HEADS.get(model_type, (None, None, {}))[2]
    config = {"model_type": model_type, "hidden_size": 64, "num_attention_heads": 2, "num_key_value_heads": 2,
              "num_hidden_layers": 1, "intermediate_size": 64, "vocab_size": 64, "max_position_embeddings": 256,
              **sizes, "rope_interleave": False}
    before, after = hf_rotated_queries(config, 20)
    positional = from_config(config).positional("full_attention")
    assert positional.options["layout"] == ("half" if model_type == "deepseek_v3" else "interleaved")
    got = posenc.apply_rope(before, np.arange(20), base=positional.base, layout=positional.options["layout"])
    np.testing.assert_allclose(got, after, atol=5e-6, rtol=0)


_DBRX = {"model_type": "dbrx", "d_model": 64, "n_heads": 2, "n_layers": 1, "max_seq_len": 128, "vocab_size": 64,
         "attn_config": {"kv_n_heads": 1, "rope_theta": 500_000, "clip_qkv": 8}, "ffn_config": {"ffn_hidden_size": 32,
                                                                              "moe_num_experts": 2, "moe_top_k": 1}}
"""A small DBRX, its θ where databricks/dbrx-base's config.json states it (attn_config.rope_theta 500,000)."""


@pytest.mark.parametrize("given", [{}, {"rope_theta": 20_000.0}], ids=["attn_config's θ", "a top-level θ"])
def test_dbrx_rotates_at_the_theta_its_model_computes_with(given):
    """transformers 5.23's DbrxModel (the oracle: a one-layer model's rotary embedding and the query its attention
    rotates) computes its frequencies from rope_parameters, built from a top-level rope_theta, else 10,000: the
    attn_config.rope_theta of databricks/dbrx's files (500,000) is stored by its attention and never used. posenc
    refused DBRX configs (no positional field at the top level); it now draws what the model computes, and the check
    says the θ attn_config states is not the one computed with."""
    config = _DBRX | given
    built = transformers.AutoModel.from_config(transformers.AutoConfig.for_model(**json.loads(json.dumps(config))),
                                               attn_implementation="eager")
    model = from_config(config)
    assert "DbrxConfig" in model.source and model.context_length == 128
    expected, _ = hf_frequencies(built.rotary_emb, "full_attention")
    got, _ = rope_inv_freq(model, "full_attention")
    np.testing.assert_allclose(got, expected, rtol=float32_rtol(model.positional("full_attention").base), atol=0)
    before, after = hf_rotated_queries(config, 20)
    positional = model.positional("full_attention")
    np.testing.assert_allclose(posenc.apply_rope(before, np.arange(20), base=positional.base, layout="half"), after,
                               atol=5e-6, rtol=0)
    unread = [finding for finding in check(config) if finding.field == "attn_config.rope_theta"]
    assert [finding.severity for finding in unread] == ["warning"]
    assert f"rotates at θ {positional.base:,.0f}" in unread[0].message


@pytest.mark.parametrize("model_type", [key for key, family in FAMILIES.items() if family.refuses])
def test_a_field_a_class_refuses_is_refused_naming_it(model_type):
    """IQuestCoder's class refuses use_sliding_window true and any clip_qkv (options no released checkpoint
    enables), EXAONE-MoE's a null sliding_window (its strict field is a whole number), EXAONE 4's a null
    sliding_window where the file lists no layer_types (it sets its pattern to 0, then divides by it): transformers
    5.23 builds no model of such a file (the oracle), and posenc refused nothing, drawing every layer unwindowed
    (EXAONE-MoE's sliding layers without a window; for EXAONE 4 the check said the model would fail at its first
    forward pass). Now posenc refuses exactly where the class does, naming the field, and the check gives it as an
    error. Falcon-H1's class refuses any layer_types (its own layers_block_type, a property that takes no value), null
    too; posenc drew the list."""
    listed = {"layer_types": ["full_attention"] * SIZES["num_hidden_layers"]}
    cases = [(name, value, layers) for name, when in FAMILIES[model_type].refuses
             for value in ([None, 4, 4096] if when.startswith("null") else [["full_attention"] * SIZES[
                 "num_hidden_layers"], None] if when == "present" else [None, False, True, 0, 0.0, 8.0, "yes"])
             for layers in ([{}, {"layer_types": None}, listed] if when == "null unlisted" else [{}])]
    for name, value, layers in cases:
        config = {"model_type": model_type, **_sizes(model_type), "max_position_embeddings": 4096, name: value,
                  **layers}
        try:
            transformers.AutoConfig.for_model(**dict(config))
        except Exception:  # noqa: BLE001 - its validation's ValueError, or a strict type check's
            with pytest.raises(ValueError, match=f"^{name} is .* which {FAMILIES[model_type].class_name} refuses"):
                from_config(config)
            assert [f.field for f in check(config) if f.severity == "error"] == [name]
            continue
        assert from_config(config).context_length == 4096, (name, value, layers)
    assert cases
