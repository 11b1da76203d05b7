"""The model picker: ?model=<key> sets the sidebar to a released model's settings, every page runs under
every preset, a link's own settings win over the model's and are said to differ, and a change of model in
the session sets all of its settings."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import posenc
from apptest_helpers import APP, PAGES
from family_configs import ROTARY_CONFIGS
from posenc.ui import model_picker


def test_llama_3_1_s_settings_are_its_config_s():
    values, left_out = model_picker.preset("llama-3.1-8b")
    assert values == {"scheme": "rope", "d_model": 128, "length": 4096, "n": 500000.0, "rope.layout": "half",
                      "rope.rope_type": "llama3", "rope.rotary_fraction": 1.0, "rope.factor": 8.0,
                      "rope.original_max_position_embeddings": 8192}
    assert left_out == {"low_freq_factor": 1.0, "high_freq_factor": 4.0}


def test_a_partial_rotation_keeps_its_rotated_dimensions():
    """DeepSeek-V3 rotates 64 of each head's 192 query-key dimensions: int(192·f) must be 64, not 63."""
    values, _ = model_picker.preset("deepseek-v3")
    assert values["d_model"] == 192 and int(192 * values["rope.rotary_fraction"]) == 64


def test_the_shown_layers_are_the_global_ones():
    assert model_picker.shown_layer(posenc.models.get("gemma-3-4b")) == "full_attention"
    assert model_picker.shown_layer(posenc.models.get("llama-4-scout")) == "chunked_attention"


@pytest.mark.parametrize("name", posenc.models.names())
def test_every_page_runs_under_every_preset(name):
    values, _ = model_picker.preset(name)
    for page in PAGES:
        at = AppTest.from_file(APP, default_timeout=90)
        at.query_params["model"] = name
        at.switch_page(page).run()
        assert not at.exception, (name, page, [e.value for e in at.exception])
        assert not at.error and not at.warning, (name, page, [w.value for w in at.warning])
        assert {key: at.session_state[key] for key in values} == values, (name, page)
        assert any(f"As in **{posenc.models.get(name).label}**" in c.value for c in at.sidebar.caption)


def test_a_link_s_own_settings_win_and_are_said_to_differ():
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["model"] = "llama-3.1-8b"
    at.query_params["d_model"] = "64"
    at.run()
    assert at.session_state["d_model"] == 64 and at.session_state["n"] == 500000.0
    assert any("Differs from the model: d_model is 64 here, 128 in Llama 3.1 8B" in c.value for c in at.sidebar.caption)


def test_choosing_another_model_sets_all_of_its_settings():
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["model"] = "llama-3.1-8b"
    at.query_params["d_model"] = "64"
    at.run()
    at.sidebar.selectbox(key="model").select("gemma-3-4b").run()
    assert at.session_state["d_model"] == 256 and at.session_state["n"] == 1_000_000.0
    assert at.session_state["rope.rope_type"] == "linear" and at.session_state["rope.factor"] == 8.0
    assert not any("Differs" in c.value for c in at.sidebar.caption)
    at.sidebar.slider(key="d_model").set_value(100).run()
    assert any("d_model is 100 here, 256 in Gemma 3 4B" in c.value for c in at.sidebar.caption)


def test_an_unknown_model_is_named_escaped_and_ignored():
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["model"] = "<b>gpt-5</b>"
    at.run()
    assert not at.exception and at.session_state["scheme"] == "sinusoidal"
    assert any("` <b>gpt-5</b> `" in w.value for w in at.warning)


