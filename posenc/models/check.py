r"""What is wrong with a ``config.json``'s positions: findings, each naming its field, with the numbers.

The costliest positional bugs are configurations read wrong: a scaling a loader drops (no ``rope_type``, a
type it does not know, v4's ``rope_scaling`` beside v5's ``rope_parameters``), a factor that does not
match the lengths it stretches (Llama 3.2's factor 8 where 32 was meant), a θ lost on the way
(transformers falls back to 10,000). :func:`check` reads a config as transformers 5.23 reads it
(:func:`posenc.models.from_config`) and returns :class:`Finding` s, errors first:

- ``error``: a loader would refuse the config or silently drop or misread a setting;
- ``warning``: legal, but likely not what was meant;
- ``info``: worth knowing (an explicit head width, a rule that leaves no band in between).

Each check is one function of :data:`CHECKS`, taking the read config (:class:`Reading`) and yielding
findings; ``python -m posenc.models check CONFIG.json`` prints them.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal, NamedTuple

from posenc.models.config import (
    ALIBI_FLAG,
    HEAD_FIELDS,
    KNOWN_LAYER_TYPES,
    LAYER_FIELDS,
    READS_TRAINED_CONTEXT,
    TRAINED_CONTEXT,
    WIDTH_FIELDS,
    Fields,
    default_share,
    from_config,
    never_masks,
    ntk_alpha_derivation,
    readable,
    told_bidirectional,
    trained_context,
    window_field,
    window_keys,
)
from posenc.models.config_file import NO_TEXT_CONFIG, TEXT_CONFIG_TYPES, read_config, text_node
from posenc.models.config_link import POSITIONAL_FIELDS
from posenc.models.presets import Model
from posenc.schemes.registry import get_scheme

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
KNOWN_ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "llama3", "longrope", "proportional", "axial", "mrope")
"""The rope types transformers 5.23 validates (a ``_validate_<type>_rope_parameters`` each: p-RoPE's "proportional",
Gemma 4's, and vision towers' "axial" among them), plus Qwen2-VL's v4 "mrope", read as "default". Written out, as
``import posenc`` loads no transformers; tests/models/test_model_check.py holds it to transformers' own list."""
SCALING_KEYS = ("factor", "low_freq_factor", "high_freq_factor", "beta_fast", "beta_slow", "short_factor",
                "long_factor", "original_max_position_embeddings", "attention_factor", "mscale", "mscale_all_dim")


class Finding(NamedTuple):
    """One thing to say about a config: ``severity`` ('error', 'warning', 'info'), ``field`` (a dotted path
    in the file, e.g. ``rope_scaling.factor``) and ``message`` (a sentence with the numbers)."""

    severity: Severity
    field: str
    message: str


@dataclass
class Reading:
    """A config as :func:`check` reads it: the file, its language model's fields, each RoPE parameter dict
    (with its dotted path) and the :class:`Model` (None when :func:`from_config` refused it)."""

    config: dict
    fields: Fields
    scalings: list[tuple[str, dict]]
    model: Model | None

    def path(self, key: str) -> str:
        """``key``'s dotted path in the file: under ``text_config`` (or the thinker's) when that is where it is."""
        path, node = text_node(self.config)
        return ".".join((*path, key)) if path and key in node else key

    def level(self) -> str:
        """Where the language model's own fields are: "in text_config" (or the thinker's) when the file has one,
        else "at the top level"."""
        where = ".".join(text_node(self.config)[0])
        return f"in {where}" if where else "at the top level"

    def number(self, mapping: Mapping, key: str) -> float | None:
        return _number(mapping.get(key))

    def context(self) -> int | None:
        """The context as the reader takes it (:meth:`Fields.context_fields`), None when no field is a number."""
        for key in self.fields.context_fields():
            value = self.number(self.fields.values, key)
            if value is not None:
                return int(value)
        return None

    def rope_type(self, scaling: Mapping) -> object:
        return scaling.get("rope_type", scaling.get("type"))

    def family_type(self, scaling: Mapping) -> object:
        """The scaling's type as the family's class reads it (Phi-3's "su" is "longrope")."""
        return self.fields.family.rope_type(self.rope_type(scaling))

    def reads_trained_context(self, scaling: Mapping) -> bool:
        """Whether the scaling is one that reads L₀."""
        return self.family_type(scaling) in READS_TRAINED_CONTEXT

    def trained_context(self, where: str, scaling: Mapping) -> tuple[float | None, str]:
        """L₀ as transformers computes with it for the scaling at ``where`` (:func:`~posenc.models.config.trained_context`)
        and the field it comes from, dotted as in the file; None when it is not a number or there is no context."""
        try:
            value, field = trained_context(self.fields, scaling, where,
                                           nested=where.split(".")[-1] in KNOWN_LAYER_TYPES)
        except ValueError:  # no max_position_embeddings: another check names it
            return None, "max_position_embeddings"
        return _number(value), self.path(field) if field == TRAINED_CONTEXT else field


