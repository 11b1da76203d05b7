"""Views at a released model's real context (issue 29 part 3): the Comparison page's curves as far as the model
reaches (131,072 positions for Llama 3.1, 10,485,760 for Llama 4 Scout), and where its RoPE scaling acts.

The curves are computed only at the distances drawn (posenc.analysis.offset_curves.log_offsets: about 256, log-spaced),
so the page costs what it cost at 4,096 positions; the sidebar's length cap (4,096) still bounds every view that
builds a matrix. :func:`decay_view` and :func:`scaling_view` can be called from any page (the RoPE "How it works"
view, for one).
"""

from __future__ import annotations

import streamlit as st

import posenc
from posenc.analysis import dropped_scaling, offset_curves, scaling_regions
from posenc.figures import long_context as figures
from posenc.schemes.rope.frequencies import rotary_dims
from posenc.settings.parsing import number_text
from posenc.ui import compute, presenter, your_config
from posenc.ui.compute import shared_figure
from posenc.ui.sidebar import Controls

POINTS = 256  # log-spaced distances asked per curve (rounding to whole ones merges the smallest: ~210 drawn)


def _extension(options: dict) -> bool:
    """Whether the options name a RoPE context extension (a rope_type of scaling_regions.SCALING_BOUNDS)."""
    return options.get("rope_type") in scaling_regions.SCALING_BOUNDS


def _reads_trained_context(options: dict) -> bool:
    """Whether the options name a context extension that reads L₀ (not linear or NTK: the sidebar's L₀ is not a
    model's then, and a config such as Gemma 3's, linear ×8, states none)."""
    return _extension(options) and scaling_regions.takes_trained_context(options["rope_type"])


def contexts(options: dict, context: int) -> dict[str, int]:
    """The positions each chart marks: the trained context L₀ (under an extension that reads one) and the model's."""
    marks = ({"trained context L₀": int(options["original_max_position_embeddings"])}
             if _reads_trained_context(options) else {})
    return marks | {"model's context": int(context)}


@shared_figure
def reach_figure(selected: str, context: int, d_model: int, base: float, options: tuple, columns: int = 2):
    """Every scheme's offset curve at log-spaced distances 1 … context − 1 of a key before its query (Δ = −distance);
    the selected scheme with ``options``, the others with their defaults."""
    distances = offset_curves.log_offsets(context, POINTS)[1:]  # 0 has no place on a log axis
    panels = {}
    for key, scheme in posenc.SCHEMES.items():
        chosen = dict(options) if key == selected else scheme.defaults()
        values = offset_curves.offset_curve_at(key, -distances, context, d_model, base, **chosen)
        label = scheme.curve_label if len(scheme.curve_label) < 40 else "value"
        panels[scheme.label] = (distances, values, label)
    return figures.reach_grid(panels, contexts(dict(options), context), x_label="distance i − j (log)",
                              columns=columns)


@shared_figure
def scaling_figure(d_model: int, base: float, options: tuple, context: int, title: str):
    """(the wavelength of each pair before and after the scaling, coloured by region; the ScalingRegions)."""
    chosen = dict(options)
    d_rot = rotary_dims(d_model, float(chosen.get("rotary_fraction", 1.0)))
    params = {k: v for k, v in chosen.items() if k not in ("layout", "rope_type", "rotary_fraction")}
    if not _reads_trained_context(chosen):  # linear, NTK: the sidebar's L₀ is nobody's; found.original is None
        params.pop("original_max_position_embeddings", None)
    found = scaling_regions.scaling_regions(d_rot, base, chosen["rope_type"], context=context, **params)
    return figures.scaling_regions_figure(found.before, found.after, found.region, original=found.original,
                                          context=found.context, bounds=found.bounds, title=title), found


