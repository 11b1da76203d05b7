"""Property-based: posenc reads a config as transformers 5.23 computes it, over random variants of the test configs.

Each example takes a config of tests/models/configs/ (its rotary families) and changes where and what its RoPE
fields say: a scaling of another type (linear, dynamic, YaRN with or without its optional parameters, llama3) or none,
named by v5's rope_type or v4's type, under v4's rope_scaling or v5's rope_parameters, flat or nested by layer type,
its trained context L₀ in the scaling, at the top level, in both or in neither, rope_theta in the scaling and at the
top level, a partial_rotary_factor in either. transformers builds the config as from_pretrained does and its
family's rotary embedding computes the frequencies (the oracle: tests/helpers/transformers_rotary.py). Then:

- where transformers builds the rotary embedding, posenc gives the same frequencies and attention scaling for every
  rotary layer type, or refuses with a ValueError only for a share of a head given to a class that rotates whole
  heads under a scaling (transformers builds it and fails at the first forward pass: test_model_config.py);
- where transformers refuses the config, posenc's check names an error, or posenc refuses it.

Written after a random comparison found six ways posenc read a config otherwise (the trained context of Phi-3,
Gemma 3, ModernBERT and Qwen2-VL, whole-head classes given a share, GPT-NeoX's names, Qwen-VL's θ defaults); v4's
type, v5's rope_parameters, nesting and YaRN's options joined after a second found more: in the classes that keep
their parameters per layer type (Gemma 3, ModernBERT), and in every other class given nested parameters
(test_model_config.py).
Budget: tests/conftest.py (POSENC_FUZZ).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posenc.models import check, from_config, rope_inv_freq

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")
transformers.logging.set_verbosity_error()

from transformers_rotary import hf_frequencies, hf_rotary  # noqa: E402

CONFIGS = {path.stem: json.loads(path.read_text()) for path in sorted((Path(__file__).parent / "configs").glob("*.json"))}
ROTARY = sorted(name for name, config in CONFIGS.items()  # GPT-J has no rotary class; nested parameters are kept
                if any(p.scheme == "rope" for p in from_config(config).positionals.values())
                and config.get("model_type") != "gptj"
                and all(not isinstance(v, dict) for v in ((config.get("text_config") or config).get("rope_scaling")
                                                          or {}).values()))


@st.composite
def variants(draw) -> tuple[str, dict]:
    name = draw(st.sampled_from(ROTARY))
    config = copy.deepcopy(CONFIGS[name])
    text = config["text_config"] if isinstance(config.get("text_config"), dict) else config
    scaling = dict(text.get("rope_scaling") or {})
    kind = draw(st.sampled_from(["keep", "default", "linear", "dynamic", "yarn", "llama3"]))
    if kind != "keep":
        scaling = {key: value for key, value in scaling.items() if key in ("mrope_section", "mrope_interleaved")}
        scaling[draw(st.sampled_from(["rope_type", "type"]))] = kind  # v5's name, or v4's
        if kind != "default":
            scaling["factor"] = draw(st.sampled_from([2.0, 4.0, 8.0]))
        if kind == "llama3":
            scaling.update(low_freq_factor=1.0, high_freq_factor=4.0)
        if kind == "yarn":
            scaling.update({key: _YARN[key] for key in draw(st.sets(st.sampled_from(list(_YARN))))})
        if kind in ("yarn", "llama3") and draw(st.booleans()):
            scaling["original_max_position_embeddings"] = draw(st.sampled_from([2048, 4096, 8192]))
    top = config if draw(st.booleans()) else text  # beside text_config, or inside it
    if draw(st.booleans()):
        top["original_max_position_embeddings"] = draw(st.sampled_from([1024, 4096]))
    if draw(st.booleans()):
        scaling["rope_theta"] = draw(st.sampled_from([10_000.0, 500_000.0]))
    if draw(st.booleans()):
        text["rope_theta"] = draw(st.sampled_from([20_000.0, 1_000_000.0]))
    if draw(st.integers(0, 3)) == 0:
        (scaling if draw(st.booleans()) else text)["partial_rotary_factor"] = draw(st.sampled_from([0.5, 0.25]))
    if kind != "keep" and draw(st.integers(0, 3)) == 0:  # nested by layer type, as v5 writes Gemma 3's
        scaling = {"full_attention": scaling, "sliding_attention": {"rope_type": "default"}}
    text["rope_parameters" if kind != "keep" and draw(st.booleans()) else "rope_scaling"] = scaling
    if "rope_parameters" in text and text.get("rope_scaling") is not None:
        del text["rope_scaling"]
    return name, config


_YARN = {"beta_fast": 16.0, "beta_slow": 2.0, "mscale": 0.707, "mscale_all_dim": 1.0, "attention_factor": 0.9,
         "truncate": False}
"""YaRN's optional parameters, one value each (DeepSeek's mscale pair, gpt-oss's truncate false)."""


def _transformers(config: dict, tmp: Path):
    (tmp / "config.json").write_text(json.dumps(config))
    built = transformers.AutoConfig.from_pretrained(tmp).get_text_config()
    return built, hf_rotary(built)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(variants())
def test_posenc_reads_a_config_as_transformers_computes_it(tmp_path, variant):
    name, config = variant
    try:
        built, rotary = _transformers(config, tmp_path)
    except Exception as refusal:  # noqa: BLE001 - transformers refuses in many ways (KeyError, validation errors)
        findings = check(config)
        assert any(f.severity == "error" for f in findings), (name, config, refusal, findings)
        return
    try:
        model = from_config(config)
    except ValueError as refusal:
        assert "takes no share of a head to rotate" in str(refusal), (name, config, refusal)
        return
    for layer_type, positional in model.positionals.items():
        if positional.scheme != "rope":
            continue
        expected, expected_scaling = hf_frequencies(rotary, layer_type)
        got, scaling = rope_inv_freq(model, layer_type)
        assert got.shape == expected.shape, (name, layer_type, config)
        np.testing.assert_allclose(got, expected, rtol=3e-6, atol=0, err_msg=f"{name} {layer_type} {config}")
        assert scaling == pytest.approx(expected_scaling, rel=1e-6), (name, layer_type, config)
