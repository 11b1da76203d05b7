"""posenc/figures/legible.py: a figure laid out for a phone's width, its data untouched."""

import numpy as np
import plotly.graph_objects as go
import pytest

from posenc.figures import charts, legible
from posenc.figures.layout import scientific


def test_wrap_breaks_between_words_outside_tags_and_counts_small_text_smaller():
    assert legible.wrap("one two three four", 9) == "one two<br>three<br>four"
    assert legible.wrap("a <b>bold word</b> here", 8) == "a <b>bold<br>word</b><br>here"
    assert legible.wrap("x<br>already two lines", 40) == "x<br>already two lines"
    # 20 characters of <sup> text are 14 of the line's size: they fit in 15
    assert legible.wrap("<sup>aaaa bbbb cccc ddd</sup>", 15) == "<sup>aaaa bbbb cccc ddd</sup>"
    assert legible.wrap("averyveryverylongword", 8) == "averyveryverylongword"  # a word stays whole


def test_a_phone_layout_wraps_the_title_moves_the_legend_below_and_keeps_the_data():
    x = np.arange(50)
    fig = charts.line_chart(x, {f"series number {n}": x * n for n in range(6)},
                            title="A rather long title that no phone shows on a single line", x_label="x", y_label="y")
    spec = legible.legible(fig.to_dict())
    assert "<br>" in spec["layout"]["title"]["text"]
    assert spec["layout"]["title"]["text"].replace("<br>", " ") == fig.layout.title.text
    assert spec["layout"]["legend"]["y"] == 0 and spec["layout"]["legend"]["yref"] == "container"
    assert spec["layout"]["margin"]["b"] > fig.layout.margin.b and spec["layout"]["height"] > fig.layout.height
    assert go.Figure(spec).to_dict()["data"] == fig.to_dict()["data"]


def test_subplot_titles_wrap_to_their_cell_and_the_top_margin_holds_them():
    fig = charts.phasor_chart([0, 1], np.array([[0.0, 1.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.5, 0.5]]),
                              np.array([1.0, 2.0]), pos=0, k=1)
    spec = legible.legible(fig.to_dict())
    notes = [note["text"] for note in spec["layout"]["annotations"]]
    assert all("<br>" in note for note in notes)  # half of a phone's plot: two lines each
    assert spec["layout"]["margin"]["t"] >= fig.layout.margin.t


def test_a_heading_set_above_its_row_counts_its_lift_over_the_plot():
    """The lab's attention grid puts each row's heading 5.5 % of the plot's height above its maps: under a title of
    two lines ("ALiBi on reverse: layer 3, every head") the first heading lay on the title."""
    layout = dict(title=dict(text="t"), height=1000, margin=dict(l=40, r=40, t=100, b=100),
                  annotations=[dict(text="8 digits", x=0, y=1.1, xref="paper", yref="paper", xanchor="left",
                                    yanchor="bottom", showarrow=False, font=dict(size=15))])
    spec = legible.legible({"data": [], "layout": layout})
    lift = 0.1 * 800  # px between the plot's top and the heading's foot
    heading = legible._height("8 digits", 15)
    assert spec["layout"]["margin"]["t"] >= legible.TITLE_GAP * 2 + legible._height("t", legible.TITLE) + lift + heading
    assert spec["layout"]["height"] - spec["layout"]["margin"]["t"] - spec["layout"]["margin"]["b"] == 800  # kept


def test_an_x_title_wraps_to_its_axis_and_the_bottom_margin_holds_the_line_added():
    """T5's bucket map under a model: its zoomed x title ran past a phone's right edge."""
    fig = charts.bucket_map(np.arange(-2000, 1), np.zeros(2001), exact=16, max_distance=128, causal=True)
    spec = legible.legible(fig.to_dict())
    title = spec["layout"]["xaxis"]["title"]["text"]
    assert title.count("<br>") == 1 and title.replace("<br>", " ") == fig.layout.xaxis.title.text
    assert spec["layout"]["margin"]["b"] - fig.layout.margin.b == pytest.approx(legible.LINE * 15, abs=1)
    assert spec["layout"]["height"] - fig.layout.height == spec["layout"]["margin"]["b"] - fig.layout.margin.b
    wide = legible.legible(fig.to_dict(), width=1800)  # a projector's chart holds it on one line
    assert wide["layout"]["xaxis"]["title"]["text"] == fig.layout.xaxis.title.text


def test_scientific_numbers_read_as_numbers():
    assert [scientific(v) for v in (0.0, 2.220446e-16, -3.1e-15, 0.0123, 1.0)] == ["0", "2.2e−16", "−3.1e−15",
                                                                                   "0.012", "1"]