@shared_figure
def decay_figure(scheme: str, context: int, d_model: int, base: float, options: tuple):
    """One scheme's offset curve (RoPE's and xPos's: the q·k decay) at log-spaced distances 1 … context − 1 of a key
    before its query, the trained and the model's context marked."""
    distances = offset_curves.log_offsets(context, POINTS)[1:]
    entry = posenc.get_scheme(scheme)
    values = offset_curves.offset_curve_at(scheme, -distances, context, d_model, base, **dict(options))
    return figures.reach_grid({f"{entry.label}: {entry.curve_label}"[:80]: (distances, values, "score")},
                              contexts(dict(options), context), x_label="distance i − j (log)", columns=1)


def decay_view(c: Controls) -> None:
    """Under a model (``c.model``): the selected scheme's curve (RoPE's decay) as far as the model's context, with
    the sidebar's and the model's options; nothing without a model. For the RoPE "How it works" view."""
    if not c.model:
        return
    model = your_config.model(c.model)
    st.subheader(f"The decay as far as {your_config.label(model)}'s context ({model.context_length:,} positions)")
    presenter.chart(compute.or_stop(decay_figure, c.scheme, model.context_length, c.d_model, c.base, c.options),
                    key="decay_to_context")


def scaling_view(d_model: int, base: float, options: tuple, context: int, model) -> None:
    """Where the scaling of ``options`` acts on a head of d_model (its rotated pairs) at θ's ``base``, extended to
    ``context``: the chart and a sentence with the counts, titled by ``model`` (a posenc.models.Model). Nothing when
    the options extend no context."""
    if not _extension(dict(options)):
        return
    rope_type = dict(options)["rope_type"]
    if rotary_dims(d_model, float(dict(options).get("rotary_fraction", 1.0))) < 2:  # p-RoPE's fraction 0
        st.caption(f"rotary_fraction = {number_text(dict(options).get('rotary_fraction', 1.0))} leaves no pair of "
                   f"d_model = {d_model} to rotate: the {rope_type} scaling has nothing to act on.")
        return
    st.subheader(f"Where {your_config.label(model)}'s scaling acts ({rope_type})")
    fig, found = compute.or_stop(scaling_figure, d_model, base, options, context,
                                 f"{model.label}: wavelength of each pair before and after {rope_type}")
    presenter.chart(fig, key="scaling_regions")
    if found.original is None:  # linear, NTK: what the scaling does, said without a trained context
        past = "past the trained context", "far below it"
        slowed = (f"the model's {found.context:,} positions turn them no farther than "
                  f"{found.context / found.factor:,.0f} positions turn them unscaled")
        after = (f" The {rope_type} scaling reads no trained context L₀ (the sidebar's is not used), so none is "
                 "marked.")
    else:
        reach = found.factor * found.original
        past = f"past L₀ = {found.original:,}", "far below L₀"
        slowed = (f"up to s·L₀ = {reach:,.0f} positions they stay within the angles of L₀"
                  + (f"; the model's {found.context:,} positions reach {found.context / reach:.3g}× farther"
                     if found.context > reach * (1 + 1e-9) else ""))
        after = (f" The scaling's own bounds: wavelengths {found.bounds[0]:,.4g} and {found.bounds[1]:,.4g}."
                 if found.bounds else "")
    st.caption(
        f"Of {len(found.region)} pairs, {found.count('extrapolated')} keep θᵢ (extrapolated: {past[0]} they turn to "
        f"angles never trained on, harmless when their wavelength is {past[1]}), {found.count('interpolated')} are "
        f"slowed by the factor s = {found.factor:g} or more (interpolated: {slowed}), {found.count('in between')} in "
        f"between.{after}")


