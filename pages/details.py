"""How the chosen scheme works: the view that explains each family."""

import numpy as np
import streamlit as st

import posenc
from posenc.analysis import cells
from posenc.figures import charts, heatmaps
from posenc.schemes.rope.entry import rope_keywords
from posenc.schemes.scheme import Option
from posenc.ui import binding, compute, model_layers, motion, presenter, sidebar, views

c = sidebar.controls()
scheme = posenc.get_scheme(c.scheme)
options = c.option_dict
st.title(f"How it works: {scheme.label}")
st.latex(compute.or_stop(scheme.formula, c.d_model, c.base, **options))
st.caption(scheme.paper)
if c.model:  # a released model picked in the sidebar: its layers first
    model_layers.view(c.model)


def sinusoidal() -> None:
    spacings = next(o.choices for o in scheme.options if o.name == "spacing")
    waves = {spacing: posenc.wavelengths(c.d_model, c.base, spacing=spacing) for spacing in spacings}
    pairs = np.arange(len(waves["vaswani"]))
    presenter.chart(charts.line_chart(pairs, {f"{k}: longest {w[-1]:,.0f}": w for k, w in waves.items()},
                                       title="Wavelengths under the two frequency formulas", x_label="pair i",
                                       y_label="wavelength (positions)", log_y=True), key="spacings")
    st.caption("Vaswani et al.: θᵢ = n^(−2i/d), so the longest wavelength is 2π·n^(1−2/d). tensor2tensor spreads "
               "the timescales from 1 to n over d/2 − 1 steps, so its longest wavelength is exactly 2π·n.")
    clocks()


def clocks() -> None:
    """Every pair as a clock hand at the angle p·θᵢ, turning as the position p advances."""
    st.subheader("Clocks: each pair turns at its own speed")
    if c.d_model < 2:
        st.info("A clock is a pair of dimensions (sin, cos): choose d_model ≥ 2.")
        return
    spacing = options.get("spacing", "vaswani")
    d, n = c.d_model, posenc.schemes.scheme.latex_number(c.base)
    exponent = rf"-2i/{d}" if spacing == "vaswani" else rf"-i/{d // 2 - 1}" if d > 2 else "0"
    st.latex(rf"\big(PE[p,2i+1],\ PE[p,2i]\big) = \big(\cos p\theta_i,\ \sin p\theta_i\big),\quad "
             rf"\theta_i = {n}^{{{exponent}}},\quad i = 0,\dots,{d // 2 - 1}")
    motion.animation(views.clock_figure(c.d_model, c.base, spacing, c.length), "clocks", what="position p",
                     name="clocks")
    st.caption(f"Pair i of the table (its cos across, its sin up) is a hand at the angle p·θᵢ. Eight of the "
               f"{d // 2} pairs, evenly spread over i, fastest first: pair 0 turns by one radian a position, the "
               f"slowest by θ = {posenc.frequencies(d, c.base, spacing=spacing)[-1]:.3g}, so together they tell "
               f"every position apart, as the hands of a clock tell the time. Positions 0 … "
               f"{min(c.length, 200) - 1} of the length {c.length}.")


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
    params = {k: v for k, v in keywords.items() if k != "layout"}
    theta, attention = compute.or_stop(posenc.rope_inv_freq, c.d_model, c.base, seq_len=c.length, **params)
    rotated = int(np.count_nonzero(theta))  # pairs that turn: p-RoPE (proportional) leaves the last ones at θ = 0
    if rotated == 0:
        st.info("rotary_fraction leaves no dimension to rotate.")
        return
    offsets, scores = compute.or_stop(compute.offset_curve, c.scheme, c.length, c.d_model, c.base, c.options)
    presenter.chart(charts.line_chart(offsets, {"q·k / d_model": scores}, title="q·k against the offset: long-range decay",
                                       x_label="offset n − m", y_label="score (q = k = ones)"), key="rope_decay")
    original = int(options["original_max_position_embeddings"])
    waves = {name: w for name, w in compute.rope_wavelengths(c.d_model, c.base, c.options, c.length).items()
             if len(w) == rotated}
    fig = charts.line_chart(np.arange(rotated), waves | {f"original context {original}": np.full(rotated, original)},
                             title="Wavelength of every pair under each scaling", x_label="pair i",
                             y_label="wavelength (positions)", log_y=True)
    fig.update_traces(selector=dict(name=f"original context {original}"), line_dash="dash")
    presenter.chart(fig, key="rope_wavelengths")
    missing = [name for name in posenc.ROPE_SCALINGS if name not in waves]
    if missing:
        st.caption(f"Not drawn: {', '.join(missing)} (they cannot take these settings: ntk and dynamic need at "
                   "least 4 rotated dimensions, yarn needs n > 1, all but proportional an even int(d_model·fraction)).")
    st.caption("Pairs whose wavelength exceeds the original context never completed a turn in training; the "
               "scalings stretch (linear), re-base (NTK, dynamic), blend (YaRN, Llama 3) or divide each pair by its "
               "own factor (LongRoPE) them. p-RoPE (proportional) keeps full RoPE's θᵢ = n^(−2i/d) of the first "
               "⌊fraction·d/2⌋ pairs and stops the slower ones (θ = 0, never turning, not drawn).")
    if options["rope_type"] == "longrope":
        st.subheader("LongRoPE: short factors against long factors")
        short, long = (compute.or_stop(posenc.rope_wavelengths, c.d_model, c.base, **params | {"seq_len": seq_len})
                       for seq_len in (original, original + 1))
        used = "long" if c.length > original else "short"
        labels = {"short": f"short factors (L ≤ {original})", "long": f"long factors (L > {original})"}
        labels[used] += f": used at L = {c.length}"
        fig = charts.line_chart(np.arange(rotated), {labels["short"]: short, labels["long"]: long,
                                                     f"original context {original}": np.full(rotated, original)},
                                 title="Wavelength 2π/θ'ᵢ = 2π·fᵢ/θᵢ under each list", x_label="pair i",
                                 y_label="wavelength (positions)", log_y=True,
                                 dashed=(f"original context {original}",))
        presenter.chart(fig, key="rope_longrope")
        factor = float(options["factor"])
        st.caption(f"A link cannot carry lists, so the app uses two rules: short factors fᵢ = 1 (θᵢ unchanged), long "
                   f"factors fᵢ = s^(i/(n − 1)), rising geometrically from 1 on pair 0 to s = {factor:g} on pair "
                   f"{rotated - 1}, the shape LongRoPE's search finds (a model such as Phi-3 brings its own lists). "
                   f"At L = {c.length} {'>' if used == 'long' else '≤'} L₀ = {original} the {used} factors are used; "
                   f"cos and sin are multiplied by {attention:.4f} at every length.")
    st.subheader("The rotation of chosen pairs")
    left, middle, right = st.columns(3)
    with left:
        m = int(binding.bound_control(Option("rope_m", "position m", 0, 0, c.length - 1), "rope_m"))
    with middle:
        n = int(binding.bound_control(Option("rope_n", "position n", 10, 0, c.length - 1), "rope_n"))
    with right:
        pairs = binding.bound_multiselect("pairs i", range(len(theta)), (0, 1, 2, 3), "rope_pairs", 6)
    if pairs:
        presenter.chart(views.rope_phasor_figure(c.d_model, c.base, c.options, m, n, tuple(pairs)), key="rope_pairs_fig")
        st.caption("Each pair turns by its own angle (n − m)·θᵢ: fast pairs (small i) spin, slow pairs barely move.")
    rope_clocks(m, n)
    rope_grid()


