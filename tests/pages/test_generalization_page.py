"""The Length generalization page: it opens on the shipped results at once (no torch in the app's process),
draws exactly their numbers, keeps its controls in the URL, refuses bad ones with a warning, and trains
one scheme live through the queue."""

import json
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import apptest_helpers
from apptest_helpers import ROOT, chart_messages, charts, title
from plotly_data import decode
from posenc.lab import results
from posenc.lab.names import SCHEMES, TASKS
from posenc.ui.lab import label

PAGE = "pages/generalization.py"


def run(query: dict) -> "apptest_helpers.AppTest":
    return apptest_helpers.run(query, PAGE, timeout=120)


@pytest.mark.parametrize("task", TASKS)
def test_the_page_draws_the_shipped_means_and_spreads(task):
    at = run({"task": task, "lab_schemes": ["alibi", "nope", "rope"], "map_scheme": "t5"})
    assert at.title and not at.error and not at.warning
    accuracy, attention = charts(at)[:2]
    summary = results.summarize()[task]
    curves = [t for t in accuracy["data"] if t.get("mode") == "lines+markers"]
    assert [t["name"] for t in curves] == ["ALiBi", "NoPE", "RoPE"]
    for trace, scheme in zip(curves, ["alibi", "nope", "rope"]):
        lengths = decode(trace["x"])
        np.testing.assert_array_equal(decode(trace["y"]), [summary[scheme][int(n)]["mean"] for n in lengths])
    shaded = accuracy["layout"]["shapes"][0]
    assert shaded["x1"] == results.train_max_length() + 0.5
    heads = [t for t in attention["data"] if t["type"] == "heatmap"]
    maps, _ = results.load_attention(task, "t5", results.attention_lengths()[0])
    np.testing.assert_array_equal(decode(heads[0]["z"]), maps[-1, 0].astype(np.float64))  # the last layer, head 1
    assert any("In distribution" in m.value for m in at.markdown)


def test_every_scheme_runs_and_the_reading_names_the_papers():
    at = run({"lab_schemes": list(SCHEMES), "map_scheme": "drope", "map_layer": "1"})
    assert not at.error and not at.warning
    text = " ".join(m.value for m in at.markdown)
    assert "Kazemnejad" in text and "Press" in text
    assert len([t for t in charts(at)[0]["data"] if t.get("mode") == "lines+markers"]) == len(SCHEMES)


def test_a_paper_s_claim_is_a_finding_only_outside_the_seeds_spread():
    """copy, 9…16 digits: NoPE 0.29 (seeds 0.17–0.42) against ALiBi 0.28 (0.17–0.34) was listed "as the papers
    found"; reverse's T5 bias 0.01 against RoPE 0.03, overlapping too, "not as the papers found"."""
    from posenc.ui.lab import reading

    copy, reverse = reading("copy"), reading("reverse")
    found, spread = (next(line for line in copy.splitlines() if line.startswith(f"- **{heading}")) for heading in
                     ("As the papers found", "Within the seeds' spread, no finding either way"))
    assert "NoPE > ALiBi" in spread and "NoPE > ALiBi" not in found and "seeds 0.17–0.42 vs 0.17–0.34" in spread
    assert "Not as the papers found" not in reverse and "T5 bias > RoPE (0.01 vs 0.03; seeds" in reverse
    by_seed = results.beyond_by_seed()
    for task in TASKS:
        text = reading(task)
        for line in text.splitlines():
            if line.startswith(("- **As the papers found", "- **Not as the papers found")):
                agrees = line.startswith("- **As")
                for claim in line.split(":", 1)[1].replace(";", ",").split(","):  # "X > Y (a vs b)" after each paper
                    names = claim.split("(")[0].split(":")[-1].strip()
                    if " > " not in names:
                        continue
                    better, worse = (next(k for k in by_seed[task] if label(k) == n.strip()) for n in names.split(" > "))
                    ours, theirs = by_seed[task][better], by_seed[task][worse]
                    assert (ours.min() > theirs.max()) if agrees else (ours.max() < theirs.min()), (task, names)


