"""How the chosen scheme works: its formula, the model's layers when one is picked, and the scheme's own view."""

import streamlit as st

import posenc
from posenc.ui import compute, model_layers, scheme_views, sidebar

c = sidebar.controls()
scheme = posenc.get_scheme(c.scheme)
st.title(f"How it works: {scheme.label}")
st.latex(compute.or_stop(scheme.formula, c.d_model, c.base, **c.option_dict))
st.caption(scheme.paper)
if c.model:  # a released model picked in the sidebar: its layers first
    model_layers.view(c.model)
scheme_views.views_of(c.scheme).how_it_works(c)
