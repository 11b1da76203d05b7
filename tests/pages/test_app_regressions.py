"""Every failure class found by trying links as users and careless scripts would (issue 7),
pinned by name: crashes, empty pages, rendered URL text, untruthful warnings, controls not in the URL."""

import pytest

import posenc
from fuzz_links import PAGES, check_page, open_page, outside_code


def clean(link: dict, page: str):
    at = open_page(link, page)
    assert not check_page(at, link, page)
    return at


def warnings(at) -> str:
    return " ".join(w.value for w in at.warning) + " " + " ".join(i.value for i in at.info)


# Crashes from plain use -----------------------------------------------------------------------

def test_rope_shift_collapses_to_one_value_when_the_key_is_at_the_last_position():
    at = clean({"scheme": "rope", "length": "20"}, "pages/rotation.py")
    at.slider(key="key").set_value(19).run()
    assert not at.exception and not at.error
    assert "shift s: **0** (the only value possible here)" in " ".join(m.value for m in at.markdown)


def test_rope_rotation_check_at_length_two():
    clean({"scheme": "rope", "length": "2"}, "pages/rotation.py")


def test_pos_at_the_end_moves_the_default_k_into_range():
    at = clean({"pos": "99"}, "pages/rotation.py")
    assert at.slider(key="pos").value == 99 and at.slider(key="k").value == 0


def test_k_is_clamped_with_a_warning_when_pos_moves():
    at = clean({"length": "10", "k": "5"}, "pages/rotation.py")
    at.slider(key="pos").set_value(8).run()
    assert at.slider(key="k").value == 1
    assert "k (offset; negative looks back) ` 5 ` is outside -8 … 1: using 1." in warnings(at)


@pytest.mark.parametrize("page", PAGES)
def test_yarn_with_n_one_is_corrected_before_any_page_computes(page):
    at = clean({"scheme": "rope", "rope.rope_type": "yarn", "n": "1"}, page)
    assert at.number_input(key="n").value == 2.0
    assert "YaRN divides by ln n, so n must be greater than 1; using n=2." in warnings(at)


def test_rope_with_d_model_two_leaves_out_the_scalings_that_need_four_dimensions():
    at = clean({"scheme": "rope", "d_model": "2"}, "pages/details.py")
    assert "Not drawn: dynamic, ntk" in " ".join(c.value for c in at.caption)


# Empty pages -----------------------------------------------------------------------------------

def test_comparison_with_odd_d_model_draws_every_scheme_at_the_nearest_even_width():
    at = clean({"d_model": "7"}, "pages/compare.py")
    assert at.slider(key="d_model").value == 7  # the sidebar keeps what the reader chose
    assert "using d_model=6" in warnings(at) and at.get("plotly_chart")


def test_rotation_check_with_odd_d_model_uses_the_nearest_even_width():
    at = clean({"d_model": "7"}, "pages/rotation.py")
    assert "this view pairs dimensions (sin, cos)" in warnings(at) and at.get("plotly_chart")


def test_rope_rotary_fraction_giving_odd_dimensions_is_corrected():
    at = clean({"scheme": "rope", "d_model": "100", "rope.rotary_fraction": "0.33"}, "pages/heatmap.py")
    assert at.number_input(key="rope.rotary_fraction").value == pytest.approx(0.32)
    assert "using rope.rotary_fraction=0.32 (32 dimensions)" in warnings(at)


def test_t5_max_distance_inside_the_exact_buckets_is_corrected():
    at = clean({"scheme": "t5", "t5.max_distance": "8"}, "pages/heatmap.py")
    assert at.slider(key="t5.max_distance").value == 9


def test_split_layout_with_odd_d_model_is_corrected():
    at = clean({"d_model": "7", "sinusoidal.layout": "split"}, "pages/heatmap.py")
    assert at.slider(key="d_model").value == 6


# Content injection -----------------------------------------------------------------------------

@pytest.mark.parametrize("raw", ["[Log in again](https://evil.example)", "![i](https://evil.example/i.png)",
                                 "**bold**", ":red[red]", "<img src=x onerror=alert(1)>", "a\n\n[x](https://e.x)",
                                 "`` [x](https://e.x) ``"])
def test_url_text_is_shown_escaped_never_rendered(raw):
    at = clean({"d_model": raw, "rope.factor": raw, "dims": [raw, "4"]}, "pages/sinusoids.py")
    shown = [w.value for w in at.warning]
    assert shown and all(raw[:20] not in outside_code(w) for w in shown)


def test_long_url_text_is_shortened():
    at = clean({"length": "9" * 10_000}, "pages/heatmap.py")
    assert max(len(w.value) for w in at.warning) < 200


