"""Presenter mode and chart output (posenc/ui/presenter.py): restyled copies, never the cached figure."""

import json
import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from posenc.figures import charts
from posenc.ui import presenter


def line_figure():
    return charts.line_chart(np.arange(5), {"a": np.arange(5.0)}, title="t", x_label="x", y_label="y", markers=True)


def test_presenter_restyle_scales_text_lines_and_markers_on_a_copy():
    fig = line_figure()
    before = fig.to_json()
    styled = presenter.restyle(fig, present=True, dark=False)
    assert fig.to_json() == before  # cached figures are shared: the original is untouched
    assert styled.layout.font.size == 15 * presenter.SCALE
    assert styled.layout.legend.font.size >= 15 * presenter.SCALE * 0.9
    assert styled.layout.xaxis.tickfont.size >= 15 * presenter.SCALE * 0.9
    assert styled.data[0].line.width == 2 * presenter.LINE_SCALE
    assert styled.data[0].marker.size == 6 * presenter.SCALE
    assert styled.layout.font.color == presenter.LIGHT_TEXT


def test_a_tick_size_the_figure_chose_grows_by_the_scale_others_take_the_presenter_size():
    """The attention grid's token labels (9 px, one a cell) grow as the text does; set to the axes' 18.9 px
    they lay over each other."""
    fig = line_figure()
    fig.update_xaxes(tickfont=dict(size=9))
    styled = presenter.restyle(fig, present=True, dark=False)
    assert styled.layout.xaxis.tickfont.size == pytest.approx(9 * presenter.SCALE)
    assert styled.layout.yaxis.tickfont.size == pytest.approx(15 * presenter.SCALE * 0.9)


def test_dark_restyle_matches_the_dark_theme():
    styled = presenter.restyle(line_figure(), present=False, dark=True)
    assert styled.layout.paper_bgcolor == styled.layout.plot_bgcolor == presenter.DARK["paper"]
    assert styled.layout.font.color == presenter.DARK["text"]
    assert styled.layout.xaxis.gridcolor == presenter.DARK["grid"]
    assert styled.layout.font.size == 15  # dark alone keeps the laptop sizes


def _contrast(a: str, b: str) -> float:
    """WCAG 2.1's contrast ratio of two #rrggbb colours."""
    def light(colour: str) -> float:
        channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    high, low = sorted((light(a), light(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_light_look_gives_chart_text_a_readable_grey():
    """Streamlit's chart theme draws ticks, axis titles, annotations and colour bars in #808495, 3.7:1 on white; the
    light look off the projector sets a grey of 4.5:1 at least (WCAG 1.4.3) where the figure set none."""
    assert _contrast("#808495", "#ffffff") < 4.5 <= _contrast(presenter.MUTED_TEXT, "#ffffff")
    fig = line_figure()
    fig.add_annotation(text="note", x=1, y=1, font=dict(color="#0072b2"))  # a colour the figure chose stays
    fig.update_layout(xaxis2=dict(title=dict(text="second")))
    styled = presenter.restyle(fig, present=False, dark=False)
    assert styled.layout.font.color == presenter.MUTED_TEXT
    for axis in (styled.layout.xaxis, styled.layout.yaxis, styled.layout.xaxis2):
        assert axis.tickfont.color == axis.title.font.color == presenter.MUTED_TEXT
    assert styled.layout.annotations[0].font.color == "#0072b2"
    assert presenter.restyle(line_figure(), present=True, dark=False).layout.font.color == presenter.LIGHT_TEXT
    assert presenter.restyle(line_figure(), present=False, dark=True).layout.font.color == presenter.DARK["text"]


def test_dark_choice_buttons_read_on_the_light_fill_plotly_gives_the_chosen_one():
    """An animation's speed buttons (showactive): plotly fills the chosen one #F4FAFF in every theme, which left the
    dark theme's light label on it at 1.07:1; in the dark look they are light buttons with dark text."""
    from posenc.figures import animations

    layout = animations.player(["a", "b"], ["0", "1"], frame_ms=100, prefix="k = ")
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1]), layout=layout)
    menus = presenter.restyle(fig, present=False, dark=True).to_dict()["layout"]["updatemenus"]
    play, speeds = menus
    assert "bgcolor" not in play and play.get("font", {}).get("color") is None  # no chosen button: the theme's own
    assert speeds["bgcolor"] == presenter.DARK["button"] and speeds["font"]["color"] == presenter.DARK["paper"]
    for fill in ("#f4faff", presenter.DARK["button"]):
        assert _contrast(presenter.DARK["paper"], fill) >= 4.5
    assert _contrast(presenter.DARK["text"], "#f4faff") < 1.1  # what it was


