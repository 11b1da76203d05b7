"""The floor: Streamlit's own cost of a slider change that redraws one 16 × 16 plotly heatmap.

bench/bench_floor.py runs this next to posenc (``streamlit run bench/floor_app.py`` from the
repository root, so it reads the same .streamlit/config.toml) and compares every page with it.
With POSENC_FLOOR_NO_DELAY=1 (bench_floor.py --floor-no-delay) the floor's sockets get the fix posenc's
app.py makes to its own (posenc/ui/no_delay.py: Nagle's algorithm off); without it, the floor is Streamlit
as installed.
"""

import os
import sys
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import streamlit as st

if os.environ.get("POSENC_FLOOR_NO_DELAY") == "1":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from posenc.ui import no_delay

    no_delay.install()

st.set_page_config(page_title="floor", layout="wide")
st.title("Floor")
d_model = st.slider("d_model", 2, 1024, 128, key="d_model", bind="query-params")
z = np.random.default_rng(d_model).normal(size=(16, 16)).astype(np.float32)
st.plotly_chart(go.Figure(go.Heatmap(z=z, colorscale="RdBu_r")), key="floor")
