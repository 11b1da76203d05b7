"""How it works, for the schemes that rotate queries and keys: RoPE (its scalings, clocks, relative property) and xPos."""

from __future__ import annotations

import numpy as np
import streamlit as st

import posenc
from posenc.figures import charts
from posenc.schemes.rope.entry import rope_keywords
from posenc.schemes.rope.frequencies import rotary_dims
from posenc.schemes.scheme import Option
from posenc.ui import binding, cached_figures, compute, motion, presenter, real_lengths, your_config
from posenc.ui.how_it_works.images import rope_grid
from posenc.ui.sidebar import Controls


def rope(c: Controls) -> None:
    options = c.option_dict
    keywords = compute.or_stop(rope_keywords, options)
    params = {k: v for k, v in keywords.items() if k != "layout"}
    theta, attention = compute.or_stop(posenc.rope_inv_freq, c.d_model, c.base, seq_len=c.length, **params)
    rotated = int(np.count_nonzero(theta))  # pairs that turn: p-RoPE (proportional) leaves the last ones at θ = 0
    if rotated == 0:
        st.info("rotary_fraction leaves no dimension to rotate.")
        return
    offsets, scores = compute.or_stop(compute.offset_curve, c.scheme, c.length, c.d_model, c.base, c.options)
    presenter.chart(charts.line_chart(offsets, {"q·k / d_model": scores}, title="q·k against the offset: long-range decay",
                                       x_label="offset n − m", y_label="q·k / d_model (q = k = ones)"), key="rope_decay")
    real_lengths.decay_view(c)  # under a model: the same decay as far as its context, at log-spaced distances
    original = int(options["original_max_position_embeddings"])
    waves = {name: w for name, w in compute.rope_wavelengths(c.d_model, c.base, c.options, c.length).items()
             if len(w) == rotated}
    fig = charts.line_chart(np.arange(rotated), charts.merge_equal(waves)
                             | {f"original context {original}": np.full(rotated, original)},
                             title="Wavelength of every pair under each scaling", x_label="pair i",
                             y_label="wavelength (positions)", log_y=True)
    fig.update_traces(selector=dict(name=f"original context {original}"), line_dash="dash")
    presenter.chart(fig, key="rope_wavelengths")
    if c.model:  # where the model's scaling acts, pair by pair, against its trained and its whole context
        model = your_config.model(c.model)
        real_lengths.scaling_view(c.d_model, c.base, c.options, model.context_length, model)
        real_lengths.dropped_view(c)  # and what a loader that drops it computes instead
    missing = [name for name in posenc.ROPE_SCALINGS if name not in waves]
    if missing:
        st.caption(f"Not drawn: {', '.join(missing)} (they cannot take these settings: ntk and dynamic need at "
                   "least 4 rotated dimensions, yarn needs n > 1, all but proportional an even int(d_model·fraction)).")
    st.caption("Scalings that give the same wavelengths at these settings share one line, named together in the "
               "legend (e.g. dynamic is the default up to the original context). "
               "Pairs whose wavelength exceeds the original context never completed a turn in training; the "
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
        geometric = f"s^(i/{rotated - 1})" if rotated > 1 else "1"  # n is the base on this page: no n here
        st.caption(f"A link cannot carry lists, so the app uses two rules: short factors fᵢ = 1 (θᵢ unchanged), long "
                   f"factors fᵢ = {geometric}, rising geometrically from 1 on pair 0 to s = {factor:g} on pair "
                   f"{rotated - 1}, the shape LongRoPE's search finds (a model such as Phi-3 brings its own lists). "
                   f"At L = {c.length} {'>' if used == 'long' else '≤'} L₀ = {original} the {used} factors are used; "
                   f"cos and sin are multiplied by {attention:.4f} at every length.")
    st.subheader("The rotation of chosen pairs")
    left, middle, right = st.columns(3)
    with left:
        query_at = int(binding.bound_control(Option("rope_m", "position m", 0, 0, c.length - 1), "rope_m"))
    with middle:
        key_at = int(binding.bound_control(Option("rope_n", "position n", 10, 0, c.length - 1), "rope_n"))
    with right:
        pairs = binding.bound_multiselect("pairs i", range(len(theta)), (0, 1, 2, 3), "rope_pairs", 6)
    if pairs:
        presenter.chart(cached_figures.rope_phasor_figure(c.d_model, c.base, c.options, query_at, key_at,
                                                          tuple(pairs), 2 * presenter.grid_columns()),
                        key="rope_pairs_fig", rope_m=query_at, rope_n=key_at, rope_pairs=pairs)
        st.caption("Each pair turns by its own angle (n − m)·θᵢ: fast pairs (small i) spin, slow pairs barely move.")
    rope_clocks(c, query_at, key_at)
    rope_grid(c)


def rope_clocks(c: Controls, query_at: int, key_at: int) -> None:
    """RoPE's pairs as turning clocks, then the relative property in motion: both moved, the key moved alone.
    ``query_at`` and ``key_at`` are the positions the page writes m and n (the URL's ``rope_m``, ``rope_n``)."""
    options = c.option_dict
    st.subheader("Clocks: each rotated pair turns at its own speed")
    whole = float(options["rotary_fraction"]) == 1.0 or options["rope_type"] == "proportional"  # p-RoPE: whole head
    width = "d" if whole else r"d_\text{rot}"  # the half layout's partner
    exponent = c.d_model if whole else rotary_dims(c.d_model, float(options["rotary_fraction"]))  # as θ is computed
    pair = r"x_{2i}, x_{2i+1}" if options["layout"] == "interleaved" else rf"x_i, x_{{i+{width}/2}}"
    st.latex(rf"R_p\,x:\ ({pair}) \mapsto \text{{turned by }} p\,\theta'_i,\quad \theta_i = "
             rf"{posenc.schemes.scheme.latex_number(c.base)}^{{-2i/{exponent}}}\ \text{{(}}\theta'_i\text{{: "
             rf"after the scaling {options['rope_type']})}}")
    motion.animation(cached_figures.rope_clock_figure(c.d_model, c.base, c.options, c.length,
                                                      2 * presenter.grid_columns()),
                     "rope_clocks", what="position p", name="rope_clocks")
    st.caption("A unit vector along each pair's first axis, rotated by apply_rope to position p (eight pairs, "
               "fastest first; the factor a scaling puts on cos and sin, as YaRN and LongRoPE do, divided out, so "
               "each hand shows its angle p·θ'ᵢ).")
    st.subheader("The relative property, in motion")
    st.latex(r"(R_{m+s}\,q)\cdot(R_{n+s}\,k) = q^\top R_{n-m}\,k \quad\text{for every shift } s")
    relative = cached_figures.rope_relative_figures(c.d_model, c.base, c.options, c.length, query_at, key_at)
    for name, (figure, scores) in relative.items():
        apart = name == "apart"
        if len(scores) < 2:
            st.caption("With the key at the last position there is no room to move: choose a smaller m or n.")
            return
        motion.animation(figure, f"rope_relative_{name}", what="shift s",
                         name="rope_relative", rope_m=query_at, rope_n=key_at)
        spread = float(np.ptp(scores))
        if apart:
            offset = key_at - query_at
            st.caption(f"Only the key moves: the offset n + s − m grows from {offset} to {offset + len(scores) - 1} "
                       f"and the score changes with it (it spans {spread:.3g} over the {len(scores)} frames).")
        else:
            st.caption(f"Both move by s: over {len(scores)} frames the score varies by {spread:.1e} (float64 "
                       f"rounding), as it sees only the offset n − m = {key_at - query_at}.")


def xpos(c: Controls) -> None:
    options = c.option_dict
    gamma = float(options["scale_base"])
    distance = np.arange(c.length)  # Δ = m − n: the key Δ positions before the query
    pairs = charts.evenly_spread(c.d_model // 2, 5)
    decay = compute.or_stop(posenc.xpos_decay, distance, c.d_model, gamma)[:, pairs]  # (length, pairs shown)
    zeta = compute.or_stop(posenc.schemes.xpos.xpos_zeta, c.d_model)
    presenter.chart(charts.line_chart(distance, {f"pair {i}: ζ = {zeta[i]:.3f}": decay[:, column] for column, i in enumerate(pairs)},
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
                                       y_label="score / d_model (q = k = ones)", dashed=("RoPE q·k / d_model",)),
                    key="xpos_scores")
    st.caption(f"RoPE's score is a sum of cosines, Σᵢ 2·cos(Δθᵢ)/d: its fast pairs keep oscillating at every distance, "
               f"so a far key can score as high as a near one. xPos multiplies pair i by ζᵢ^(Δ/γ) with "
               f"ζᵢ = (2i/d + 0.4)/1.4 < 1 and γ = {gamma:g}: the fast pairs (ζ₀ = {zeta[0]:.3f}) fade first, the slow "
               f"ones (ζ = {zeta[-1]:.3f} on pair {c.d_model // 2 - 1}) last, so the score decays with the distance "
               "and its oscillations shrink (the paper's \"attention resolution\"). The query is scaled by "
               "ζᵢ^(m̂/γ) and the key by ζᵢ^(−n̂/γ), positions centred on ⌈L/2⌉; the centre cancels in the product. "
               "A key after the query (Δ < 0) would be amplified instead: xPos is meant for causal attention, "
               "where such keys are masked (the other pages show both sides).")
