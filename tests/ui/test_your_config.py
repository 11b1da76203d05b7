"""Your config in the app: a config.json uploaded or pasted sets every view, the check's findings sit above the
views (errors first, each naming its field), the link carries it compactly and reproduces the view, and bad
input of every kind gets one sentence and nothing else."""

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from apptest_helpers import APP, PAGES
from posenc.models.config_link import to_link

CONFIGS = Path(__file__).parents[1] / "models" / "configs"
LLAMA = json.loads((CONFIGS / "llama-3.1-8b.json").read_text())
# two findings: an error (v4's type and v5's rope_type disagree) and a warning (no rope_theta)
TWO_FINDINGS = {"_name_or_path": "student/yarn-test", "model_type": "qwen3", "hidden_size": 2048,
                "num_attention_heads": 16, "head_dim": 128, "num_hidden_layers": 4, "max_position_embeddings": 131072,
                "rope_scaling": {"type": "linear", "rope_type": "yarn", "factor": 4.0,
                                 "original_max_position_embeddings": 32768}}


def _app(query: dict | None = None, page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    if page:
        at.switch_page(page)
    return at.run()


def _clean(at: AppTest, context=None) -> None:
    assert not at.exception, (context, [e.value for e in at.exception])
    assert not at.error, (context, [e.value for e in at.error])


def _check_text(at: AppTest) -> str:
    return next((m.value for m in at.markdown if m.value.startswith("**Check of")), "")


def _paste(at: AppTest, text: str) -> AppTest:
    return at.sidebar.text_area(key="config_paste").input(text).run()


def test_choosing_your_config_asks_for_one():
    at = _app({"model": "config"})
    _clean(at)
    assert any("Upload a config.json or paste its text" in i.value for i in at.info)
    assert at.session_state["d_model"] == 128 and at.session_state["scheme"] == "sinusoidal"  # posenc's own


def test_a_pasted_config_sets_the_sidebar_and_its_findings_sit_above_the_views_errors_first():
    at = _paste(_app({"model": "config"}), json.dumps(TWO_FINDINGS))
    _clean(at)
    assert (at.session_state["scheme"], at.session_state["d_model"], at.session_state["length"]) == ("rope", 128, 4096)
    assert at.session_state["rope.rope_type"] == "yarn" and at.session_state["n"] == 10_000.0
    text = _check_text(at)
    assert text.startswith("**Check of student/yarn\\-test**: 1 error, 1 warning"), text
    lines = text.splitlines()[1:]
    assert len(lines) == 2 and ":red[**error**]" in lines[0] and "` rope_scaling.type `" in lines[0]
    assert ":orange[**warning**]" in lines[1] and "` rope_theta `" in lines[1]
    link = at.query_params["config"]
    assert at.query_params["model"] == "config" and link == to_link(TWO_FINDINGS) and len(link) < 400


@pytest.mark.parametrize("page", PAGES)
def test_the_link_reproduces_the_view_on_every_page_without_the_file(page):
    """A link with model=config and the link form opens every page under the config, findings first."""
    at = _app({"model": "config", "config": to_link(TWO_FINDINGS)}, page)
    _clean(at, page)
    assert at.session_state["rope.rope_type"] == "yarn" and at.session_state["rope.factor"] == 4.0
    assert "1 error, 1 warning" in _check_text(at)
    assert any("student/yarn" in c.value and "(your config)" in c.value for c in at.sidebar.caption)


def test_how_it_works_shows_its_layers_and_what_a_dropped_scaling_costs():
    at = _app({"model": "config", "config": to_link(LLAMA)}, "pages/details.py")
    _clean(at)
    heads = [s.value for s in at.subheader]
    assert heads[:4] == ["Layers of llama config", "The decay as far as llama config's context (131,072 positions)",
                         "Where llama config's scaling acts (llama3)", "What a dropped scaling costs llama config"]
    caption = next(c.value for c in at.caption if c.value.startswith("One query q and key k"))
    assert "llama3 scaling" in caption and "disagree from" in caption and "131,072" in caption


def test_an_upload_reads_like_a_paste():
    at = _app({"model": "config"})
    at.sidebar.file_uploader[0].set_value(("config.json", json.dumps(LLAMA).encode(), "application/json"))
    at.run()
    _clean(at)
    assert at.query_params["config"] == to_link(LLAMA)
    assert at.session_state["rope.rope_type"] == "llama3" and at.session_state["n"] == 500_000.0


def test_a_link_s_own_settings_win_over_the_config_s():
    at = _app({"model": "config", "config": to_link(LLAMA), "d_model": "64"})
    _clean(at)
    assert at.session_state["d_model"] == 64 and at.session_state["n"] == 500_000.0
    assert any("Differs from the model: d_model is 64 here, 128 in llama config" in c.value for c in at.sidebar.caption)


def _tampered():
    link = to_link(LLAMA)
    version, data, digits = link.split(".")
    flipped = data[:40] + ("A" if data[40] != "A" else "B") + data[41:]
    return [(f"{version}.{flipped}.{digits}", "check digits|cannot be read|cut short"),
            (link[: len(link) // 2], "not in posenc's link form"),
            (f"{version}.{data}.00000000", "check digits"),
            ("<script>alert(1)</script>", "not in posenc's link form"),
            ("1." + "A" * 9000 + ".0", "at most")]


@pytest.mark.parametrize("link, said", _tampered())
def test_a_tampered_link_gets_one_sentence_and_the_views_go_on(link, said):
    at = _app({"model": "config", "config": link}, "pages/details.py")
    _clean(at)
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 1 and warnings[0].startswith("The config in the link"), warnings
    assert re.search(said, warnings[0].replace("\\", "")), warnings
    assert "<script>" not in warnings[0]
    assert at.session_state["scheme"] == "sinusoidal"  # no model: posenc's settings


BAD = {
    "1 MB of junk": "x" * 1_000_500,
    "a JSON bomb": '{"layer_types": [' + ",".join(['"full_attention"'] * 100_000) + "]}",
    "nesting 10,000 deep": "[" * 10_000 + "]" * 10_000,
    "NaN": '{"model_type": "llama", "rope_theta": NaN}',
    "Infinity": '{"model_type": "llama", "rope_theta": -Infinity}',
    "a huge number": '{"model_type": "llama", "rope_theta": 1e999}',
    "not an object": "[1, 2, 3]",
    "not JSON": "model_type: llama",
    "a path": "/etc/passwd",
}


@pytest.mark.parametrize("name", BAD)
def test_bad_text_gets_one_sentence_and_nothing_else(name):
    at = _paste(_app({"model": "config"}), BAD[name])
    _clean(at, name)
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 1 and warnings[0].startswith("Your config was not read"), (name, warnings)
    assert "Traceback" not in warnings[0] and "root:" not in warnings[0] and len(warnings[0]) < 700
    assert "config" not in at.query_params  # nothing read, nothing in the link


WRONG = {
    "wrong types": ({"model_type": "llama", "rope_theta": "big", "num_hidden_layers": 2, "hidden_size": 64,
                     "num_attention_heads": 2}, "rope_theta"),
    "a list for a number": ({"model_type": "llama", "rope_theta": 1e4, "num_hidden_layers": [2], "hidden_size": 64,
                             "num_attention_heads": 2}, "num_hidden_layers"),
    "no positional field": ({"vocab_size": 32000, "hidden_act": "silu"}, "no positional field"),
    "an unknown scaling": ({"model_type": "llama", "rope_theta": 1e4, "num_hidden_layers": 2, "hidden_size": 64,
                            "num_attention_heads": 2, "rope_scaling": {"rope_type": "warp", "factor": 2}}, "warp"),
}


@pytest.mark.parametrize("name", WRONG)
def test_a_config_posenc_cannot_read_is_an_error_finding_naming_the_field(name):
    config, said = WRONG[name]
    at = _paste(_app({"model": "config"}), json.dumps(config))
    _clean(at, name)
    text = _check_text(at)
    assert ":red[**error**]" in text and said in text.replace("\\", ""), text
    assert "posenc cannot read it as a model" in text
    assert at.session_state["scheme"] == "sinusoidal"


def test_a_hostile_name_is_shown_as_text():
    config = LLAMA | {"_name_or_path": "<img src=x onerror=alert(1)>[click](javascript:alert(1)) **bold** :red[x]"}
    at = _paste(_app({"model": "config"}, "pages/details.py"), json.dumps(config))
    _clean(at)
    shown = _check_text(at) + " ".join(c.value for c in at.sidebar.caption) + " ".join(s.value for s in at.subheader)
    assert "<img" not in shown and "](javascript" not in shown and "**bold**" not in shown and ":red[x]" not in shown


JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-10**9, 10**9),
                        st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=10))
