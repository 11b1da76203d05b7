"""Property-based tests of posenc.models.from_config and check over random configs and texts.

Random JSON objects, random texts, and the configs of tests/models/configs/ with one field (at any depth)
replaced by a random JSON value or removed: from_config returns a Model or raises a ValueError, check returns
findings or raises a ValueError (only for input that is not a readable config), never another exception; a
model it returns has finite frequencies for every rotary layer type, or a ValueError sentence. Budget:
tests/conftest.py (POSENC_FUZZ).
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc.models import Finding, Model, check, from_config, rope_inv_freq
from posenc.models.config_link import POSITIONAL_FIELDS
from posenc.models.families import FAMILIES

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # an overflow warning is a silent inf: fail

CONFIGS = [json.loads(path.read_text()) for path in sorted((Path(__file__).parent / "configs").glob("*.json"))]
KEYS = sorted({key for config in CONFIGS for key in config} | {"rope_type", "type", "factor", "layer_types",
                                                                  "text_config", "rope_parameters", "full_attention",
                                                                  "pad_token_id", "attn_config", "alibi_bias_max",
                                                                  "rotary_dim", "truncate", "model_type"}
              | POSITIONAL_FIELDS)  # every field the reader reads, the families' own among them

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from([0, 1, 2, 3, 64, 4096, 0.5, 1e300, -1.0, "linear", "yarn", "llama3", "longrope",
                                     "su", "mrope", "default", "dynamic", "sliding_attention", "full_attention", "",
                                     *FAMILIES]),
                    st.text(max_size=12))
JSON = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                      st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8),
                                                                      inner, max_size=5)), max_leaves=30)


def paths(value, prefix=()):
    """Every (path, value) inside a JSON value."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, (*prefix, index))


@st.composite
def mutated(draw):
    """A test config with one field replaced by a random JSON value, removed, or a key added."""
    config = copy.deepcopy(draw(st.sampled_from(CONFIGS)))
    path = draw(st.sampled_from([p for p in paths(config) if p]))
    *parents, last = path
    target = config
    for key in parents:
        target = target[key]
    action = draw(st.sampled_from(["replace", "remove", "add"]))
    if action == "remove":
        del target[last]
    elif action == "add" and isinstance(target, dict):
        target[draw(st.sampled_from(KEYS))] = draw(JSON)
    else:
        target[last] = draw(JSON)
    return config


SOURCES = st.one_of(mutated(), st.dictionaries(st.sampled_from(KEYS), JSON, max_size=8), JSON,
                    st.text(max_size=60), st.builds(json.dumps, mutated()),
                    st.sampled_from(["{", "[]", "null", '{"rope_theta": NaN}', '{"a": Infinity}', "{" * 5000,
                                     "1" * 2000, '{"n": 1e999}', " " * 10]))


def finite_frequencies(model: Model) -> None:
    for layer_type, positional in model.positionals.items():
        if positional.scheme != "rope":
            continue
        try:
            inv_freq, scaling = rope_inv_freq(model, layer_type)
        except ValueError:
            continue
        assert inv_freq.shape == (positional.rotary_dims // 2,) and np.isfinite(inv_freq).all()
        assert math.isfinite(scaling)


@given(SOURCES)
def test_from_config_returns_a_model_or_a_valueerror(source):
    try:
        model = from_config(source)
    except ValueError as error:
        assert str(error).strip()
        return
    assert isinstance(model, Model) and model.layer_types and model.context_length >= 1
    assert set(model.layer_types) == set(model.positionals)
    finite_frequencies(model)


@given(SOURCES)
def test_check_returns_findings_or_a_valueerror(source):
    try:
        findings = check(source)
    except ValueError as error:
        assert str(error).strip()
        return
    for finding in findings:
        assert isinstance(finding, Finding) and finding.severity in ("error", "warning", "info")
        assert isinstance(finding.field, str) and finding.message.strip()
    severities = [("error", "warning", "info").index(f.severity) for f in findings]
    assert severities == sorted(severities)


@given(st.sampled_from(CONFIGS))
def test_every_test_config_reads_and_checks(config):
    finite_frequencies(from_config(config))
    check(config)


def test_huge_and_deep_inputs_are_refused_with_a_sentence():
    with pytest.raises(ValueError, match="1,000,000 bytes are read"):
        from_config('{"a": "' + "x" * 1_000_001 + '"}')
    with pytest.raises(ValueError, match="nests deeper than 32"):
        from_config("{" + '"a": [' * 10_000 + "]" * 10_000 + "}")
    with pytest.raises(ValueError, match="NaN, which is not a JSON number"):
        from_config('{"rope_theta": NaN}')
    with pytest.raises(ValueError, match="too large for a 64-bit float"):
        from_config('{"rope_theta": 1e999}')
    with pytest.raises(ValueError, match="no positional field"):
        from_config({"model_type": "mystery", "hidden_size": 64})
    with pytest.raises(ValueError, match="rope_scaling.factor must be a finite number; the config has 'eight'"):
        from_config({**CONFIGS[0], "model_type": "llama", "rope_scaling": {"rope_type": "linear", "factor": "eight"},
                     "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
                     "max_position_embeddings": 128})