def test_the_layers_view_shows_each_layer_type_and_how_far_a_token_sees():
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["model"] = "gemma-3-4b"
    at.switch_page("pages/details.py").run()
    assert not at.exception
    table = at.dataframe[0].value  # the first table of the page: the layers
    assert list(table["layer type"]) == ["sliding_attention", "full_attention"]
    assert list(table["layers"]) == [29, 5] and list(table["window"]) == ["1,024", "whole context"]
    assert list(table["scaling"]) == ["default", "linear ×8"] and list(table["base θ"]) == ["10,000", "1,000,000"]

    from apptest_helpers import charts, title

    spec = next(chart for chart in charts(at) if "how far a token sees" in title(chart))
    assert [trace["name"] for trace in spec["data"]][:2] == ["sliding_attention (29 layers)", "full_attention (5 layers)"]
    assert any("after layer 5 a token can depend on the whole 131,072-token context" in c.value for c in at.caption)


@pytest.mark.parametrize(("name", "said", "hover"), [
    ("mistral-7b-v0.1", "A window of w keys lets a layer see w positions: the token itself and w − 1 before it (its bar)",
     "sees %{y:,.0f} positions"),
    ("modernbert-base", "A window of w keys either side lets a layer see w positions each way besides the token "
                        "itself (its bar: the farthest it sees, plus one)", "sees %{y:,.0f} positions each way"),
])
def test_the_layers_view_says_how_far_a_window_sees_as_its_mask_does(name, said, hover):
    """A causal window of w keys sees the token and w − 1 before it (bar: w); a bidirectional one (ModernBERT's 64
    either side) sees w each way (bar: w + 1, the farthest offset plus one), as models.attention_mask draws them. The
    caption said "w positions back" for both, and the bar's hover "sees N positions", one side of a window that sees
    2N − 1."""
    from apptest_helpers import charts, title
    from plotly_data import decode
    from posenc import models

    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["model"] = name
    at.switch_page("pages/details.py").run()
    assert not at.exception
    assert any(said in c.value for c in at.caption), [c.value for c in at.caption]
    spec = next(chart for chart in charts(at) if "how far a token sees" in title(chart))
    bar = next(trace for trace in spec["data"] if trace["name"].startswith("sliding_attention"))
    assert bar["hovertemplate"].startswith(f"layer %{{x}}: {hover}<")
    model = models.get(name)
    window = model.positional("sliding_attention").window
    seen = models.attention_mask(model, "sliding_attention", 4 * window, queries=[2 * window])[0]
    assert decode(bar["y"])[0] == (window if model.causal else window + 1) and seen.sum() == (
        window if model.causal else 2 * window + 1)


@pytest.mark.parametrize("name, option, model_value", [
    ("llama-4-scout", "high_freq_factor", 1.0),  # posenc's default: 4.0
    ("gpt-oss-20b", "truncate", False),  # posenc's default: True
    ("deepseek-v3", "mscale", 1.0),  # posenc's default: None (YaRN's attention factor 0.1·ln s + 1)
])
def test_the_views_compute_with_the_model_s_options_the_sidebar_cannot_set(name, option, model_value):
    """How it works' RoPE decay under ?model= is the model's curve (its bands, truncation or mscale), not the one
    with posenc's defaults; once the student picks another scaling, the model's options no longer apply."""
    import numpy as np

    from apptest_helpers import charts, run, title
    from plotly_data import decode, sent_series

    at = run({"model": name}, "pages/details.py", timeout=90)
    values, left_out = model_picker.preset(name)
    assert left_out[option] == model_value
    options = {key.split(".", 1)[1]: value for key, value in values.items() if key.startswith("rope.")}
    scheme = posenc.get_scheme("rope")
    width, length, base = values["d_model"], values["length"], values["n"]
    decay = next(chart for chart in charts(at) if title(chart).startswith("q·k against the offset"))
    drawn = decode(decay["data"][0]["y"]).astype(np.float64)
    model_curve = scheme.offset_curve(length, width, base, **options | left_out)[1]
    default_curve = scheme.offset_curve(length, width, base, **options)[1]
    assert abs(model_curve - default_curve).max() > 1e-6  # the option matters at these settings
    np.testing.assert_array_equal(drawn, sent_series(decay["data"][0], model_curve))  # as sent
    assert any("the views use the model's" in c.value for c in at.sidebar.caption)
    at.sidebar.selectbox(key="rope.rope_type").select("linear").run()
    assert any("not used with this scheme or scaling" in c.value for c in at.sidebar.caption)