def rope_clocks(m: int, n: int) -> None:
    """RoPE's pairs as turning clocks, then the relative property in motion: both moved, the key moved alone."""
    st.subheader("Clocks: each rotated pair turns at its own speed")
    whole = float(options["rotary_fraction"]) == 1.0 or options["rope_type"] == "proportional"  # p-RoPE: whole head
    width = "d" if whole else r"d_\text{rot}"  # the half layout's partner
    pair = r"x_{2i}, x_{2i+1}" if options["layout"] == "interleaved" else rf"x_i, x_{{i+{width}/2}}"
    st.latex(rf"R_p\,x:\ ({pair}) \mapsto \text{{turned by }} p\,\theta'_i,\quad \theta_i = "
             rf"{posenc.schemes.scheme.latex_number(c.base)}^{{-2i/{c.d_model}}}\ \text{{(}}\theta'_i\text{{: "
             rf"after the scaling {options['rope_type']})}}")
    motion.animation(views.rope_clock_figure(c.d_model, c.base, c.options, c.length), "rope_clocks",
                     what="position p", name="rope_clocks")
    st.caption("A unit vector along each pair's first axis, rotated by apply_rope to position p (eight pairs, "
               "fastest first; YaRN's factor on cos and sin divided out, so each hand shows its angle p·θ'ᵢ).")
    st.subheader("The relative property, in motion")
    st.latex(r"(R_{m+s}\,q)\cdot(R_{n+s}\,k) = q^\top R_{n-m}\,k \quad\text{for every shift } s")
    for name, (figure, scores) in views.rope_relative_figures(c.d_model, c.base, c.options, c.length, m, n).items():
        apart = name == "apart"
        if len(scores) < 2:
            st.caption("With the key at the last position there is no room to move: choose a smaller m or n.")
            return
        motion.animation(figure, f"rope_relative_{name}", what="shift s",
                         name="rope_relative")
        spread = float(np.ptp(scores))
        if apart:
            st.caption(f"Only the key moves: the offset n + s − m grows from {n - m} to {n - m + len(scores) - 1} "
                       f"and the score changes with it (it spans {spread:.3g} over the {len(scores)} frames).")
        else:
            st.caption(f"Both move by s: over {len(scores)} frames the score varies by {spread:.1e} (float64 "
                       f"rounding), as it sees only the offset n − m = {n - m}.")


