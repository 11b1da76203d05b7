"""The chart palette control (``?palette=``): colour-blind-safe colours for every heatmap and series.

One selectbox in the sidebar, under presenter mode, bound to the URL like every control (a link keeps
the palette; a value that is not a palette's name gets a warning and the default). The colours are
posenc/figures/palettes.py's; presenter.chart applies them on its restyled copy of each figure.
"""

from __future__ import annotations

import streamlit as st

from posenc.figures import palettes
from posenc.schemes.scheme import Option
from posenc.ui.binding import bound_control

KEY = "palette"
OPTION = Option(KEY, "Chart colours", palettes.DEFAULT, choices=tuple(palettes.PALETTES),
                help="Colour-blind-safe palettes for every chart (?palette=): "
                     + "; ".join(p.label for p in palettes.PALETTES.values()) + ".")


def control() -> str:
    """The sidebar's palette selectbox; its valid value."""
    return str(bound_control(OPTION, KEY))


def current() -> str:
    """The palette this run draws with (the control's value; the default before it is drawn)."""
    value = st.session_state.get(KEY)
    return value if value in palettes.PALETTES else palettes.DEFAULT
