"""How the chosen scheme works: the view that explains each family."""

import numpy as np
import streamlit as st

import posenc
from posenc.analysis import cells
from posenc.figures import charts, heatmaps
from posenc.schemes.rope.entry import rope_keywords
from posenc.schemes.scheme import Option
from posenc.ui import binding, compute, presenter, sidebar, views

c = sidebar.controls()
scheme = posenc.get_scheme(c.scheme)
options = c.option_dict
st.title(f"How it works: {scheme.label}")
st.latex(compute.or_stop(scheme.formula, c.d_model, c.base, **options))
st.caption(scheme.paper)


def sinusoidal() -> None:
    spacings = next(o.choices for o in scheme.options if o.name == "spacing")
    waves = {spacing: posenc.wavelengths(c.d_model, c.base, spacing=spacing) for spacing in spacings}
    pairs = np.arange(len(waves["vaswani"]))
    presenter.chart(charts.line_chart(pairs, {f"{k}: longest {w[-1]:,.0f}": w for k, w in waves.items()},
                                       title="Wavelengths under the two frequency formulas", x_label="pair i",
                                       y_label="wavelength (positions)", log_y=True), key="spacings")
    st.caption("Vaswani et al.: θᵢ = n^(−2i/d), so the longest wavelength is 2π·n^(1−2/d). tensor2tensor spreads "
               "the timescales from 1 to n over d/2 − 1 steps, so its longest wavelength is exactly 2π·n.")


def learned() -> None:
    norms = compute.or_stop(compute.row_norms, c.scheme, c.length, c.d_model, c.base, c.options)  # NaN past the table
    size = int(options["table_size"])
    fig = charts.line_chart(np.arange(c.length), {"‖PE[p]‖": norms}, title="Norm of every learned row",
                             x_label="position p", y_label="‖PE[p]‖")
    if c.length > size:
        fig.add_vline(x=size - 0.5, line_dash="dash", annotation_text=f"end of the table ({size} rows)")
    presenter.chart(fig, key="learned_norms")
    if c.length > size:
        st.warning(f"A learned table has rows for positions 0 … {size - 1} only. Positions {size} … {c.length - 1} "
                   "have no encoding: the model cannot represent them (GPT-2 raises an index error). "
                   "They are left blank, not invented.", icon=":material/block:")
    st.caption(f"Rows drawn from N(0, 0.02²) with seed {options['seed']}: the untrained table, before any learning.")


def nope() -> None:
    st.markdown("Without positional information, self-attention is **permutation-equivariant**: shuffle the "
                "tokens and the outputs are shuffled the same way, so word order is lost (a causal mask "
                "is the only source of order left to a NoPE decoder).")
    gap = compute.permutation_gap(c.length, c.d_model, c.base)
    st.dataframe({"encoding added": list(gap), "max |attn(Px) − P·attn(x)|": list(gap.values())}, hide_index=True)
    st.caption(f"One attention layer (q = k = v = x + PE, softmax(qkᵀ/√d)·v) on {min(c.length, 256)} random tokens "
               "and a random permutation P: zero (to rounding) with no encoding, clearly not zero with one.")


def shaw() -> None:
    k = int(options["max_relative_position"])
    rows = heatmaps.thin_index(c.length)
    clip = compute.or_stop(cells.shaw_clip_cells, c.length, k, rows, rows)  # only the cells drawn
    fig = heatmaps.position_heatmap(clip, rows, c.length, x_label="key position j", y_label="query position i",
                                   title=f"clip(j − i, −{k}, {k}): which of the {2 * k + 1} vectors each pair uses",
                                   zrange=(-max(k, 1), max(k, 1)))
    presenter.chart(fig, key="shaw_clip")
    st.caption(f"Offsets beyond ±{k} share the outermost vectors: the model cannot tell them apart.")


