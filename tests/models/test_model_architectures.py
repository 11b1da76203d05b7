"""A config.json whose model_type transformers 5.23 does not know, read as the class its ``architectures`` names
(posenc.models.architectures): Kimi K2's ``kimi_k2`` files name DeepseekV3ForCausalLM, whose configuration class
reads them (DeepSeek-V3's adjacent pairs, its YaRN and softmax scale). posenc read them as Llama-style decoders,
turning halves of the head."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc
from posenc import models
from posenc.models import architectures
from posenc.models.config import Fields
from posenc.models.config_file import COMPOSITE_TYPES
from posenc.models.config_link import from_link, to_link
from posenc.models.families import FAMILIES

CONFIGS = sorted((Path(__file__).parent / "configs").glob("*.json"))
TABLE = json.loads((Path(posenc.__file__).parent / "models" / "data" / "architectures.json").read_text())
UNKNOWN = "posenc_test_type"  # a model_type no class has


def test_the_table_is_transformers_own():
    """Every class transformers 5.23's auto mappings list, with the model_type of the configuration class it reads,
    for the families posenc knows and the composites; every model_type transformers knows."""
    pytest.importorskip("transformers")
    from architectures_table import table

    assert TABLE == table(), "write it again: python tests/helpers/architectures_table.py > posenc/models/data/architectures.json"
    assert set(TABLE["architectures"].values()) <= {key for key, family in FAMILIES.items()} | COMPOSITE_TYPES


def _without(model: models.Model) -> models.Model:
    return dataclasses.replace(model, label="", source="")


def _findings(found: list) -> list[tuple[str, str, str]]:
    return [(f.severity, f.field, f.message) for f in found if f.field != "model_type"]


def _read_as_named(config: dict) -> list[tuple[str, dict]]:
    """The file with its model_type renamed to one no class has, naming each class of its type the table holds."""
    named = [name for name, model_type in TABLE["architectures"].items() if model_type == config["model_type"]]
    return [(name, {**config, "model_type": UNKNOWN, "architectures": [name]}) for name in named]


@pytest.mark.parametrize("path", [p for p in CONFIGS if json.loads(p.read_text()).get("model_type")
                                  in set(TABLE["architectures"].values())], ids=lambda p: p.stem)
def test_a_file_of_a_type_transformers_does_not_know_reads_as_the_class_it_names(path):
    """Each real file of tests/models/configs of a type the table holds (a family's, or a composite's: Gemma 3's,
    Qwen2-VL's written flat), its model_type renamed to one no class has, naming any class of its type: the same model and the same findings as the file itself, and a
    source and a finding that say how it was read."""
    config = json.loads(path.read_text())
    expected, findings = _without(models.from_config(config)), _findings(models.check(config))
    for name, renamed in _read_as_named(config):
        model, found = models.from_config(renamed), models.check(renamed)
        assert _without(model) == expected, name
        assert name in model.source and Fields(config).family.class_name in model.source
        assert _findings(found) == findings, name
        said = [f.message for f in found if f.field == "model_type"]
        assert any(name in message and "auto_map" in message for message in said), said


def test_a_type_transformers_knows_is_read_as_its_own_whatever_architectures_names():
    """transformers builds a file of a model_type it knows from that type's class: a Gemma 2 file naming Llama's class
    is Gemma 2's (its windows), and an unknown type naming no class transformers has is still a Llama-style decoder."""
    gemma = json.loads((Path(__file__).parent / "configs" / "gemma-2-9b-it.json").read_text())
    assert models.from_config({**gemma, "architectures": ["LlamaForCausalLM"]}) == models.from_config(gemma)
    llama = json.loads((Path(__file__).parent / "configs" / "llama-3.1-8b.json").read_text())
    for names in (["KimiForCausalLM"], "DeepseekV3ForCausalLM", [3, None], []):
        model = models.from_config({**llama, "model_type": UNKNOWN, "architectures": names})
        assert "Llama-style decoder" in model.source
    assert architectures.named_class({"model_type": "gemma2", "architectures": ["LlamaForCausalLM"]}) is None
    nested = json.loads((Path(__file__).parent / "configs" / "gemma-3-4b.json").read_text())  # read from text_config
    assert architectures.named_class({**nested, "model_type": UNKNOWN, "architectures": ["LlamaForCausalLM"]}) is None
    assert architectures.named_class({"model_type": UNKNOWN, "architectures": ["X", "LlamaForCausalLM"]}) == (
        "LlamaForCausalLM", "llama")


COMPOSITE_CLASSES = sorted((name, model_type) for name, model_type in TABLE["architectures"].items()
                           if model_type in COMPOSITE_TYPES)
TOP_LEVEL = {"hidden_size": 512, "num_attention_heads": 8, "num_hidden_layers": 3, "rope_theta": 12_345.0,
             "max_position_embeddings": 2048}  # (fields a class folds into its text config, or ignores)


def _read(config: dict) -> tuple[str, models.Model | None, list]:
    """The model (None where refused, with the refusal) and the findings but the one on the model_type."""
    try:
        return "", _without(models.from_config(config)), _findings(models.check(config))
    except ValueError as refusal:
        return str(refusal), None, _findings(models.check(config))


@pytest.mark.parametrize("given", ["nothing", "text_config", "top level"])
def test_a_file_of_a_type_transformers_does_not_know_reads_as_the_composite_it_names(given):
    """A renamed composite (a fine-tune of LLaVA, Mistral 3, Voxtral, Qwen2-VL, PaddleOCR-VL with a model_type of its
    own) naming each composite class the table holds: read as a file of that class's own type is, which
    transformers 5.23's class reads by its own rules (its text config's type and defaults, the fields it sets there,
    the top-level fields it folds in or ignores), over a file giving nothing, a short text_config or top-level
    fields; a model so read says so, and its link reads as it. posenc read them as Llama-style decoders from the top level, or refused them."""
    assert len(COMPOSITE_CLASSES) > 100
    fields = {"nothing": {}, "text_config": {"text_config": {"max_position_embeddings": 3000, "rope_theta": 54_321.0}},
              "top level": TOP_LEVEL}[given]
    read_as_named = 0
    for name, model_type in COMPOSITE_CLASSES:
        own = {"model_type": model_type, **fields}
        renamed = {**own, "model_type": UNKNOWN, "architectures": [name]}
        refusal, model, findings = _read(own)
        assert _read(renamed)[1:] == (model, findings), name
        assert bool(_read(renamed)[0]) == bool(refusal), name
        if model is not None:
            read = models.from_config(renamed)
            assert name in read.source, name
            assert models.from_config(from_link(to_link(renamed))) == read, name  # its link keeps the class
            read_as_named += 1
    assert read_as_named > 100


@pytest.mark.parametrize("given", ["nothing", "text_config", "top level"])
def test_transformers_reads_a_renamed_composite_as_its_own_type(given):
    """The premise of the test above, held to transformers 5.23: each composite's configuration class builds the same
    language model's config from a file of a model_type no class has as from a file of its own type."""
    pytest.importorskip("transformers")
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    fields = {"nothing": {}, "text_config": {"text_config": {"max_position_embeddings": 3000, "rope_theta": 54_321.0}},
              "top level": TOP_LEVEL}[given]

    def text_config(config_class, model_type: str) -> object:
        try:
            return config_class.from_dict({**fields, "model_type": model_type}).get_text_config().to_dict()
        except Exception as refusal:  # noqa: BLE001 (a class that refuses the file: both refuse it)
            return type(refusal)

    for model_type in sorted({model_type for _, model_type in COMPOSITE_CLASSES}):
        config_class = CONFIG_MAPPING[model_type]
        assert text_config(config_class, UNKNOWN) == text_config(config_class, model_type), model_type


def test_a_renamed_composite_names_its_language_models_class():
    """A renamed LLaVA is LLaVA's: its text config's type (llama) and defaults, named in its source and its check;
    a renamed LLaVA whose text_config is of a type posenc does not know is read from its fields alone."""
    config = {"model_type": UNKNOWN, "architectures": ["LlavaForConditionalGeneration"],
              "text_config": {"max_position_embeddings": 4096}}
    model = models.from_config(config)
    assert model.label == f"{UNKNOWN} config"
    assert ("LlavaForConditionalGeneration (its language model's LlamaConfig)" in model.source
            and UNKNOWN in model.source), model.source
    assert (len(model.layer_types), model.context_length) == (32, 4096)
    said = [f.message for f in models.check(config) if f.field == "model_type"]
    assert any("its language model with LlamaConfig's defaults" in message for message in said), said
    unknown_text = {**config, "text_config": {"model_type": "posenc_text", "max_position_embeddings": 4096,
                                              "num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 64,
                                              "rope_theta": 10_000.0}}
    assert architectures.named_class(unknown_text) is None
    assert "Llama-style decoder" in models.from_config(unknown_text).source


KIMI_LIKE = {  # Kimi K2's kind of file at a tiny size (no copy of a released file: its fields, values of our own)
    "model_type": "kimi_k2", "architectures": ["DeepseekV3ForCausalLM"],
    "auto_map": {"AutoConfig": "configuration_deepseek.DeepseekV3Config"},
    "hidden_size": 64, "num_attention_heads": 2, "num_key_value_heads": 2, "num_hidden_layers": 1,
    "intermediate_size": 64, "moe_intermediate_size": 32, "n_routed_experts": 4, "num_experts_per_tok": 2,
    "n_group": 1, "topk_group": 1, "first_k_dense_replace": 1, "q_lora_rank": 24, "kv_lora_rank": 16,
    "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16, "vocab_size": 64, "max_position_embeddings": 128,
    "rope_theta": 50_000.0, "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32,
                                             "beta_fast": 1.0, "beta_slow": 1.0, "mscale": 1.0, "mscale_all_dim": 1.0},
}


