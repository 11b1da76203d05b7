"""The Comparison page under a released model (issue 29 part 3): the curves reach the model's context at
log-spaced distances and hold posenc.analysis.offset_curves's numbers; the scaling's regions are drawn under them;
without a model the page is unchanged."""

import numpy as np
import pytest

import posenc
from apptest_helpers import charts, run, title
from plotly_data import decode, sent_series, xs
from posenc.analysis import dropped_scaling, offset_curves, scaling_regions
from posenc.models.presets import _LLAMA3_SCALING

LLAMA_OPTIONS = dict(layout="half", rope_type="llama3", rotary_fraction=1.0, **_LLAMA3_SCALING)


def compare(query: dict):
    at = run(query, "pages/compare.py", timeout=90)
    assert not at.exception and not at.error and not at.warning, [w.value for w in at.warning]
    return at, charts(at)


def test_llama_3_1_curves_reach_131072_positions():
    at, (curves, regions) = compare({"model": "llama-3.1-8b"})
    traces = curves["data"]
    assert [t.get("name") for t in traces[:len(posenc.SCHEMES)]] == [s.label for s in posenc.SCHEMES.values()]
    distances = offset_curves.log_offsets(131_072)[1:]
    for trace, (key, scheme) in zip(traces, posenc.SCHEMES.items(), strict=False):
        np.testing.assert_array_equal(decode(trace["x"]), distances)
        chosen = LLAMA_OPTIONS if key == "rope" else scheme.defaults()
        expected = offset_curves.offset_curve_at(key, -distances, 131_072, 128, 500_000.0, **chosen)
        np.testing.assert_allclose(decode(trace["y"]), expected, rtol=1e-12, atol=1e-12, equal_nan=True)
    assert curves["layout"]["xaxis"]["type"] == "log"
    assert decode(traces[len(posenc.SCHEMES)]["x"])[:2].tolist() == [8192, 8192]  # L₀ marked, then the context
    assert "trained context L₀ 8,192, model's context 131,072" in title(curves)
    found = scaling_regions.scaling_regions(128, 500_000.0, "llama3", context=131_072, **_LLAMA3_SCALING)
    after = {t["name"]: t for t in regions["data"]}["after, interpolated (29)"]
    np.testing.assert_allclose(decode(after["y"]), found.after[found.region == "interpolated"], rtol=1e-12)
    assert any("29 keep θᵢ" in c.value and "6 in between" in c.value and "s·L₀ = 65,536" in c.value
               and "131,072 positions reach 2× farther" in c.value for c in at.caption)
    assert any(f"computed at {len(distances)} distances" in c.value for c in at.caption)


def test_llama_4_scout_reaches_ten_million():
    _, (curves, regions) = compare({"model": "llama-4-scout"})
    x = decode(curves["data"][0]["x"])
    assert x[0] == 1 and x[-1] == 10_485_759
    names = [t["name"] for t in regions["data"]]
    assert "after, in between (0)" in names  # low_freq_factor = high_freq_factor = 1: no band in between


@pytest.mark.parametrize("page", ["pages/compare.py", "pages/details.py"])
def test_gemma_3_s_linear_scaling_marks_no_trained_context(page):
    """Gemma 3 4B's config: linear ×8, no original_max_position_embeddings (linear reads none). The sidebar's L₀
    (512) is nobody's: no chart marks it and no sentence counts with it."""
    at = run({"model": "gemma-3-4b", "scheme": "rope"}, page, timeout=90)
    drawn = {title(f): f for f in charts(at)}
    reach = next(f for t, f in drawn.items() if t.startswith("dashed lines"))
    assert title(reach) == "dashed lines: model's context 131,072"
    regions = drawn["Gemma 3 4B: wavelength of each pair before and after linear"]
    names = [t["name"] for t in regions["data"]]
    assert "extended context 131,072" in names and not any("L₀" in name for name in names)
    found = scaling_regions.scaling_regions(256, 1e6, "linear", factor=8.0, context=131_072)
    after = {t["name"]: t for t in regions["data"]}["after, interpolated (128)"]
    np.testing.assert_allclose(decode(after["y"]), found.after, rtol=1e-12)
    text = " ".join(c.value for c in at.caption)
    assert "131,072 positions turn them no farther than 16,384 positions turn them unscaled" in text
    assert "reads no trained context L₀" in text and "512" not in text and "4,096 positions they" not in text


