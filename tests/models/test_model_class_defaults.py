"""A config.json that leaves out what its configuration class gives (posenc.models.class_defaults): transformers 5.23
builds the model over its class's defaults, so a file need not list a size equal to its class's. LLaVA-1.5's
text_config, saved by transformers 4 as what differs from LlamaConfig's defaults, gives no depth, heads or width:
posenc refused it ("the config has no 'num_hidden_layers'"), and so every rotary family's file without its sizes,
where it read the learned, T5 and ALiBi families' as their classes build them. A composite's class may set its
language model's fields itself (Voxtral's θ 100,000,000 in a text_config that gives none; Mistral 3's 40 layers at
θ 1,000,000,000 where the file gives no text_config): posenc read the text class's defaults there."""

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc
from posenc.models import check, from_config, rope_inv_freq
from posenc.models.class_defaults import class_sizes, text_config_defaults
from posenc.models.config_file import TEXT_CONFIG_TYPES
from posenc.models.families import FAMILIES
from reference_precision import float32_rtol

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")
transformers.logging.set_verbosity_error()

from transformers_rotary import ROTARY_CLASSES, hf_frequencies, hf_rotary  # noqa: E402

TABLE = json.loads((Path(posenc.__file__).parent / "models" / "data" / "class_defaults.json").read_text())
KNOWN = [key for key, family in FAMILIES.items() if family.class_name]


def test_the_table_is_transformers_own():
    from class_defaults_table import table

    assert TABLE == table(), "write it again: python tests/helpers/class_defaults_table.py > " \
                             "posenc/models/data/class_defaults.json"