def kerple() -> None:
    r1, r2, variant = float(options["r1"]), float(options["r2"]), options["variant"]
    distance = np.arange(c.length)
    curves = {f"log: −{r1:g}·ln(1 + {r2:g}·Δ)": compute.or_stop(posenc.schemes.kerple.kerple_kernel, distance, r1, r2),
              f"power: −{r1:g}·Δ^{r2:g}": compute.or_stop(posenc.schemes.kerple.kerple_kernel, distance, r1, r2,
                                                          "power")}
    curves = {(f"{label} (shown)" if label.startswith(variant) else label): y for label, y in curves.items()}
    slopes = posenc.alibi_slopes(8)
    alibi_curves = {f"ALiBi −{m:g}·Δ (head {h} of 8)": -m * distance for h, m in ((1, slopes[0]), (8, slopes[-1]))}
    presenter.chart(charts.line_chart(distance, curves | alibi_curves, title="The kernel against the distance",
                                       x_label="distance Δ = i − j (key before the query)", y_label="logit bias",
                                       dashed=tuple(alibi_curves)), key="kerple_kernels")
    st.caption(f"Both kernels with r1 = {r1:g}, r2 = {r2:g}, next to ALiBi's linear penalty (dashed). The power "
               "kernel with r2 = 1 is ALiBi with slope r1; r2 < 1 flattens it, r2 > 1 (up to 2, beyond which it is "
               "no longer a valid kernel) steepens it. The log kernel grows only like ln Δ: distant keys are "
               "penalised far less; the paper finds it extrapolates best past the training length.")
    st.caption("The paper learns one (r1, r2) per head (kept ≥ 0.01 during training, as its code clamps them); "
               "here one pair is shared by every head, and the bias is causal: keys after the query (j > i) are "
               "masked with −∞, as in the paper's decoders.")


def transformer_xl() -> None:
    size, seed = min(c.length, 24), int(options["seed"])
    u, v, w_r = compute.or_stop(posenc.schemes.transformer_xl.transformer_xl_parameters, c.d_model, c.d_model,
                                seed=seed)
    q, k = np.random.default_rng([seed, 2]).normal(size=(2, size, c.d_model))  # small seeded queries and keys
    terms = compute.or_stop(posenc.transformer_xl_terms, q, k, u, v, w_r, c.base)
    positions = np.arange(size)
    future = positions[None, :] > positions[:, None]  # j > i: masked, drawn blank
    shown = {"(a) q_i·k_j: content": terms.content,
             "(b) q_i·W_R R_{i−j}: query and distance": terms.content_position,
             "(c) u·k_j: key only": terms.global_content,
             "(d) v·W_R R_{i−j}: distance only": terms.global_position}
    left, right = st.columns(2)
    for n, (title, term) in enumerate(shown.items()):
        with (left if n % 2 == 0 else right):
            fig = heatmaps.position_heatmap(np.where(future, np.nan, term), positions, size, title=title,
                                            x_label="key position j", y_label="query position i")
            presenter.chart(fig, key=f"transformer_xl_term_{n}")
    total = sum(shown.values())
    fig = heatmaps.position_heatmap(np.where(future, np.nan, total), positions, size, x_label="key position j",
                                    y_label="query position i", title="(a) + (b) + (c) + (d): the score A_ij")
    presenter.chart(fig, key="transformer_xl_total")
    st.caption(f"{size} seeded queries and keys q, k ~ N(0, 1) of width {c.d_model}; u, v, W_R untrained, "
               "N(0, 0.02²) as Transformer-XL initialises them (the sidebar's seed); each panel has its own colour scale. "
               "Content: (a) depends on the query and the key, (c) on the key alone. Position: (b) on the query and "
               "the distance i − j, (d) on the distance alone (constant along each diagonal). Keys after the query "
               "(j > i) are masked (blank); the logit is A_ij/√d.")
    offsets, values = compute.or_stop(compute.offset_curve, c.scheme, c.length, c.d_model, c.base, c.options)
    presenter.chart(charts.line_chart(offsets, {"((b) + (d))/√d": values}, title="The positional part against the offset",
                                       x_label="offset j − i", y_label="logit bias"), key="transformer_xl_curve")
    st.caption("The bias on the other pages (matrix, comparison, properties, precision) is this positional part, "
               "(q·W_R R_{i−j} + v·W_R R_{i−j})/√d, for one fixed seeded unit query q: with the query fixed it "
               "depends on j − i alone; −∞ for j > i. The content terms (a), (c) need real tokens and are left out.")