FIELDS = st.sampled_from(["rope_theta", "rope_scaling", "rope_parameters", "head_dim", "hidden_size",
                          "num_attention_heads", "num_hidden_layers", "max_position_embeddings", "partial_rotary_factor",
                          "layer_types", "sliding_window", "model_type", "text_config", "no_rope_layers"])
VALUES = st.recursive(JSON_LEAVES, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["rope_type", "type", "factor", "original_max_position_embeddings", "rope_theta", "x"]), inner,
    max_size=3), max_leaves=8)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.sampled_from(sorted(CONFIGS.glob("*.json"))), st.dictionaries(FIELDS, VALUES, max_size=3))
def test_any_config_pasted_is_a_view_or_a_sentence(path, changes):
    """Property-based, as for links: a real config with fields changed to anything JSON holds, pasted on How it
    works (the view that draws the most under a model): no exception, no error box; the check or a sentence."""
    at = _paste(_app({"model": "config"}, "pages/details.py"), json.dumps(json.loads(path.read_text()) | changes))
    _clean(at, changes)
    assert _check_text(at) or any(w.value.startswith("Your config was not read") for w in at.warning)


def test_a_declared_scaling_posenc_cannot_compute_is_said_not_drawn():
    swapped = TWO_FINDINGS | {"rope_scaling": {"rope_type": "yarn", "factor": 4.0, "beta_fast": 1, "beta_slow": 32,
                                               "original_max_position_embeddings": 32768}}
    at = _app({"model": "config", "config": to_link(swapped)}, "pages/details.py")
    _clean(at)
    assert "rope_scaling.beta_fast" in _check_text(at)
    assert not any(s.value.startswith("What a dropped scaling costs") for s in at.subheader)
    assert any("is not drawn: its declared scaling cannot be computed" in c.value for c in at.caption)


