"""Every page through Streamlit's AppTest: defaults, bad URLs, and the numbers on the charts."""

import json
import re

import numpy as np
import pytest

import posenc
from apptest_helpers import PAGES, ROOT, charts, run, title
from family_configs import ABSOLUTE_CONFIGS, BOTH_WAYS_CONFIGS, ROTARY_CONFIGS
from plotly_data import decode, heatmap_cells, sent
from posenc import models
from posenc.schemes.rope.entry import rope_keywords

BAD_URL = {"d_model": "abc", "length": "1000000000", "n": "0", "scheme": "<script>alert(1)</script>"}


def test_every_page_is_in_the_navigation():
    """pages/ holds only the pages app.py routes (helpers live in posenc.ui), each with the shared sidebar."""
    scripts = {f"pages/{p.name}" for p in (ROOT / "pages").iterdir() if p.name != "__pycache__"}
    assert len(PAGES) >= 6 and scripts == set(PAGES)
    assert all(re.search(r"^(c = )?sidebar\.controls\(\)", (ROOT / page).read_text(), re.M) for page in PAGES)


@pytest.mark.parametrize("scheme", list(posenc.SCHEMES))
@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_under_every_scheme(page, scheme):
    at = run({"scheme": scheme}, page)
    assert at.selectbox(key="scheme").value == scheme
    assert at.title and not at.error and not at.warning
    assert at.get("plotly_chart") or at.dataframe or at.info


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_with_defaults(page):
    at = run(page=page)
    assert at.title and not at.warning and not at.error
    assert charts(at) or at.dataframe


@pytest.mark.parametrize("page", PAGES)
def test_bad_url_renders_with_nearest_valid_values_and_warnings(page):
    at = run(BAD_URL)
    warnings = " ".join(w.value for w in at.warning)
    assert "URL parameter ` d_model ` = ` abc ` is not a number: using 128." in warnings
    assert "URL parameter ` length ` = ` 1000000000 ` is outside 2 … 4096: using 4096." in warnings
    assert "URL parameter ` n ` = ` 0 ` is outside 1 … 1e+09: using 1." in warnings
    assert "URL parameter ` scheme ` = ` <script>alert(1)</script> ` is not one of" in warnings
    assert at.slider(key="length").value == 4096 and at.slider(key="d_model").value == 128
    assert at.number_input(key="n").value == 1.0
    at.switch_page(page).run()  # and every page renders with those values
    assert not at.exception and (charts(at) or at.dataframe)
    assert at.slider(key="length").value == 4096 and at.slider(key="d_model").value == 128


def test_heatmap_chart_holds_posenc_values():
    at = run({"d_model": "16", "length": "40", "n": "100"})
    trace = charts(at)[0]["data"][0]
    z = decode(trace["z"])
    np.testing.assert_array_equal(z, posenc.sinusoidal(40, 16, 100.0).astype(np.float32))
    assert (trace["zmin"], trace["zmax"]) == (-1, 1)
    assert "PE_{(pos,\\,2i)}" in at.get("latex")[0].proto.body and "100^{-2i/16}" in at.get("latex")[0].proto.body


def test_heatmap_thins_large_settings_and_keeps_true_values():
    at = run({"d_model": "1024", "length": "4096"})
    fig = charts(at)[0]
    trace = fig["data"][0]
    assert trace["type"] == "image"  # 65,536 cells: sent as the PNG of their colour levels (posenc.figures.images)
    z, rows, cols = heatmap_cells(fig)
    rows, cols = rows.astype(int), np.array([int(c) for c in cols])
    assert z.shape == (len(rows), len(cols)) == (256, 256)
    assert rows.tolist() == list(range(0, 4096, 16)) and cols[:4].tolist() == [0, 1, 8, 9] and cols[-1] == 1017
    np.testing.assert_array_equal(z, sent(trace, posenc.sinusoidal(4096, 1024)[np.ix_(rows, cols)]))  # colour levels
    assert "every 16th position shown" in title(fig)


def test_window_view_sends_256_positions_at_full_resolution():  # replaces "Send every cell" (send_all)
    at = run({"d_model": "64", "length": "600"})
    at.selectbox(key="view").set_value("window").run()
    at.slider(key="window.pos").set_value(300).run()
    fig = charts(at)[0]
    z, rows, cols = heatmap_cells(fig)
    assert rows.tolist() == list(range(300, 556)) and cols.tolist() == list(range(64))
    np.testing.assert_array_equal(z, sent(fig["data"][0], posenc.sinusoidal(600, 64)[300:556]))