def xpos() -> None:
    gamma = float(options["scale_base"])
    distance = np.arange(c.length)  # Δ = m − n: the key Δ positions before the query
    pairs = np.unique(np.linspace(0, c.d_model // 2 - 1, 5).round().astype(int))
    decay = compute.or_stop(posenc.xpos_decay, distance, c.d_model, gamma)[:, pairs]  # (length, pairs shown)
    zeta = compute.or_stop(posenc.schemes.xpos.xpos_zeta, c.d_model)
    presenter.chart(charts.line_chart(distance, {f"pair {i}: ζ = {zeta[i]:.3f}": decay[:, n] for n, i in enumerate(pairs)},
                                       title="The decay factor ζᵢ^(Δ/γ) of each pair", x_label="distance Δ = m − n "
                                       "(key before the query)", y_label="factor on the pair's score"), key="xpos_decay")
    rope_options = tuple(posenc.get_scheme("rope").defaults().items())
    _, xpos_scores = compute.or_stop(compute.offset_curve, c.scheme, c.length, c.d_model, c.base, c.options)
    _, rope_scores = compute.or_stop(compute.offset_curve, "rope", c.length, c.d_model, c.base, rope_options)
    before = slice(c.length - 1, None, -1)  # offsets j − i = 0, −1, …, −(L − 1): Δ = 0 … L − 1
    presenter.chart(charts.line_chart(distance, {"xPos q'·k' / d_model": xpos_scores[before],
                                                 "RoPE q·k / d_model": rope_scores[before]},
                                       title="The score against the distance: xPos against RoPE",
                                       x_label="distance Δ = m − n (key before the query)",
                                       y_label="score (q = k = ones)", dashed=("RoPE q·k / d_model",)),
                    key="xpos_scores")
    st.caption(f"RoPE's score is a sum of cosines, Σᵢ 2·cos(Δθᵢ)/d: its fast pairs keep oscillating at every distance, "
               f"so a far key can score as high as a near one. xPos multiplies pair i by ζᵢ^(Δ/γ) with "
               f"ζᵢ = (2i/d + 0.4)/1.4 < 1 and γ = {gamma:g}: the fast pairs (ζ₀ = {zeta[0]:.3f}) fade first, the slow "
               f"ones (ζ = {zeta[-1]:.3f} on pair {c.d_model // 2 - 1}) last, so the score decays with the distance "
               "and its oscillations shrink (the paper's \"attention resolution\"). The query is scaled by "
               "ζᵢ^(m̂/γ) and the key by ζᵢ^(−n̂/γ), positions centred on ⌈L/2⌉; the centre cancels in the product. "
               "A key after the query (Δ < 0) would be amplified instead: xPos is meant for causal attention, "
               "where such keys are masked (the other pages show both sides).")


def rope_grid() -> None:
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
    ids_figure, results = compute.or_stop(views.patch_grid_figures, d, c.base, height, width, frames, row, col)
    with ids_slot:
        presenter.chart(ids_figure, key="rope_grid_ids")
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
        presenter.chart(figure, key=f"rope_grid_{name[:3]}")
        moved = ("With a single patch there is nowhere to move the query." if difference is None else
                 f"The moved query's picture is the first one moved by the same step: largest |difference| where both "
                 f"are drawn = {difference:.1e} (float64 rounding), as the score depends on the 2-D offset only.")
        st.caption(f"The score of the query patch (×) against every key patch of its frame. {moved}")
    st.caption("M-RoPE gives the height band the middle pairs and the width band the slowest ones, so (for n > 1) its "
               "score changes less from column to column than from row to row; 2-D RoPE treats rows and columns alike "
               "(its picture is a row profile plus a column profile).")


{"sinusoidal": sinusoidal, "learned": learned, "nope": nope, "shaw": shaw, "t5": t5, "alibi": alibi, "xpos": xpos,
 "rope": rope, "kerple": kerple, "transformer_xl": transformer_xl}.get(c.scheme, lambda: st.info("No extra view for this scheme."))()