@pytest.mark.parametrize("present", [False, True])
@pytest.mark.parametrize("dark", [False, True])
def test_the_tool_bar_icons_stand_out_from_the_chart(present, dark):
    """plotly draws its tool bar's icons at 30% of a grey: 1.7:1 on white, 2.7:1 on the dark paper. Every look sets
    them, and the hovered or active one, at 3:1 at least (WCAG 1.4.11)."""
    bar = presenter.restyle(line_figure(), present=present, dark=dark).to_dict()["layout"]["modebar"]
    paper = presenter.DARK["paper"] if dark else "#ffffff"
    assert (bar["color"], bar["activecolor"]) == presenter.TOOLBAR[dark]
    assert min(_contrast(bar["color"], paper), _contrast(bar["activecolor"], paper)) >= 3


def test_marker_size_lists_scale_element_by_element():
    fig = charts.phasor_chart([0], np.array([[0.0, 1.0]]), np.array([[1.0, 0.0]]), np.array([1.0]), pos=0, k=1)
    styled = presenter.restyle(fig, present=True, dark=False)
    sizes = [t.marker.size for t in styled.data if isinstance(t.marker.size, tuple)]
    assert sizes and all(s[1] == 11 * presenter.SCALE for s in sizes)


def test_presenter_css_is_a_constant_without_placeholders():
    assert "{" in presenter.PRESENTER_CSS and "%s" not in presenter.PRESENTER_CSS
    assert presenter.PRESENTER_CSS.startswith("<style>") and presenter.PRESENTER_CSS.endswith("</style>")
    assert "font-size: 140%" in presenter.PRESENTER_CSS


def nav_pages() -> list[str]:
    root = Path(__file__).resolve().parents[2]
    return re.findall(r'st\.Page\("(pages/[a-z_]+\.py)"', (root / "app.py").read_text())


@pytest.mark.parametrize("page", nav_pages())
def test_every_chart_on_every_page_saves_a_png_at_twice_its_size(page):
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=60)
    at.query_params["d_model"] = "16"
    at.query_params["length"] = "32"
    at.run()
    at.switch_page(page).run()
    assert not at.exception
    for chart in at.get("plotly_chart"):
        options = json.loads(chart.proto.config).get("toImageButtonOptions", {})
        assert options.get("scale", 1) >= 2 and options.get("format") == "png", page
        assert options["filename"].startswith("posenc_"), page
        # named by the settings it was drawn with: the sidebar's, but on the lab page, whose charts read none of them
        # (named by the task and their own settings: a sidebar move re-sends none of them)
        own = "task-copy" if page == "pages/generalization.py" else "d_model-16"
        assert own in options["filename"] and (page != "pages/generalization.py") == ("d_model" in options["filename"])


def test_a_restyled_copy_makes_its_dict_once_frames_included_and_it_is_what_a_plain_figure_sends():
    """presenter.Sent: st.plotly_chart asks a figure for its dict at every run; a restyled copy makes it once,
    and keeps an animation's frames as the dicts they are. What it sends is what the same figure made of plotly
    objects sends."""
    import plotly.io as pio

    import posenc
    from posenc.ui import cached_figures

    options = tuple(posenc.get_scheme("rope").defaults().items())
    animation = cached_figures.rope_clock_figure(16, 10000.0, options, 24, 2)
    for fig in (animation, line_figure()):
        sent = presenter.restyle(fig, present=True, dark=True, colours="cividis")
        spec = sent.to_dict()
        assert sent.to_dict() is spec
        assert len(spec.get("frames", [])) == len(fig.frames)
        plain = go.Figure(dict(go.Figure({k: v for k, v in spec.items() if k != "frames"}).to_dict(),
                               frames=spec.get("frames", [])))  # every frame validated here
        # the same values (plotly's validated dict orders its keys its own way)
        assert json.loads(pio.to_json(sent, validate=False)) == json.loads(pio.to_json(plain, validate=False))
        assert sent.layout.title.text == spec["layout"]["title"]["text"] and len(sent.data) == len(spec["data"])
