"""posenc/figures/margins.py: margins raised to hold what plotly's automargin asks for (checked against plotly's own
pushes in Chromium by tests/browser/test_drawn_once.py); here, what the estimate is made of."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from posenc.figures import heatmaps, margins


def test_the_measured_pushes_of_the_encoding_matrix_at_the_caps_are_held_with_a_few_px_to_spare():
    # plotly.js 4 in Chromium (the page at ?d_model=1024&length=4096, 1400 px and 390 px alike):
    # y labels to 4000 asked 88.9 px on the left, one line of x labels 73.2 px below, a colour bar labelled to −0.5
    # in 12 px at x = 1 71.0 px on the right
    layout = {"xaxis": {"title": {"text": "dimension"}}, "yaxis": {"title": {"text": "position"}}}
    margins.hold(layout, y_labels=["4095"], bar=margins.bar({"ticktext": ["−1", "−0.5", "0", "0.5", "1"]}))
    got = layout["margin"]
    for side, pushed in (("l", 88.9), ("b", 73.2), ("r", 71.0)):
        assert 0 <= got[side] - pushed <= 6, (side, got)


def test_margins_already_larger_stay_and_a_chart_without_a_colour_bar_keeps_its_right_margin():
    layout = {"margin": {"l": 200, "r": 30, "t": 70, "b": 300}, "yaxis": {"title": {"text": "y"}}}
    margins.hold(layout, y_labels=["5"])
    assert layout["margin"] == {"l": 200, "r": 30, "t": 70, "b": 300}


def test_each_further_line_of_an_axis_title_adds_a_line_of_room():
    one = margins.hold({"xaxis": {"title": {"text": "offset"}}}, y_labels=["1"])["margin"]["b"]
    two = margins.hold({"xaxis": {"title": {"text": "offset<br>j − i"}}}, y_labels=["1"])["margin"]["b"]
    assert two - one in (np.floor(margins.LINE * margins.TITLE_FONT), np.ceil(margins.LINE * margins.TITLE_FONT))


@given(st.lists(st.text(alphabet="0123456789.−k", min_size=1, max_size=8), min_size=1, max_size=6),
       st.text(alphabet="0123456789", min_size=1, max_size=3))
def test_longer_labels_never_get_less_room(labels, more):
    short = margins.hold({}, y_labels=labels, bar=margins.bar({"ticktext": labels}))["margin"]
    longer = [label + more for label in labels]
    long = margins.hold({}, y_labels=longer, bar=margins.bar({"ticktext": longer}))["margin"]
    assert long["l"] > short["l"] and long["r"] > short["r"] and long["b"] == short["b"]
    assert all(isinstance(v, int) for v in long.values())


def test_a_digit_s_advance_is_an_upper_bound_of_the_one_measured():
    assert margins.text_width("4000") >= 27.03  # measured in Chromium: '4000' at 12 px, 27.02 px


def test_a_heatmap_s_colour_bar_stands_at_the_plot_s_edge_with_its_labels_known():
    for values in (np.arange(12.0).reshape(3, 4) - 5, np.linspace(-1, 1, 300 * 300).reshape(300, 300)):
        rows, cols = np.arange(values.shape[0]), np.arange(values.shape[1])
        fig = heatmaps.cells_heatmap(values, rows, cols, values.shape, title="t", x_label="x", y_label="y", zrange=None)
        bar = fig.data[0].colorbar
        assert (bar.x, bar.xanchor, bar.xpad) == (1, "left", margins.BAR_GAP)
        assert bar.tickfont.size == margins.TICK_FONT and bar.tickfont.family is None  # the layout's, as the axes'
        assert bar.tickmode == "array" and list(bar.ticktext) == heatmaps.tick_text(heatmaps.nice_ticks(*fig_range(fig)))
        assert fig.layout.margin.r >= margins.PAD + 2 * margins.BAR_GAP + margins.BAR_THICKNESS


def fig_range(fig) -> tuple[float, float]:
    trace = fig.data[0]
    return tuple(trace.meta["levels"]) if trace.meta and "levels" in trace.meta else (trace.zmin, trace.zmax)