@pytest.mark.parametrize(("model", "ending"), [
    ("llama-3.1-8b", "disagree from {first:,} on, of 131,072: a test whose keys all lie within {last:,} tokens of "
                     "their queries sees nothing wrong."),
    ("gemma-3-4b", "disagree from 2 on, of 131,072: a test whose keys all lie within 1 token of their queries sees "
                   "nothing wrong."),
    ("phi-3-mini-128k", "from distance {first:,} on (the factor a² scales every score): any test sees it.")])
def test_what_a_dropped_scaling_costs_says_which_tests_miss_it(model, ending):
    """The sentence ends with what the numbers show: Gemma 3's linear ×8 parts from distance 2, Phi-3's LongRoPE
    (a = 1.19) at once; "a short test sees nothing wrong" was said of both."""
    at = run({"model": model, "scheme": "rope"}, "pages/details.py", timeout=90)
    found = dropped_scaling.dropped_scaling_scores(posenc.models.get(model), offset_curves.log_offsets(
        posenc.models.get(model).context_length, 256))
    first = found.first_disagreement
    last = int(found.distances[found.distances < first].max()) if (found.distances < first).any() else None
    caption = next(c.value for c in at.caption if c.value.startswith("One query q and key k"))
    assert caption.endswith(ending.format(first=first, last=last)) and "short test" not in caption
    assert (last is None) == (model == "phi-3-mini-128k") and (model != "gemma-3-4b" or first == 2)


@pytest.mark.parametrize("model", ["gpt2", "t5-base", "bloom-560m", "llama-2-7b"])
def test_models_without_a_context_extension_show_no_regions(model):
    _, drawn = compare({"model": model})
    assert len(drawn) == 1
    context = posenc.models.get(model).context_length
    assert decode(drawn[0]["data"][0]["x"])[-1] == context - 1


def test_without_a_model_the_page_is_unchanged():
    _, drawn = compare({"length": "300", "d_model": "64", "n": "500"})
    assert len(drawn) == 1
    offsets, values = posenc.SCHEMES["alibi"].offset_curve(300, 64, 500.0, **posenc.SCHEMES["alibi"].defaults())
    alibi = drawn[0]["data"][list(posenc.SCHEMES).index("alibi")]
    np.testing.assert_array_equal(xs(alibi), offsets)
    np.testing.assert_array_equal(decode(alibi["y"]), sent_series(alibi, values))  # as sent


def _decay_script():
    from posenc.ui import real_lengths
    from posenc.ui.sidebar import Controls

    options = (("layout", "half"), ("rope_type", "llama3"), ("factor", 8.0),
               ("original_max_position_embeddings", 8192), ("rotary_fraction", 1.0))
    real_lengths.decay_view(Controls(128, 500_000.0, 4096, "rope", options, "llama-3.1-8b"))
    real_lengths.decay_view(Controls(128, 500_000.0, 4096, "rope", options, None))  # no model: nothing


def test_the_decay_view_reaches_the_model_s_context():
    """decay_view, for the RoPE "How it works" view: RoPE's q·k at 1 … 131,071, with the model's bands."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_decay_script, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    (decay,) = charts(at)
    distances = offset_curves.log_offsets(131_072)[1:]
    np.testing.assert_array_equal(decode(decay["data"][0]["x"]), distances)
    np.testing.assert_allclose(decode(decay["data"][0]["y"]),
                               offset_curves.offset_curve_at("rope", -distances, 131_072, 128, 500_000.0, **LLAMA_OPTIONS),
                               rtol=1e-12, atol=1e-12)
    assert [s.value for s in at.subheader] == ["The decay as far as Llama 3.1 8B's context (131,072 positions)"]