@pytest.mark.parametrize("name", [*posenc.models.names(), *ROTARY_CONFIGS])
def test_the_sidebar_s_settings_give_the_model_s_frequencies(name):
    """What ?model= puts in the sidebar, with the options in force the sidebar cannot set, gives the frequencies and
    attention factor transformers computes for the model's shown layers (posenc.models.rope_inv_freq), inside the
    trained context and at the model's whole context (Phi-3: factor 32 = 131,072 / 4,096, as transformers derives it).
    Under Gemma 4's config, the sidebar drew p-RoPE over every pair (its share 1, not 0.25) divided by the factor
    slider's default 4 (p-RoPE's own: 1)."""
    import numpy as np

    from posenc.schemes.rope.entry import rope_keywords

    model = posenc.models.from_config(ROTARY_CONFIGS[name]) if name in ROTARY_CONFIGS else posenc.models.get(name)
    values, left_out = model_picker.preset(model)
    if values["scheme"] != "rope":
        pytest.skip(f"{name} does not rotate")
    scheme = "rope"
    options = {key.split(".", 1)[1]: value for key, value in values.items() if key.startswith(f"{scheme}.")}
    extra, unfit = model_picker.in_force((name, values, left_out), scheme, tuple(options.items()),
                                         (values["length"], values["d_model"], values["n"]))
    assert unfit is None  # at the model's own settings, its options always apply
    options |= dict(extra)
    params = {key: value for key, value in rope_keywords(options).items() if key != "layout"}
    for seq_len in (None, model.context_length):
        theta, attention = posenc.rope_inv_freq(values["d_model"], values["n"], seq_len=seq_len, **params)
        want, want_attention = posenc.models.rope_inv_freq(model, model_picker.shown_layer(model), seq_len=seq_len)
        np.testing.assert_allclose(theta[theta > 0], want[want > 0], rtol=1e-12)
        assert attention == pytest.approx(want_attention, rel=1e-12)


@pytest.mark.parametrize("page", PAGES)
def test_a_model_s_lists_at_another_width_are_left_out_with_a_sentence(page):
    """Phi-3's LongRoPE lists hold one factor per rotated pair of its 96-wide heads: at d_model 718 (a slider the
    student may move) every page computes without them and says so, instead of an error box (issue 38.2)."""
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["model"] = "phi-3-mini-128k"
    at.query_params["d_model"] = "718"
    at.switch_page(page).run()
    assert not at.exception, (page, [e.value for e in at.exception])
    assert not at.error, (page, [e.value for e in at.error])
    said = [c.value for c in at.sidebar.caption if "apply at its own settings only" in c.value]
    assert said and "d_model = 96" in said[0] and "d_model = 718" in said[0], [c.value for c in at.sidebar.caption]
    assert any("not used: see below" in c.value for c in at.sidebar.caption)


def test_under_a_model_the_widgets_are_read_against_the_model_s_values():
    """Streamlit leaves out of the address bar a value equal to the widget's own default: under a model that
    default is the model's (a link with model= opens at it), so n = 10,000 under Qwen3 stays in the link and the
    model's own 1,000,000 may be left out (issue 38.3)."""
    read = model_picker.read_against(("qwen3-8b", *model_picker.preset("qwen3-8b")))
    shared = {option.name: option for option in posenc.settings.parsing.SHARED_CONTROLS}
    assert read(shared["n"], "n").default == 1_000_000.0
    assert read(shared["d_model"], "d_model").default == 128
    rope_type = next(o for o in posenc.get_scheme("rope").options if o.name == "rope_type")
    llama = model_picker.read_against(("llama-3.1-8b", *model_picker.preset("llama-3.1-8b")))
    assert llama(rope_type, "rope.rope_type").default == "llama3"
    assert model_picker.read_against(None)(shared["n"], "n") is shared["n"]


