"""How it works, for the schemes that add a term to the attention logits: Shaw, T5, ALiBi, KERPLE, Transformer-XL."""

from __future__ import annotations

import numpy as np
import streamlit as st

import posenc
from posenc.analysis import table_cells
from posenc.figures import charts, heatmaps
from posenc.ui import compute, presenter, your_config
from posenc.ui.sidebar import Controls


def shaw(c: Controls) -> None:
    options = c.option_dict
    k = int(options["max_relative_position"])
    rows = heatmaps.thin_index(c.length)
    clip = compute.or_stop(table_cells.shaw_clip_cells, c.length, k, rows, rows)  # only the cells drawn
    fig = heatmaps.position_heatmap(clip, rows, c.length, x_label="key position j", y_label="query position i",
                                   title=(f"clip(j − i, −{k}, {k}): which of the {2 * k + 1} vectors each pair uses"
                                          if k else "clip(j − i, 0, 0) = 0: every pair uses the one vector a₀"),
                                   zrange=(-max(k, 1), max(k, 1)))
    presenter.chart(fig, key="shaw_clip")
    st.caption(f"Offsets beyond ±{k} share the outermost vectors: the model cannot tell them apart." if k else
               "With k = 0 every offset shares a₀: the relative term is the same for every key, so it tells no "
               "offsets apart.")


def t5(c: Controls) -> None:
    options = c.option_dict
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
    model = your_config.model(c.model) if c.model else None
    bias = model.positionals.get("full_attention") if model is not None else None
    rows = bias.extra.get("added_table", 0) if bias is not None else 0
    if rows:  # MPNet: a learned table added to the embeddings too, which bounds its context
        first, context = bias.extra["first_position"], model.context_length
        past = (f" Positions {context:,} … {c.length - 1:,} have no row (transformers raises an index error), though "
                "the buckets drawn go on." if c.length > context else "")
        st.caption(f"{your_config.label(model)} also adds a learned table to its embeddings, as BERT does: a token "
                   f"at position p reads row p + {first}, so its {rows:,} rows hold {context:,} tokens.{past} The "
                   "table's rows are the checkpoint's weights, which a config does not hold: the learned scheme's "
                   "views draw an untrained one.")


def alibi(c: Controls) -> None:
    options = c.option_dict
    heads = int(options["num_heads"])
    slopes = posenc.alibi_slopes(heads)
    st.dataframe({"head h": np.arange(1, heads + 1), "slope m_h": slopes, "log₂ m_h": np.log2(slopes)},
                 hide_index=True, key="alibi_slopes")
    offsets, values = compute.or_stop(compute.offset_bias, c.scheme, c.length, c.d_model, c.base, c.options)
    drawn = charts.evenly_spread(heads, 8)  # from the steepest slope to the gentlest
    shown = {f"head {h + 1}": np.where(np.isneginf(values[h]), np.nan, values[h]) for h in drawn}
    presenter.chart(charts.line_chart(offsets, shown, title="Bias against the offset, per head",
                                       x_label="offset j − i", y_label="bias"), key="alibi_heads")
    notes = []
    if len(drawn) < heads:
        notes.append(f"{len(drawn)} of the {heads} heads are drawn, evenly spaced "
                     f"(h = {', '.join(str(h + 1) for h in drawn)}); the table above lists every slope.")
    if options["direction"] == "causal":
        notes.append("Keys after the query (j > i) are masked with −∞: nothing is drawn right of 0.")
    if notes:
        st.caption(" ".join(notes))


def kerple(c: Controls) -> None:
    options = c.option_dict
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


def transformer_xl(c: Controls) -> None:
    options = c.option_dict
    size, seed = min(c.length, 24), int(options["seed"])
    u, v, w_r = compute.or_stop(posenc.schemes.transformer_xl.transformer_xl_parameters, c.d_model, c.d_model,
                                seed=seed)
    q, k = np.random.default_rng([seed, 2]).normal(size=(2, size, c.d_model))  # small seeded queries and keys
    terms = compute.or_stop(posenc.transformer_xl_terms, q, k, u, v, w_r, c.base)
    positions = np.arange(size)
    future = positions[None, :] > positions[:, None]  # j > i: masked, drawn blank
    shown = {"(a) qᵢ·kⱼ: content": terms.content,
             "(b) qᵢ·W<sub>R</sub> Rᵢ₋ⱼ: query and distance": terms.content_position,
             "(c) u·kⱼ: key only": terms.global_content,
             "(d) v·W<sub>R</sub> Rᵢ₋ⱼ: distance only": terms.global_position}
    left, right = st.columns(2)
    for n, (title, term) in enumerate(shown.items()):
        with (left if n % 2 == 0 else right):
            fig = heatmaps.position_heatmap(np.where(future, np.nan, term), positions, size, title=title,
                                            x_label="key position j", y_label="query position i")
            presenter.chart(fig, key=f"transformer_xl_term_{n}")
    total = sum(shown.values())
    fig = heatmaps.position_heatmap(np.where(future, np.nan, total), positions, size, x_label="key position j",
                                    y_label="query position i", title="(a) + (b) + (c) + (d): the score Aᵢⱼ")
    presenter.chart(fig, key="transformer_xl_total")
    st.caption(f"{size} seeded queries and keys q, k ~ N(0, 1) of width {c.d_model}; u, v, W_R untrained, "
               "N(0, 0.02²) as Transformer-XL initialises them (the sidebar's seed); each panel has its own colour scale. "
               "Content: (a) depends on the query and the key, (c) on the key alone. Position: (b) on the query and "
               "the distance i − j, (d) on the distance alone (constant along each diagonal). Keys after the query "
               "(j > i) are masked (blank); the logit is Aᵢⱼ/√d.")
    offsets, values = compute.or_stop(compute.offset_curve, c.scheme, c.length, c.d_model, c.base, c.options)
    presenter.chart(charts.line_chart(offsets, {"((b) + (d))/√d": values}, title="The positional part against the offset",
                                       x_label="offset j − i", y_label="logit bias"), key="transformer_xl_curve")
    st.caption("The bias on the other pages (matrix, comparison, properties, precision) is this positional part, "
               "(q·W_R Rᵢ₋ⱼ + v·W_R Rᵢ₋ⱼ)/√d, for one fixed seeded unit query q: with the query fixed it "
               "depends on j − i alone; −∞ for j > i. The content terms (a), (c) need real tokens and are left out.")