def test_similarity_chart_is_pe_times_pe_transpose():
    at = run({"d_model": "8", "length": "30", "matrix": "Similarity"})  # the second view; only it is drawn
    z = decode(charts(at)[0]["data"][0]["z"])
    table = posenc.sinusoidal(30, 8)
    np.testing.assert_allclose(z, (table @ table.T).astype(np.float32), rtol=1e-6)


def test_controls_survive_page_switches():
    at = run({"d_model": "32", "length": "50", "n": "500"})
    for page in PAGES[1:] + PAGES[:1]:
        at.switch_page(page).run()
        assert not at.exception
        assert at.slider(key="d_model").value == 32 and at.slider(key="length").value == 50
        assert at.number_input(key="n").value == 500.0


def test_sinusoids_page_plots_chosen_dimensions_and_wavelengths():
    at = run({"d_model": "20", "length": "100"}, "pages/sinusoids.py")
    at.multiselect(key="dims").set_value([4, 5, 6, 7])
    at.multiselect(key="positions").set_value([0, 4]).run()
    by_position, = charts(at)  # only the view shown is drawn; ?curves= shows another
    by_dimension, = charts(run({"d_model": "20", "length": "100", "positions": ["0", "4"],
                                "curves": "Against dimension"}, "pages/sinusoids.py"))
    waves, = charts(run({"d_model": "20", "length": "100", "curves": "Wavelengths"}, "pages/sinusoids.py"))
    assert [t["name"] for t in by_position["data"]] == ["dim 4", "dim 5", "dim 6", "dim 7"]
    table = posenc.sinusoidal(100, 20)
    np.testing.assert_allclose(decode(by_position["data"][0]["y"]), table[:, 4])
    np.testing.assert_allclose(decode(by_dimension["data"][1]["y"]), table[4])
    np.testing.assert_allclose(decode(waves["data"][0]["y"]), posenc.wavelengths(20))
    assert waves["layout"]["yaxis"]["type"] == "log"


@pytest.mark.parametrize(("scheme", "heading"), [("sinusoidal", "Each dimension is a sinusoid over positions"),
                                                 ("learned", "Each dimension against position"),
                                                 ("nope", "Each dimension against position")])
def test_sinusoids_page_calls_a_column_a_sinusoid_only_where_it_has_a_period(scheme, heading):
    by_position, = charts(run({"scheme": scheme, "d_model": "16", "length": "50"}, "pages/sinusoids.py"))
    assert title(by_position) == heading
    column = posenc.get_scheme(scheme).table(50, 16, 10000.0, **posenc.get_scheme(scheme).defaults())[:, 4]
    np.testing.assert_allclose(decode(by_position["data"][0]["y"]), column)


def test_rotation_page_shows_vectors_residuals_and_transpose():
    at = run({"d_model": "16", "length": "64"}, "pages/rotation.py")
    at.slider(key="pos").set_value(3).run()
    at.slider(key="k").set_value(-2).run()
    assert at.slider(key="pos").value == 3 and at.slider(key="k").value == -2
    vectors = charts(at)[0]["data"]
    table = posenc.sinusoidal(64, 16)
    np.testing.assert_allclose(decode(vectors[0]["y"]), table[3])
    np.testing.assert_allclose(decode(vectors[1]["y"]), posenc.rotation_matrix(-2, 16) @ table[3])
    np.testing.assert_allclose(decode(vectors[2]["y"]), table[1])
    residual = decode(charts(at)[1]["data"][0]["y"])
    np.testing.assert_allclose(residual, np.maximum(np.abs(posenc.rotation_matrix(-2, 16) @ table[3] - table[1]), 1e-18))
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics["max residual over 62 positions (float64)"]) < 1e-13
    assert float(metrics["max residual over 62 positions (float32)"]) < 1e-6
    assert r"M_{2} - M_{-2}^\top" in " ".join(element.proto.body for element in at.get("latex"))


def test_rotation_page_says_how_far_rounding_goes_at_the_caps():
    """float64's residual grows with the position (3.5e-13 at length 4,096); the caption said "about 1e-16"."""
    at = run({"d_model": "128", "length": "4096"}, "pages/rotation.py")
    f64, f32 = (posenc.rotation_check(4096, 128, 10000.0, 1, dtype=dtype) for dtype in (np.float64, np.float32))
    assert 1e-13 < f64.max_abs_error < 1e-12 and 1e-7 < f32.max_abs_error < 2e-7
    assert f64.errors[:100].max() < f64.max_abs_error / 10  # the spikes grow with the position
    caption = next(c.value for c in at.caption if c.value.startswith("The identity is exact"))
    assert f"its median is {np.median(f64.errors):.1e}, its largest {f64.max_abs_error:.1e}" in caption
    assert f"rounding ({f32.max_abs_error:.1e})" in caption and "1e-16 in float64" not in caption