def test_a_rerun_builds_no_figure_and_summarizes_nothing_again(monkeypatch):
    """The shipped numbers' summaries are made once per process and the shipped views' figures once per setting
    (compute.built_once), so that presenter.styled's restyled copies are reused too: every run of the page had
    rebuilt and restyled all of them, 0.6-0.9 s a run whatever moved. A run with the same settings builds none."""
    from posenc.figures import generalization as figures

    at = run({"task": "reverse", "lab_schemes": ["alibi", "rope"], "map_scheme": "nope"})
    built = []
    for name in ("accuracy_chart", "attention_grid", "attention_animation"):
        original = getattr(figures, name)
        monkeypatch.setattr(figures, name, lambda *a, _f=original, _n=name, **k: built.append(_n) or _f(*a, **k))
    at.run()
    assert not at.error and not at.exception and built == []
    assert results.summarize() is results.summarize()  # shared, not made again
    assert results.summarize() == results.summarize(results.load_records())  # the same numbers as made anew
    assert results.in_distribution() == results.in_distribution(results.load_records())
    assert results.train_max_length() == results.train_max_length(results.load_records())


def test_a_move_leaves_the_charts_it_does_not_change_the_same_message():
    """A chart's element carries its file name; named after the settings its view passes (presenter.file_name),
    not every value of the URL, a chart the move does not change is the same element, which Streamlit sends as a
    reference to the browser's copy. Moving the attention map's layer re-sent all six charts (1.7 MB)."""
    at = run({"task": "copy", "map_layer": "2"})
    before = chart_messages(at)
    at.slider(key="map_layer").set_value(1).run()
    after = chart_messages(at)
    assert not at.error and not at.exception and set(after) == set(before)
    changed = {key for key in before if after[key] != before[key]}
    assert changed == {"lab_attention", "lab_attention_animation"}, changed


def test_a_sidebar_move_sends_no_chart_of_the_lab_again():
    """The lab's charts read none of the sidebar's values, and their file names (part of their elements) carry only
    their own settings: moving d_model, the scheme or n changes no chart element (each used to re-send all six)."""
    at = run({"task": "copy"})
    before = chart_messages(at)
    at.slider(key="d_model").set_value(64).run()
    at.selectbox(key="scheme").set_value("alibi").run()
    after = chart_messages(at)
    assert not at.error and not at.exception and len(before) >= 5 and after == before
    names = [json.loads(chart.proto.config)["toImageButtonOptions"]["filename"] for chart in at.get("plotly_chart")]
    assert "posenc_generalization_task-copy_schemes-" in names[0] and not any("d_model" in n for n in names), names


def test_bad_values_in_the_url_get_a_warning_never_an_error():
    at = run({"task": "<b>sort</b>", "lab_schemes": ["alibi", "**bold**", "alibi"], "map_scheme": "gpt",
              "map_layer": "99", "own_length": "1e9", "own_steps": "-3", "own_seed": "nan"})
    assert not at.error and not at.exception
    warnings = " ".join(w.value for w in at.warning)
    for text in ("<b>sort</b>", "**bold**", "is repeated", "gpt", "99", "1e9", "nan"):
        assert text in warnings
    assert at.selectbox(key="task").value == "copy"
    assert at.multiselect(key="lab_schemes").value == ["alibi"]


def test_emptied_schemes_say_so():
    at = run({"lab_schemes": ""})
    assert at.multiselect(key="lab_schemes").value == []
    assert any("No scheme chosen" in i.value for i in at.info)


def test_train_your_own_queues_a_training_and_shows_it_when_done(monkeypatch):
    from posenc.ui import sidebar

    # AppTest marks the app as a legacy pages/ app on every run, so the sidebar's one-time rerun out of that
    # mode (see sidebar._leave_legacy_page_mode) happens on every run here and eats the button's click.
    monkeypatch.setattr(sidebar, "_leave_legacy_page_mode", lambda: None)
    at = run({"own_scheme": "nope", "own_length": "2", "own_steps": "100", "own_seed": "7"})
    at.button(key="own_train").click().run()
    assert not at.exception and not at.error
    from posenc.ui import lab

    queue = lab.training_queue()
    deadline = time.monotonic() + 120
    ticket = at.session_state[lab.LIVE_TICKET_KEY]
    while not ticket.finished and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ticket.state == "done", ticket.message
    at.run()
    assert not at.exception and not at.error
    own = [c for c in charts(at) if "Yours" in title(c)]
    assert own and decode(own[0]["data"][1]["y"])[0] == ticket.result["records"][0]["accuracy"]
    assert any("python -m posenc.lab run --task copy --scheme nope --seed 7 --train-max-length 2 --steps 100"
               in c.value for c in at.caption)
    assert queue.cached(ticket.request) is ticket