# Warnings that tell the truth ------------------------------------------------------------------

def test_a_fraction_warns_with_the_value_the_slider_holds():
    at = clean({"d_model": "64.6"}, "pages/heatmap.py")
    assert at.slider(key="d_model").value == 64
    assert "URL parameter ` d_model ` = ` 64.6 ` must be a whole number: using 64." in warnings(at)


def test_a_repeated_key_is_reported():
    at = clean({"d_model": ["64", "32"]}, "pages/heatmap.py")
    assert at.slider(key="d_model").value == 32
    assert "URL parameter ` d_model ` = ` 32 ` is given 2 times; the last one is read: using 32." in warnings(at)


def test_a_corrected_number_is_written_as_streamlit_writes_it_short_and_exact():
    """A repeated key's last value (0.7) was written back into the address as ``0.69999999999999996`` (exact, but
    not the text Streamlit and the browser write for it, and not what a student typed); it is ``0.7`` now, which
    reads back as the same float."""
    at = clean({"scheme": "kerple", "kerple.r1": ["0.3", "0.7"]}, "pages/heatmap.py")
    assert at.sidebar.number_input(key="kerple.r1").value == 0.7
    assert at.query_params.get("kerple.r1") in ("0.7", ["0.7"]), dict(at.query_params)


def test_warnings_name_the_url_key_of_a_scheme_option():
    at = clean({"scheme": "rope", "rope.factor": "abc", "t5.seed": "x"}, "pages/heatmap.py")
    assert "URL parameter ` rope.factor ` = ` abc ` is not a number: using 4." in warnings(at)


# Every control in the URL ----------------------------------------------------------------------

@pytest.mark.parametrize(("link", "page", "kind", "key", "value"), [
    ({"dims": ["1", "3"]}, "pages/sinusoids.py", "multiselect", "dims", [1, 3]),
    ({"positions": ["2", "7"]}, "pages/sinusoids.py", "multiselect", "positions", [2, 7]),
    ({"pairs": ["5"]}, "pages/rotation.py", "multiselect", "pairs", [5]),
    ({"scheme": "alibi", "head": "3"}, "pages/heatmap.py", "slider", "head", 3),
    ({"scheme": "rope", "rope_m": "4", "rope_n": "9"}, "pages/details.py", "slider", "rope_n", 9),
    ({"scheme": "rope", "rope_pairs": ["2", "6"]}, "pages/details.py", "multiselect", "rope_pairs", [2, 6]),
    ({"scheme": "rope", "query": "3", "key": "8", "shift": "4"}, "pages/rotation.py", "slider", "shift", 4),
])
def test_page_controls_are_read_from_the_url(link, page, kind, key, value):
    at = clean(link, page)
    assert getattr(at, kind)(key=key).value == value


def test_a_collapsed_head_range_is_text_not_a_slider():
    at = clean({"scheme": "alibi", "alibi.num_heads": "1"}, "pages/heatmap.py")
    assert "Head h: **1**" in " ".join(m.value for m in at.markdown)
    assert all(s.key != "head" for s in at.slider)


def test_every_scheme_option_key_is_in_the_fuzzed_universe():
    from fuzz_links import UNIVERSE
    assert {f"{k}.{o.name}" for k, s in posenc.SCHEMES.items() for o in s.options} <= set(UNIVERSE)


def test_a_correction_sent_in_a_run_carries_the_value_just_moved_not_the_address_reported_before_it():
    """A rerun can report the address from before the move that caused it (the browser updates the copy it
    reports a moment later). When the same run then sends an address (here: the query patch's slider goes as
    the image shrinks to one row, and Streamlit drops its parameter), the address must hold the moved value:
    it sent the old one, and the view showed 1 row while its link said 32 (address.mirror_held_values)."""
    from apptest_helpers import run

    at = run({"scheme": "rope", "d_model": "16", "length": "24"}, "pages/details.py")

    def slider(label):
        return next(s for s in at.slider if s.label == label)

    # The browser writes a moved control into its address itself; AppTest does not, so it is done here by hand.
    slider("image rows H (patches)").set_value(32)
    at.query_params["grid_h"] = "32"
    at.run()
    slider("query patch row").set_value(5)
    at.query_params["patch_row"] = "5"
    at.run()
    slider("image rows H (patches)").set_value(1)  # and the rerun reports the address from before this move
    at.run()
    assert not at.exception
    assert slider("image rows H (patches)").value == 1
    assert at.query_params.get("grid_h") == "1", dict(at.query_params)
    assert "patch_row" not in at.query_params  # its slider is gone (one row: the only row, shown as text)


