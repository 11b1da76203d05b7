"""Streamlit's own cost of the Encoding matrix's elements: the page's kinds of element, in its places, with no content.

bench/bench_floor.py --skeleton runs this beside posenc and the floor (``streamlit run bench/skeleton_app.py`` from the
repository root, so it reads the same .streamlit/config.toml; by default Streamlit as installed, like the floor: none
of posenc's server patches) and presses its d_model as it presses posenc's. Its elements are those a run of the Encoding matrix
sends at the caps (d_model 1,024, length 4,096; listed with Streamlit's AppTest on 2026-12-04): nine pages in the
navigation; the sidebar's Settings heading, model and scheme pickers, scheme caption, d_model and length sliders, n,
the layout and spacing pickers, Presenter mode, Chart colours and a style element; the page's title, a formula and a
caption that change with d_model as posenc's do, the view picker and Matrix view control, a chart with its closed
Chart data expander and a sentence, and two closed expanders. The chart is the floor's 16 × 16 heatmap, so the
skeleton's press pays Streamlit's cost of those elements on top of the floor's; what posenc pays beyond the
skeleton is its own.

With POSENC_SKELETON_MITIGATED=1 (``--skeleton mitigated``) the skeleton also takes what posenc does about
Streamlit's own costs: app.py's server patches (Nagle's algorithm off, a batch's one wake-up, the theme read once)
and the stale fade's style (posenc/ui/stale_fade.py) in its style element.
"""

import os
import sys
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import streamlit as st

STYLE = "<style>.skeleton { color: inherit; }</style>"
if os.environ.get("POSENC_SKELETON_MITIGATED") == "1":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from posenc.ui import no_delay, stale_fade, theme_once, wakeups

    wakeups.install()
    no_delay.install()
    theme_once.install()
    STYLE = stale_fade.STYLE

st.set_page_config(page_title="skeleton", page_icon="🌊", layout="wide")


def matrix() -> None:
    d_model = st.session_state["d_model"]
    st.title("Encoding matrix")
    st.latex(r"PE_{(pos,\,2i)} = \sin(pos\,\theta_i),\quad PE_{(pos,\,2i+1)} = \cos(pos\,\theta_i),\quad"
             rf"\theta_i = 10000^{{-2i/{d_model}}},\ i = 0, \dots, {(d_model + 1) // 2 - 1}")
    st.caption(f"Sinusoidal: computed for d_model={d_model}.")
    with st.container():
        st.selectbox("View", ["whole", "window"], key="view")
        st.segmented_control("Matrix view", ["Table", "Similarity"], default="Table", key="matrix")
        with st.container():
            z = np.random.default_rng(d_model).normal(size=(16, 16)).astype(np.float32)
            st.plotly_chart(go.Figure(go.Heatmap(z=z, colorscale="RdBu_r")), key="skeleton")
            st.expander("Chart data")
            st.markdown(f"Each row is the vector added at that position (d_model {d_model}).")
    st.expander("Download the matrix")
    st.expander("The module, live (torch)")


def other() -> None:
    st.title("Another page")


page = st.navigation([st.Page(matrix, title="Encoding matrix", default=True)]
                     + [st.Page(other, title=f"Page {i}", url_path=f"page{i}") for i in range(1, 9)])
with st.sidebar:
    st.markdown("### Settings :gray[:small[Every setting is in the URL.]]")
    st.selectbox("model", ["(none)", "gpt2"], key="model")
    st.selectbox("scheme", ["sinusoidal", "rope"], key="scheme")
    st.caption("Sinusoidal")
    st.slider("d_model", 2, 1024, 128, key="d_model", bind="query-params")
    st.number_input("n (base)", value=10000.0, key="n")
    st.slider("length", 1, 4096, 100, key="length", bind="query-params")
    st.selectbox("layout", ["interleaved", "halves"], key="layout")
    st.selectbox("frequency spacing", ["geometric", "linear"], key="spacing")
    st.toggle("Presenter mode", key="present")
    st.selectbox("Chart colours", ["default", "cividis"], key="palette")
    st.html(STYLE)
page.run()
