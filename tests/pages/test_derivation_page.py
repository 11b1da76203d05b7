"""The Derivation page through AppTest: every step, bad step links, Previous / Next, and its numbers."""

import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import apptest_helpers
import posenc
from apptest_helpers import charts
from plotly_data import decode
from posenc.derivation import latex as L
from posenc.derivation import steps, torch_module

PAGE = "pages/derivation.py"


def run(query: dict | None = None) -> AppTest:
    return apptest_helpers.run(query, PAGE)


def step_shown(at: AppTest) -> int:
    header = at.title[0].value
    assert header.startswith("Step ") and f" of {len(steps.STEPS)}: " in header
    return int(header.split()[1])


def latex(at: AppTest) -> str:
    return "\n".join(e.proto.body for e in at.get("latex"))


@pytest.mark.parametrize("step", range(1, len(steps.STEPS) + 1))
def test_every_step_runs_under_defaults(step):
    at = run({"step": str(step)})
    assert step_shown(at) == step and at.title[0].value.endswith(steps.STEPS[step - 1])
    assert not at.error and not at.warning and at.get("latex")
    assert at.slider(key="step").value == step


@pytest.mark.parametrize("raw, expected", [("0", 1), ("99", 9), ("abc", 1), ("**3**", 1)])
def test_bad_step_values_go_to_the_nearest_step_with_a_warning(raw, expected):
    at = run({"step": raw})
    assert step_shown(at) == expected
    warning = " ".join(w.value for w in at.warning)
    assert "step" in warning and f"using {expected}" in warning
    assert f"` {raw} `" in warning  # URL text is shown as a code span, never as Markdown
    assert not at.error


def test_next_and_previous_move_one_step_and_stop_at_the_ends():
    at = run()
    assert step_shown(at) == 1 and at.button(key="previous").disabled
    at.button(key="next").click().run()
    assert step_shown(at) == 2 and at.slider(key="step").value == 2
    at.button(key="next").click().run()
    at.button(key="previous").click().run()
    assert step_shown(at) == 2
    at = run({"step": "9"})
    assert at.button(key="next").disabled
    at.button(key="previous").click().run()
    assert step_shown(at) == 8


def test_step_1_table_is_seed_000():
    at = run({"d_model": "4", "n": "10000"})
    table = at.table[0].value
    assert list(table["dim 0"])[:3] == ["0.00000000", "0.84147098", "0.90929743"]
    assert list(table["dim 3"])[:3] == ["1.00000000", "0.99995000", "0.99980001"]
    assert r"10000^{2i/4}" in latex(at)


def test_step_1_table_is_seed_001_with_n_100():
    at = run({"d_model": "4", "n": "100"})
    assert list(at.table[0].value["dim 2"]) == ["0.00000000", "0.09983342", "0.19866933", "0.29552021"]


def test_step_5_chart_and_formula_hold_posenc_values():
    at = run({"step": "5", "d_model": "16", "length": "64", "pos": "3", "k": "-2", "i": "1"})
    table = posenc.sinusoidal(64, 16)
    vectors = charts(at)[0]["data"]
    np.testing.assert_allclose(decode(vectors[0]["y"]), table[3])
    np.testing.assert_allclose(decode(vectors[1]["y"]), posenc.rotation_matrix(-2, 16) @ table[3], atol=1e-15)
    np.testing.assert_allclose(decode(vectors[2]["y"]), table[1])
    s = steps.residual_step(16, 10000.0, 3, -2)
    assert L.residual_latex(s, 1)[0] in latex(at) and L.num(s.max_abs, 3) in latex(at)


def test_step_3_shows_both_sides_for_the_chosen_pair():
    at = run({"step": "3", "pos": "4", "k": "7", "i": "2", "d_model": "32"})
    s = steps.angle_step(32, 10000.0, 4, 7, 2)
    for line in L.angle_latex(s):
        assert line in latex(at)


def test_step_7_diagonal_is_flat_and_odd_d_model_is_explained():
    at = run({"step": "7", "d_model": "16", "length": "50", "pos": "2", "k": "3"})
    diagonal = decode(charts(at)[0]["data"][0]["y"])
    table = posenc.sinusoidal(50, 16)
    np.testing.assert_allclose(diagonal, np.diagonal(table @ table.T, 3), atol=1e-12)
    assert np.ptp(diagonal) < 1e-12
    at = run({"step": "7", "d_model": "7", "length": "50"})
    assert at.info and not at.error


@pytest.mark.parametrize("step", [4, 5, 6])
def test_odd_d_model_explains_instead_of_an_error(step):
    at = run({"step": str(step), "d_model": "7"})
    assert not at.error and any("has no cosine partner" in i.value for i in at.info)


def test_smallest_settings_run_every_step():
    at = run({"d_model": "2", "length": "2"})
    for step in range(1, len(steps.STEPS) + 1):
        at.slider(key="step").set_value(step).run()
        assert not at.exception and not at.error and step_shown(at) == step


def test_other_schemes_still_show_the_sinusoidal_derivation_with_a_note():
    at = run({"scheme": "alibi", "step": "4"})
    assert any("about the sinusoidal encoding" in i.value for i in at.info)
    assert step_shown(at) == 4 and charts(at)


def test_step_9_runs_the_torch_module_live():
    at = run({"step": "9"})
    metrics = {m.label: m.value for m in at.metric}
    s = torch_module.module_step()
    assert metrics["trainable parameters"] == "0" and metrics["buffer"] == "pe 5000×16 float32"
    assert metrics["entries dropped (of 128)"] == str(s.dropped)
    scatter = charts(at)[0]["data"]
    np.testing.assert_allclose(decode(scatter[1]["y"]), 1.25 * decode(scatter[1]["x"]), rtol=1e-6)
    assert (decode(scatter[2]["y"]) == 0).all()


def test_camera_button_saves_twice_the_size_named_after_the_settings():
    at = run({"step": "5", "d_model": "16", "pos": "3", "k": "2"})
    for chart in at.get("plotly_chart"):
        options = json.loads(chart.proto.config)["toImageButtonOptions"]
        assert options["scale"] >= 2 and options["format"] == "png"
        assert "d_model-16" in options["filename"] and "k-2" in options["filename"]


@pytest.mark.parametrize("step", range(1, len(steps.STEPS) + 1))
def test_no_step_prints_a_tex_subscript_outside_its_formulas(step):
    """Titles, chart titles, legends, tables and text print θ₁, M₋₃ and θᵢ (Unicode): the step 2 title said 'θ_i',
    step 4 and 5 charts 'M_3' (plotly and markdown draw no TeX). k = −3 shows the minus subscript."""
    at = run({"step": str(step), "d_model": "32", "length": "64", "pos": "5", "k": "-3"})
    texts = [at.title[0].value] + [m.value for m in at.markdown] + [c.value for c in at.caption]
    texts += [str(col) for t in at.table for col in t.value.columns]
    for spec in charts(at):
        texts += [apptest_helpers.title(spec)] + [t.get("name") or "" for t in spec["data"]]
    raw = [t for t in texts if re.search(r"(θ|M|ζ)_(\d|i\b|\{)", t)]
    assert raw == []
    if step in (4, 5):
        assert any("M₋₃" in t for t in texts), texts