def t5() -> None:
    causal = options["direction"] == "causal"
    buckets, distance = int(options["num_buckets"]), int(options["max_distance"])
    reach = max(c.length - 1, distance + distance // 4)
    relative = np.arange(-reach, 1 if causal else reach + 1)
    index = compute.or_stop(posenc.t5_relative_bucket, relative, bidirectional=not causal,
                           num_buckets=buckets, max_distance=distance)
    exact = (buckets if causal else buckets // 2) // 2
    presenter.chart(charts.bucket_map(relative, index, exact=exact, max_distance=distance, causal=causal), key="t5_map")
    st.caption(f"Distances below {exact} get a bucket each; from {exact} to {distance} the buckets widen "
               f"logarithmically; from {distance} on, all distances share the last bucket.")


def alibi() -> None:
    heads = int(options["num_heads"])
    slopes = posenc.alibi_slopes(heads)
    st.dataframe({"head h": np.arange(1, heads + 1), "slope m_h": slopes, "log₂ m_h": np.log2(slopes)},
                 hide_index=True, key="alibi_slopes")
    offsets, values = compute.or_stop(compute.offset_bias, c.scheme, c.length, c.d_model, c.base, c.options)
    shown = {f"head {h + 1}": np.where(np.isneginf(values[h]), np.nan, values[h]) for h in range(min(heads, 8))}
    presenter.chart(charts.line_chart(offsets, shown, title="Bias against the offset, per head",
                                       x_label="offset j − i", y_label="bias"), key="alibi_heads")


def rope() -> None:
    keywords = compute.or_stop(rope_keywords, options)
    d_rot = compute.or_stop(posenc.schemes.rope.frequencies.rotary_dims, c.d_model, keywords.get("rotary_fraction", 1.0))
    if d_rot == 0:
        st.info("rotary_fraction leaves no dimension to rotate.")
        return
    offsets, scores = compute.or_stop(compute.offset_curve, c.scheme, c.length, c.d_model, c.base, c.options)
    presenter.chart(charts.line_chart(offsets, {"q·k / d_model": scores}, title="q·k against the offset: long-range decay",
                                       x_label="offset n − m", y_label="score (q = k = ones)"), key="rope_decay")
    original = int(options["original_max_position_embeddings"])
    waves = compute.rope_wavelengths(c.d_model, c.base, c.options, c.length)
    fig = charts.line_chart(np.arange(d_rot // 2), waves | {f"original context {original}": np.full(d_rot // 2, original)},
                             title="Wavelength of every pair under each scaling", x_label="pair i",
                             y_label="wavelength (positions)", log_y=True)
    fig.update_traces(selector=dict(name=f"original context {original}"), line_dash="dash")
    presenter.chart(fig, key="rope_wavelengths")
    missing = [name for name in posenc.ROPE_SCALINGS if name not in waves]
    if missing:
        st.caption(f"Not drawn: {', '.join(missing)} (they cannot take these settings: "
                   "ntk and dynamic need at least 4 rotated dimensions, yarn needs n > 1).")
    st.caption("Pairs whose wavelength exceeds the original context never completed a turn in training; the "
               "scalings stretch (linear), re-base (NTK, dynamic) or blend (YaRN, Llama 3) them.")
    st.subheader("The rotation of chosen pairs")
    left, middle, right = st.columns(3)
    with left:
        m = int(binding.bound_control(Option("rope_m", "position m", 0, 0, c.length - 1), "rope_m"))
    with middle:
        n = int(binding.bound_control(Option("rope_n", "position n", 10, 0, c.length - 1), "rope_n"))
    with right:
        pairs = binding.bound_multiselect("pairs i", range(d_rot // 2), (0, 1, 2, 3), "rope_pairs", 6)
    if pairs:
        presenter.chart(views.rope_phasor_figure(c.d_model, c.base, c.options, m, n, tuple(pairs)), key="rope_pairs_fig")
        st.caption("Each pair turns by its own angle (n − m)·θᵢ: fast pairs (small i) spin, slow pairs barely move.")


{"sinusoidal": sinusoidal, "learned": learned, "nope": nope, "shaw": shaw, "t5": t5, "alibi": alibi,
 "rope": rope}.get(c.scheme, lambda: st.info("No extra view for this scheme."))()
