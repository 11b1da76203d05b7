"""How it works, RoPE on images: 2-D RoPE of Qwen2-VL's vision encoder and M-RoPE of its language model."""

from __future__ import annotations

import streamlit as st

import posenc
from posenc.schemes.scheme import Option
from posenc.ui import binding, cached_figures, compute, presenter
from posenc.ui.sidebar import Controls


def rope_grid(c: Controls) -> None:
    """Images: 2-D RoPE in Qwen2-VL's vision encoder, M-RoPE in its language model (arXiv:2409.12191)."""
    st.subheader("Images: 2-D and multimodal RoPE")
    d, n = c.d_model, posenc.schemes.scheme.latex_number(c.base)
    if d % 2:
        st.info(f"2-D RoPE and M-RoPE rotate pairs of dimensions over the whole head: choose an even d_model to see "
                f"them (d_model = {d} here).", icon=":material/info:")
        return
    s_t, s_h, s_w = compute.or_stop(posenc.schemes.rope.multimodal.scaled_mrope_section, d)
    st.markdown(f"An image patch has a row r and a column c. Qwen2-VL's **vision encoder** (2-D RoPE) turns pair i = "
                f"(xᵢ, xᵢ₊d/2) by the row for the first d/4 pairs and by the column for the next d/4. Its **language "
                f"model** (M-RoPE) reads every token at three ids (t, h, w) and splits the d/2 pairs into three bands; "
                f"Qwen2-VL's 16, 24, 24 of 64 pairs become ({s_t}, {s_h}, {s_w}) of {d // 2} here. A text token has "
                "t = h = w = its position, where M-RoPE is 1-D RoPE. Both here: the sidebar's d_model and n, "
                "no scaling.")
    q = d // 4
    if d % 4 == 0:
        st.latex(rf"\text{{2-D: }}\varphi_i = \begin{{cases}} r\,\theta_i & 0 \le i < {q} \\ c\,\theta_{{i-{q}}} & "
                 rf"{q} \le i < {2 * q} \end{{cases}},\quad \theta_j = {n}^{{-4j/{d}}},\quad \frac{{q\cdot k}}{{d}}"
                 rf" = \frac{{2}}{{{d}}}\Big[\sum_{{j=0}}^{{{q - 1}}}\cos(\Delta r\,\theta_j) + "
                 rf"\sum_{{j=0}}^{{{q - 1}}}\cos(\Delta c\,\theta_j)\Big]")
    st.latex(rf"\text{{M-RoPE: }}\varphi_i = \begin{{cases}} t\,\theta_i & 0 \le i < {s_t} \\ h\,\theta_i & {s_t} \le i"
             rf" < {s_t + s_h} \\ w\,\theta_i & {s_t + s_h} \le i < {d // 2} \end{{cases}},"
             rf"\quad \theta_i = {n}^{{-2i/{d}}}"
             rf",\quad \frac{{q\cdot k}}{{d}} = \frac{{2}}{{{d}}}\Big[{s_t} + \sum_{{i={s_t}}}^{{{s_t + s_h - 1}}}"
             rf"\cos(\Delta h\,\theta_i) + \sum_{{i={s_t + s_h}}}^{{{d // 2 - 1}}}\cos(\Delta w\,\theta_i)\Big]")
    sizes = [Option("grid_h", "image rows H (patches)", 4, 1, 32),
             Option("grid_w", "image columns W (patches)", 6, 1, 32),
             Option("frames", "frames (1: an image)", 1, 1, 4)]
    chosen = []
    for option, column in zip(sizes, st.columns(3)):
        with column:
            chosen.append(int(binding.bound_control(option, option.name)))
    height, width, frames = chosen
    ids_slot = st.container()
    left, right = st.columns(2)
    with left:
        row = int(binding.bound_control(Option("patch_row", "query patch row", 1 if height > 1 else 0, 0, height - 1),
                                        "patch_row"))
    with right:
        col = int(binding.bound_control(Option("patch_col", "query patch column", 2 if width > 2 else 0, 0, width - 1),
                                        "patch_col"))
    ids_figure, results = compute.or_stop(cached_figures.patch_grid_figures, d, c.base, height, width, frames, row, col)
    with ids_slot:
        presenter.chart(ids_figure, key="rope_grid_ids", grid_h=height, grid_w=width, frames=frames,
                        patch_row=row, patch_col=col)
        st.caption("Text before the image: t = h = w = 0, 1, 2. Patch (f, r, c): (3 + f, 3 + r, 3 + c), frame "
                   "by frame, row by row. The text after continues from the largest id + 1, so ids are not token "
                   "indices: an image of H × W patches advances the position by max(frames, H, W), not by its "
                   "number of tokens.")
    for name, result in results.items():
        if result is None:
            st.info(f"{name}: half of the d/2 pairs go to the row and half to the column, so d_model must be a "
                    f"multiple of 4; d_model = {d}.")
            continue
        figure, difference = result
        presenter.chart(figure, key=f"rope_grid_{name[:3]}", grid_h=height, grid_w=width, frames=frames,
                        patch_row=row, patch_col=col)
        moved = ("With a single patch there is nowhere to move the query." if difference is None else
                 f"The moved query's picture is the first one moved by the same step: largest |difference| where both "
                 f"are drawn = {difference:.1e} (float64 rounding), as the score depends on the 2-D offset only.")
        st.caption(f"The score of the query patch (×) against every key patch of its frame. {moved}")
    st.caption("M-RoPE gives the height band the middle pairs and the width band the slowest ones, so (for n > 1) its "
               "score changes less from column to column than from row to row; 2-D RoPE treats rows and columns alike "
               "(its picture is a row profile plus a column profile).")