def test_a_kimi_k2_file_rotates_a_head_as_the_class_it_names():
    """The oracle is a one-layer model of the class the file names (transformers 5.23's DeepSeek-V3, eager, built from
    the file as DeepseekV3ForCausalLM.from_pretrained builds it) on 24 tokens: the rotated part of its query as its
    apply_rotary_pos_emb_interleave receives and returns it (adjacent pairs, YaRN over θ 50,000). posenc turned
    halves of the head, as a Llama-style decoder's."""
    pytest.importorskip("transformers")
    from transformers_rotary import hf_rotated_queries

    before, after = hf_rotated_queries({**KIMI_LIKE, "model_type": "deepseek_v3"}, 24)
    model = models.from_config(KIMI_LIKE)
    positional = model.positional("full_attention")
    assert (positional.rotary_dims, positional.head_dim, positional.options["layout"]) == (8, 24, "interleaved")
    options = {k: v for k, v in positional.options.items() if k not in ("layout", "rotary_fraction")}
    got = posenc.apply_rope(before, np.arange(24), base=positional.base, layout="interleaved", **options)
    heads, length, width = got.shape
    np.testing.assert_allclose(got.reshape(heads, length, width // 2, 2).swapaxes(-1, -2).reshape(got.shape), after,
                               atol=5e-6, rtol=0)
    assert models.softmax_scale(model) == models.softmax_scale(models.from_config({**KIMI_LIKE,
                                                                                   "model_type": "deepseek_v3"}))
    assert model.label == "kimi_k2 config" and "DeepseekV3ForCausalLM (DeepseekV3Config)" in model.source


def test_a_link_keeps_the_class_a_file_names_where_it_is_read():
    """A link keeps ``architectures`` where the file is read as the class it names, and only there: a link of a file
    of a type transformers knows stays as it was."""
    from posenc.models.config_link import positional_fields

    assert models.from_config(from_link(to_link(KIMI_LIKE))) == models.from_config(KIMI_LIKE)
    assert positional_fields(KIMI_LIKE)["architectures"] == ["DeepseekV3ForCausalLM"]
    assert "architectures" not in positional_fields({**KIMI_LIKE, "model_type": "deepseek_v3"})


NAMES = st.sampled_from(sorted(TABLE["architectures"]) + ["KimiForCausalLM", "", "LlamaForCausalLM "])
JSON = st.one_of(st.none(), st.booleans(), st.integers(-10**9, 10**9), st.floats(allow_nan=False, allow_infinity=False),
                 st.text(max_size=8))


@given(st.sampled_from(CONFIGS), st.one_of(st.sampled_from([UNKNOWN, "kimi_k2", "llama", "gemma3", "qwen2_vl"]), JSON),
       st.one_of(st.lists(st.one_of(NAMES, JSON), max_size=4), JSON))
def test_any_architectures_give_a_model_or_a_sentence(path, model_type, names):
    """Property-based: a real file with any model_type and any ``architectures`` (the table's classes, junk, any JSON
    value) is a model or a refusal in one sentence (a ValueError), and its check never raises; a model read as a class
    its architectures names says so in its source."""
    config = {**json.loads(path.read_text()), "model_type": model_type, "architectures": names}
    findings = models.check(config)
    try:
        model = models.from_config(config)
    except ValueError as refusal:
        assert str(refusal) and any(f.severity == "error" for f in findings)
        return
    named = architectures.named_class(config)
    assert (named is not None and named[0] in model.source) or named is None