def test_a_setting_that_differs_from_the_model_shows_its_name_as_code():
    """The 1,000-link property run (seed 1) found ``transformer_xl`` in the model's "Differs from the model" caption
    outside a code span, on every page: a scheme's name the URL chose, read as Markdown (its underscore)."""
    from fuzz_links import check_page, open_page

    link = {"model": "qwen3-8b", "scheme": "transformer_xl", "rope.rope_type": "linear"}
    for page in ("pages/heatmap.py", "pages/details.py"):
        at = open_page(link, page)
        assert not check_page(at, link, page)
        assert any("scheme is ` transformer_xl ` here, ` rope ` in Qwen3 8B" in c.value for c in at.sidebar.caption)


def test_a_move_the_browser_did_not_write_into_its_address_is_written_at_the_end_of_the_run():
    """CI, twice under load: the image grown to 32 × 32 patches and 4 frames on the view while its link said
    1 × 1 and 1 frame, every later control written on top (the browser writes a moved control into its address
    itself, and had not for these three). No run corrected it, so the link stayed wrong. AppTest never writes a
    move into the address: every run must end with an address that opens the view (address.correct_the_address)."""
    from apptest_helpers import run

    at = run({"scheme": "rope", "d_model": "16", "length": "24", "grid_h": "1", "grid_w": "1"}, "pages/details.py")

    def slider(label):
        return next(s for s in at.slider if s.label == label)

    for label, value in (("image rows H (patches)", 32), ("image columns W (patches)", 32),
                         ("frames (1: an image)", 4)):
        slider(label).set_value(value)
        at.run()
    slider("query patch row").set_value(31)
    at.query_params["patch_row"] = "31"  # this one the browser wrote
    at.run()
    assert not at.exception
    assert {key: at.query_params.get(key) for key in ("grid_h", "grid_w", "frames", "patch_row")} == {
        "grid_h": "32", "grid_w": "32", "frames": "4", "patch_row": "31"}, dict(at.query_params)
    slider("frames (1: an image)").set_value(1)  # back to the default: out of the address
    at.run()
    assert "frames" not in at.query_params, dict(at.query_params)


@pytest.mark.parametrize("page, query", [
    ("pages/rotation.py", {"scheme": "rope", "d_model": "16", "length": "24"}),  # the shift check, then the page ends
    ("pages/sinusoids.py", {"scheme": "alibi", "d_model": "16", "length": "24"}),  # no table: one sentence, the end
])
def test_a_page_that_ends_early_still_ends_its_run_with_the_view_s_address(page, query):
    """The rotation check under RoPE and Sinusoids under a scheme with no table end the page early. With
    st.stop(), Streamlit stays stopped and every later read of the session state raises again, so the end of run
    (address.correct_the_address) never ran on these pages: a move the browser did not write stayed out of the
    link. posenc.ui.page_end ends the page without asking Streamlit to stop."""
    from apptest_helpers import run

    at = run(query, page)
    at.sidebar.slider(key="length").set_value(40)
    at.run()  # AppTest, like a browser that lost the move, does not write it into the address
    assert not at.exception and not at.error
    assert at.query_params.get("length") == "40", dict(at.query_params)


def test_an_emptied_selection_carried_back_to_its_page_is_written_as_an_empty_value():
    """The random walk (seed 43, action 111): Sinusoids' dimensions emptied, another page visited (the browser
    drops the page's own keys from its address there), Sinusoids again: the view showed no dimension while its
    link left ``dims`` out and reopened at 4, 5, 6, 7. An emptied selection is ``?dims=`` in the address."""
    from apptest_helpers import run

    at = run({"d_model": "24"}, "pages/sinusoids.py")
    next(m for m in at.multiselect if m.label.startswith("Dimensions")).set_value([])
    at.query_params["dims"] = ""  # the browser writes the emptied selection
    at.run()
    at.query_params.pop("dims")  # and drops it from the address on another page
    at.switch_page("pages/heatmap.py").run()
    at.switch_page("pages/sinusoids.py").run()
    assert not at.exception
    assert next(m for m in at.multiselect if m.label.startswith("Dimensions")).value == []
    assert at.query_params.get("dims") == "", dict(at.query_params)


def test_the_lab_s_task_is_named_as_code_in_its_sentences():
    """A 400-link property run (seed 3) found ``selective_copy`` outside a code span on the lab's page ("every
    scheme learned selective_copy", "To selective_copy a digit"): a name the URL chose, read as Markdown."""
    from fuzz_links import check_page, open_page

    link = {"task": "selective_copy"}
    at = open_page(link, "pages/generalization.py")
    assert not check_page(at, link, "pages/generalization.py")
    assert any("every scheme learned ` selective_copy `" in m.value for m in at.markdown)