def _class_defaults(model_type: str):
    """The configuration transformers 5.23 builds for a file that gives only ``model_type``."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    if model_type in CONFIG_MAPPING_NAMES:
        return transformers.AutoConfig.for_model(model_type)
    return getattr(transformers, FAMILIES[model_type].class_name)()


def _same_reading(given: dict, written: dict) -> None:
    """``given`` reads to the model ``written`` (what transformers builds from it, written out whole) reads to, or
    both are refused with the same sentence (a class whose model fails on its own defaults: HunYuan's head_dim)."""
    try:
        expected = from_config(written)
    except ValueError as error:
        with pytest.raises(ValueError, match=re.escape(str(error)[:60])):
            from_config(given)
        return
    assert _unnamed(from_config(given)) == _unnamed(expected)


def _unnamed(model):
    """The model without its label and source (which name the file's model_type and _name_or_path)."""
    return dataclasses.replace(model, label="", source="")


@pytest.mark.parametrize("model_type", KNOWN)
def test_a_file_of_its_model_type_alone_reads_as_its_class_builds_it(model_type):
    """Every family's class, given a file of its model_type alone: the model posenc reads from the configuration
    transformers 5.23 builds from it, written out whole (every size, θ, window and layer type spelled out)."""
    written = json.loads(_class_defaults(model_type).to_json_string(use_diff=False))
    _same_reading({"model_type": model_type}, written)


ROTARY = [key for key in KNOWN if FAMILIES[key].scheme == "rope" and key in ROTARY_CLASSES]


@pytest.mark.parametrize("model_type", ROTARY)
def test_a_rotary_file_without_sizes_turns_as_its_class_s_rotary_embedding(model_type):
    """The frequencies posenc computes for a file of the model_type alone equal those of the family's rotary
    embedding built from its class's defaults (the width of a head from its class's width and heads), to float32
    rounding; or posenc refuses it, as its model cannot run on those defaults (the test above: the same refusal)."""
    oracle = _class_defaults(model_type).get_text_config()
    try:
        model = from_config({"model_type": model_type})
    except ValueError:
        return
    rotary = hf_rotary(oracle)
    for layer_type, positional in model.positionals.items():
        if positional.scheme != "rope":
            continue
        got, scaling = rope_inv_freq(model, layer_type)
        expected, expected_scaling = hf_frequencies(rotary, layer_type)
        np.testing.assert_allclose(got, expected, rtol=float32_rtol(positional.base), atol=0)
        assert scaling == pytest.approx(expected_scaling, rel=1e-12)


# LLaVA-1.5's text_config as transformers 4 saved it (llava-hf's checkpoints): what differs from LlamaConfig's defaults.
LLAVA_15 = {"architectures": ["LlavaForConditionalGeneration"], "model_type": "llava", "ignore_index": -100,
            "image_token_index": 32000, "projector_hidden_act": "gelu", "vision_feature_layer": -2,
            "text_config": {"_name_or_path": "lmsys/vicuna-7b-v1.5", "architectures": ["LlamaForCausalLM"],
                            "max_position_embeddings": 4096, "model_type": "llama", "rms_norm_eps": 1e-05,
                            "torch_dtype": "float16", "vocab_size": 32064},
            "vision_config": {"model_type": "clip_vision_model", "hidden_size": 1024, "num_attention_heads": 16}}


def test_llava_1_5_s_text_config_reads_as_transformers_builds_it():
    """32 layers of 32 heads 128 wide, rotating at θ 10,000 over a context of 4,096 (the oracle: the text config
    transformers 5.23 builds from the file); the check names the sizes it took from LlamaConfig, with their values."""
    oracle = transformers.AutoConfig.for_model(**json.loads(json.dumps(LLAVA_15))).get_text_config()
    model = from_config(LLAVA_15)
    assert _unnamed(model) == _unnamed(from_config(json.loads(oracle.to_json_string(use_diff=False))))
    positional = model.positional("full_attention")
    assert (len(model.layer_types), positional.head_dim, positional.base, model.context_length) == (
        oracle.num_hidden_layers, oracle.head_dim, oracle.rope_parameters["rope_theta"],
        oracle.max_position_embeddings) == (32, 128, 10_000.0, 4096)
    said = [f for f in check(LLAVA_15) if "LlamaConfig's defaults" in f.message]
    assert [(f.severity, f.field) for f in said] == [("info", "text_config.num_hidden_layers")]
    assert "num_hidden_layers, num_attention_heads or hidden_size" in said[0].message
    assert "32 layers, 32 heads, 4,096 wide" in said[0].message
    assert not any(f.severity == "error" for f in check(LLAVA_15))


def test_a_file_that_gives_its_sizes_is_not_told_of_its_class_s():
    """A file that gives its depth, heads and width hears nothing of its class's; one that leaves out one, of that
    one alone, even where it gives it under a name its class does not read (GPT-2's n_head in a Llama file:
    transformers 5.23 builds 32 heads whatever it says)."""
    sizes = {"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 64}
    assert not [f for f in check(sizes) if "defaults, and posenc draws those" in f.message]
    without_heads = {key: value for key, value in sizes.items() if key != "num_attention_heads"}
    (said,) = [f for f in check(without_heads) if "posenc draws those" in f.message]
    assert said.field == "num_attention_heads" and said.message.endswith("posenc draws those: 32 heads.")
    # GPT-2's name for the heads, which LlamaConfig does not read: its own default is what the model has, and is said
    (said,) = [f for f in check({**without_heads, "n_head": 4}) if "posenc draws those" in f.message]
    assert said.message.endswith("posenc draws those: 32 heads.")
    oracle = transformers.AutoConfig.for_model(**without_heads, n_head=4)
    assert from_config({**without_heads, "n_head": 4}).positional("full_attention").head_dim == oracle.head_dim == 2


@pytest.mark.parametrize("model_type", KNOWN)
def test_a_file_written_out_whole_is_not_told_of_its_class_s_sizes(model_type):
    """The configuration transformers 5.23 builds for each family, written out whole (every size under the class's
    own name: BART's encoder_layers, XGLM's attention_heads, XLM's emb_dim): no note of sizes taken from the class.
    The note said BART, Marian and Whisper files gave no num_hidden_layers, which they give as encoder_layers."""
    written = json.loads(_class_defaults(model_type).to_json_string(use_diff=False))
    assert not [f for f in check(written) if "posenc draws those" in f.message]


GIVEN = sorted(outer for outer, sets in TABLE["text_configs"].items() if "given" in sets)


@pytest.mark.parametrize("outer", GIVEN)
def test_a_composite_s_short_text_config_takes_its_outer_class_s_fields(outer):
    """A composite whose class sets fields of its language model's config in a text_config the file gives (Voxtral's
    θ and width, PaliGemma's attention both ways, GLM-ASR's sizes), given a text_config of its type alone: the model
    of the text config transformers 5.23 builds from it, written out whole."""
    given = {"model_type": outer, "text_config": {"model_type": TEXT_CONFIG_TYPES[outer]}}
    oracle = transformers.AutoConfig.for_model(**json.loads(json.dumps(given))).get_text_config()
    _same_reading(given, json.loads(oracle.to_json_string(use_diff=False)))


def test_a_field_the_outer_class_sets_is_named_as_its():
    """PaliGemma's class sets use_bidirectional_attention in the text config a file gives (transformers 5.23, the
    oracle): the check's warning on it says the file gives none and who set it, so that a reader does not look for it
    in the file; a file that gives it is told nothing of the kind."""
    text = {"model_type": "gemma", "hidden_size": 2048, "num_hidden_layers": 18, "num_attention_heads": 8,
            "num_key_value_heads": 1, "head_dim": 256, "max_position_embeddings": 8192, "rope_theta": 10_000.0}
    config = {"model_type": "paligemma", "text_config": text}
    assert transformers.AutoConfig.for_model(**json.loads(json.dumps(config))).text_config.use_bidirectional_attention
    (said,) = [f for f in check(config) if f.field == "use_bidirectional_attention"]
    assert "(the file gives none: paligemma's class sets it in its text config)" in said.message
    given = {**config, "text_config": {**text, "use_bidirectional_attention": True}}
    (said,) = [f for f in check(given) if f.field == "text_config.use_bidirectional_attention"]
    assert "the file gives none" not in said.message


CONFIGS = sorted((Path(__file__).parent / "configs").glob("*.json"))


def _at_class_default(config: dict) -> list[str]:
    """The sizes of a real file's language model equal to its class's defaults (:data:`TABLE`'s), which a file saved
    as what differs from them (transformers 4's sub-configs) leaves out."""
    from posenc.models.config_file import text_fields

    text = text_fields(config)
    return [key for key, value in TABLE["sizes"].get(text.get("model_type"), {}).items() if text.get(key) == value]


@pytest.mark.parametrize("path", [p for p in CONFIGS if _at_class_default(json.loads(p.read_text()))],
                         ids=lambda p: p.stem)
def test_a_real_file_without_the_sizes_its_class_gives_reads_the_same(path):
    """Each real file of tests/models/configs whose depth, heads or width equal its class's defaults (Llama 2 7B's
    32 layers of 32 heads, 4,096 wide: LlamaConfig's), with those left out: the same model and findings, and one
    note naming what it took from the class."""
    from posenc.models.config_file import text_node

    config = json.loads(path.read_text())
    dropped = _at_class_default(config)
    where, _ = text_node(config)
    short = json.loads(json.dumps(config))
    node = short
    for key in where:
        node = node[key]
    for key in dropped:
        del node[key]
    assert from_config(short) == from_config(config)
    told = [f for f in check(short) if "posenc draws those" in f.message]
    assert [f for f in check(short) if f not in told] == check(config)
    assert len(told) == 1 and all(key in told[0].message for key in dropped)


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=6)


@given(model_type=st.one_of(JSON, st.sampled_from(sorted(FAMILIES)), st.sampled_from(sorted(TEXT_CONFIG_TYPES))),
       text_config=st.one_of(st.none(), st.dictionaries(st.sampled_from(
           ["model_type", "hidden_size", "num_attention_heads", "num_hidden_layers", "head_dim", "rope_theta"]),
           JSON | st.integers(1, 4096), max_size=4)))
def test_any_model_type_reads_or_is_refused_in_a_sentence(model_type, text_config):
    """Any model_type (a JSON value of any kind, as a file holds: no NaN or infinity; a family's; a composite's),
    with or without a text_config of any of these fields: the class defaults are mappings of whole sizes or JSON
    fields, never raising; the file reads to a model or is refused with a ValueError sentence; the check never
    raises."""
    sizes = class_sizes(model_type)
    assert all(isinstance(value, int) and value > 0 for value in sizes.values())
    for given_text in (True, False):
        assert isinstance(dict(text_config_defaults(model_type if isinstance(model_type, str) else "", given_text)),
                          dict)
    config = {"model_type": model_type} | ({} if text_config is None else {"text_config": text_config})
    try:
        from_config(config)
    except ValueError as error:
        assert str(error) and "\n" not in str(error)
    assert all(f.severity in ("error", "warning", "info") for f in check(config))


@pytest.mark.parametrize("config", [LLAVA_15, {"model_type": "llava"}], ids=["text_config", "none"])
def test_a_composite_file_is_named_after_its_own_type(config):
    """A LLaVA file whose top level gives no _name_or_path: its views name it "llava config", and its source gives
    both types; they said "llama config", its language model's type."""
    model = from_config(config)
    assert model.label == "llava config"
    assert "model_type llava, its language model's llama" in model.source


def test_an_old_name_takes_its_class_s_sizes():
    """A model_type its class renames (EXAONE 4.5's text model, read as EXAONE 4's) takes that class's sizes."""
    from posenc.models.families import RENAMED

    for old, new in RENAMED.items():
        assert class_sizes(old) == class_sizes(new)
        assert _unnamed(from_config({"model_type": old})) == _unnamed(from_config({"model_type": new}))