def comparison(c: Controls) -> None:
    """The Comparison page under a model: every curve to the model's context, then where its scaling acts."""
    model = your_config.model(c.model)
    options = c.options  # the sidebar's, with the model's options it cannot set (sidebar.draw)
    drawn = len(offset_curves.log_offsets(model.context_length, POINTS)) - 1
    st.caption(f"Under **{your_config.label(model)}**: every curve reaches its context, {model.context_length:,} positions, "
               f"computed at {drawn} distances spaced on a log axis (a key i − j positions before its query; the "
               f"sidebar's length, {c.length:,}, bounds the pages that build matrices). d_model = {c.d_model}, "
               f"n = {c.base:g}; the selected scheme ({posenc.get_scheme(c.scheme).label}) uses the sidebar's "
               "options and the model's, the others their defaults.")
    presenter.chart(compute.or_stop(reach_figure, c.scheme, model.context_length, c.d_model, c.base, options,
                                    presenter.grid_columns()),
                    key="comparison")
    scaling_view(c.d_model, c.base, options, model.context_length, model)


@shared_figure
def dropped_figure(key: str):
    """(the score of one query and key under the model's declared RoPE scaling and with it dropped, the
    DroppedScalingScores), or (None, why not) for a model with no scaling to drop; ``key``: ``Controls.model``."""
    model = your_config.model(key)
    distances = offset_curves.log_offsets(model.context_length, POINTS)
    try:
        scores = dropped_scaling.dropped_scaling_scores(model, distances)
    except ValueError as reason:
        return None, str(reason)
    marks = ({"trained context L₀": scores.original_context} if scores.original_context else {}) | {
        "model's context": scores.context_length}
    fig = figures.dropped_scaling_figure(
        scores.distances[1:], scores.declared[1:], scores.dropped[1:], first_disagreement=scores.first_disagreement,
        contexts=marks, title=f"q·k with its {scores.rope_type} scaling and without")
    return fig, scores


def dropped_view(c: Controls) -> None:
    """Under a model with a RoPE scaling: what a loader that drops it computes instead (the scaling a config
    declares but a loader ignores: an unknown key, v4's field where v5 reads another), against distance, to the
    model's context. Nothing without a model or without a scaling."""
    if not c.model:
        return
    fig, scores = compute.or_stop(dropped_figure, c.model)
    model = your_config.model(c.model)
    if fig is None:  # no scaling to drop: nothing; a declared scaling posenc cannot compute: why (the check says too)
        if any(p.rotary_dims and p.options.get("rope_type", "default") != "default" for p in model.positionals.values()):
            st.caption(f"What dropping {your_config.label(model)}'s RoPE scaling costs is not drawn: its declared "
                       f"scaling cannot be computed ({presenter.escaped(scores)}).")
        return
    st.subheader(f"What a dropped scaling costs {your_config.label(model)}")
    presenter.chart(fig, key="dropped_scaling")
    first, tolerance = scores.first_disagreement, f"{scores.tolerance:.3g} (1% of |q|·|k|)"
    before = scores.distances[scores.distances < first] if first is not None else scores.distances
    if first is None:
        agree = (f"They agree within {tolerance} at every distance drawn, of {scores.context_length:,}: no test "
                 "at these distances tells them apart.")
    elif before.size and before.max() == 0:  # only a key at the query's own position: no test misses it
        agree = (f"They agree within {tolerance} only at distance 0, the query's own position, and disagree from "
                 f"{first:,} on, of {scores.context_length:,}: any test with a key before its query sees it.")
    elif before.size:
        agree = (f"They agree within {tolerance} up to distance {int(before.max()):,} and disagree from "
                 f"{first:,} on, of {scores.context_length:,}: a test whose keys all lie within "
                 f"{int(before.max()):,} token{'s' if before.max() != 1 else ''} of their queries sees nothing wrong.")
    else:
        agree = (f"They differ by more than {tolerance} from distance {first:,} on (the factor a² scales every "
                 "score): any test sees it.")
    st.caption(
        f"One query q and key k (seeded standard normal vectors of the head width, seed {scores.seed}), the key "
        f"Δ tokens before the query, under the config's {scores.rope_type} scaling (cos and sin × "
        f"{scores.attention_factor:.4g}) and under the plain frequencies θᵢ = base^(−2i/d) a loader computes when it "
        f"drops the scaling (an unknown key, v4's rope_scaling where v5 reads rope_parameters). {agree}")