HOSTILE_NUMBERS = ("1e309", "-1", "nan", "0.5", "١٢٨")


@pytest.mark.parametrize("name", posenc.models.names())
def test_every_control_a_model_sets_survives_posenc_s_default_and_hostile_text(name):
    """A link with ``model=`` and every control the model sets, at posenc's own default (the value Streamlit used to
    leave out of the link under a model) and then as hostile text: no exception, no error box, a warning per
    refused value, and the value held is a valid one."""
    from fuzz_links import check_page, open_page

    values, _ = model_picker.preset(name)
    scheme = posenc.get_scheme(values["scheme"])
    defaults = {option.name: option.default for option in posenc.settings.parsing.SHARED_CONTROLS}
    defaults |= {f"{scheme.key}.{option.name}": option.default for option in scheme.options}
    link = {"model": name} | {key: str(defaults[key]) for key in values if key in defaults}
    at = open_page(link, "pages/details.py", timeout=90)
    assert not check_page(at, link, "details")
    assert {key: str(at.session_state[key]) for key in link if key != "model"} == \
        {key: str(value) for key, value in link.items() if key != "model"}
    numbers = [key for key, value in values.items() if not isinstance(value, str)]
    hostile = {"model": name} | {key: HOSTILE_NUMBERS[i % len(HOSTILE_NUMBERS)] for i, key in enumerate(numbers)}
    at = open_page(hostile, "pages/details.py", timeout=90)
    assert not check_page(at, hostile, "details")
    assert len(at.warning) >= 1


@pytest.mark.parametrize(("model", "width"), [("gpt2", 768), ("bert-base", 768), ("llama-3.1-8b", 128),
                                              ("t5-base", 64), ("bloom-560m", 64)])
def test_an_absolute_table_is_drawn_at_the_model_s_width_a_head_s_view_at_the_head_s(model, width):
    """Issue 36: GPT-2's learned table is added to 768-wide embeddings (n_embd), so it is drawn 768 wide; a rotary
    or bias scheme acts on a query-key head (Llama's 128). The same from the model's config.json, and said."""
    from posenc.models import from_config
    from posenc.ui.model_picker import preset

    assert preset(model)[0]["d_model"] == width
    config = Path(__file__).resolve().parents[1] / "models" / "configs" / f"{model}.json"
    if config.exists():
        assert preset(from_config(config))[0]["d_model"] == width


def test_a_window_of_no_other_token_is_not_called_the_whole_context():
    """A window of 0 (Gemma 3 told to see both ways with sliding_window 1: each query sees itself only, as
    transformers 5.23 masks it) was listed in the layers table as "whole context"."""
    import numpy as np

    from posenc import models
    from posenc.ui import model_layers

    model = models.from_config({"model_type": "gemma3_text", "use_bidirectional_attention": True, "sliding_window": 1,
                                "num_hidden_layers": 6, "hidden_size": 64, "num_attention_heads": 2, "head_dim": 32,
                                "max_position_embeddings": 64})
    assert model_layers._row(model, "sliding_attention")["window"] == "0"
    assert np.array_equal(models.attention_mask(model, "sliding_attention", 4), np.eye(4, dtype=bool))
    assert model_layers._row(model, "full_attention")["window"] == "whole context"


def test_the_layers_view_counts_the_dimensions_p_rope_turns():
    """Gemma 4's full-attention layers turn a quarter of the pairs of their 512-wide heads by p-RoPE (the others keep
    θ = 0): the layers table said "512 / 512" rotated, as if every pair turned."""
    from posenc.models.config_link import to_link

    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["model"] = "config"
    at.query_params["config"] = to_link(ROTARY_CONFIGS["gemma-4 (p-RoPE on wider global heads)"])
    at.switch_page("pages/details.py").run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert list(table["layer type"]) == ["sliding_attention", "full_attention"]
    assert list(table["rotated / head dims"]) == ["256 / 256", "128 / 512"]
    assert list(table["scaling"]) == ["default", "proportional"] and list(table["layers"]) == [25, 5]


