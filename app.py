"""posenc: the positional-encoding explorer. Entry point and router.

Run with ``streamlit run app.py``. The sidebar (d_model, n, length, scheme) is
drawn here, once, for every page; its values live in the URL.
"""

import streamlit as st

from pages import shared

st.set_page_config(page_title="posenc: positional-encoding explorer", page_icon=":material/waves:", layout="wide")

PAGES = [
    st.Page("pages/heatmap.py", title="Encoding matrix", icon=":material/grid_on:", default=True),
    st.Page("pages/sinusoids.py", title="Sinusoids", icon=":material/ssid_chart:"),
    st.Page("pages/rotation.py", title="Rotation check", icon=":material/rotate_right:"),
]

navigation = st.navigation(PAGES)
st.session_state["_controls"] = shared.sidebar()
navigation.run()
