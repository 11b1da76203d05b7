"""What a run sends but need not make again: constant HTML prepared once (posenc.ui.accessibility.prepared) is the text
Streamlit would have sent for the str, and a chart's data-expander label is made once per figure object."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest
from streamlit.string_util import clean_text

from posenc.ui import accessibility, presenter, stale_fade, svg_download


@pytest.mark.parametrize("text", [
    accessibility.STYLE + accessibility.SCRIPT + stale_fade.STYLE + svg_download.SCRIPT,
    accessibility.STYLE + accessibility.DARK_STYLE + accessibility.SCRIPT + stale_fade.STYLE + svg_download.SCRIPT,
    presenter.PRESENTER_CSS,
    "\n    <b>indented</b>\n      <i>more</i>\n",
])
def test_prepared_html_is_what_streamlit_sends_for_the_text(text):
    made = accessibility.prepared(text)
    assert made._repr_html_() == clean_text(text)
    assert accessibility.prepared(text) is made  # once


def test_the_data_label_is_the_title_s_first_line_plain_cut_and_escaped_once_per_figure():
    fig = go.Figure(layout={"title": {"text": "PE[pos, i] for <b>every</b> position<br>second line"}})
    label = presenter._data_label(fig)
    assert label == presenter.escaped("Chart data: PE[pos, i] for every position")
    fig.layout.title.text = "changed"  # figures are shared and never changed: the label is kept
    assert presenter._data_label(fig) is label
    long = go.Figure(layout={"title": {"text": "x" * 80}})
    assert presenter._data_label(long) == presenter.escaped("Chart data: " + "x" * 59 + "…")
    assert presenter._data_label(go.Figure()) == "Chart data"
