"""Sinusoids: the table read along positions, along dimensions, and the wavelength of every pair."""

import streamlit as st

import posenc
from posenc.ui import binding, cached_figures, compute, page_end, presenter, sidebar

c = sidebar.controls()
scheme = posenc.get_scheme(c.scheme)
st.title("Sinusoids")
if scheme.table is None:
    st.info(f"{scheme.label} has no table of encodings to plot; see the Comparison page.")
    page_end.end()

compute.or_stop(cached_figures.has_missing_rows, c.scheme, c.length, c.d_model, c.base, c.options)  # a clear message if it cannot be built (one cell, not the table)
args = (c.scheme, c.length, c.d_model, c.base, c.options)
left, right = st.columns(2)  # both always drawn, so a choice survives switching views
with left:
    dims = binding.bound_multiselect("Dimensions (value against position)", range(c.d_model), (4, 5, 6, 7), "dims", 8)
with right:
    positions = binding.bound_multiselect("Positions (value against dimension)", range(c.length), (0, 4, 8, 12),
                                         "positions", 8)
periodic = cached_figures.periodic(c.scheme, c.d_model, c.base, c.options)  # columns with a period
VIEWS = ("Against position", "Against dimension") + (("Wavelengths",) if periodic else ())
views = binding.bound_views("Curves", VIEWS, "curves")  # only the open view's chart is computed and drawn
if views[0].open:
    with views[0]:
        presenter.chart(cached_figures.dimension_curves(*args, tuple(dims)), key="by_position", dims=dims)
if views[1].open:
    with views[1]:
        presenter.chart(cached_figures.position_vectors(*args, tuple(positions)), key="by_dimension", positions=positions)
if len(views) > 2 and views[2].open:
    with views[2]:
        spacing = c.option_dict.get("spacing", "vaswani")
        figure, longest = cached_figures.wavelength_figure(c.d_model, c.base, spacing, c.length)
        presenter.chart(figure, key="wavelengths")
        st.caption(f"A geometric progression from 2π ≈ 6.28 to {longest:.6g} positions. "
                   f"Pairs above the dashed line do not complete one cycle within {c.length} positions.")