QWEN_YARN = {"_name_or_path": "student/qwen-yarn", "model_type": "qwen3", "hidden_size": 2048,
             "num_attention_heads": 16, "head_dim": 128, "num_hidden_layers": 4, "max_position_embeddings": 131072,
             "rope_theta": 1000000.0, "rope_scaling": {"rope_type": "yarn", "factor": 4.0,
                                                       "original_max_position_embeddings": 32768}}
"""Qwen's YaRN recipe: a trained context of 32,768, past the sidebar's old L₀ range (16 … 16,384)."""


def test_a_trained_context_past_16384_is_the_one_the_views_compute_with():
    """The sidebar's L₀ slider stopped at 16,384: a config's 32,768 was left out, and the views computed its YaRN
    with the sidebar's 512 while the caption said the value was 'not used with this scheme or scaling'."""
    at = _app({"model": "config", "config": to_link(QWEN_YARN)}, "pages/details.py")
    _clean(at)
    assert at.session_state["rope.original_max_position_embeddings"] == 32768
    regions = next(c.value for c in at.caption if c.value.startswith("Of 64 pairs"))
    assert "L₀ = 32,768" in regions and "512" not in regions
    assert not any("Not in the sidebar" in c.value for c in at.sidebar.caption)


def test_a_value_beyond_a_control_s_range_is_said_not_to_be_used():
    """A factor of 128 (the slider ends at 64) cannot be shown: the views compute with the sidebar's, and say so."""
    config = json.loads(json.dumps(QWEN_YARN))
    config["rope_scaling"]["factor"] = 128.0
    at = _app({"model": "config", "config": to_link(config)}, "pages/details.py")
    _clean(at)
    said = " ".join(c.value for c in at.sidebar.caption)
    assert "factor = 128 is beyond the sidebar's range (1 … 64): the views use factor = 4 instead" in said
    assert "the views use the model's" not in said and "not used with this scheme or scaling" not in said


def test_a_dropped_scaling_that_parts_at_distance_one_is_seen_by_any_test():
    """Linear ×4 parts from distance 1: the caption said 'a test whose keys all lie within 0 tokens of their
    queries sees nothing wrong'."""
    config = json.loads(json.dumps(LLAMA))
    config.update(rope_scaling={"rope_type": "linear", "factor": 4.0}, max_position_embeddings=32768)
    at = _app({"model": "config", "config": to_link(config)}, "pages/details.py")
    _clean(at)
    caption = next(c.value for c in at.caption if c.value.startswith("One query q and key k"))
    assert caption.endswith("only at distance 0, the query's own position, and disagree from 1 on, of 32,768: any "
                            "test with a key before its query sees it.")
    assert "within 0 tokens" not in caption


def test_a_renamed_composite_is_read_as_the_class_it_names():
    """A fine-tune of LLaVA saved with a model_type of its own (transformers 5.23 knows no such type) and naming
    LlavaForConditionalGeneration: pasted, it sets the sidebar from its language model as LlavaConfig builds it
    (LlamaConfig's 128-wide heads, θ 10,000, its text_config's context), the check says how it was read and where no
    θ was given, and its link opens How it works under it. It was read as a Llama-style decoder from its top level,
    which gives no positional field: a refusal."""
    renamed = {"model_type": "student_llava_ft", "architectures": ["LlavaForConditionalGeneration"],
               "text_config": {"max_position_embeddings": 4096}}
    at = _paste(_app({"model": "config"}), json.dumps(renamed))
    _clean(at)
    assert (at.session_state["scheme"], at.session_state["d_model"], at.session_state["length"]) == ("rope", 128, 4096)
    assert at.session_state["n"] == 10_000.0
    text = _check_text(at)
    assert text.startswith("**Check of student\\_llava\\_ft config**: 1 warning, 2 infos"), text
    assert "` text_config.rope_theta `" in text and "LlavaForConditionalGeneration" in text and "LlamaConfig" in text
    at = _app({"model": "config", "config": at.query_params["config"]}, "pages/details.py")
    _clean(at)
    assert [s.value for s in at.subheader][0] == "Layers of student\\_llava\\_ft config"
