"""How it works, for the absolute schemes: the table added to the embeddings (sinusoidal, learned, none)."""

from __future__ import annotations

import numpy as np
import streamlit as st

import posenc
from posenc.figures import charts
from posenc.ui import cached_figures, compute, motion, presenter, your_config
from posenc.ui.sidebar import Controls


def sinusoidal(c: Controls) -> None:
    """The wavelengths under both frequency formulas, then the clocks."""
    scheme = posenc.get_scheme(c.scheme)
    spacings = next(o.choices for o in scheme.options if o.name == "spacing")
    waves = {spacing: posenc.wavelengths(c.d_model, c.base, spacing=spacing) for spacing in spacings}
    pairs = np.arange(len(waves["vaswani"]))
    presenter.chart(charts.line_chart(pairs, {f"{k}: longest {w[-1]:,.0f}": w for k, w in waves.items()},
                                       title="Wavelengths under the two frequency formulas", x_label="pair i",
                                       y_label="wavelength (positions)", log_y=True), key="spacings")
    st.caption("Vaswani et al.: θᵢ = n^(−2i/d), so the longest wavelength is 2π·n^(1−2/d). tensor2tensor spreads "
               "the timescales from 1 to n over d/2 − 1 steps, so its longest wavelength is exactly 2π·n.")
    clocks(c)
    model = your_config.model(c.model) if c.model else None
    sinusoids = model.positionals.get("full_attention") if model is not None else None
    first = sinusoids.extra.get("first_position", 0) if sinusoids is not None else 0
    if first:  # M2M100 (from pad_token_id + 1), XGLM (from 2)
        st.caption(f"In {your_config.label(model)} a token at position p is encoded as position p + {first}: its "
                   f"first token's hands stand at {first}·θᵢ, not at 0. The charts above draw position p at p.")
    rows = sinusoids.extra.get("table_rows", 0) if sinusoids is not None else 0
    exact = sinusoids.extra.get("exact_length", 0) if sinusoids is not None else 0
    if exact:  # Whisper's encoder: every input padded or cut to its table's rows
        st.caption(f"In {your_config.label(model)} every input is exactly {exact:,} positions long: its encoder "
                   f"refuses any other length (Whisper's takes mel features of exactly {2 * exact:,} frames, which "
                   f"two convolutions halve), so positions 0 … {exact - 1:,} are always all there.")
    elif rows and c.length > rows:  # Marian, Pegasus: computed once, for max_position_embeddings rows
        st.caption(f"In {your_config.label(model)} the sinusoids are a table of {rows:,} rows, computed once: "
                   f"positions {rows:,} … {c.length - 1:,} have no row (transformers raises an index error), though "
                   "the formula, drawn here, goes on.")


def clocks(c: Controls) -> None:
    """Every pair as a clock hand at the angle p·θᵢ, turning as the position p advances."""
    options = c.option_dict
    st.subheader("Clocks: each pair turns at its own speed")
    if c.d_model < 2:
        st.info("A clock is a pair of dimensions (sin, cos): choose d_model ≥ 2.")
        return
    spacing = options.get("spacing", "vaswani")
    d, n = c.d_model, posenc.schemes.scheme.latex_number(c.base)
    exponent = rf"-2i/{d}" if spacing == "vaswani" else rf"-i/{d // 2 - 1}" if d > 2 else "0"
    columns = r"PE[p,2i+1],\ PE[p,2i]" if options.get("layout") != "split" else rf"PE[p,i+{d // 2}],\ PE[p,i]"
    st.latex(rf"\big({columns}\big) = \big(\cos p\theta_i,\ \sin p\theta_i\big),\quad "
             rf"\theta_i = {n}^{{{exponent}}},\quad i = 0,\dots,{d // 2 - 1}")
    motion.animation(cached_figures.clock_figure(c.d_model, c.base, spacing, c.length, 2 * presenter.grid_columns()), "clocks", what="position p",
                     name="clocks")
    st.caption(f"Pair i of the table (its cos across, its sin up) is a hand at the angle p·θᵢ. Eight of the "
               f"{d // 2} pairs, evenly spread over i, fastest first: pair 0 turns by one radian a position, the "
               f"slowest by θ = {posenc.frequencies(d, c.base, spacing=spacing)[-1]:.3g}, so together they tell "
               f"every position apart, as the hands of a clock tell the time. Positions 0 … "
               f"{min(c.length, 200) - 1} of the length {c.length}.")


def learned(c: Controls) -> None:
    options = c.option_dict
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
    model = your_config.model(c.model) if c.model else None
    table = model.positionals.get("full_attention") if model is not None else None
    rows = int(table.options.get("table_size", 0)) if table is not None else 0  # a learned table's rows
    if rows and rows > model.context_length:  # RoBERTa and its kin (from pad_token_id + 1), OPT (from 2)
        first = rows - model.context_length
        st.caption(f"In {your_config.label(model)} a token at position p reads row p + {first} (its first "
                   f"{first} rows are never a token's), so its {rows:,} rows hold {model.context_length:,} tokens; "
                   "the chart above draws row p at p.")


def nope(c: Controls) -> None:
    st.markdown("Without positional information, self-attention is **permutation-equivariant**: shuffle the "
                "tokens and the outputs are shuffled the same way, so word order is lost (a causal mask "
                "is the only source of order left to a NoPE decoder).")
    gap = compute.permutation_gap(c.length, c.d_model, c.base)
    st.dataframe({"encoding added": list(gap), "max |attn(Px) − P·attn(x)|": list(gap.values())}, hide_index=True)
    st.caption(f"One attention layer (q = k = v = x + PE, softmax(qkᵀ/√d)·v) on {min(c.length, 256)} random tokens "
               "and a random permutation P: zero (to rounding) with no encoding, clearly not zero with one.")