def test_rotation_page_odd_d_model_uses_the_nearest_even_width_and_says_so():
    at = run({"d_model": "7"}, "pages/rotation.py")
    assert at.slider(key="d_model").value == 7 and not at.error
    assert any("this view pairs dimensions (sin, cos), so d_model must be even; using d_model=6" in i.value
               for i in at.info)


def test_rotation_page_clamps_k_when_pos_moves():
    at = run({"length": "10"}, "pages/rotation.py")
    at.slider(key="k").set_value(5).run()
    at.slider(key="pos").set_value(8).run()
    assert at.slider(key="k").value == 1
    assert any("k (offset; negative looks back) ` 5 ` is outside -8 … 1: using 1." in w.value for w in at.warning)


def test_rope_pairs_turn_by_position_times_theta():
    at = run({"scheme": "rope", "d_model": "16", "length": "64"}, "pages/details.py")
    figure = charts(at)[2]
    phasors = figure["data"]  # per pair: position m, position n (the unit circle is a shape)
    assert [s["type"] for s in figure["layout"]["shapes"]] == ["circle"] * 4
    theta = posenc.rope_inv_freq(16)[0]
    for pair in range(4):
        at_m, at_n = phasors[2 * pair], phasors[2 * pair + 1]
        np.testing.assert_allclose(decode(at_m["x"])[1:], [1.0], atol=1e-15)  # m = 0: no turn
        np.testing.assert_allclose([decode(at_n["x"])[1], decode(at_n["y"])[1]],
                                   [np.cos(10 * theta[pair]), np.sin(10 * theta[pair])], atol=1e-12)


@pytest.mark.parametrize(("length", "lines"), [
    (100, ["default = dynamic = longrope", "linear = proportional", "ntk", "yarn", "llama3"]),
    (1000, ["default", "linear = proportional", "dynamic", "ntk", "yarn", "llama3", "longrope"])])
def test_rope_wavelengths_draw_coinciding_scalings_as_one_named_line(length, lines):
    """Below the original context (512) dynamic re-bases nothing and LongRoPE uses its short factors (1): both are
    the default, and proportional with every pair rotated is linear. Each such group is one line naming them all,
    so no line hides another; past the context they part. Each line holds every named scaling's wavelengths."""
    at = run({"scheme": "rope", "d_model": "64", "length": str(length)}, "pages/details.py")
    traces = next(spec for spec in charts(at) if title(spec).startswith("Wavelength of every pair"))["data"]
    assert [t["name"] for t in traces] == [*lines, "original context 512"]
    for trace in traces[:-1]:
        for rope_type in trace["name"].split(" = "):
            keywords = rope_keywords(posenc.get_scheme("rope").defaults() | {"rope_type": rope_type})
            keywords.pop("layout")  # the table's layout: no wavelength depends on it
            expected = posenc.rope_wavelengths(64, 10000.0, seq_len=length, **keywords)
            np.testing.assert_allclose(decode(trace["y"]), expected, rtol=1e-6, err_msg=rope_type)
    assert any("share one line" in c.value for c in at.caption)


def test_alibi_bias_chart_holds_the_slope_of_the_chosen_head():
    at = run({"scheme": "alibi", "length": "20", "alibi.direction": "bidirectional"})
    at.slider(key="head").set_value(3).run()
    z = decode(charts(at)[0]["data"][0]["z"])
    np.testing.assert_array_equal(z, posenc.alibi_bias(20, 8)[2].astype(np.float32))
    assert "head h = 3" in title(charts(at)[0])


def test_alibi_opens_causal_as_the_paper():
    at = run({"scheme": "alibi", "length": "20"})
    assert at.selectbox(key="alibi.direction").value == "causal"
    z = decode(charts(at)[0]["data"][0]["z"]).astype(np.float64)  # head 1; the masked keys j > i are not drawn
    expected = posenc.alibi_bias(20, 8, causal=True)[0]
    np.testing.assert_array_equal(np.isfinite(z), np.isfinite(expected))
    np.testing.assert_array_equal(z[np.isfinite(z)], expected[np.isfinite(expected)].astype(np.float32))


@pytest.mark.parametrize(("scheme", "score"), [("rope", "q·k / d_model after rotation"),
                                               ("xpos", "q'·k' / d_model after rotation and scaling")])
