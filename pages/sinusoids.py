"""Sinusoids: the table read along positions, along dimensions, and the wavelength of every pair."""

import numpy as np
import streamlit as st

import posenc
from posenc import figures
from pages import shared

c = shared.controls()
scheme = posenc.get_scheme(c.scheme)
st.title("Sinusoids")
if scheme.table is None:
    st.info(f"{scheme.label} has no table of encodings to plot; see the Comparison page.")
    st.stop()

matrix = shared.or_stop(shared.table, c.scheme, c.length, c.d_model, c.base, c.options)  # (length, d_model)
left, right = st.columns(2)
dims = left.multiselect("Dimensions (value against position)", list(range(c.d_model)),
                        default=[d for d in (4, 5, 6, 7) if d < c.d_model], key="dims", max_selections=8)
positions = right.multiselect("Positions (value against dimension)", list(range(c.length)),
                              default=[p for p in (0, 4, 8, 12) if p < c.length], key="positions", max_selections=8)

st.plotly_chart(figures.line_chart(
    np.arange(c.length), {f"dim {d}": matrix[:, d] for d in dims},
    title="Each dimension is a sinusoid over positions", x_label="position", y_label="PE[position, dim]",
), key="by_position")
st.plotly_chart(figures.line_chart(
    np.arange(c.d_model), {f"pos {p}": matrix[p] for p in positions},
    title="Each position is a vector over dimensions", x_label="dimension", y_label="PE[pos, dimension]",
), key="by_dimension")

if c.scheme == "sinusoidal":
    spacing = c.option_dict.get("spacing", "vaswani")
    waves = posenc.wavelengths(c.d_model, c.base, spacing=spacing)
    pairs = np.arange(len(waves))
    fig = figures.line_chart(pairs, {"wavelength 2π/θᵢ": waves, f"length = {c.length}": np.full(len(waves), c.length)},
                             title="Wavelength of every (sin, cos) pair", x_label="pair i",
                             y_label="wavelength (positions)", log_y=True, markers=len(waves) <= 64)
    fig.update_traces(selector=dict(name=f"length = {c.length}"), line_dash="dash", mode="lines")
    st.plotly_chart(fig, key="wavelengths")
    st.caption(f"A geometric progression from 2π ≈ 6.28 to {waves[-1]:.6g} positions. "
               f"Pairs above the dashed line do not complete one cycle within {c.length} positions.")