def _number(value: object) -> float | None:
    """``value`` as a float when it is a real number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return float(value)


def check(config: object) -> list[Finding]:
    """Findings about ``config`` (a dict, a JSON text or a path to a config.json), errors first.

    A config that cannot be read as JSON (or is over 1 MB, nests too deep, holds NaN) raises a ValueError;
    one that reads but that :func:`from_config` refuses gives an error finding with its sentence.
    """
    raw = read_config(config)
    fields = Fields(raw)
    findings: list[Finding] = []
    try:
        model = from_config(raw)
    except ValueError as error:
        model = None
        message = str(error)
        first = message.split(" ", 1)[0]
        field = first if first.replace(".", "").replace("_", "").replace("[", "").replace("]", "").isalnum() and \
            ("_" in first or "." in first) else ""
        findings.append(Finding("error", field, f"posenc cannot read this config: {message}"))
    read = dict(fields.read)  # (a model_type transformers does not know, as the class its architectures names)
    reading = Reading(read, fields, _scalings(read, fields), model)
    for rule in CHECKS:
        findings.extend(rule(reading))
    return sorted(dict.fromkeys(findings), key=lambda f: SEVERITIES.index(f.severity))


def _scalings(raw: Mapping, fields: Fields) -> list[tuple[str, dict]]:
    """Every RoPE parameter dict of the file with its dotted path (nested ones per layer type)."""
    found = []
    for key in ("rope_scaling", "rope_parameters"):
        value = fields.raw.get(key)
        if not isinstance(value, Mapping) or not value:
            continue
        base = Reading(dict(raw), fields, [], None).path(key)
        nested = {k: v for k, v in value.items() if k in KNOWN_LAYER_TYPES and isinstance(v, Mapping)}
        for layer_type, inner in nested.items():
            found.append((f"{base}.{layer_type}", dict(inner)))
        if not nested:
            found.append((base, dict(value)))
    return found


# --- the checks -----------------------------------------------------------------------------------------

def unknown_or_missing_type(reading: Reading) -> Iterator[Finding]:
    """A scaling a loader refuses (a type it does not know) or drops (no type: read as 'default')."""
    aliases = reading.fields.family.rope_type_aliases
    for where, scaling in reading.scalings:
        rope_type = reading.rope_type(scaling)
        key = "rope_type" if "rope_type" in scaling else "type"
        if rope_type is None:
            scaled = [k for k in ("factor", "short_factor", "low_freq_factor", "beta_fast") if k in scaling]
            if scaled:
                shown = scaling[scaled[0]] if scaled[0] == "factor" else "its parameters"
                yield Finding("error", f"{where}.rope_type",
                              f"{where} has no 'rope_type' (nor v4's 'type'), so transformers reads it as 'default' "
                              f"and drops the scaling ({scaled[0]} {_shown(shown)}): the model runs unscaled past "
                              "its original context.")
        elif rope_type == "su" and "su" in aliases:
            yield Finding("error", f"{where}.{key}",
                          f"{where}.{key} is 'su', Phi-3's April 2024 name of LongRoPE: transformers 5.23 renames it "
                          "to 'longrope' only after filling in original_max_position_embeddings, and refuses the "
                          "config (KeyError); write 'longrope'.")
        elif not isinstance(rope_type, str) or rope_type not in KNOWN_ROPE_TYPES and rope_type not in aliases:
            yield Finding("error", f"{where}.{key}",
                          f"{where}.{key} is {_shown(rope_type)}, a RoPE scaling transformers 5.23 does not know "
                          f"(it knows {', '.join(map(repr, KNOWN_ROPE_TYPES[:-1]))}); a loader refuses the model or "
                          "drops the scaling.")
        elif (accepted := reading.fields.family.rope_types) and reading.family_type(scaling) not in accepted:
            renamed = (" (" + ", ".join(f"{old!r} read as {new!r}" for old, new in aliases.items()) + ")"
                       if aliases else "")
            yield Finding("error", f"{where}.{key}",
                          f"{where}.{key} is {rope_type!r}, but {reading.fields.family.class_name} accepts only "
                          f"{' and '.join(map(repr, accepted))}{renamed}: transformers 5.23 builds no model of this "
                          f"config. posenc draws it as a {rope_type} scaling.")


def v4_and_v5_keys(reading: Reading) -> Iterator[Finding]:
    """A v4 key beside the v5 key a loader reads instead, holding another value."""
    raw = reading.fields.raw
    scaling, parameters = raw.get("rope_scaling"), raw.get("rope_parameters")
    if isinstance(scaling, Mapping) and scaling and isinstance(parameters, Mapping) and parameters \
            and dict(scaling) != dict(parameters):
        yield Finding("error", reading.path("rope_parameters"),
                      "the config has both v4's rope_scaling and v5's rope_parameters, and they differ: transformers "
                      "5.23 reads rope_scaling and ignores rope_parameters, while a v5-only reader takes "
                      "rope_parameters; keep one.")
    for where, params in reading.scalings:
        if "type" in params and "rope_type" in params and params["type"] != params["rope_type"]:
            yield Finding("error", f"{where}.type",
                          f"{where} has type {_shown(params['type'])} and rope_type {_shown(params['rope_type'])}: "
                          "transformers reads rope_type, loaders written for v4's type read the other.")
        top = reading.number(raw, "rope_theta")
        inner = reading.number(params, "rope_theta")
        if top is not None and inner is not None and top != inner and where.split(".")[-1] not in KNOWN_LAYER_TYPES:
            yield Finding("error", f"{where}.rope_theta",
                          f"rope_theta is {top:g} {reading.level()} but {inner:g} in {where}: transformers 5.23 uses "
                          f"{inner:g}, a v4 loader {top:g}.")


def unread_original(reading: Reading) -> Iterator[Finding]:
    """Two original contexts, the top level's and a scaling's, that differ; for a scaling that reads one (llama3,
    YaRN, LongRoPE), the one transformers 5.23 does not compute with (:func:`~posenc.models.config.trained_context`):
    the scaling's where the config has a field of its own (its top level's, Phi-3's default), the top level's where
    the parameters are kept per layer type (Gemma 3, ModernBERT)."""
    top = reading.number(reading.fields.raw, TRAINED_CONTEXT)
    for where, params in reading.scalings:
        inner = reading.number(params, TRAINED_CONTEXT)
        if reading.reads_trained_context(params):
            yield from _unread_original(reading, where, params, top, inner)
        elif top is not None and inner is not None and top != inner:
            yield Finding("warning", f"{where}.{TRAINED_CONTEXT}",
                          f"{TRAINED_CONTEXT} is {top:g} {reading.level()} but {inner:g} in {where}: they should "
                          "agree (this scaling reads neither in transformers 5.23).")


def _unread_original(reading: Reading, where: str, params: Mapping, top: float | None,
                     inner: float | None) -> Iterator[Finding]:
    used, source = reading.trained_context(where, params)
    if used is None:
        return
    if inner is not None and source == reading.path(TRAINED_CONTEXT) and inner != used:
        whose = "the top level's" if top is not None else f"{reading.fields.family.class_name}'s default"
        shown = ("" if TRAINED_CONTEXT in reading.fields.family.defaults else
                 f", though config.rope_parameters shows {inner:g} until the model is built")
        yield Finding("warning", f"{where}.{TRAINED_CONTEXT}",
                      f"{TRAINED_CONTEXT} is {inner:g} in {where} but {used:g} as the config's own field "
                      f"({whose}): transformers 5.23 computes with {used:g} (its rope functions read the config's "
                      f"field over {where}'s{shown}). Keep one, the context the model was trained on.")
    if top is not None and source != reading.path(TRAINED_CONTEXT) and top != used:
        read = (f"reads {where}'s {used:g}" if inner is not None else
                f"takes max_position_embeddings ({used:g}) for it, as {where} gives none")
        family, name = reading.fields.family, reading.fields.family.class_name or "this class"
        why = (f"{name} keeps its RoPE parameters per layer type" if family.per_layer_parameters
               else f"{name} takes only its own fields from the top level of a {reading.fields.model_type} config")
        yield Finding("warning", reading.path(TRAINED_CONTEXT),
                      f"{TRAINED_CONTEXT} is {top:g} {reading.level()}, which transformers 5.23 does not read ({why}): "
                      f"it {read}. State the context the model was trained on in {where}.")


_TRAINED_CONTEXT_SETS = {"llama3": "the bands L₀/high_freq_factor and L₀/low_freq_factor",
                         "yarn": "the ramp (which pairs turn beta_fast to beta_slow times over L₀)",
                         "longrope": "where the long factors take over from the short (sequences longer than L₀)"}
"""What the trained context L₀ sets in each scaling that reads it (transformers' defaults: max_position_embeddings)."""


def factor_and_lengths(reading: Reading) -> Iterator[Finding]:
    """factor × original context = max_position_embeddings (linear, YaRN); the original shorter. Dynamic NTK reads
    no original context (transformers scales past max_position_embeddings); llama3, YaRN and LongRoPE without one
    take max_position_embeddings as it."""
    context = reading.context()
    for where, params in reading.scalings:
        rope_type, factor = reading.rope_type(params), reading.number(params, "factor")
        reads = reading.reads_trained_context(params)
        if reads:
            original, field = reading.trained_context(where, params)
        else:  # the one the config states: a scaling that reads none is checked against it
            original, field = reading.number(params, TRAINED_CONTEXT), f"{where}.{TRAINED_CONTEXT}"
            if original is None:
                original, field = reading.number(reading.fields.raw, TRAINED_CONTEXT), reading.path(TRAINED_CONTEXT)
        if context is None:
            continue
        if rope_type == "dynamic":
            if original is not None and original != context:
                yield Finding("warning", field,
                              f"{where} is dynamic NTK, which reads no original_max_position_embeddings in "
                              f"transformers 5.23: it keeps the trained frequencies up to max_position_embeddings "
                              f"({context}) and raises θ only past it, not past {original:g}. If the model was "
                              f"trained on {original:g} tokens, max_position_embeddings should say {original:g}.")
            continue
        if reads and field == "max_position_embeddings":
            if reading.number(reading.fields.raw, TRAINED_CONTEXT) is None:  # else _unread_original says so
                sets = _TRAINED_CONTEXT_SETS[reading.family_type(params)]
                yield Finding("warning", f"{where}.{TRAINED_CONTEXT}",
                              f"{where} ({rope_type}) gives no {TRAINED_CONTEXT}, nor does the top level: "
                              f"transformers 5.23 then takes max_position_embeddings ({context}) for the context "
                              f"the model was trained on and sets {sets} by it. State the context the model was "
                              "trained on.")
            continue  # L₀ is the context: the checks below have nothing to compare
        if factor is None or original is None or original <= 0:
            continue
        if rope_type in ("linear", "yarn") and factor * original != context:
            yield Finding("warning", f"{where}.factor",
                          f"{where}.factor × original_max_position_embeddings = {factor:g} × {original:g} = "
                          f"{factor * original:g}, but max_position_embeddings is {context}: a {rope_type} scaling "
                          f"stretches the original context by its factor, so one of the three is likely wrong "
                          f"({context / original:g} would match).")
        if factor > 1 and original >= context:
            yield Finding("warning", f"{where}.original_max_position_embeddings",
                          f"{where} scales by {factor:g} from an original context of {original:g} tokens, but the "
                          f"model's context (max_position_embeddings) is {context}, no longer than it: either the "
                          "scaling extends nothing, or max_position_embeddings was not raised with it.")


def theta_given(reading: Reading) -> Iterator[Finding]:
    """No θ anywhere: transformers falls back to the class default (10,000 for most)."""
    model = reading.model
    if model is None or not any(get_scheme(p.scheme).family == "rotary" for p in model.positionals.values()):
        return
    fields = reading.fields
    named = ("rope_theta", "rotary_emb_base", *fields.family.theta_fields.values())
    listed = fields.family.layer_theta_field  # Granite SWA's θ of every layer
    if any(fields.raw.get(key) is not None for key in named) or (listed and fields.raw.get(listed) is not None):
        return
    if any("rope_theta" in params for _, params in reading.scalings):
        return
    bases = sorted({p.base for p in model.positionals.values() if p.base is not None})
    shown = " and ".join(map(readable, bases))
    path, node = text_node(reading.config)  # where the language model's θ would be: a composite's text_config
    where = ".".join(path)
    field, gives = (where, f"the file gives no {where} (so no rope_theta)") if node is NO_TEXT_CONFIG else \
        (f"{where}.rope_theta", f"{where} gives no rope_theta") if path else ("rope_theta", "the config gives no rope_theta")
    if any(key in fields.family.defaults for key in named) or fields.family.default_parameters:  # Gemma 4's own
        yield Finding("info", field, f"{gives}; {fields.family.class_name} takes its default, θ base {shown}.")
    else:
        yield Finding("warning", field,
                      f"{gives}, so transformers falls back to {shown}; a model trained with "
                      "another base (500,000 for Llama 3, 1,000,000 for Qwen) would be read with the wrong "
                      "frequencies. State it.")


def theta_not_reached(reading: Reading) -> Iterator[Finding]:
    """A top-level θ that a class does not give some of its layer types (OLMo 3's sliding-window layers keep the
    class's default, transformers 5.23 computing them so): said, with the θ those layers turn at."""
    fields, model = reading.fields, reading.model
    given = reading.number(fields.raw, "rope_theta")
    if model is None or given is None:
        return
    unread = [t for t, name in fields.family.theta_fields.items() if name == "" and t in model.layer_types]
    rotating = [t for t, p in model.positionals.items() if get_scheme(p.scheme).family == "rotary"]
    if unread and all(t in unread and model.positional(t).base != given for t in rotating):
        turns = ", ".join(f"{t} θ {readable(model.positional(t).base)}" for t in unread)
        yield Finding("info", reading.path("rope_theta"),
                      f"{fields.family.class_name} reads no rope_theta ({readable(given)}): its layers turn at the θ of "
                      f"its RoPE parameters ({turns}).")
        return
    own = "their RoPE parameters' own" if fields.family.v5_only else "the class's own"
    for layer_type in unread:
        if model.positional(layer_type).base != given:
            yield Finding("info", "rope_theta",
                          f"{fields.family.class_name} gives rope_theta ({readable(given)}) to its other layers only: its "
                          f"{layer_type} layers turn at θ {readable(model.positional(layer_type).base)}, {own}.")


def fixed_frequencies(reading: Reading) -> Iterator[Finding]:
    """GPT-J and CodeGen rotate at θ 10,000 with no scaling, in their code: their classes read no θ and no RoPE
    parameters (transformers 5.23), so one in the file changes nothing the model computes."""
    fields = reading.fields
    if not fields.family.rotary_dim or reading.model is None:
        return
    for key in ("rope_theta", "rotary_emb_base", "rope_scaling", "rope_parameters"):
        if fields.raw.get(key) is not None:
            yield Finding("error", reading.path(key),
                          f"{fields.family.class_name} does not read {key}: its code rotates rotary_dim dimensions of "
                          "each head at θ 10,000 with no scaling, whatever the file says, and so does posenc.")


def longrope_lists(reading: Reading) -> Iterator[Finding]:
    """LongRoPE's short and long lists: one factor per rotated pair."""
    for where, params in reading.scalings:
        pairs = _rotated_pairs(reading, params)
        if pairs is None:
            continue
        for key in ("short_factor", "long_factor"):
            values = params.get(key)
            if isinstance(values, list) and len(values) != pairs:
                yield Finding("error", f"{where}.{key}",
                              f"{where}.{key} has {len(values)} entries, but the head rotates {2 * pairs} dimensions, "
                              f"{pairs} pairs, one factor each: the frequencies cannot be computed.")


def mrope_sections(reading: Reading) -> Iterator[Finding]:
    """M-RoPE's sections split the rotated pairs: they must add up to half the rotated width. A class with a section
    of its own (:attr:`~posenc.models.families.Family.default_section`) splits them by it where the parameters give
    none: transformers 5.23 cannot build its model when that one does not fit (ERNIE 4.5 VL's rotary embedding
    assigns the frequencies section by section); a class that requires one of a file's parameters (Cosmos3-Edge)
    refuses them without it."""
    default = list(reading.fields.family.default_section)
    if reading.fields.family.section_required:  # Cosmos3-Edge: any parameters the file gives, an empty dict too
        for name in ("rope_parameters", "rope_scaling"):
            given = reading.fields.raw.get(name)
            if isinstance(given, Mapping) and "mrope_section" not in given:
                yield Finding("error", f"{reading.path(name)}.mrope_section",
                              f"{name} gives no mrope_section, which {reading.fields.family.class_name} requires of "
                              "RoPE parameters a file gives (its own, with their sections, are set only where it "
                              "gives none): transformers 5.23 refuses the config. posenc draws it with the class's "
                              "sections.")
                return
    for where, params in reading.scalings or ([(reading.path("rope_parameters"), {})] if default else []):
        pairs = _rotated_pairs(reading, params)
        section = params.get("mrope_section", default or None)
        if pairs is None or not isinstance(section, list) or not all(isinstance(v, int) for v in section):
            continue
        if sum(section) == pairs:
            continue
        if "mrope_section" in params:
            yield Finding("error", f"{where}.mrope_section",
                          f"{where}.mrope_section {section} adds up to {sum(section)} pairs, but the head rotates "
                          f"{2 * pairs} dimensions, {pairs} pairs: the frame, row and column sections must cover "
                          "them exactly.")
        else:
            yield Finding("error", f"{where}.mrope_section",
                          f"The config gives no mrope_section, so {reading.fields.family.class_name}'s model splits "
                          f"the frequencies by its own, {section}: {sum(section)} pairs, but the head rotates "
                          f"{2 * pairs} dimensions, {pairs} pairs, and transformers 5.23 cannot build the model. "
                          f"Give {where}.mrope_section, sections that add up to {pairs}.")


def rotary_width(reading: Reading) -> Iterator[Finding]:
    """A partial rotary width must be even (RoPE turns pairs of dimensions); a share of a head given to a class
    that rotates whole heads is ignored under default RoPE (under a scaling, from_config refuses it)."""
    fields = reading.fields
    try:
        head_dim = fields.head_dim()
    except ValueError:
        return
    share = fields.family.partial_field
    if share == "":  # MiMo-V2-Flash: its share is its RoPE parameters' (an odd width is refused by from_config)
        given = reading.number(fields.raw, "partial_rotary_factor")
        scaled = any(reading.family_type(params) not in ("default", None) for _, params in reading.scalings)
        if given is not None and not scaled:  # (a scaling copies it into every layer type's parameters: read)
            default = fields.family.default_share
            unless = ("the whole head" if default == 1 else
                      f"{default:g} of a head under its default RoPE, the whole head under a scaling")
            yield Finding("warning", reading.path("partial_rotary_factor"),
                          f"partial_rotary_factor is {given:g}, which {fields.family.class_name} does not read at the "
                          "top level under default RoPE: it rotates the share each layer type's RoPE parameters give "
                          f"(else {unless}). Move it into them.")
        return
    if fields.family.head_share:  # Mistral 4: its share sets its frequencies' width (from_config refuses another)
        return
    if share is None:
        if reading.model is not None:
            yield from _ignored_shares(reading)
    else:  # the top level's share, and a scaling's own, which wins over it for that scaling
        for field, fraction in _shares(reading, share):
            if fraction is not None and 0 < fraction <= 1 and int(head_dim * fraction) % 2:
                yield Finding("error", field,
                              f"{field.split('.')[-1]} {fraction:g} of a {head_dim}-dimensional head rotates "
                              f"int({head_dim} × {fraction:g}) = {int(head_dim * fraction)} dimensions, an odd number: "
                              "RoPE turns pairs, so one dimension has no partner.")
    rotary_dim = reading.number(fields.raw, "rotary_dim")
    if rotary_dim is not None and rotary_dim % 2:
        yield Finding("error", reading.path("rotary_dim"),
                      f"rotary_dim is {rotary_dim:g}, an odd number: RoPE turns pairs of dimensions.")


def _shares(reading: Reading, top: str) -> list[tuple[str, float | None]]:
    """(dotted field, share of a head) of the top level's ``top`` field and of each scaling's partial_rotary_factor."""
    return [(reading.path(top), reading.number(reading.fields.raw, top))] + [
        (f"{where}.partial_rotary_factor", reading.number(params, "partial_rotary_factor"))
        for where, params in reading.scalings if reading.rope_type(params) != "proportional"]  # p-RoPE reads its own


def _ignored_shares(reading: Reading) -> Iterator[Finding]:
    """A share of a head, at the top level or in a scaling, given to a class that rotates whole heads."""
    fields = reading.fields
    for field, given in _shares(reading, "partial_rotary_factor"):
        if given is not None and given != 1:
            yield Finding("warning", field,
                          f"{field} is {given:g}, but {fields.family.class_name} takes no share of a head to rotate: "
                          "transformers 5.23 ignores it under default RoPE and rotates "
                          + ("all qk_rope_head_dim dimensions" if fields.has("qk_rope_head_dim") else "the whole head")
                          + " (a scaling would fail at the first forward pass). Remove it, or use a model_type whose "
                          "class rotates part of a head.")


def head_width(reading: Reading) -> Iterator[Finding]:
    """hidden / heads must be whole when no head_dim is given; an explicit head_dim that differs is news, or unread
    by a class that derives its own (DeepSeek-OCR 2)."""
    raw = reading.fields.values
    hidden, heads = reading.number(raw, "hidden_size"), reading.number(raw, "num_attention_heads")
    if hidden is None or heads is None or heads <= 0:
        return
    head_dim = reading.number(raw, "head_dim")
    if head_dim is None and hidden % heads:
        yield Finding("warning", reading.path("num_attention_heads"),
                      f"hidden_size {hidden:g} / num_attention_heads {heads:g} = {hidden / heads:g} is not whole and "
                      f"the config gives no head_dim: transformers takes {int(hidden // heads)} dimensions per head, "
                      "and the projections will not fit.")
    elif head_dim is not None and head_dim != hidden // heads and reading.fields.family.head_dim_ignored:
        yield Finding("warning", reading.path("head_dim"),
                      f"head_dim is {head_dim:g}, which {reading.fields.family.class_name} does not read: it sets "
                      f"head_dim to hidden_size // num_attention_heads = {int(hidden // heads)}, as posenc draws.")
    elif head_dim is not None and head_dim != hidden / heads and "qk_rope_head_dim" not in raw and not (
            reading.fields.family.derived_heads):  # (Chameleon's: refused, from_config's error says why)
        yield Finding("info", reading.path("head_dim"),
                      f"head_dim is {head_dim:g}, not hidden_size / num_attention_heads = {hidden / heads:g}: the "
                      "rotation uses head_dim (as Gemma and Qwen3 intend).")


def llama3_bands(reading: Reading) -> Iterator[Finding]:
    """llama3's bands: low_freq_factor below high_freq_factor, or no band in between."""
    for where, params in reading.scalings:
        if reading.rope_type(params) != "llama3":
            continue
        low, high = reading.number(params, "low_freq_factor"), reading.number(params, "high_freq_factor")
        if low is None or high is None:
            continue
        if low > high:
            yield Finding("error", f"{where}.low_freq_factor",
                          f"{where}.low_freq_factor {low:g} is above high_freq_factor {high:g}: the smoothing "
                          "(L₀/λ − low)/(high − low) divides by a negative number and the middle band turns "
                          "the wrong way.")
        elif low == high:
            yield Finding("info", f"{where}.low_freq_factor",
                          f"{where}.low_freq_factor = high_freq_factor = {low:g}: there is no band in between; every "
                          f"pair is kept or divided by the factor (as Llama 4 Scout intends).")


def yarn_betas(reading: Reading) -> Iterator[Finding]:
    """YaRN's beta_fast above beta_slow: the ramp runs from the fast pairs to the slow ones."""
    for where, params in reading.scalings:
        if reading.rope_type(params) != "yarn":
            continue
        fast = reading.number(params, "beta_fast") or 32.0  # transformers: `get("beta_fast") or 32`
        slow = reading.number(params, "beta_slow") or 1.0
        if fast < slow:
            yield Finding("error", f"{where}.beta_fast",
                          f"{where}.beta_fast {fast:g} is below beta_slow {slow:g}: YaRN's ramp between the pairs that "
                          "turn beta_fast times and those that turn beta_slow times over the original context runs "
                          "backwards.")
        elif fast == slow:
            yield Finding("warning", f"{where}.beta_fast",
                          f"{where}.beta_fast = beta_slow = {fast:g}: YaRN's ramp has no width, so every pair is "
                          "either kept or interpolated, with a jump between them.")


def layer_count(reading: Reading) -> Iterator[Finding]:
    """layer_types lists one type per layer."""
    raw = reading.fields.raw
    types, count = raw.get("layer_types"), reading.number(raw, "num_hidden_layers")
    if isinstance(types, list) and count is not None and len(types) != count:
        yield Finding("error", reading.path("layer_types"),
                      f"layer_types lists {len(types)} layers but num_hidden_layers is {count:g}: transformers refuses "
                      "the config, or some layers get no type.")


def window_length(reading: Reading) -> Iterator[Finding]:
    """A sliding window at or past the context (one either side of the query: past context − 1) never masks anything
    (unless ``use_sliding_window`` turns it off, in a
    class that reads that field: Mistral's and Phi-3's window every layer whatever it says)."""
    family = reading.fields.family
    name = window_field(reading.fields)  # MiMo-V2-Flash's sliding_window_size when given: keys before the query
    window, context = reading.number(reading.fields.raw, name), reading.context()
    switched_off = reading.fields.get("use_sliding_window") is False and family.windows != "sliding_window"
    if window is None or context is None or switched_off or _windows_no_layer(reading):
        return  # (no layer applies it: window_not_applied says so, and what the cache does)
    effective = window_keys(reading.fields, int(window), name)
    stated = f"{name} is {window:g}" + (f" (a window of {effective:g} keys, the query's own included)"
                                        if name == family.window_plus_one else "")
    if never_masks(reading.fields, effective, context):
        causal = reading.model.causal if reading.model is not None else family.causal
        reach = ("at or past the context" if causal else  # ModernBERT's, Gemma 3's both ways: keys either side
                 f"{effective:g} keys either side of a query, reaching across the context")
        yield Finding("warning", reading.path(name),
                      f"{stated}, {reach} of {context} tokens: the window never masks a "
                      "key, so these layers attend like full attention (probably not what was meant, or the "
                      "context is wrong).")


def ntk_alpha(reading: Reading) -> Iterator[Finding]:
    """HunYuan's "dynamic" scaling with an alpha is NTK-α, a θ stretched once for every length, not dynamic NTK:
    said with the numbers, since the views' θ is not the file's."""
    model = reading.model
    stretched = [p for p in model.positionals.values() if p.extra.get("ntk_alpha")] if model is not None else []
    if not stretched:
        return
    alpha = stretched[0].extra["ntk_alpha"][1]
    where = next((where for where, scaling in reading.scalings if scaling.get("alpha")), "rope_scaling")
    yield Finding("info", f"{where}.alpha",
                  f"{where} is 'dynamic' with alpha {readable(alpha)}, which {reading.fields.family.class_name} "
                  f"computes as NTK-α: default RoPE at θ·α^(d/(d − 2)) = {ntk_alpha_derivation(stretched[0])} at "
                  "every length, not dynamic NTK.")


def window_not_applied(reading: Reading) -> Iterator[Finding]:
    """A window given to a class whose model applies none (Llama's, Qwen3-VL's, Moshi's: windows "none"), where no
    layer_types makes a layer sliding_attention: every layer attends to the whole context in one forward pass, while
    a decoder's cache, where it reads the window (:attr:`Family.cache_windows`), windows generation."""
    fields, model = reading.fields, reading.model
    name = fields.family.window_field[0]
    window, default = reading.number(fields.raw, name), ""
    if model is not None and window is None and name in fields.family.defaults and fields.raw.get(name, 0) is not None:
        window, default = reading.number(fields.family.defaults, name), " (its class's default)"  # Kyutai's 375
        if window is not None and window >= model.context_length:
            return  # (Moshi's 3000, its context: the paths agree on every text it takes)
    if window is None or not _windows_no_layer(reading):
        return
    cache = ""
    if model.causal and fields.family.cache_drops_keys and _keeps(window) and fields.raw.get("layer_types") is None:
        cache = _through_the_cache(reading, window, " Its cache does read it: transformers 5.23's DynamicCache keeps "
                                                    f"the last {window - 1:g} keys of each layer")
    yield Finding("warning", reading.path(name),
                  _applied_nowhere(f"{name} is {window:g}{default}", fields.family.class_name, "sliding_attention")
                  + cache)


def _windows_no_layer(reading: Reading) -> bool:
    """Whether the class's model applies no window in one forward pass (windows "none": Llama's, GPT-2's) and none of
    its layers is windowed (no sliding_attention layer, no windowed positions: a windowed NoPE)."""
    model = reading.model
    return (model is not None and reading.fields.family.windows == "none" and "sliding_attention" not in
            model.layer_types and all(positional.window is None for positional in model.positionals.values()))


def _applied_nowhere(given: str, class_name: str, kind: str) -> str:
    """The sentence of a window field that no layer of the model applies in one forward pass ("sliding_window is
    4096", no sliding_attention layer), as posenc draws it; its cache's is the caller's."""
    return (f"{given}, but no layer of {class_name}'s model is {kind}, so its forward pass applies it nowhere: every "
            "layer attends to the whole context, as posenc draws it.")


def _keeps(window: float) -> bool:
    """Whether a window is one transformers 5.23's DynamicCache keeps keys by: a whole number above 0."""
    return window >= 1 and window == int(window)


def chunk_not_applied(reading: Reading) -> Iterator[Finding]:
    """An attention_chunk_size given to a class that chunks no layer and whose cache windows (:attr:`Family.
    cache_windows`: Llama's, OLMo's, ...), with no layer_types and no sliding_window (the file's or its class's,
    which the cache reads first): one forward pass applies it nowhere, while transformers 5.23's DynamicCache makes
    every layer chunked_attention, windowed by it as a sliding layer is (``get_layer_types_and_kwargs``)."""
    fields, model = reading.fields, reading.model
    chunk = reading.number(fields.raw, "attention_chunk_size")
    if (model is None or chunk is None or not model.causal or not fields.family.cache_drops_keys
            or fields.raw.get("layer_types") is not None or not _keeps(chunk)
            or set(model.layer_types) != {"full_attention"}):
        return
    if (fields.raw.get("sliding_window") if "sliding_window" in fields.raw
            else fields.family.defaults.get("sliding_window")) is not None:
        return  # (the cache windows by sliding_window then: window_not_applied says so)
    kept = (" Its cache does read it: transformers 5.23's DynamicCache makes every layer chunked_attention and keeps "
            f"its last {chunk - 1:g} keys, as of a sliding window")
    yield Finding("warning", reading.path("attention_chunk_size"),
                  _applied_nowhere(f"attention_chunk_size is {chunk:g}", fields.family.class_name,
                                   "chunked_attention") + _through_the_cache(reading, chunk, kept))


_FARTHER_BACK = ("biases each as farther back than it is by as many tokens as the cache has dropped (T5's buckets "
                 "number the keys from the first one kept, the query from the text's first token)")
"""What a cache that has dropped keys does to T5's buckets (Pix2Struct's: :attr:`Family.cache_windows` false)."""


def _through_the_cache(reading: Reading, window: float, kept: str) -> str:
    """What generating token by token does through a cache that keeps the last ``window`` − 1 keys (``kept`` says
    so), where the forward pass applies the window nowhere (:attr:`Family.cache_drops_keys`): it fails (Falcon's
    ALiBi, :func:`_cache_fails`); it attends as a window would (:attr:`Family.cache_windows`); or, of T5's buckets,
    it reads each key it keeps as farther back than it is, by as many tokens as it has dropped (it numbers them from
    the first kept, and the query from the text's first token). None of which a text within the model's context
    meets where the window is at least that context: the cache drops a key only once a text is longer than the
    window."""
    if window >= reading.model.context_length:
        return f"{kept}, {_drops_none(reading, window)}"
    if fails := _cache_fails(reading, window):
        return f"{kept}, {fails}"
    disagree = f"and the model's two paths disagree on any text longer than {window:g} tokens."
    if not reading.fields.family.cache_windows:
        return (f"{kept}, so text generated token by token through it attends to the last {window:g} only, and "
                f"{_FARTHER_BACK}, {disagree}")
    return (f"{kept}, so text generated token by token through it attends to the last {window:g} only, as a window "
            f"would, {disagree}")


def _drops_none(reading: Reading, window: float) -> str:
    """The clause of a cache keeping the last ``window`` − 1 keys of a layer where the window is at least the model's
    context: it drops no key of a text the model takes, so token by token it attends as one forward pass does."""
    return (f"so it drops no key of a text of up to {window:g} tokens: within the model's context of "
            f"{reading.model.context_length:g} tokens, generating token by token through it attends as one forward "
            "pass does.")


def _cache_fails(reading: Reading, window: float) -> str:
    """The clause saying that generating through a cache keeping the last ``window`` − 1 keys fails, where the class
    fails under the config's scheme once its cache drops a key (:attr:`Family.cache_fails_under`: Falcon's ALiBi);
    "" elsewhere."""
    schemes = {positional.scheme for positional in reading.model.positionals.values()}
    if not schemes & set(reading.fields.family.cache_fails_under):
        return ""
    return (f"and generating through it fails at the first token past {window:g} (a size mismatch between its ALiBi "
            "bias, built for every token of the text, and the keys the cache keeps).")


def layer_types_not_read(reading: Reading) -> Iterator[Finding]:
    """A file's layer_types that its class's model does not read (Llama's, OLMo's: no window anywhere; Mistral's,
    Phi-3's, Qwen3-MoE's: their own rule on every layer), where it lists other layers than the model attends with."""
    fields, model = reading.fields, reading.model
    given = fields.raw.get("layer_types")
    if model is None or fields.family.reads_layer_types or not isinstance(given, list) or list(
            given) == list(model.layer_types):
        return
    listed, drawn = _counted(given), _counted(model.layer_types)
    severity, cache = _cache_reads_the_list(reading, given)
    yield Finding(severity, reading.path("layer_types"),
                  f"layer_types lists {listed} layers, which {fields.family.class_name}'s model in transformers 5.23 "
                  f"does not read in its forward pass: its layers are {drawn} by its class's own rule, as posenc "
                  f"draws them.{cache}")


def _counted(kinds: list) -> str:
    """"2 full_attention, 1 sliding_attention": each kind in the order first listed; a kind that is no string (a
    file's mistake) is written as JSON, so a list of any JSON counts (a list in the list is no key)."""
    names = [kind if isinstance(kind, str) else json.dumps(kind) for kind in kinds]
    return ", ".join(f"{names.count(name)} {name}" for name in dict.fromkeys(names))


_CACHE_WINDOWS = {"sliding_attention": "sliding_window", "chunked_attention": "attention_chunk_size"}
"""The layer types transformers 5.23's DynamicCache windows, each with the field its window is read from
(``get_layer_types_and_kwargs``): it keeps the last window − 1 keys of either kind, a chunk as a sliding window."""


def _cache_reads_the_list(reading: Reading, given: list) -> tuple[Severity, str]:
    """What a decoder's cache does with a ``layer_types`` its forward pass ignores (transformers 5.23's DynamicCache
    reads the list, keeping the last window − 1 keys of a sliding_attention layer, the config's own
    ``sliding_window``: the file's, else the class's, and of a chunked_attention one, its ``attention_chunk_size``):
    without a window it cannot be built (an error); a list whose layers keep different numbers of keys (full and
    windowed, or two windows) fails at the first token past the window (the mask fits one layer's keys), but under
    sdpa where the class has it (not ``eager_only``), builds no mask for a step (its own layers all full, not
    ``masks_every_step``) and so attends to every key the cache holds, its windowed layers seeing their window; one
    of one window only windows every layer; nothing for one of full layers only (the model's own masks then hold),
    another list, or a class whose cache is not known (rotary classes, GPT-Neo and those of
    :attr:`Family.cache_drops_keys` are). T5's buckets (Pix2Struct's) add one position bias, shared by every layer:
    a list of two kinds fails under sdpa too, and one of one window biases each key farther back than it is
    (:func:`_through_the_cache`)."""
    fields, model = reading.fields, reading.model
    family = fields.family
    if not all(kind in ("full_attention", *_CACHE_WINDOWS) for kind in given):  # (== each: a list is no key)
        return "warning", ""
    windowed = list(dict.fromkeys(kind for kind in given if kind in _CACHE_WINDOWS))
    if not model.causal or not (family.cache_drops_keys or get_scheme(family.scheme).family == "rotary"
                                or family.windows == "gpt_neo") or not windowed:
        return "warning", ""
    windows = {kind: _cache_window(reading, kind) for kind in windowed}
    missing = [kind for kind in windowed if windows[kind] is None]
    if missing:
        return "error", (" Its cache does read the list, and finds no " + " and no ".join(
            f"{_CACHE_WINDOWS[kind]} for its {kind} layers" for kind in missing) + ": transformers 5.23 fails to "
            "build it, so the model cannot generate. Give " + " and ".join(_CACHE_WINDOWS[kind] for kind in missing)
            + ", or list full_attention layers.")
    kept = " and ".join(f"the last {windows[kind] - 1:g} keys on the {kind} layers" for kind in windowed)
    seen = " and ".join(f"the last {windows[kind]:g} keys on the {kind} layers" for kind in windowed)
    if len(windowed) == 1:
        kept, seen = f"{kept} only", f"the last {windows[windowed[0]]:g} keys on those layers"
    buckets = family.cache_drops_keys and not family.cache_windows  # (T5's: one bias, shared by the layers)
    if "full_attention" in given or len(set(windows.values())) > 1:
        first = min(windows.values())
        if first >= model.context_length:  # (no layer drops a key of a text within the context: none differ)
            return "warning", f" Its cache does read the list, keeping {kept}, {_drops_none(reading, first)}"
        maskless = not (family.eager_only or family.masks_every_step) and set(model.layer_types) == {"full_attention"}
        if not maskless or buckets:
            shared = "the position bias its layers share" if buckets else "its mask"
            return "warning", (f" Its cache does read the list, keeping {kept}, and generating through it fails at "
                               f"the first token past {first:g} (a size mismatch between {shared} and one kind of "
                               "layer's keys).")
        return "warning", (f" Its cache does read the list, keeping {kept}: text generated token by token through it "
                           f"attends to {seen} under sdpa attention (the class's default), and fails at the first "
                           f"token past {first:g} under eager attention (a size mismatch between its mask and one "
                           "kind of layer's keys).")
    if "full_attention" not in model.layer_types:
        return "warning", ""
    window = windows[windowed[0]]
    if window >= model.context_length:
        return "warning", (f" Its cache does read the list, keeping the last {window - 1:g} keys of every layer, "
                           f"{_drops_none(reading, window)}")
    farther = f", and {_FARTHER_BACK}" if buckets else ""
    return "warning", (f" Its cache does read the list, keeping the last {window - 1:g} keys of every layer, so text "
                       f"generated token by token through it attends to the last {window:g} keys only on every "
                       f"layer{farther}.")


def _cache_window(reading: Reading, kind: str) -> float | None:
    """The window the cache gives a listed layer of ``kind`` (:data:`_CACHE_WINDOWS`): the file's field, else its
    class's default; None where there is none, or it is no whole number above 0."""
    fields, field = reading.fields, _CACHE_WINDOWS[kind]
    window = reading.number(fields.raw, field) if field in fields.raw else reading.number(
        fields.family.defaults, field)  # (GPTNeoConfig has no sliding_window: its window is window_size)
    if kind == "sliding_attention" and fields.family.windows == "qwen3_moe" and fields.get(
            "use_sliding_window") is not True:
        return None  # (Qwen3MoeConfig nulls it)
    return window if window is not None and _keeps(window) else None


def sliding_without_window(reading: Reading) -> Iterator[Finding]:
    """Sliding-window layers (listed, or by the family's pattern) with no window: transformers 5.23 builds the
    config and fails at the first forward pass (its mask needs a window: checked on two-layer Gemma 2, Gemma 3,
    gpt-oss, Qwen2, Qwen3 and Mistral models)."""
    model = reading.model
    if model is None or "sliding_attention" not in model.layer_types:
        return
    if model.positional("sliding_attention").window is not None:
        return
    fields = reading.fields
    name, count = window_field(fields), model.layer_types.count("sliding_attention")
    given, remedy = f"{name} is null" if name in fields.raw else f"the config gives no {name}", "Give the window"
    if fields.family.windows == "qwen" and reading.number(fields.raw, name) is not None:  # (Qwen2's class)
        given = f"use_sliding_window is not true, so {fields.family.class_name} sets {name} to null"
        remedy = "Set use_sliding_window"
    yield Finding("error", reading.path(name),
                  f"{count} {'layer is' if count == 1 else 'layers are'} sliding_attention but {given}: "
                  f"transformers 5.23 fails at the model's first forward pass (the mask needs a window). {remedy}, "
                  "or make those layers full_attention.")


def parameters_per_layer_type(reading: Reading) -> Iterator[Finding]:
    """What transformers 5.23 does not read of RoPE parameters and layer types
    (:func:`~posenc.models.config.rope_parameters`): parameters nested by layer type, given to a class that reads one
    flat dict and has no layer_types (a class with them fails: from_config names that); in the classes that keep them
    per layer type (Gemma 3, ModernBERT), a ``rope_scaling`` nested by layer type or naming its type by v4's ``type``
    (both merged under the class's own rope_type 'default') and a flat v5 ``rope_parameters`` Gemma 3 ignores
    (ModernBERT refuses it); in any parameters read per layer type, YaRN's ``truncate``, read from the outer dict."""
    family = reading.fields.family
    name = family.class_name or "this class"
    for where, params in reading.scalings:
        nested = where.split(".")[-1] in KNOWN_LAYER_TYPES
        outer = where.rsplit(".", 1)[0] if nested else where
        key = outer.split(".")[-1]
        if nested and not family.reads_nested(key):  # "refused": from_config names it
            if family.nested_parameters == "ignored":
                yield Finding("error", outer,
                              f"{outer} is nested by layer type, but {name} reads one flat dict of RoPE parameters: "
                              "transformers 5.23 reads none of the nested ones and computes default RoPE. Write one "
                              f"flat {key}.")
            elif family.per_layer_parameters:
                yield Finding("error", outer,
                              f"{outer} is nested by layer type, but {name} merges a rope_scaling into its own "
                              "parameters as one flat dict: transformers 5.23 reads none of the nested ones and "
                              "computes default RoPE. Name it rope_parameters (v5), or write one flat rope_scaling "
                              "(v4).")
            continue
        if not (nested or family.per_layer_parameters):  # one flat dict, read as one
            continue
        if not nested and key == "rope_parameters" and family.flat_parameters == "ignored":
            yield Finding("error", where,
                          f"{where} is flat, but {name} keeps its RoPE parameters per layer type: transformers "
                          "5.23 does not read a flat rope_parameters and computes default RoPE on every layer "
                          "type. Nest it under full_attention, or name it rope_scaling.")
            continue
        stated = params.get("type")
        if not nested and "rope_type" not in params and stated in KNOWN_ROPE_TYPES and stated not in ("default",
                                                                                                      "mrope"):
            factor = reading.number(params, "factor")
            shown = f" (factor {factor:g})" if factor is not None else ""
            yield Finding("error", f"{where}.type",
                          f"{where}.type is {stated!r}, but {name} merges {key} into RoPE parameters of its own per "
                          "layer type, whose rope_type 'default' v4's 'type' does not replace: transformers 5.23 "
                          f"drops the {stated} scaling{shown} and the model runs unscaled past its original context. "
                          "Write 'rope_type'.")
        if reading.family_type(params) == "yarn" and params.get("truncate") is False:
            yield Finding("warning", f"{where}.truncate",
                          f"{where}.truncate is false, which transformers 5.23 does not read in parameters kept per "
                          "layer type: YaRN reads truncate from the outer dict, which holds only layer types, so it "
                          "rounds the ramp's ends to whole pairs (truncate true). A loader that reads it computes "
                          "other frequencies.")


def unknown_family(reading: Reading) -> Iterator[Finding]:
    """A model_type posenc does not know is read from the file's fields alone: as a Llama-style decoder when it
    rotates, else by its scheme's fields (T5's buckets, ALiBi, a learned table); one transformers does not know, whose
    architectures names a class it has, as that class reads it (said here)."""
    fields = reading.fields
    if reading.model is not None and fields.architecture:
        whose = "" if fields.architecture_type == fields.model_type else "its language model with "  # (LLaVA's)
        yield Finding("info", "model_type",
                      f"model_type {_shown(fields.file_type)} is not one transformers 5.23 knows (a model with code of "
                      f"its own, loaded through auto_map); its architectures names {fields.architecture}, a class "
                      f"transformers has, so posenc reads the file as that class does: {whose}"
                      f"{fields.family.class_name}'s defaults and rules. Where the model's own code differs from that "
                      "class's, posenc's views can differ from the model.")
    if reading.model is None or fields.family.class_name:
        return
    named = "no model_type" if fields.model_type is None else f"model_type {_shown(fields.model_type)}"
    scheme = get_scheme(fields.scheme())
    if scheme.family != "rotary":
        ways = "both ways (BERT's kin: an encoder, unless is_decoder)" if not reading.model.causal else "causally"
        yield Finding("info", reading.path("model_type"),
                      f"{named} is not a family posenc knows: it reads this config as a model with {scheme.label}, "
                      f"attending {ways}, from the fields the file gives. Where its class in transformers has defaults "
                      "of its own for "
                      "fields the file leaves out, or attends in a way of its own (a local window, an offset of its "
                      "positions), posenc's views can differ from the model.")
        return
    yield Finding("info", reading.path("model_type"),
                  f"{named} is not a family posenc knows: it reads this config as a Llama-style decoder (RoPE over "
                  "the whole head in halves, θ 10,000 unless rope_theta, a window on every layer when "
                  "sliding_window), from the fields the file gives. Where its class in transformers has defaults "
                  "of its own for fields the file leaves out (a share of the head, head_dim, θ), posenc's views "
                  "can differ from the model.")


def sizes_from_class(reading: Reading) -> Iterator[Finding]:
    """Sizes the file leaves out (its depth, heads, width), which transformers 5.23 builds the model with from its
    class's defaults: said, with the values posenc draws (LLaVA-1.5's text_config, saved as what differs from
    LlamaConfig's defaults, gives none of them)."""
    fields = reading.fields
    if reading.model is None or not fields.family.class_name:
        return
    taken = []
    for names, what in ((LAYER_FIELDS, "layers"), (HEAD_FIELDS, "heads"), (WIDTH_FIELDS, "wide")):
        name = next((name for name in names if fields.has(name)), None)  # the one read (a class's own name for it)
        own = fields.family.attribute_map.get(names[0])  # (BART's encoder_layers, XGLM's attention_heads)
        if name is not None and not any(fields.raw.get(key) is not None for key in (name, own) if key):
            value = fields.values[name]  # (a class's default: a whole number)
            taken.append((name, f"{value:,} {what}" if isinstance(value, int) else f"{_shown(value)} {what}"))
    if not taken:
        return
    path, node = text_node(reading.config)
    where = ".".join(path)
    given = f"the file gives no {where}" if node is NO_TEXT_CONFIG else \
        f"{where or 'the file'} gives no {_listed([name for name, _ in taken])}"
    field = where if node is NO_TEXT_CONFIG else ".".join(filter(None, (where, taken[0][0])))  # (where it would be)
    yield Finding("info", field,
                  f"{given}: transformers 5.23 builds the model with {fields.family.class_name}'s defaults, and "
                  f"posenc draws those: {', '.join(shown for _, shown in taken)}.")


def _listed(names: list[str]) -> str:
    """a, b or c."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def query_scale_parameters(reading: Reading) -> Iterator[Finding]:
    """A class that scales its queries by 1 + β·ln(1 + ⌊p/L₀⌋) from its RoPE parameters (Ministral 3, Mistral 4) given
    parameters without β (``llama_4_scaling_beta``) or L₀ (``original_max_position_embeddings``): its attention
    reads both at every forward pass."""
    family = reading.fields.family
    if not family.query_beta:
        return
    own = family.default_parameters or {}
    beta, original = _shown(own.get("llama_4_scaling_beta")), _shown(own.get(TRAINED_CONTEXT))
    for where, params in reading.scalings:
        for key in ("llama_4_scaling_beta", TRAINED_CONTEXT):
            if params.get(key) is None:
                yield Finding("error", f"{where}.{key}",
                              f"{where} gives no {key}: {family.class_name}'s attention multiplies each query at "
                              f"position p by 1 + β·ln(1 + ⌊p/L₀⌋), β its llama_4_scaling_beta and L₀ its "
                              f"{TRAINED_CONTEXT}, read from these parameters, so its model fails at its first "
                              f"forward pass (transformers 5.23). Give both (the class's own: {beta} and {original}).")


def outside_text_config(reading: Reading) -> Iterator[Finding]:
    """A positional field at the top level of a config whose language model's fields are in ``text_config``:
    transformers 5.23 builds that model's config from ``text_config`` alone (tested over every composite class), so
    the field is not the language model's (another tower's, MusicFlamingo's audio rotary, or a misplaced one)."""
    path, text = text_node(reading.config)
    if path != ("text_config",):
        return
    name = reading.fields.family.class_name or "the language model's class"
    drawn = f"text_config's fields, and {name}'s defaults"
    if text is NO_TEXT_CONFIG:  # (LLaVA's file with none: its class's defaults alone)
        drawn = f"{name}'s defaults alone, as transformers 5.23 builds them where a file gives no text_config"
    for key, value in reading.config.items():
        if key in POSITIONAL_FIELDS and key not in ("_name_or_path", "model_type", "pad_token_id") \
                and key not in text and value is not None:  # a composite's own padding token: no position
            yield Finding("warning", key,
                          f"{key} is {_shown(value)} at the top level, outside text_config, which transformers 5.23 "
                          f"builds the language model's config from: the language model does not read it (posenc "
                          f"draws {drawn}). If it is the language model's, move "
                          "it into text_config; another tower's (a vision or audio encoder's) is not drawn.")


def per_layer_fields(reading: Reading) -> Iterator[Finding]:
    """A positional field a layer is given of its own in transformers' ``per_layer_config`` (by layer index), which
    posenc draws at the top level's value: it reads there only Gemma 4's head widths (``head_dim``)."""
    overrides = reading.fields.raw.get("per_layer_config")
    if not isinstance(overrides, Mapping):
        return
    read = {"head_dim"} if reading.fields.family.head_dim_fields else set()
    for index, entry in overrides.items():
        unread = [key for key in entry if key in POSITIONAL_FIELDS and key not in read] if isinstance(
            entry, Mapping) else []
        shown = index[:8] if isinstance(index, str) and index.isdigit() else "?"  # a file's key: digits only shown
        for key in unread:
            yield Finding("warning", reading.path(f"per_layer_config.{shown}.{key}"),
                          f"per_layer_config gives layer {shown} its own {key}, which "
                          f"posenc does not read: it draws that layer with the file's {key} (per_layer_config's "
                          "head_dim is read for Gemma 4 only).")


def bidirectional_in_some_attentions(reading: Reading) -> Iterator[Finding]:
    """A decoder told to see both ways (use_bidirectional_attention) whose class honours it in some attention
    implementations only: its masks depend on which one runs (Gemma: sdpa both ways, eager causal)."""
    fields = reading.fields
    if reading.model is None or not told_bidirectional(fields) or set(fields.family.bidirectional_in) >= {"eager",
                                                                                                        "sdpa"}:
        return
    honoured = fields.family.bidirectional_in
    where = (f"with {' and '.join(honoured)} attention only, while eager attention still masks causally" if honoured
             else "in neither eager attention nor sdpa (which it refuses): it masks causally")
    name = fields.family.bidirectional_field
    path, node = text_node(reading.config)
    outer = reading.config.get("model_type")
    by = f"{outer}'s class" if isinstance(outer, str) and outer in TEXT_CONFIG_TYPES else "its class"  # (a name it knows)
    told = "" if not path or name in node else f" (the file gives none: {by} sets it in its text config)"
    yield Finding("warning", reading.path(name),
                  f"{name} is true{told}, which {fields.family.class_name}'s model in transformers 5.23 honours "
                  f"{where}; posenc draws the eager model's causal masks.")


def theta_in_a_sub_config(reading: Reading) -> Iterator[Finding]:
    """A rope_theta inside another object of the config (DBRX's attn_config, as databricks/dbrx's files write it),
    which no rotary embedding of transformers 5.23 reads: it rotates at rope_parameters' θ (a top-level rope_theta,
    else its default)."""
    model = reading.model
    if model is None:
        return
    bases = {p.base for p in model.positionals.values() if get_scheme(p.scheme).family == "rotary"}
    if not bases:  # MPT's attn_config.rope_theta beside its ALiBi: no rotation to compare with
        return
    for key, value in reading.fields.raw.items():
        stated = reading.number(value, "rope_theta") if isinstance(value, Mapping) and key not in (
            "rope_scaling", "rope_parameters") else None
        if stated is None or stated in bases:
            continue
        turns = " and ".join(map(readable, sorted(bases)))
        yield Finding("warning", reading.path(f"{key}.rope_theta"),
                      f"{key}.rope_theta is {readable(stated)}, which {reading.fields.family.class_name or 'transformers'}"
                      f" in transformers 5.23 does not read: its rotary embedding rotates at θ {turns} (a top-level "
                      "rope_theta, else its default). A model trained by code that reads it there computed another "
                      "θ: state it as rope_theta.")


def fixed_slopes(reading: Reading) -> Iterator[Finding]:
    """MPT's class in transformers adds ALiBi with the slopes of a bias max of 8 whatever ``attn_config`` says: an
    ``alibi`` false or another ``alibi_bias_max`` is read by MosaicML's own code (trust_remote_code) only."""
    fields = reading.fields
    attention = fields.raw.get("attn_config")
    if reading.model is None or not fields.family.fixed_slopes or not isinstance(attention, Mapping):
        return
    name = fields.family.class_name
    if attention.get(ALIBI_FLAG) is False:
        yield Finding("warning", reading.path(f"attn_config.{ALIBI_FLAG}"),
                      f"attn_config.{ALIBI_FLAG} is false, which {name}'s model in transformers 5.23 does not read: it adds "
                      "ALiBi whatever it says, as posenc draws. MosaicML's own code (trust_remote_code) reads it and "
                      "adds no ALiBi.")
    bias_max = reading.number(attention, "alibi_bias_max")
    if bias_max is not None and bias_max != 8:
        yield Finding("warning", reading.path("attn_config.alibi_bias_max"),
                      f"attn_config.alibi_bias_max is {bias_max:g}, which {name}'s model in transformers 5.23 does "
                      "not read: its slopes are 2^(−8k/n) whatever it says, as posenc draws. MosaicML's own code "
                      f"(trust_remote_code) reads it: 2^(−{bias_max:g}k/n), other slopes.")


def encoder_decoder(reading: Reading) -> Iterator[Finding]:
    """An encoder-decoder's config is drawn as its encoder: the layers counted, both ways."""
    fields, model = reading.fields, reading.model
    if model is None or not fields.family.encoder_decoder:
        return
    yield Finding("info", reading.path("model_type"),
                  f"{fields.family.class_name} builds an encoder-decoder: posenc draws its encoder, whose "
                  f"{len(model.layer_types)} layers attend both ways; its decoder's layers see only the "
                  "tokens before them (and the encoder's output).")


def unread_position_type(reading: Reading) -> Iterator[Finding]:
    """BERT's kin read no ``position_embedding_type`` in transformers 5.23: one other than "absolute" (relative_key,
    relative_key_query, which older versions learned distances for) is dropped, and the model adds its table alone."""
    fields = reading.fields
    kind = fields.raw.get("position_embedding_type")
    if reading.model is None or not fields.family.class_name or kind in (None, "absolute") or not any(
            "table_size" in positional.options for positional in reading.model.positionals.values()):  # a table
        return
    yield Finding("warning", reading.path("position_embedding_type"),
                  f"position_embedding_type is {_shown(kind)}, which {fields.family.class_name}'s model no longer "
                  "reads in transformers 5.23: it adds its learned table alone, and a checkpoint trained with "
                  "relative distances loses them (their weights go unused). posenc draws the table.")


def padded_positions(reading: Reading) -> Iterator[Finding]:
    """A learned table whose positions count from pad_token_id + 1 (RoBERTa and its kin) or from a fixed offset
    (OPT's 2) holds fewer tokens than rows; sinusoids numbered so (M2M100's, XGLM's) encode token p as position p + the
    offset, and XGLM's zeroed row of position pad_token_id is a token's when pad_token_id is 2 or more."""
    model, fields = reading.model, reading.fields
    if model is None or not (fields.family.padding_offset or fields.family.row_offset):
        return
    positional = model.positionals.get("full_attention")
    counted = "pad_token_id + 1" if fields.family.padding_offset else "its offset"
    name = fields.family.class_name
    if positional is None or not ("table_size" in positional.options or "first_position" in positional.extra):
        return  # no absolute positions (ESM-2 rotates from 0)
    if "table_size" not in positional.options and "added_table" not in positional.extra:  # sinusoids, any position
        first = positional.extra["first_position"]
        yield Finding("info", reading.path("pad_token_id" if fields.family.padding_offset else "model_type"),
                      f"{name} numbers a token's position from {counted} = {first}: token p is encoded as position "
                      f"p + {first} of its sinusoids, so its first token's pairs stand at {first}·θᵢ, not 0 (posenc's "
                      "views draw position p at p).")
        pad = fields.get("pad_token_id")
        if not fields.family.padding_offset and isinstance(pad, int) and first <= pad < first + model.context_length:
            yield Finding("warning", reading.path("pad_token_id"),
                          f"pad_token_id is {pad}: {name} zeroes the row of position {pad}, which the token at "
                          f"position {pad - first} reads, so that token gets no positional encoding in transformers "
                          "5.23; posenc's views draw its sinusoids.")
        return
    rows = positional.options.get("table_size") or positional.extra["added_table"]
    first = rows - model.context_length
    unused = "row 0 is" if first == 1 else "rows 0 and 1 are" if first == 2 else f"rows 0 to {first - 1} are"
    besides = ("" if "table_size" in positional.options else  # MPNet's table, added besides the buckets drawn
               f" It adds this learned table to its embeddings besides the {get_scheme(positional.scheme).label} "
               "posenc draws; the table's rows are the checkpoint's weights, which a config does not hold.")
    yield Finding("info", reading.path("max_position_embeddings"),
                  f"{name} numbers a token's position from {counted} = {first}: its "
                  f"{rows:,}-row table holds {model.context_length:,} tokens ({unused} never a token's).{besides}")
    pad = fields.raw.get("pad_token_id")
    if "added_table" in positional.extra and isinstance(pad, int) and not isinstance(pad, bool) and pad != first - 1:
        yield Finding("warning", reading.path("pad_token_id"),
                      f"pad_token_id is {pad}, but {name}'s model numbers positions around token id {first - 1}, "
                      f"its padding index fixed in its code: a token of id {first - 1} is counted as padding "
                      f"(position {first - 1}) and one of id {pad} as a word. posenc draws every token's position "
                      f"from {first}.")


def fixed_buckets(reading: Reading) -> Iterator[Finding]:
    """A class whose code fixes T5's buckets (MPNet: 32 out to 128) reads neither field from the file: a count above
    its own sizes rows of the bias it never reads (below it, the model fails: refused), a distance is ignored."""
    fields = reading.fields
    fixed = fields.family.fixed_buckets
    if reading.model is None or not fixed:
        return
    buckets, distance = fixed
    given = reading.number(fields.raw, "relative_attention_num_buckets")
    if given is not None and given > buckets:
        yield Finding("warning", reading.path("relative_attention_num_buckets"),
                      f"relative_attention_num_buckets is {given:g}, but {fields.family.class_name}'s model computes "
                      f"{buckets} buckets out to {distance} whatever it says: rows {buckets} to {given - 1:g} of its "
                      f"bias are never read. posenc draws its {buckets}.")
    stated = reading.number(fields.raw, "relative_attention_max_distance")
    if stated is not None and stated != distance:
        yield Finding("warning", reading.path("relative_attention_max_distance"),
                      f"relative_attention_max_distance is {stated:g}, which {fields.family.class_name}'s model does "
                      f"not read: its code puts every distance from {distance} on in the last bucket. posenc draws "
                      f"{distance}.")


CHECKS: tuple[Callable[[Reading], Iterator[Finding]], ...] = (
    unknown_or_missing_type, v4_and_v5_keys, unread_original, factor_and_lengths, theta_given, theta_not_reached,
    fixed_frequencies, longrope_lists, mrope_sections, rotary_width, head_width, llama3_bands, yarn_betas,
    layer_count, window_length, layer_types_not_read, sliding_without_window, parameters_per_layer_type,
    unread_position_type, padded_positions, fixed_buckets, fixed_slopes, encoder_decoder, theta_in_a_sub_config,
    window_not_applied, chunk_not_applied, ntk_alpha, bidirectional_in_some_attentions, per_layer_fields,
    outside_text_config, query_scale_parameters, unknown_family, sizes_from_class,
)
"""Every check :func:`check` runs, in order."""


def _rotated_pairs(reading: Reading, params: Mapping) -> int | None:
    """Half the width the scaling ``params`` rotates of the config's heads (None when it cannot be read): a share of
    the head given in the scaling wins over the top level's, as in :func:`~posenc.models.config.rope_parameters`."""
    fields = reading.fields
    try:
        head_dim = fields.head_dim()
    except ValueError:
        return None
    if fields.has("qk_rope_head_dim"):
        width = reading.number(fields.values, "qk_rope_head_dim")
    elif fields.family.rotary_dim:
        width = reading.number(fields.values, "rotary_dim")
    else:
        fraction = None
        if fields.family.partial_field is not None:  # the scaling's own share wins over the top level's
            fraction = reading.number(params, "partial_rotary_factor")
        if fraction is None:  # (None where the class reads none there: MiMo-V2-Flash; MiniMax-M2's rotary_dim / head_dim)
            try:
                fraction = _number(fields.share())
            except ValueError:
                return None
        if fraction is None:
            fraction = default_share(fields, reading.family_type(params))
        width = int(head_dim * (1.0 if fraction is None else fraction))
    return None if width is None else int(width) // 2


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."