def test_a_rotary_matrix_is_titled_with_the_score_it_draws(scheme, score):
    at = run({"scheme": scheme, "length": "12", "d_model": "8"})
    fig = charts(at)[0]
    assert title(fig).replace("\u00a0", " ") == f"{score}, q = k = (1, …, 1)"
    assert "q\u00a0=\u00a0k\u00a0=\u00a0(1,\u00a0…,\u00a01)" in fig["layout"]["title"]["text"]  # never broken
    z = decode(fig["data"][0]["z"]).astype(np.float64)
    ones = np.ones(8)
    if scheme == "rope":  # q·k of the all-ones query at i and key at j, rotated by apply_rope, over d_model = 8
        rotated = posenc.apply_rope(np.tile(ones, (12, 1)), np.arange(12), 10000.0)
        expected = rotated @ rotated.T / 8
    else:
        _, curve = posenc.get_scheme(scheme).offset_curve(12, 8, 10000.0)
        expected = curve[np.arange(12)[None, :] - np.arange(12)[:, None] + 11]
    np.testing.assert_allclose(z, expected, rtol=1e-6, atol=1e-6)  # the chart's float32 cells
    assert z[0, 0] == 1  # q·k = d_model on the diagonal: the title's "/ d_model"


def test_rope_and_xpos_decay_charts_name_their_axis_as_drawn():
    """The curves are q·k / d_model (1 at offset 0); the axis said 'score (q = k = ones)'."""
    rope = {title(f): f for f in charts(run({"scheme": "rope", "length": "50", "d_model": "16"}, "pages/details.py"))}
    decay = rope["q·k against the offset: long-range decay"]
    assert decay["layout"]["yaxis"]["title"]["text"] == "q·k / d_model (q = k = ones)"
    assert max(decode(decay["data"][0]["y"])) == 1  # q·k = d_model at offset 0
    xpos = {title(f): f for f in charts(run({"scheme": "xpos", "length": "50", "d_model": "16"}, "pages/details.py"))}
    assert xpos["The score against the distance: xPos against RoPE"]["layout"]["yaxis"]["title"]["text"] == \
        "score / d_model (q = k = ones)"


@pytest.mark.parametrize("scheme", ["shaw", "transformer_xl"])
def test_a_query_dependent_bias_says_its_matrix_is_for_one_fixed_query(scheme):
    at = run({"scheme": scheme, "length": "30", "d_model": "16"})
    notes = " ".join(m.value for m in at.markdown)
    assert "one fixed seeded unit query q, the same in every row" in notes and "depends on the query" in notes
    assert "depends only on the offset" not in notes  # Shaw's q_i·a and Transformer-XL's q_i·W_R R vary with q_i
    offsets, values = posenc.get_scheme(scheme).offset_bias(30, 16, 10000.0)
    z = decode(charts(at)[0]["data"][0]["z"]).astype(np.float64)  # one row per query position i, each with the same q
    expected = values[0][np.arange(30)[None, :] - np.arange(30)[:, None] + 29]
    np.testing.assert_array_equal(np.isfinite(z), np.isfinite(expected))
    np.testing.assert_array_equal(z[np.isfinite(z)], expected[np.isfinite(expected)].astype(np.float32))


@pytest.mark.parametrize("scheme", ["t5", "alibi", "kerple"])
def test_an_offset_only_bias_says_so(scheme):
    notes = " ".join(m.value for m in run({"scheme": scheme, "length": "30"}).markdown)
    assert "depends only on the offset j − i" in notes and "fixed" not in notes


@pytest.mark.parametrize(("heads", "drawn"), [(4, [1, 2, 3, 4]), (8, list(range(1, 9))),
                                              (32, [1, 5, 10, 14, 19, 23, 28, 32])])
def test_alibi_how_it_works_draws_at_most_eight_heads_evenly_spaced_and_says_so(heads, drawn):
    """The per-head chart draws every head up to eight, else eight from the steepest to the gentlest, each with its
    own slope; a caption names the heads drawn and the masked side (j > i) left blank."""
    at = run({"scheme": "alibi", "length": "12", "alibi.num_heads": str(heads)}, "pages/details.py")
    lines = next(spec for spec in charts(at) if title(spec).startswith("Bias against the offset"))["data"]
    assert [line["name"] for line in lines] == [f"head {h}" for h in drawn]
    slopes = posenc.alibi_slopes(heads)
    for line, h in zip(lines, drawn, strict=True):
        x, y = decode(line["x"]).astype(np.float64), decode(line["y"])
        np.testing.assert_array_equal(y[x <= 0], -slopes[h - 1] * np.abs(x[x <= 0]))
        assert np.isnan(y[x > 0]).all()
    captions = " ".join(c.value for c in at.caption)
    assert "nothing is drawn right of 0" in captions
    assert (f"8 of the {heads} heads are drawn" in captions) == (heads > 8)
    if heads > 8:
        assert f"(h = {', '.join(map(str, drawn))})" in captions


