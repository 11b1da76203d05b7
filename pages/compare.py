"""Every scheme on the same length, side by side, with the one curve they all share."""

import streamlit as st

import posenc
from posenc.ui import cached_figures, compute, presenter, real_lengths, sidebar

c = sidebar.controls()
st.title("Comparison: how each scheme sees the offset j\u00a0−\u00a0i")  # no break inside j − i
c = sidebar.for_view(c, every_scheme=True)
st.markdown(
    "Every scheme, at the same length and d_model, reduced to the one curve they all have: "
    "how the attention logit bias (bias schemes), the q·k score (RoPE) or the similarity of two "
    "encodings (absolute schemes) depends on the offset between a query and a key."
)
if c.model:  # a released model: the curves reach its real context, its scaling's regions under them
    real_lengths.comparison(c)
else:
    st.caption(f"length = {c.length}, d_model = {c.d_model}, n = {c.base:g}. The selected scheme "
               f"({posenc.get_scheme(c.scheme).label}) uses the sidebar's options; the others their defaults.")
    presenter.chart(compute.or_stop(cached_figures.comparison_figure, c.scheme, c.length, c.d_model, c.base, c.options,
                                    presenter.grid_columns()),
                    key="comparison")

st.subheader("What each curve is")
st.dataframe({"scheme": [s.label for s in posenc.SCHEMES.values()],
              "family": [s.family for s in posenc.SCHEMES.values()],
              "curve": [s.curve_label for s in posenc.SCHEMES.values()],
              "paper": [s.paper for s in posenc.SCHEMES.values()]}, hide_index=True, key="legend")
