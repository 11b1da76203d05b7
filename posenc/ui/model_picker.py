"""The model picker: ``?model=<key>`` sets the shared sidebar to a released model's positional settings
(posenc.models): its scheme and the scheme's options, the base n, as d_model the width of a query-key head (a
rotary or bias scheme) or of the embeddings a learned table is added to (GPT-2's 768), and its
context as the length (capped at the sidebar's 4,096), with a line "as in <model>" that cites the source.

Which layers: a model whose layers differ (Gemma 3's local and global layers, Llama 4's NoPE layers) is
shown through its global layers (``full_attention``, else its most common layer type); the line names the
others. Options the registry has no control for (llama3's frequency bands, YaRN's betas, LongRoPE's lists)
are listed with the model's values, and every view computes with them while the sidebar shows the model's
scheme and choices (its scaling: :func:`in_force`); a link carries them as ``model=``.

A link with ``model`` and settings of its own (a student moved d_model, then shared the view) opens with
those settings over the model's, and the sidebar says which settings now differ from the model.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import streamlit as st

import posenc
from posenc import models
from posenc.models.config import ntk_alpha_derivation
from posenc.schemes.rope.scalings import longrope_scaling_factor, rope_scaling_parameters, scales_whole_head
from posenc.schemes.scheme import Option
from posenc.settings.constraints import fraction_for
from posenc.settings.parsing import MAX_LENGTH, SHARED_CONTROLS, code_span, number_text
from posenc.ui import your_config
from posenc.ui.binding import bound_control

NONE = "none"
APPLIED = "_posenc_model_applied"  # the model whose settings this session last set
SHARED = {option.name: option for option in SHARED_CONTROLS}


def shown_layer(model: models.Model) -> str:
    """The layer type the sidebar shows: the global one (``full_attention``), else the most common."""
    return "full_attention" if "full_attention" in model.layer_types else max(
        dict.fromkeys(model.layer_types), key=model.layer_types.count)


def preset(model: str | models.Model) -> tuple[dict[str, int | float | str], dict[str, object]]:
    """The sidebar's settings for ``model`` (a preset's name or a Model: URL key -> typed value), and the options
    the sidebar has no control for (name -> the model's value)."""
    model = models.get(model)
    positional = model.positional(shown_layer(model))
    entry = posenc.SCHEMES[positional.scheme]
    width = min(max(int(_width(positional)), 2), int(SHARED["d_model"].maximum))
    values: dict[str, int | float | str] = {"scheme": positional.scheme, "d_model": width,
                                            "length": min(int(model.context_length), MAX_LENGTH)}
    if positional.base:
        values["n"] = float(positional.base)
    controls = {option.name: option for option in entry.options}
    options = dict(positional.options)
    if "factor" in controls and "factor" not in options and "max_position_embeddings" in options:
        # a config without a factor (Phi-3's LongRoPE): the scaling's own s = max / original positions, as
        # transformers derives it; the sidebar's default 4 would win over it
        options["factor"] = longrope_scaling_factor(None, options["original_max_position_embeddings"],
                                                    options["max_position_embeddings"])
    rope_type = options.get("rope_type")  # a rotary layer's scaling
    if "factor" in controls and "factor" not in options and rope_type is not None:
        own = rope_scaling_parameters(str(rope_type)).get("factor")  # p-RoPE's own 1, not the slider's 4
        if isinstance(own, int | float):
            options["factor"] = own
    whole_head = rope_type is not None and scales_whole_head(str(rope_type))
    left_out = {}
    for name, value in options.items():
        option = controls.get(name)
        if option is None or (not option.choices and not option.minimum <= value <= option.maximum):
            left_out[name] = value
        elif name == "rotary_fraction" and positional.rotary_dims and not whole_head:  # p-RoPE's: its pairs' share
            values[f"{positional.scheme}.{name}"] = fraction_for(positional.rotary_dims, width)
        else:
            values[f"{positional.scheme}.{name}"] = _typed(option, value)
    return values, left_out


def _width(positional: models.Positional) -> int:
    """The sidebar's d_model under a model: an absolute table is drawn at the width of the embeddings it is added
    to (GPT-2's 768), a rotary or bias view at the width of a query-key head (Llama's 128)."""
    return positional.extra.get("model_width") or positional.head_dim or SHARED["d_model"].default


def _typed(option: Option, value) -> int | float | str:
    if option.choices:
        return str(value)
    return int(value) if isinstance(option.default, int) else float(value)


@functools.cache
def _choice() -> Option:
    """The picker's option, its help naming every released model (made once: the models ship with posenc)."""
    return Option("model", "model", NONE, choices=(NONE, *models.names(), your_config.CHOICE),
                  help="A released model: the sidebar takes its positional settings (" +
                  "; ".join(f"{key}: {models.get(key).label}" for key in models.names()) +
                  f"); {your_config.CHOICE}: your own model's config.json, uploaded or pasted below.")


def picker() -> tuple[str, dict[str, int | float | str], dict[str, object]] | None:
    """Draw the picker (bound to ``?model=``); when it names another model than the one last applied, set
    the sidebar's widgets to that model before they are drawn. Returns (key, its settings, the options left
    out) or None."""
    choice = _choice()
    key = bound_control(choice, "model")
    model = None
    if key == your_config.CHOICE:
        chosen = your_config.choose()
        key, model = chosen if chosen else (NONE, None)
    if key == NONE:
        st.session_state.pop(APPLIED, None)
        return None
    values, left_out = preset(model or key)
    if st.session_state.get(APPLIED) != key:
        first = APPLIED not in st.session_state and "model" in st.query_params
        for name, value in values.items():  # a first run keeps the link's own settings over the model's
            if not (first and name in st.query_params):
                st.session_state[name] = value
        st.session_state[APPLIED] = key
    return key, values, left_out


def read_against(picked):
    """``read(option, key)``: the option with the default a link is read against. A link with ``model=`` opens
    at the model's settings, so under a model the widget's own default (what Streamlit leaves out of the
    address bar) is the model's value: a value equal to posenc's default, 10,000 for n under Qwen3's
    1,000,000, must stay in the link, and the model's own value may be left out (binding.bound_control)."""
    values = picked[1] if picked else {}

    def read(option: Option, key: str) -> Option:
        return replace(option, default=values[key]) if key in values else option
    return read


def in_force(picked, scheme: str, options: tuple[tuple[str, object], ...], setting: tuple[int, int, float],
             ) -> tuple[tuple[tuple[str, object], ...], str | None]:
    """The model's values of the options the sidebar has no control for, as (name, value) pairs to append to the
    sidebar's ``options``, and why they are not used when they are not: while the sidebar shows the model's scheme
    with the model's choices (its rope_type and layout), the views compute what the model computes (Llama 4's
    high_freq_factor = 1, gpt-oss's untruncated YaRN, DeepSeek-V3's mscale, Phi-3's factor lists); once a student
    picks another scheme or scaling, none. Values that fit the model's own width only (LongRoPE's lists, one factor
    per rotated pair) are dropped, with a sentence, when the sidebar's ``setting`` (length, d_model, base) no longer
    fits them: a slider the student may move never ends in an error."""
    _, values, left_out = picked
    if values["scheme"] != scheme:
        return (), None
    held = dict(options)
    prefix = f"{scheme}."
    if any(str(held.get(name.removeprefix(prefix))) != value
           for name, value in values.items() if name.startswith(prefix) and isinstance(value, str)):
        return (), None
    extra = tuple(sorted((name, value) for name, value in left_out.items() if name not in held))
    if not extra:
        return extra, None
    length, d_model, base = setting
    try:
        posenc.get_scheme(scheme).offset_curve(min(int(length), 2), int(d_model), float(base), **(held | dict(extra)))
    except ValueError as refusal:
        names = ", ".join(name for name, _ in extra)
        return (), (f"The model's {names} apply at its own settings only (d_model = {values['d_model']}); with "
                    f"d_model = {int(d_model)} here the views compute without them ({_sentence(refusal)}).")
    return extra, None


def _sentence(refusal: ValueError) -> str:
    text = str(refusal).strip().rstrip(".")
    return text[:1].lower() + text[1:]


def describe(picked, held: dict[str, object], applied: bool = True, unfit: str | None = None) -> None:
    """The line "as in <model>", what the sidebar cannot set, and which settings now differ from the model."""
    key, values, left_out = picked
    model = your_config.model(key)
    layer = shown_layer(model)
    if your_config.is_config(key):  # its label is the reader's text: shown escaped, and no link
        source = f"As in **{your_config.label(model)}** (your config)"
    else:
        url = model.source.split()[0].rstrip(",:")  # the config's address, then the fields it gives
        source = f"As in **{model.label}** ([source]({url}))"
    label = your_config.label(model)
    others = sorted(set(model.layer_types) - {layer})
    positional = model.positional(layer)
    width = (f"d_model = the width of its embeddings, {positional.extra['model_width']:,}, to which the table is added "
             f"(a head is {positional.head_dim} wide)" if positional.extra.get("model_width")
             else f"d_model = the width of a query-key head, {positional.head_dim}")
    lines = [f"{source}: its {model.layer_types.count(layer)} {layer} layers, {width}."]
    if positional.extra.get("qk_nope_head_dim"):  # DeepSeek's latent attention: its rotated part comes last
        rotated = positional.rotary_dims
        lines.append(f"It rotates the last {rotated} of each head's {positional.head_dim} dimensions, after its "
                     f"{positional.extra['qk_nope_head_dim']} unrotated ones (decoupled RoPE: "
                     f"posenc.models.decoupled_rope); the views turn the first {rotated}, a relabelling of the "
                     "dimensions: each score is the model's for the query and key relabelled alike (q·k sums over "
                     "its pairs wherever they lie), and a heatmap shows its columns in another order.")
    if derivation := ntk_alpha_derivation(positional):  # HunYuan's "dynamic" with an alpha: a θ stretched once
        lines.append(f"Its θ is NTK-α's (its scaling is 'dynamic' with an alpha, at every length): rope_theta × "
                     f"alpha^(d/(d − 2)) = {derivation}.")
    lines += _left_out(model, positional)
    if others:
        lines.append("Its other layers: " + ", ".join(
            f"{model.layer_types.count(kind)} {kind} ({model.positional(kind).scheme})" for kind in others) + ".")
    if model.context_length > MAX_LENGTH:
        lines.append(f"Length {MAX_LENGTH:,} of its {model.context_length:,} (the sidebar's cap).")
    controls = {option.name: option for option in posenc.SCHEMES[values["scheme"]].options}
    beyond = {name: value for name, value in left_out.items()  # outside its control's range, while it is shown
              if name in controls and held.get("scheme") == values["scheme"]}
    uncontrolled = {name: value for name, value in left_out.items() if name not in controls}
    if uncontrolled:
        whose = ("the views use the model's" if applied else "the model's (not used: see below)" if unfit
                 else "the model's (not used with this scheme or scaling)")
        lines.append(f"Not in the sidebar, {whose}: " +
                     ", ".join(f"{name} = {_short(value)}" for name, value in uncontrolled.items()) + ".")
    st.caption(" ".join(lines))
    for name, value in beyond.items():
        option, prefix = controls[name], f"{values['scheme']}."
        st.caption(f":orange[The model's {name} = {_short(value)} is beyond the sidebar's range "
                   f"({_short(option.minimum)} … {_short(option.maximum)}): the views use {name} = "
                   f"{_short(held.get(prefix + name, option.default))} instead.]")
    differ = [f"{name} is {_shown(held[name])} here, {_shown(value)} in {label}"
              for name, value in values.items() if name in held and not _same(held[name], value)]
    if unfit:
        st.caption(f":orange[{unfit}]")
    if differ:
        st.caption(":orange[Differs from the model: " + "; ".join(differ) + ".]")


def _left_out(model, positional) -> list[str]:
    """What the model's attention does beside its positions that the views' scores leave out: a query scale by
    position (Ministral 3, Mistral 4; Llama 4's layers without positions), a learned sink (gpt-oss, MiMo-V2-Flash),
    and what runs beside the attention (Falcon-H1's Mamba-2, IDEFICS's cross-attention)."""
    extra, lines = positional.extra, []
    if extra.get("beside"):
        lines.append(f"{extra['beside']}, which the views leave out: they draw the attention's positions.")
    if "llama_4_scaling_beta" in extra:
        lines.append(f"Its attention also multiplies each rotated query at position p by 1 + β·ln(1 + ⌊p/L₀⌋) "
                     f"(β = {number_text(extra['llama_4_scaling_beta'])}, L₀ = {extra['llama_4_original']:,.0f}: "
                     "posenc.models.query_scale), which the views' scores leave out.")
    if any(p.extra.get("attn_temperature_tuning") for p in model.positionals.values()):
        lines.append("Its layers without positions multiply each query by a temperature growing with its position "
                     "(posenc.models.attention_temperature), which the views leave out.")
    sinks = [kind for kind, each in model.positionals.items() if each.extra.get("attention_sinks")]
    if sinks:
        whose = "Its attention adds" if len(sinks) == len(model.positionals) else f"Its {', '.join(sinks)} layers add"
        lines.append(f"{whose} a learned sink to each softmax's sum (posenc.models.attention_with_sinks), which the "
                     "views leave out.")
    return lines


def _shown(value) -> str:
    """A setting's value in a caption: a number as a number, a name (a scheme, a layout, a scaling) as code, as the
    URL writes it, never read as Markdown (``transformer_xl``'s underscore)."""
    return code_span(value) if isinstance(value, str) else number_text(value)


def _same(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return str(a) == str(b)
    return abs(float(a) - float(b)) <= 1e-12 * max(1.0, abs(float(b)))


def _short(value) -> str:
    if isinstance(value, (tuple, list)):
        return f"a list of {len(value)}"
    return number_text(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)