@pytest.mark.parametrize(("scheme", "label"), [("sinusoidal", "Download the matrix"), ("alibi", "Download the bias"),
                                               ("rope", "Download the scores")])
def test_downloads_are_made_only_when_their_expander_is_open(scheme, label):
    """Closed (the default), the downloads are one element; ?download=true opens them: a caption and
    two buttons, .npy and .csv, named by the settings."""
    closed = run({"scheme": scheme, "length": "30", "d_model": "12"})
    assert label in [e.label for e in closed.expander] and not closed.get("download_button")
    opened = run({"scheme": scheme, "length": "30", "d_model": "12", "download": "true"})
    names = [button.proto.label for button in opened.get("download_button")]
    assert len(names) == 2 and names[0].endswith(".npy") and names[1].endswith(".csv"), names
    assert all(f"{scheme}_L30_d12" in name for name in names)


def test_a_view_switch_shows_one_view_keeps_a_choice_a_setting_lacks_and_warns_of_an_unknown_one():
    """binding.bound_views (the Encoding matrix's Table | Similarity, the Sinusoids' curves): a segmented control
    whose views are drawn one at a time. Wavelengths, which a scheme with no period lacks, shows the first view
    meanwhile (the address drops it) and comes back with a scheme that has it, as a tab did; a view picked
    meanwhile is the choice from then on. An unknown label in the URL is a warning, shown as code."""
    at = run({"curves": "Wavelengths"}, "pages/sinusoids.py")
    views = at.get("button_group")
    assert [v.value for v in views] == ["Wavelengths"] and title(charts(at)[0]).startswith("Wavelength")
    at.selectbox(key="scheme").set_value("learned").run()
    assert at.get("button_group")[0].options == ["Against position", "Against dimension"]
    assert title(charts(at)[0]).startswith("Each dimension") and "curves" not in at.query_params
    at.selectbox(key="scheme").set_value("sinusoidal").run()
    assert at.query_params["curves"] == "Wavelengths" and title(charts(at)[0]).startswith("Wavelength")
    at.selectbox(key="scheme").set_value("learned").run()
    at.get("button_group")[0].set_value("Against dimension").run()  # picked meanwhile: kept
    at.selectbox(key="scheme").set_value("sinusoidal").run()
    assert at.get("button_group")[0].value == "Against dimension" and not at.exception
    odd = run({"matrix": "<b>Tables</b>"})
    assert [w.value for w in odd.warning] == ["URL parameter ` matrix ` = ` <b>Tables</b> ` is not one of ` Table `, "
                                              "` Similarity `: using ` Table `."]
    assert len(charts(odd)) == 1 and "matrix" not in odd.query_params


def test_only_the_open_view_may_be_drawn_in():
    from posenc.ui.binding import View

    with pytest.raises(RuntimeError, match="not shown"), View("Similarity", False, None):
        pass


@pytest.mark.parametrize("scheme", list(posenc.SCHEMES))
def test_the_wavelengths_view_is_offered_exactly_for_a_table_with_periods(scheme):
    from posenc.analysis import table_cells

    at = run({"scheme": scheme}, "pages/sinusoids.py")
    if posenc.get_scheme(scheme).table is None:
        assert not at.get("button_group")  # no table: the page says so
        return
    periodic = table_cells.column_wavelengths(scheme, 128, 10000.0) is not None
    assert ("Wavelengths" in at.get("button_group")[0].options) == periodic


def test_longrope_s_rule_names_its_pair_count_not_n():
    """n is the base on every page; the rule's exponent divides by the pairs − 1 (16 pairs at d_model 32)."""
    at = run({"scheme": "rope", "rope.rope_type": "longrope", "length": "128", "d_model": "32"}, "pages/details.py")
    captions = " ".join(c.value for c in at.caption)
    assert "long factors fᵢ = s^(i/15), rising geometrically from 1 on pair 0 to s = 4 on pair 15" in captions
    assert "(n − 1)" not in captions
    factors = posenc.schemes.rope.scalings.longrope_factors("geometric", 16, 4.0)
    np.testing.assert_allclose(factors, 4.0 ** (np.arange(16) / 15))


