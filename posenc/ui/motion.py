"""Animations on a page: the chart, its caption, and stillness for readers who ask for it.

An animation (posenc.figures.animations) plays in the browser: pressing ▶ Play runs plotly's own
frames and sends nothing to the server. Under the system setting ``prefers-reduced-motion: reduce``
the Play and Pause buttons are hidden by a CSS media query (a constant of this module), so nothing
moves by itself; the slider still steps through the frames one at a time, without transitions.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from posenc.figures.animations import SPEEDS
from posenc.ui import presenter

# The first button group of a plotly figure's menus is ▶ Play / ❚❚ Pause (figures.animations.player).
REDUCED_MOTION_CSS = """<style>
@media (prefers-reduced-motion: reduce) {
  .js-plotly-plot .updatemenu-container > g.updatemenu-header-group:first-of-type { display: none; }
}
</style>"""


def animation(fig: go.Figure, key: str, *, what: str, name: str | None = None, **settings: object) -> None:
    """Draw an animated figure (paused on its first frame) and a caption with its frame count: ``what``
    names one frame ("position", "offset k", …)."""
    st.html(REDUCED_MOTION_CSS)
    presenter.chart(fig, key=key, name=name, **settings)
    speeds = ", ".join(f"{s:g}×" for s in SPEEDS)
    st.caption(f"{len(fig.frames)} frames, one per {what}. ▶ Play runs them in your browser (nothing is sent to "
               f"the server); speed {speeds}; the slider steps one frame at a time. With reduced motion asked by "
               "your system, Play is hidden and the slider alone moves it.")