def test_a_decoupled_model_s_rotated_dimensions_are_said_to_be_its_last():
    """DeepSeek-V3 rotates the last 64 of each 192-wide query-key head (its qk_rope_head_dim after its 128
    unrotated ones; posenc.models.decoupled_rope, checked against transformers); the sidebar's partial rotation turns
    the first 64. The caption says so, and why the scores are the same: the views had shown the first 64 turning
    without a word."""
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["model"] = "deepseek-v3"
    at.run()
    said = [c.value for c in at.sidebar.caption if "decoupled RoPE" in c.value]
    assert len(said) == 1 and "rotates the last 64 of each head's 192 dimensions" in said[0]
    assert "the views turn the first 64, a relabelling of the dimensions" in said[0]


def test_an_ntk_alpha_theta_is_said_as_computed():
    """HunYuan's 'dynamic' scaling with an alpha stretches θ once (NTK-α, checked against transformers): the
    sidebar's n is the stretched θ, and the caption says how it is computed, with the file's numbers."""
    from posenc.models.config_link import to_link

    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["model"] = "config"
    at.query_params["config"] = to_link(ROTARY_CONFIGS["hunyuan-a13b (NTK-α: a 'dynamic' scaling with an alpha)"])
    at.run()
    assert not at.exception and not at.error
    said = [c.value for c in at.sidebar.caption if "NTK-α" in c.value]
    assert len(said) == 1 and "rope_theta × alpha^(d/(d − 2)) = 10,000 × 1,000^(128/126) = 11,158,840." in said[0]


@pytest.mark.parametrize(("model", "said"), [
    ("ministral-3 (YaRN and a query scale, in text_config)",
     "multiplies each rotated query at position p by 1 + β·ln(1 + ⌊p/L₀⌋) (β = 0.1, L₀ = 16,384"),
    ("llama-4-scout", "Its layers without positions multiply each query by a temperature growing with its position"),
    ("gpt-oss-20b", "Its attention adds a learned sink to each softmax's sum"),
    ("falcon-h1 (a Mamba-2 path beside every attention)",
     "Each of its layers adds a Mamba-2 state-space path (positions enter it by its recurrence) to its attention's "
     "output"),
    ("mimo-v2-flash (a third of each head rotating, SGLang's window)",
     "Its sliding_attention layers add a learned sink to each softmax's sum"),
    ({"model_type": "idefics", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32},
     "A gated cross-attention to the images' features, without positions, runs before the self-attention of every "
     "cross_layer_interval-th layer"),
    ({"model_type": "longcat_flash"}, "Each of its layers runs two attentions, one after the other"),
])
def test_what_a_model_s_attention_does_beside_its_positions_is_said_to_be_left_out(model, said):
    """Ministral 3's and Mistral 4's query scale, Llama 4's temperature on its layers without positions, gpt-oss's and
    MiMo-V2-Flash's sinks (posenc.models, checked against transformers) change the model's attention, Falcon-H1
    adds a Mamba-2 path to every layer's attention and IDEFICS a cross-attention to the images before it, and each of
    LongCat-Flash's layers runs two attentions; no view draws them: the caption says so, where it said nothing (of
    LongCat-Flash, a layer count half its attentions')."""
    from posenc.models.config_link import to_link

    at = AppTest.from_file(APP, default_timeout=90)
    if isinstance(model, dict) or model in ROTARY_CONFIGS:
        at.query_params["model"] = "config"
        at.query_params["config"] = to_link(model if isinstance(model, dict) else ROTARY_CONFIGS[model])
    else:
        at.query_params["model"] = model
    at.run()
    assert not at.exception and not at.error
    assert any(said in c.value and "leave out" in c.value for c in at.sidebar.caption), [
        c.value for c in at.sidebar.caption]