def test_the_clocks_divide_out_any_scaling_s_factor_on_cos_and_sin():
    """LongRoPE's factor (1.1055 here) is divided out as YaRN's is: the caption named YaRN's alone."""
    at = run({"scheme": "rope", "rope.rope_type": "longrope", "length": "128", "d_model": "32"}, "pages/details.py")
    assert any("as YaRN and LongRoPE do, divided out" in c.value for c in at.caption)
    clocks = next(f for f in charts(at) if title(f).startswith("Each rotated pair i turns"))
    for frame in clocks["frames"][::16]:  # each hand: (centre, tip, NaN), eight of them
        x, y = (decode(frame["data"][0][axis]).astype(np.float64).reshape(-1, 3) for axis in ("x", "y"))
        assert len(x) == 8
        np.testing.assert_allclose(np.hypot(x[:, 1] - x[:, 0], y[:, 1] - y[:, 0]), 1.0, atol=1e-6)


def test_shaw_with_k_zero_says_every_pair_uses_one_vector():
    at = run({"scheme": "shaw", "shaw.max_relative_position": "0", "length": "40", "d_model": "16"},
             "pages/details.py")
    assert title(charts(at)[0]) == "clip(j − i, 0, 0) = 0: every pair uses the one vector a₀"
    assert any("With k = 0 every offset shares a₀" in c.value for c in at.caption)
    assert "−0" not in " ".join([title(f) for f in charts(at)] + [c.value for c in at.caption])


def test_xpos_s_rotation_note_gives_the_query_s_scale_at_the_shift_shown():
    """It said 'moving the query alone by s = 0 scales pair i by ζᵢ^(s/γ)' (nothing moves at s = 0) and
    'm − n = -5' with a hyphen."""
    link = {"scheme": "xpos", "xpos.scale_base": "16", "length": "128", "d_model": "32"}
    at = run(link, "pages/rotation.py")
    note = next(c.value for c in at.caption if c.value.startswith("Moving both keeps"))
    zeta0 = 0.4 / 1.4  # ζ₀ = (0 + 0.4)/1.4
    assert "(m − n = −5, γ = 16)" in note and "s = 0 here; at s = 1: " + f"{zeta0 ** (1 / 16):.4g} on pair 0" in note
    at.slider(key="shift").set_value(3).run()
    note = next(c.value for c in at.caption if c.value.startswith("Moving both keeps"))
    assert f"at s = 3: {zeta0 ** (3 / 16):.4g} on pair 0" in note and "s = 3 scales" not in note


@pytest.mark.parametrize("layout", ["interleaved", "split"])
def test_the_sinusoidal_clock_formula_names_the_columns_of_the_layout_drawn(layout):
    """Under the split layout the page wrote (PE[p,2i+1], PE[p,2i]) = (cos pθᵢ, sin pθᵢ), columns that hold
    sin and cos of two different pairs there; the matrix note said the left columns are fast (split: the middle)."""
    link = {"scheme": "sinusoidal", "sinusoidal.layout": layout, "length": "64", "d_model": "32"}
    formula = " ".join(x.value for x in run(link, "pages/details.py").latex)
    cos_column, sin_column = (lambda i: 2 * i + 1, lambda i: 2 * i) if layout == "interleaved" else \
        (lambda i: i + 16, lambda i: i)
    expected = r"PE[p,2i+1],\ PE[p,2i]" if layout == "interleaved" else r"PE[p,i+16],\ PE[p,i]"
    assert rf"\big({expected}\big) = \big(\cos p\theta_i" in formula
    table = posenc.get_scheme("sinusoidal").table(64, 32, 10000.0, layout=layout)
    theta, p = posenc.frequencies(32, 10000.0), np.arange(64)[:, None]
    for i in (0, 5, 15):
        np.testing.assert_allclose(table[:, cos_column(i)], np.cos(p[:, 0] * theta[i]), atol=1e-6)
        np.testing.assert_allclose(table[:, sin_column(i)], np.sin(p[:, 0] * theta[i]), atol=1e-6)
    note = " ".join(m.value for m in run(link, "pages/heatmap.py").markdown)
    assert "i and i + d/2 in the split layout" in note and "Columns to the left" not in note


