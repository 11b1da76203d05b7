"""The preset table: the 16 models of issue 29, their published numbers restated here, and the registry's names.

The numbers below are written a second time from the cited configs (not read from the table), so a typo in
posenc/models/presets.py fails here. Every positional setting must be one the scheme registry takes: its
key is a key of posenc.SCHEMES, its options are that scheme's option names, and the registry's offset curve
runs with them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import posenc
from posenc.models import LAYER_TYPES, MODELS, from_config, get, names
from posenc.schemes.rope.entry import rope_keywords

REQUIRED = ("gpt2", "bert-base", "t5-base", "bloom-560m", "llama-2-7b", "llama-3.1-8b", "llama-4-scout",
            "mistral-7b-v0.1", "qwen3-8b", "qwen2-vl-7b", "qwen3-vl-8b", "phi-3-mini-128k", "gemma-3-4b",
            "gpt-oss-20b", "deepseek-v3", "modernbert-base")

# name -> (layers, context, {layer type: (scheme, base, rotary dims, window, head dim)})
PUBLISHED = {
    "gpt2": (12, 1024, {"full_attention": ("learned", None, 0, None, 64)}),
    "bert-base": (12, 512, {"full_attention": ("learned", None, 0, None, 64)}),
    "t5-base": (12, 512, {"full_attention": ("t5", None, 0, None, 64)}),
    "bloom-560m": (24, 2048, {"full_attention": ("alibi", None, 0, None, 64)}),
    "llama-2-7b": (32, 4096, {"full_attention": ("rope", 1e4, 128, None, 128)}),
    "llama-3.1-8b": (32, 131_072, {"full_attention": ("rope", 5e5, 128, None, 128)}),
    "llama-4-scout": (48, 10_485_760, {"chunked_attention": ("rope", 5e5, 128, None, 128),
                                       "nope": ("nope", None, 0, None, 128)}),
    "mistral-7b-v0.1": (32, 32_768, {"sliding_attention": ("rope", 1e4, 128, 4096, 128)}),
    "qwen3-8b": (36, 40_960, {"full_attention": ("rope", 1e6, 128, None, 128)}),
    "qwen2-vl-7b": (28, 32_768, {"full_attention": ("rope", 1e6, 128, None, 128)}),
    "qwen3-vl-8b": (36, 262_144, {"full_attention": ("rope", 5e6, 128, None, 128)}),
    "phi-3-mini-128k": (32, 131_072, {"full_attention": ("rope", 1e4, 96, None, 96)}),
    "gemma-3-4b": (34, 131_072, {"sliding_attention": ("rope", 1e4, 256, 1024, 256),
                                 "full_attention": ("rope", 1e6, 256, None, 256)}),
    "gpt-oss-20b": (24, 131_072, {"sliding_attention": ("rope", 1.5e5, 64, 128, 64),
                                  "full_attention": ("rope", 1.5e5, 64, None, 64)}),
    "deepseek-v3": (61, 163_840, {"full_attention": ("rope", 1e4, 64, None, 192)}),
    "modernbert-base": (22, 8192, {"full_attention": ("rope", 1.6e5, 64, None, 64),
                                   "sliding_attention": ("rope", 1e4, 64, 64, 64)}),
}


def test_names_hold_the_issue_models_in_order():
    assert names() == REQUIRED
    assert set(PUBLISHED) == set(REQUIRED)


@pytest.mark.parametrize("name", REQUIRED)
def test_published_numbers(name):
    model = get(name)
    layers, context, types = PUBLISHED[name]
    assert len(model.layer_types) == layers and model.context_length == context
    assert set(model.layer_types) == set(types) and set(model.layer_types) <= set(LAYER_TYPES)
    for layer_type, (scheme, base, rotary_dims, window, head_dim) in types.items():
        assert tuple(model.positional(layer_type)[:1]) == (scheme,)
        positional = model.positional(layer_type)
        assert (positional.base, positional.rotary_dims, positional.window, positional.head_dim) == (
            base, rotary_dims, window, head_dim)
    assert "huggingface.co/" in model.source and "config.json" in model.source


def test_layer_patterns():
    assert get("gemma-3-4b").layer_types[:6] == ("sliding_attention",) * 5 + ("full_attention",)
    assert get("gemma-3-4b").layer_types.count("full_attention") == 5  # layers 5, 11, 17, 23, 29
    assert [i for i, t in enumerate(get("llama-4-scout").layer_types) if t == "nope"] == list(range(3, 48, 4))
    assert get("gpt-oss-20b").layer_types[:2] == ("sliding_attention", "full_attention")
    assert [i for i, t in enumerate(get("modernbert-base").layer_types) if t == "full_attention"] == list(range(0, 22, 3))


def test_scaling_options():
    llama = get("llama-3.1-8b").positional("full_attention").options
    assert dict(llama) == {"layout": "half", "rope_type": "llama3", "rotary_fraction": 1.0, "factor": 8.0,
                           "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
    scout = get("llama-4-scout").positional("chunked_attention")
    assert (scout.options["layout"], scout.options["factor"], scout.options["low_freq_factor"],
            scout.options["high_freq_factor"], scout.chunk) == ("interleaved", 16.0, 1.0, 1.0, 8192)
    assert dict(get("llama-4-scout").positional("nope").extra) == {"attn_temperature_tuning": True,
                                                                    "floor_scale": 8192, "attn_scale": 0.1}
    gemma = get("gemma-3-4b")
    assert (gemma.positional("full_attention").options["rope_type"], gemma.positional("full_attention").options["factor"],
            gemma.positional("sliding_attention").options["rope_type"]) == ("linear", 8.0, "default")
    oss = get("gpt-oss-20b").positional("full_attention").options
    assert (oss["rope_type"], oss["factor"], oss["beta_fast"], oss["beta_slow"], oss["truncate"],
            oss["original_max_position_embeddings"]) == ("yarn", 32.0, 32.0, 1.0, False, 4096)
    deepseek = get("deepseek-v3").positional("full_attention")
    assert (deepseek.options["factor"], deepseek.options["mscale"], deepseek.options["mscale_all_dim"],
            deepseek.extra["qk_nope_head_dim"], int(192 * deepseek.options["rotary_fraction"])) == (40.0, 1.0, 1.0, 128, 64)
    assert get("qwen2-vl-7b").positional("full_attention").extra["mrope_section"] == (16, 24, 24)
    assert dict(get("qwen3-vl-8b").positional("full_attention").extra) == {"mrope_section": (24, 20, 20),
                                                                          "mrope_interleaved": True}
    assert dict(get("t5-base").positional("full_attention").options) == {
        "num_heads": 12, "num_buckets": 32, "max_distance": 128, "direction": "bidirectional"}
    assert dict(get("bloom-560m").positional("full_attention").options) == {"num_heads": 16, "direction": "causal"}


def test_phi3_longrope_lists_are_the_published_ones():
    options = get("phi-3-mini-128k").positional("full_attention").options
    short, long = np.array(options["short_factor"]), np.array(options["long_factor"])
    assert short.shape == long.shape == (48,)  # one per rotated pair of a 96-wide head
    assert long[:3].tolist() == [1.0700000524520874, 1.1200000047683716, 1.149999976158142]
    assert long[-3:].tolist() == [64.57435607910156, 64.69000244140625, 64.76000213623047]
    assert short[:4].tolist() == [1.1, 1.1, 1.1, 1.3000000000000003] and short[-1] == 3.049999999999997
    assert (short == 2.000000000000001).sum() == 17 and (np.diff(long) >= 0).all() and (np.diff(short) >= 0).all()
    assert (options["original_max_position_embeddings"], options["max_position_embeddings"]) == (4096, 131_072)
    assert "factor" not in options  # transformers derives s = 131072 / 4096 = 32
    assert math.isclose(posenc.models.rope_inv_freq("phi-3-mini-128k")[1], math.sqrt(1 + math.log(32) / math.log(4096)))


@pytest.mark.parametrize("name", REQUIRED)
def test_options_are_the_registry_s(name):
    """Each layer type's scheme is a registry key, its options the scheme's names, and the registry runs them."""
    model = get(name)
    for layer_type in dict.fromkeys(model.layer_types):
        positional = model.positional(layer_type)
        scheme = posenc.SCHEMES[positional.scheme]
        options = dict(positional.options)
        if positional.scheme == "rope":
            rope_keywords(options)  # refuses a name RoPE does not have
        else:
            assert set(options) <= {option.name for option in scheme.options}, options
        offsets, values = scheme.offset_curve(16, positional.head_dim, positional.base or 10_000.0, **options)
        drawn = values[~np.isnan(values)]  # NaN: an offset with no value (a causal bias's future keys)
        assert drawn.size and np.isfinite(drawn).all() and len(offsets) == values.shape[-1]


def test_presets_cannot_be_changed_by_a_caller():
    options = get("llama-3.1-8b").positional("full_attention").options
    with pytest.raises(TypeError):
        options["factor"] = 2.0
    with pytest.raises(TypeError):
        MODELS["gpt2"] = None
    assert isinstance(get("phi-3-mini-128k").positional("full_attention").options["long_factor"], tuple)


def test_get_refuses_an_unknown_name_and_a_missing_layer_type():
    with pytest.raises(ValueError, match=r"Unknown model 'Llama-3.1-8B'; known models: gpt2, bert-base, t5-base"):
        get("Llama-3.1-8B")
    with pytest.raises(ValueError, match=r"Unknown model 3"):
        get(3)
    with pytest.raises(ValueError, match=r"Gemma 3 4B has no layer type 'nope'; its layer types are "):
        get("gemma-3-4b").positional("nope")


def test_each_layer_s_reach_is_its_window_or_the_whole_context():
    reach = posenc.models.layer_reach("gemma-3-4b")
    kinds = posenc.models.get("gemma-3-4b").layer_types
    assert {int(r) for r, kind in zip(reach, kinds) if kind == "sliding_attention"} == {1023}
    assert {int(r) for r, kind in zip(reach, kinds) if kind == "full_attention"} == {131_071}
    assert set(posenc.models.layer_reach("llama-4-scout").tolist()) == {8191, 10_485_759}
    assert set(posenc.models.layer_reach("modernbert-base").tolist()) == {64, 8191}  # 64 on each side


CONFIGS = Path(__file__).parent / "configs"


@pytest.mark.parametrize("name", REQUIRED)
def test_source_says_where_its_numbers_were_read(name):
    """Issue 35: a preset whose config file is a copy names that copy's repository and commit; one whose file
    was written from the citation says which values rest on the citation. Either way it names a revision."""
    copied = json.loads((CONFIGS / f"{name}.json").read_text())["_source"]
    source = get(name).source
    assert source.startswith("https://huggingface.co/") and source.split()[0].rstrip(",:").endswith("config.json")
    if copied.startswith("Copied from"):
        repo, commit = copied.split()[2].rstrip(","), copied.split("(commit ")[1][:12]
        assert repo in source and commit in source, (repo, commit)
        assert "as read in" in source
    else:
        assert copied.startswith("Not a copy") and ("rest on" in copied or "(commit " in copied)
        assert "rest on this citation" in source or "gives these values" in source
    assert "revision" in source or "layout" in source


def test_the_copies_positional_values_are_the_presets():
    """The real copies (not the files written from the citations) read to exactly their presets."""
    copies = [name for name in REQUIRED
              if json.loads((CONFIGS / f"{name}.json").read_text())["_source"].startswith("Copied from")]
    assert set(copies) >= {"gpt2", "bert-base", "t5-base", "llama-2-7b", "llama-3.1-8b", "qwen3-8b", "gpt-oss-20b",
                           "deepseek-v3"}
    for name in copies:
        model, preset = from_config(CONFIGS / f"{name}.json"), get(name)
        assert (model.layer_types, model.context_length, model.causal, model.softmax_dim) == (
            preset.layer_types, preset.context_length, preset.causal, preset.softmax_dim), name
        for layer_type, positional in preset.positionals.items():
            mine = model.positional(layer_type)
            assert mine._replace(options={}, extra={}) == positional._replace(options={}, extra={}), name
            assert dict(mine.options) == dict(positional.options) and dict(mine.extra) == dict(positional.extra), name


def test_phi3_lists_are_the_june_2024_longrope_ones():
    """The config file's lists (copied from the vendored Microsoft script) are the preset's, and not April's `su`
    lists (Phi-3-vision-128k's file keeps those)."""
    june = json.loads((CONFIGS / "phi-3-mini-128k.json").read_text())["rope_scaling"]
    april = json.loads((CONFIGS / "phi-3-vision-128k-instruct.json").read_text())["rope_scaling"]
    options = get("phi-3-mini-128k").positional("full_attention").options
    assert june["type"] == "longrope" and april["type"] == "su"
    assert tuple(june["long_factor"]) == options["long_factor"] and tuple(june["short_factor"]) == options["short_factor"]
    assert tuple(april["long_factor"]) != options["long_factor"]