def test_the_page_loads_no_torch():
    """The shipped view reads JSON and npz: opening the page must not import torch into the server."""
    script = textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'tests' / 'helpers')!r}]
        import apptest_helpers
        apptest_helpers.run({{}}, {PAGE!r}, timeout=120)
        print("torch" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.stdout.strip().splitlines()[-1] == "False", out.stderr[-2000:]


def test_the_attention_animation_holds_the_shipped_map_of_every_test_length():
    at = run({"task": "reverse", "map_scheme": "rope", "map_layer": "2"})
    animated = [c for c in charts(at) if c.get("frames") and "stretched" not in title(c)]
    assert len(animated) == 1
    frames = animated[0]["frames"]
    assert [f["name"] for f in frames] == [str(n) for n in range(1, 25)]
    for frame in (frames[0], frames[7], frames[23]):
        length = int(frame["name"])
        maps, _ = results.load_attention("reverse", "rope", length)
        for head, trace in enumerate(frame["data"]):
            np.testing.assert_array_equal(decode(trace["z"]), maps[1, head])  # layer 2
    accuracy = {r["test_length"]: r["accuracy"] for r in results.load_records("reverse", "rope") if r["seed"] == 0}
    assert title(frames[23]).endswith(f"past the training length 8; exact match {accuracy[24]:.2f}")
    assert "24 frames, one per test length" in " ".join(c.value for c in at.caption)


# -- Stretching RoPE (issue 30) -------------------------------------------------------------------------

def _stretch_charts(at) -> list[dict]:
    return [c for c in charts(at) if title(c).startswith("RoPE on ")]


@pytest.mark.parametrize(("task", "factor", "steps"), [("copy", "2", "200"), ("reverse", "4", "50")])
def test_stretching_draws_the_shipped_means_zero_shot_and_fine_tuned_with_both_lengths_marked(task, factor, steps):
    from posenc.lab import extension

    at = run({"task": task, "stretch_factor": factor, "stretch_steps": steps, "stretch_methods": ["none", "pi", "yarn"]})
    assert not at.error and not at.warning
    zero, tuned = _stretch_charts(at)
    assert "zero-shot" in title(zero) and f"fine-tuned {steps} steps" in title(tuned)
    records = extension.load_extension(task)
    for chart, shown in ((zero, 0), (tuned, int(steps))):
        curves = extension.curves(records, task, int(factor), shown)
        lines = [t for t in chart["data"] if t.get("mode") == "lines+markers"]
        assert [t["name"] for t in lines] == ["Extrapolation", "PI", "YaRN"]
        for trace, method in zip(lines, ["none", "pi", "yarn"]):
            np.testing.assert_array_equal(decode(trace["y"]), curves[method]["mean"])
            assert decode(trace["x"])[-1] == 4 * results.train_max_length()
        shaded, extended = chart["layout"]["shapes"]
        assert shaded["x1"] == results.train_max_length() + 0.5
        assert extended["x0"] == int(factor) * results.train_max_length() + 0.5
    assert at.selectbox(key="stretch_factor").value == factor


def test_the_claims_verdicts_are_built_from_the_numbers():
    from posenc.lab import extension

    at = run({})
    text = " ".join(m.value for m in at.markdown)
    for checked in extension.check_claims():
        assert f"**{checked['claim'].statement}** ({checked['claim'].source}): **{checked['verdict']}**" in text
        for case in checked["cases"]:
            assert f"{case['task']} ×{case['factor']}: {case['better']:.2f} vs {case['worse']:.2f}" in text


def test_bad_stretching_values_in_the_url_get_a_warning():
    at = run({"stretch_factor": "3", "stretch_steps": "<i>9</i>", "stretch_methods": ["pi", "rope"]})
    assert not at.error and not at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert "<i>9</i>" in warnings and "rope" in warnings and "stretch_factor" in warnings
    assert at.selectbox(key="stretch_factor").value == "2" and at.selectbox(key="stretch_steps").value == "200"
    assert at.multiselect(key="stretch_methods").value == ["pi"]
    assert len(_stretch_charts(at)) == 2


def test_a_lab_task_outside_the_stretching_experiment_says_so():
    from posenc.lab import extension

    others = [task for task in TASKS if task not in extension.TASKS]
    if not others:
        pytest.skip("every task of the lab is in the stretching experiment")
    at = run({"task": others[0]})
    assert not at.error and not at.warning and not _stretch_charts(at)
    assert any("Stretching RoPE is measured on copy and reverse" in i.value for i in at.info)


def test_every_task_says_where_its_query_must_look():
    from posenc.ui import lab

    assert set(lab.WHERE_TO_LOOK) == set(TASKS) and all(task in lab.TASK_HELP for task in TASKS)
    for task in TASKS:
        at = run({"task": task})
        assert any(lab.WHERE_TO_LOOK[task] in c.value for c in at.caption), task


def _stretched_animation(at) -> list[dict]:
    return [c for c in charts(at) if c.get("frames") and title(c).startswith("RoPE stretched by ")]


def test_the_stretched_models_animation_holds_its_shipped_maps_and_the_records_accuracy():
    from posenc.lab import extension

    at = run({"task": "reverse", "stretch_map_method": "pi", "stretch_map_layer": "2"})
    assert not at.error and not at.warning and not at.exception
    (animation,) = _stretched_animation(at)
    frames = animation["frames"]
    longest = extension.TEST_FACTOR * results.train_max_length()
    assert [f["name"] for f in frames] == [str(n) for n in range(1, longest + 1)]
    for frame in (frames[0], frames[7], frames[-1]):
        maps, _ = extension.load_extension_attention("reverse", "pi", 4, 200, int(frame["name"]))
        for head, trace in enumerate(frame["data"]):
            np.testing.assert_array_equal(decode(trace["z"]), maps[1, head])  # layer 2
    accuracy = extension.seed_accuracy("reverse", "pi", 4, 200)
    assert title(frames[-1]).endswith(
        f"32 digits, within the stretched context 1…32; exact match {accuracy[32]:.2f}")
    assert title(frames[8]).endswith(f"exact match {accuracy[9]:.2f}")
    steps = [s["label"] for s in animation["layout"]["sliders"][0]["steps"]]
    assert steps[7] == "8 ◂ L" and steps[31] == "32 ◂ 4L"
    assert [s["x1"] for s in animation["layout"]["shapes"][:2]] == [16.5, 64.5]  # 17 and 65 tokens
    captions = " ".join(c.value for c in at.caption)
    inside = np.mean([accuracy[n] for n in range(1, 9)])
    assert f"{longest} frames, one per test length" in captions
    assert f"{inside:.2f} on 1…8 digits" in captions and "regenerate-extension-maps" in captions
    assert at.selectbox(key="stretch_map_method").value == "pi"
    from posenc.figures.animations import frame_bytes
    from posenc.ui import lab

    assert frame_bytes(lab.stretched_animation_figure("reverse", "pi", 2)) < 1_100_000  # 1.04 MB: 32 lengths × 4 heads


def test_a_bad_stretched_animation_value_gets_a_warning_and_the_default_model():
    at = run({"task": "copy", "stretch_map_method": "<b>rope</b>", "stretch_map_layer": "7"})
    assert not at.error and not at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert "<b>rope</b>" in warnings and "stretch_map_method" in warnings and "stretch_map_layer" in warnings
    assert at.selectbox(key="stretch_map_method").value == "yarn"
    (animation,) = _stretched_animation(at)
    assert title(animation).startswith("RoPE stretched by YaRN to 4L, fine-tuned 200 steps, on copy")


def test_a_missing_stretched_combination_says_so(monkeypatch):
    from posenc.lab import extension

    monkeypatch.setattr(extension, "_shipped_maps", lambda: {})
    at = run({"task": "copy"})
    assert not at.error and not at.exception and not _stretched_animation(at)
    assert any("not shipped in this copy: run `python -m posenc.lab regenerate-extension-maps`" in i.value
               for i in at.info)
