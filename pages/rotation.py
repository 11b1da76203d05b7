"""The rotation check: PE[pos+k] = M_k · PE[pos], live, for the sinusoidal encoding (RoPE, xPos: the score's shift check)."""

import numpy as np
import streamlit as st

import posenc
from posenc.schemes.scheme import Option
from posenc.ui import binding, cached_figures, compute, motion, page_end, presenter, scheme_views, shift_check, sidebar

c = sidebar.controls()
check = scheme_views.views_of(c.scheme).rotation
if isinstance(check, shift_check.ShiftCheck):  # a rotary scheme: the score of a rotated query and key
    shift_check.draw(c, check)
    page_end.end()
st.title("Rotation check: PE[pos+k] = M_k · PE[pos]")
if check != "table":
    st.info("The rotation check is about the sinusoidal encoding (and its RoPE and xPos counterparts); "
            "choose Sinusoidal, RoPE or xPos in the sidebar.")
    page_end.end()

c = sidebar.for_view(c, even_d_model=True)
spacing = c.option_dict.get("spacing", "vaswani")
if c.option_dict.get("layout") == "split":
    st.caption("M_k pairs (sin, cos) columns side by side, so this page uses the interleaved layout.")
left, right = st.columns(2)
with left:
    pos = int(binding.bound_control(Option("pos", "pos", 0, 0, c.length - 1), "pos"))
with right:
    k = int(binding.bound_control(Option("k", "k (offset; negative looks back)", 1, -pos, c.length - 1 - pos), "k"))
st.latex(r"M_k = \operatorname{diag}(B_0,\dots,B_{d/2-1}),\quad B_i = "
         r"\begin{pmatrix}\cos k\theta_i & \sin k\theta_i\\ -\sin k\theta_i & \cos k\theta_i\end{pmatrix},"
         rf"\quad k = {k}")

blocks = compute.or_stop(posenc.rotation_blocks, k, c.d_model, c.base, spacing=spacing)
vectors, per_dimension, residual = cached_figures.rotation_vectors(c.d_model, c.base, spacing, pos, k)
presenter.chart(vectors, key="vectors", pos=pos, k=k)
st.metric("max |M_k·PE[pos] − PE[pos+k]| (float64)", f"{residual:.3e}")
presenter.chart(per_dimension, key="residual_per_dimension", pos=pos, k=k)

st.subheader(f"In motion: PE[{pos}] turned by M_k as k grows")
motion.animation(cached_figures.rotation_sweep_figure(c.d_model, c.base, spacing, pos, c.length), "rotation_sweep",
                 what="offset k", name="rotation_sweep", pos=pos)
st.caption(f"In every frame the crosses (M_k·PE[{pos}], the rotation applied to the start vector) sit inside the "
           f"circles (PE[{pos}+k], read from the table); the title gives their largest gap. k runs from 0 to at most "
           f"99, and stays below the length ({c.length}).")

st.subheader("The 2×2 blocks of M_k")
pairs_total = c.d_model // 2
shown = min(pairs_total, 16)
st.dataframe(
    {"pair i": np.arange(shown), "θᵢ": posenc.frequencies(c.d_model, c.base, spacing=spacing)[:shown],
     "B[0,0] = cos kθᵢ": blocks[:shown, 0, 0], "B[0,1] = sin kθᵢ": blocks[:shown, 0, 1],
     "B[1,0] = −sin kθᵢ": blocks[:shown, 1, 0], "B[1,1] = cos kθᵢ": blocks[:shown, 1, 1]},
    hide_index=True, key="blocks",
)
if shown < pairs_total:
    st.caption(f"First {shown} of {pairs_total} blocks; the rest follow the same pattern with smaller θᵢ.")

st.subheader("Residual at every position, in float64 and float32")
checks = {name: compute.rotation_check(c.length, c.d_model, c.base, k, spacing, name) for name in ("float64", "float32")}
cols = st.columns(2)
for col, (name, check) in zip(cols, checks.items()):
    col.metric(f"max residual over {len(check.positions)} positions ({name})", f"{check.max_abs_error:.3e}")
presenter.chart(cached_figures.residual_figure(c.length, c.d_model, c.base, k, spacing), key="residuals", k=k)
st.caption(f"The identity is exact; what remains is rounding. In float64 its spikes grow with the position: the "
           f"phases p·θᵢ are themselves rounded, by up to about p·1e-16 (here its median is "
           f"{np.median(checks['float64'].errors):.1e}, its largest {checks['float64'].max_abs_error:.1e}). "
           f"In float32, the table and M_k rounded to float32, it stays near float32's own rounding "
           f"({checks['float32'].max_abs_error:.1e}). Zeros are drawn at 1e-18 on the log axis.")

st.subheader("Looking back: M₋ₖ = M_kᵀ")
transpose_gap = np.abs(posenc.rotation_blocks(-k, c.d_model, c.base, spacing=spacing)
                       - blocks.transpose(0, 2, 1)).max()
st.latex(rf"\max\,\lvert M_{{{-k}}} - M_{{{k}}}^\top\rvert = {transpose_gap:.3e}")
st.caption("Block by block, a rotation by −kθᵢ is the transpose of the rotation by kθᵢ.")

st.subheader("Phasors: each pair turns by k·θᵢ")
pair_choices = binding.bound_multiselect("Pairs i", range(pairs_total), (0, 1, 2, 3), "pairs", 6)
if pair_choices:
    presenter.chart(cached_figures.phasor_figure(c.d_model, c.base, spacing, pos, k, tuple(pair_choices),
                                       2 * presenter.grid_columns()), key="phasors",
                    pos=pos, k=k, pairs=pair_choices)