@pytest.mark.parametrize("scheme", ["learned", "nope"])
def test_the_similarity_view_of_a_table_without_a_formula_does_not_give_the_sinusoidal_one_as_its_own(scheme):
    """Under a learned table (random rows) or NoPE (zeros) the note read as if Σᵢ cos((p − q)θᵢ) were drawn."""
    at = run({"scheme": scheme, "matrix": "Similarity", "length": "64", "d_model": "16"})
    note = next(m.value for m in at.markdown if m.value.startswith("PE[p]·PE[q] for every pair"))
    assert f"{posenc.get_scheme(scheme).label}'s table has no formula for it" in note
    assert "bands parallel to the diagonal" not in note
    sinusoidal = run({"scheme": "sinusoidal", "matrix": "Similarity", "length": "64", "d_model": "16"})
    assert any("bands parallel to the diagonal" in m.value for m in sinusoidal.markdown)


@pytest.mark.parametrize(("fraction", "exponent", "partner"), [("1.0", "64", "d/2"), ("0.5", "32", r"d_\text{rot}/2")])
def test_the_clocks_formula_has_the_exponent_the_frequencies_have(fraction, exponent, partner):
    """θᵢ = base^(−2i/d_rot) under a partial rotation (transformers' int(head_dim·partial_rotary_factor)), as the
    scheme's formula on the same page says and the clocks compute; the clocks' formula said −2i/d_model (a Phi
    config of one's own: 10000^(−2i/80) above clocks turning at 10000^(−2i/32))."""
    at = run({"scheme": "rope", "d_model": "64", "length": "64", "rope.rotary_fraction": fraction,
              "rope.layout": "half"}, "pages/details.py")
    (clocks,) = [f.value for f in at.get("latex") if "turned by" in f.value]
    assert rf"10000^{{-2i/{exponent}}}" in clocks and partner in clocks
    theta = posenc.rope_inv_freq(64, rotary_fraction=float(fraction))[0]
    np.testing.assert_allclose(theta, 10000.0 ** (-2 * np.arange(len(theta)) / int(exponent)), rtol=1e-12)


@pytest.mark.parametrize("name", [*ABSOLUTE_CONFIGS, *BOTH_WAYS_CONFIGS, *ROTARY_CONFIGS])
@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_under_each_kind_of_config_read_today(page, name):
    """Every page under a config of each kind of absolute table posenc reads (refused before this), of the rotary
    models that see both ways, and of Gemma 4's and EXAONE 4's layers: no exception, no error box, the sidebar at
    the config's scheme."""
    from posenc.models.config_link import to_link

    config = (ABSOLUTE_CONFIGS | BOTH_WAYS_CONFIGS | ROTARY_CONFIGS)[name]
    at = run({"model": "config", "config": to_link(json.dumps(config))}, page)
    assert not at.exception and not at.error, [e.value for e in at.error]
    model = models.from_config(config)
    assert at.selectbox(key="scheme").value == model.positionals[model.layer_types[0]].scheme


@pytest.mark.parametrize(("model_type", "spacing", "first"), [("marian", "vaswani", 0), ("m2m_100", "tensor2tensor", 2),
                                                              ("xglm", "tensor2tensor", 2)])
@pytest.mark.parametrize("page", ["pages/heatmap.py", "pages/details.py"])
def test_a_sinusoidal_config_sets_the_sidebar_to_its_sinusoids(model_type, spacing, first, page):
    """A Marian, M2M100 or XGLM config (refused before: no positional field) sets the sidebar to the sinusoids its
    model adds (transformers 5.23: test_model_config.py): d_model its width, n 10,000, sines before cosines, its
    frequency spacing, length its context. How it works says where M2M100's and XGLM's tokens start (position 2),
    and, past Marian's 512 rows, that they have none."""
    from posenc.models.config_link import to_link

    sizes = ({"d_model": 512, "attention_heads": 8, "num_layers": 6} if model_type == "xglm" else
             {"d_model": 512, "encoder_attention_heads": 8, "encoder_layers": 6})
    config = {"model_type": model_type, "max_position_embeddings": 512, "pad_token_id": 1, **sizes}
    at = run({"model": "config", "config": to_link(json.dumps(config))}, page)
    assert not at.exception and not at.error
    assert at.selectbox(key="scheme").value == "sinusoidal" and at.slider(key="d_model").value == 512
    assert at.selectbox(key="sinusoidal.layout").value == "split"
    assert at.selectbox(key="sinusoidal.spacing").value == spacing
    assert at.slider(key="length").value == 512 and at.number_input(key="n").value == 10000
    captions = " ".join(c.value for c in at.caption)
    said = f"a token at position p is encoded as position p + {first}" in captions
    assert said == (first > 0 and page == "pages/details.py"), captions
    assert "have no row" not in captions  # at its context: every position has a row
    if model_type == "marian" and page == "pages/details.py":  # a longer length than its 512 rows: they are named
        at.slider(key="length").set_value(600).run()
        captions = " ".join(c.value for c in at.caption)
        assert "a table of 512 rows, computed once: positions 512 … 599 have no row" in captions, captions


