"""The matrix of the chosen scheme: its table (absolute), logit bias (bias) or score (rotary)."""

import numpy as np
import streamlit as st

import posenc
from posenc.schemes.scheme import Option
from posenc.ui import binding, cached_figures, compute, downloads, presenter, scheme_views, sidebar
from posenc.ui import module_viewer as modules_view

c = sidebar.controls()
scheme = posenc.get_scheme(c.scheme)
st.title("Encoding matrix")
st.latex(compute.or_stop(scheme.formula, c.d_model, c.base, **c.option_dict))
st.caption(f"{scheme.label}: {scheme.paper}. Computed for length={c.length}, d_model={c.d_model}, n={c.base:g}.")
if "send_all" in st.query_params:  # links made before the window view replaced "Send every cell"
    binding.warn("URL parameter `send_all` is no longer used: a large matrix is drawn thinned, and the "
                "window view shows any 256 × 256 block of it at full resolution.")
args = (c.scheme, c.length, c.d_model, c.base, c.options)
name = f"{c.scheme}_L{c.length}_d{c.d_model}_n{c.base:g}"
if scheme.family == "bias":
    offsets, values = compute.or_stop(compute.offset_bias, *args)
views = scheme_views.views_of(c.scheme)
note = views.matrix_note  # the sentence under the matrix
MATRIX_VIEWS = ("Table", "Similarity")  # ?matrix=Similarity opens the second view


@st.fragment
def matrix_charts() -> None:
    """The view (whole or window), the head and the charts: changing them reruns only this part."""
    pos_start, dim_start = cached_figures.window_controls(c, columns=scheme.family == "absolute")
    if scheme.family == "absolute":
        table_view, similarity_view = binding.bound_views("Matrix view", MATRIX_VIEWS, "matrix")  # only the open one is drawn
        if table_view.open:
            with table_view:
                presenter.chart(compute.or_stop(cached_figures.table_heatmap, *args, pos_start, dim_start), key="table_heatmap",
                                pos_start=pos_start, dim_start=dim_start)
                st.markdown(
                    "Each row is the vector added to the token embedding at that position. "
                    + (note or ("Blank rows are positions with no encoding." if cached_figures.has_missing_rows(*args) else ""))
                )
        if similarity_view.open:
            with similarity_view:
                presenter.chart(cached_figures.similarity_heatmap(*args, pos_start), key="similarity_heatmap", pos_start=pos_start)
                st.markdown(
                    "PE[p]·PE[q] for every pair of positions. " +
                    ("For the sinusoidal encoding with an even d_model, PE[p]·PE[q] = Σᵢ cos((p − q)θᵢ): bands "
                     "parallel to the diagonal, the similarity depends only on the offset p − q."
                     if cached_figures.periodic(c.scheme, c.d_model, c.base, c.options) else
                     f"{scheme.label}'s table has no formula for it (the sinusoidal encoding's is "
                     "Σᵢ cos((p − q)θᵢ), a function of p − q): what is drawn is the table's own.")
                )
    elif scheme.family == "bias":
        head = int(binding.bound_control(Option("head", "Head h", 1, 1, len(values)), "head"))
        presenter.chart(cached_figures.bias_heatmap(*args, head, pos_start), key="bias_heatmap", head=head, pos_start=pos_start)
        st.markdown(note + (" Gaps: keys a causal decoder may not see (−∞)." if np.isneginf(values).any() else ""))
    else:
        presenter.chart(compute.or_stop(cached_figures.score_heatmap, *args, pos_start, title=views.score_title),
                        key="score_heatmap", pos_start=pos_start)
        st.markdown(note)


matrix_charts()
if scheme.family == "absolute":
    downloads.downloads("Download the matrix", f"The full {c.length} × {c.d_model} table in float64, whatever is shown above.",
                        name, lambda: scheme.table(c.length, c.d_model, c.base, **c.option_dict))  # built on click only
elif scheme.family == "bias":
    downloads.downloads("Download the bias",
                        f"Every head's bias by offset: row h − 1, column j − i + {c.length - 1} (shape {values.shape[0]} × "
                        f"{values.shape[1]}); B_h[i, j] = values[h − 1, j − i + L − 1].",
                        f"{name}_bias_by_offset", lambda: compute.offset_bias(*args)[1])
else:
    downloads.downloads("Download the scores", f"Row 0: offset j − i; row 1: {scheme.curve_label}.",
                        f"{name}_scores_by_offset", lambda: np.stack(compute.offset_curve(*args)).astype(np.float64))

modules_view.live_expander(c)  # the scheme's nn.Module and its code; torch loads only when opened
