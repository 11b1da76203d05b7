"""The encoding matrix of the chosen scheme, its similarity matrix, and downloads."""

import streamlit as st

import posenc
from pages import shared

c = shared.controls()
scheme = posenc.get_scheme(c.scheme)
st.title("Encoding matrix")
st.latex(shared.or_stop(scheme.formula, c.d_model, c.base, **c.option_dict))
st.caption(f"{scheme.label}: {scheme.paper}. Computed for length={c.length}, d_model={c.d_model}, n={c.base:g}.")

if scheme.table is None:
    st.info(f"{scheme.label} adds nothing to the token embeddings: it acts inside attention. "
            "The Comparison page shows how it shapes the attention logits.")
    st.stop()

send_all = st.toggle("Send every cell", key="send_all",
                     help="Large matrices are thinned to what the chart can show; this sends all of them (slow).")
shared.or_stop(shared.table, c.scheme, c.length, c.d_model, c.base, c.options)
args = (c.scheme, c.length, c.d_model, c.base, c.options, not send_all)
st.plotly_chart(shared.table_heatmap(*args), key="table_heatmap")
st.markdown(
    "Each row is the vector added to the token embedding at that position. Columns to the left "
    "oscillate fast; columns to the right change slowly, so together they count positions like "
    "the hands of a clock."
)
st.plotly_chart(shared.similarity_heatmap(*args), key="similarity_heatmap")
st.markdown(
    "Bands parallel to the diagonal: the dot product PE[p]·PE[q] depends on the offset p − q, "
    "not on where the pair sits (exactly so for the sinusoidal encoding with an even d_model, "
    "where PE[p]·PE[q] = Σᵢ cos((p − q)θᵢ))."
)
st.subheader("Download the matrix")
st.caption(f"The full {c.length} × {c.d_model} table in float64, whatever is shown above.")
shared.downloads(f"{c.scheme}_L{c.length}_d{c.d_model}_n{c.base:g}",
                 lambda: shared.table(c.scheme, c.length, c.d_model, c.base, c.options))