def test_an_mpnet_config_draws_its_buckets_and_names_the_table_it_adds():
    """all-mpnet-base-v2's config (514 rows, 32 buckets) sets the sidebar to T5's buckets as MPNet's code computes them
    (32 out to 128, both ways; test_model_config.py) over the 512 tokens its table holds (posenc read it as T5's
    buckets alone over 514), and How it works names the learned table MPNet adds besides them, and, past it, the
    positions that have no row."""
    from posenc.models.config_link import to_link

    config = {"model_type": "mpnet", "hidden_size": 768, "num_attention_heads": 12, "num_hidden_layers": 12,
              "max_position_embeddings": 514, "relative_attention_num_buckets": 32, "pad_token_id": 1}
    at = run({"model": "config", "config": to_link(json.dumps(config))}, "pages/details.py")
    assert not at.exception and not at.error
    assert at.selectbox(key="scheme").value == "t5" and at.slider(key="length").value == 512
    assert (at.slider(key="t5.num_buckets").value, at.slider(key="t5.max_distance").value) == (32, 128)
    captions = " ".join(c.value for c in at.caption)
    assert "also adds a learned table to its embeddings, as BERT does: a token at position p reads row p + 2, so " \
           "its 514 rows hold 512 tokens." in captions, captions
    assert "have no row" not in captions
    at.slider(key="length").set_value(600).run()
    captions = " ".join(c.value for c in at.caption)
    assert "Positions 512 … 599 have no row" in captions, captions


def test_a_whisper_config_draws_its_encoder_s_sinusoids_over_its_fixed_length():
    """whisper-small's config (d_model 768, 12 encoder layers, 1,500 source positions) sets the sidebar to the
    sinusoids its encoder adds (test_model_config.py): fairseq's spacing, sines before cosines, length 1,500, and How
    it works says every input is exactly that long. posenc refused the config (no positional field)."""
    from posenc.models.config_link import to_link

    config = {"model_type": "whisper", "d_model": 768, "encoder_attention_heads": 12, "encoder_layers": 12,
              "decoder_attention_heads": 12, "decoder_layers": 12, "max_source_positions": 1500,
              "max_target_positions": 448, "num_mel_bins": 80}
    at = run({"model": "config", "config": to_link(json.dumps(config))}, "pages/details.py")
    assert not at.exception and not at.error
    assert at.selectbox(key="scheme").value == "sinusoidal" and at.slider(key="d_model").value == 768
    assert at.selectbox(key="sinusoidal.spacing").value == "tensor2tensor"
    assert at.selectbox(key="sinusoidal.layout").value == "split" and at.slider(key="length").value == 1500
    captions = " ".join(c.value for c in at.caption)
    assert "every input is exactly 1,500 positions long: its encoder refuses any other length (Whisper's takes mel " \
           "features of exactly 3,000 frames" in captions, captions
    assert "have no row" not in captions


def test_a_roberta_config_s_learned_table_says_which_row_a_position_reads():
    """RoBERTa numbers positions from pad_token_id + 1 (transformers 5.23: test_model_config.py), so How it works under
    a RoBERTa config says that position p reads row p + 2 and that its 514 rows hold 512 tokens; BERT's says nothing.
    OPT's table has two rows more than its max_position_embeddings (512 here): the same row p + 2, 514 rows, 512
    tokens; it said they counted from pad_token_id + 1, which OPT's do not. BART's reads row p + 2 as OPT's (its
    sizes given under the standard names, which its class maps to its own); Blenderbot's reads row p."""
    from posenc.models.config_link import to_link

    sizes = {"hidden_size": 768, "num_attention_heads": 12, "num_hidden_layers": 12, "max_position_embeddings": 514}
    for model_type, said in (("roberta", True), ("bert", False), ("opt", True), ("bart", True), ("blenderbot", False)):
        given = sizes | {"max_position_embeddings": 512} if model_type in ("opt", "bart") else sizes
        link = to_link(json.dumps({"model_type": model_type, "pad_token_id": 1, **given}))
        at = run({"model": "config", "config": link}, "pages/details.py")
        assert not at.exception
        captions = " ".join(c.value for c in at.caption)
        assert ("a token at position p reads row p + 2 (its first 2 rows are never a token's)" in captions
                and "its 514 rows hold 512 tokens" in captions) == said, captions
        assert "pad_token_id" not in captions
