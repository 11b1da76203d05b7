r"""A model from its ``config.json``: the same :class:`~posenc.models.presets.Model` as a preset (numpy-free).

:func:`from_config` reads what transformers 5.23 reads for positions, in the order it reads them:

- the language model's fields (``text_config`` alone when the file has one), the family's class defaults
  (:mod:`posenc.models.families`) under them;
- RoPE's parameters per layer type (:func:`rope_parameters`): v4's ``rope_scaling`` wins over v5's
  ``rope_parameters`` (``rope_scaling or rope_parameters``), flat or nested by layer type; the type is
  ``rope_type``, else v4's ``type``, else "default"; θ is the dict's ``rope_theta``, else the family's
  field for that layer type (Gemma 3's and Gemma 3n's ``rope_local_base_freq``, ModernBERT's
  ``local_rope_theta``, GPT-NeoX's ``rotary_emb_base``), else ``rope_theta``, the class default, 10,000; llama3,
  YaRN and LongRoPE take the context trained on as :func:`trained_context` says (``standardize_rope_params``);
  Gemma 4 reads its nested ``rope_parameters`` as written (p-RoPE, "proportional", on its full-attention layers);
- the rotated width: ``head_dim`` (else hidden / heads) times the family's share field (``partial_rotary_factor``;
  GPT-NeoX's ``rotary_pct``; none for a class that rotates whole heads, which a scaling with a share cannot run),
  GPT-J's ``rotary_dim`` / head, DeepSeek's ``qk_rope_head_dim`` of a ``qk_nope_head_dim + qk_rope_head_dim`` head;
  p-RoPE's every pair of the head, the share it turns in its options; Gemma 4's full-attention heads
  ``global_head_dim`` wide (``per_layer_config`` in a saved file);
- the layers: ``layer_types`` when given, else the family's rule (windows, Gemma's pattern, ModernBERT's
  global layer every n), Llama 4's and SmolLM3's ``no_rope_layers`` (0: a layer without positions), the
  full-attention layers without positions of Cohere 2 and its kin (EXAONE 4's when it has a window), Granite SWA's
  ``layer_rope_theta`` (0: none);
  a sliding window that reaches every key (as long as the context; one either side of the query, as long as the
  context − 1) never masks, so its layers read as full attention where they rotate as full ones.

Unknown fields are ignored; a field that is needed and cannot be read raises a ValueError naming it and
its value. GPT-2, BERT and BART-style models read as a learned table (GPT-Neo's with its local windows), Marian,
Pegasus, M2M100, XGLM and CTRL as fixed sinusoids (DistilBERT and XLM when their config asks for them), ESM-2 as
RoPE, T5 as its buckets, BLOOM and MPT as ALiBi.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from types import MappingProxyType

from posenc.models.architectures import as_named, named_class
from posenc.models.class_defaults import class_sizes
from posenc.models.config_file import NO_TEXT_CONFIG, read_config, text_fields, text_node
from posenc.models.families import Family, family
from posenc.models.presets import LAYER_TYPES, Model, Positional
from posenc.schemes.registry import get_scheme
from posenc.schemes.rope.scalings import ROPE_SCALINGS, rope_scaling_parameters, scales_whole_head, yarn_mscale

ALIBI_FLAG = "alibi"
"""The config field that turns ALiBi on (Falcon's, at the top level; ``attn_config``'s, MosaicML's, in a model_type
posenc does not know: transformers' MPT adds ALiBi whatever it says): a field's name, not a scheme's."""
NOPE_LAYER = LAYER_TYPES[-1]
"""The layer type of a layer without positions (Llama 4's, SmolLM3's): a layer type, not a scheme's name."""

_LABEL = re.compile(r"[^\w.\-/+ ]")
"""What a label keeps of ``_name_or_path`` (a hub name: letters, digits, ``._-/+``): no markup, quote or control."""
KNOWN_LAYER_TYPES = ("full_attention", "sliding_attention", "chunked_attention")
"""The layer types of ``layer_types`` this reader knows (transformers' names of attention with positions)."""
LAYER_FIELDS = ("num_hidden_layers", "n_layer", "num_layers", "n_layers")
HEAD_FIELDS = ("num_attention_heads", "n_head", "num_heads", "n_heads")
WIDTH_FIELDS = ("hidden_size", "n_embd", "d_model", "dim")
"""The fields a model's depth, heads and width are read from, the first one given first (each family's own name
among them: GPT-2's ``n_layer``, BART's ``d_model``)."""
CONTEXT_FIELDS = ("max_position_embeddings", "n_positions", "n_ctx", "max_seq_len", "seq_length", "max_sequence_length")
"""The fields a model's context is read from, the first one given first."""
MAX_LAYERS = 4096
MAX_SIZE = 1 << 40
ROPE_FIELDS = ("rope_theta", "rope_scaling", "rope_parameters", "rotary_pct", "rotary_emb_base", "rotary_dim",
               "partial_rotary_factor", "rope_local_base_freq", "global_rope_theta", "local_rope_theta",
               "qk_rope_head_dim")
"""Fields whose presence says a model rotates (one of them, or a family that does)."""


def from_config(source: object) -> Model:
    """The :class:`Model` a config describes; ``source``: a dict, a JSON text or a path to a config.json.

    Its layers, each layer type's :class:`Positional` (scheme, options under the registry's names, θ's
    base, rotated dimensions, window, head width, chunk, extras such as ``mrope_section``), the context
    (``max_position_embeddings``, ``n_positions``, ...), whether it is causal and the softmax's d, as
    the presets hold them. Refused with a ValueError naming the field: bad JSON, a field of the wrong
    kind, a scaling type posenc does not know, no positional field at all.
    """
    config = read_config(source)
    fields = Fields(config)
    scheme = fields.scheme()
    builder = {"rope": _rope_model, "learned": _learned_model, "sinusoidal": _sinusoidal_model, "t5": _t5_model,
               "alibi": _alibi_model}[scheme]
    layer_types, positionals, context, softmax_dim = builder(fields)
    softmax_dim = None if fields.family.unscaled_softmax else softmax_dim  # (T5's kin, Gemma 3n, 4, GPT-Neo)
    label = config.get("_name_or_path")
    label = _LABEL.sub("_", label.strip())[:80] if isinstance(label, str) and label.strip() else \
        f"{_LABEL.sub('_', fields.outer_type or fields.file_type or 'unnamed')[:40]} config"  # (a composite's own)
    return Model(key="config", label=label, layer_types=tuple(layer_types),
                 positionals=MappingProxyType(positionals), context_length=context, causal=_causal(fields),
                 softmax_dim=softmax_dim, source=_source(fields),
                 softmax_multiplier=_softmax_multiplier(fields, softmax_dim, positionals))


def _softmax_multiplier(fields: Fields, softmax_dim: int | None, positionals: Mapping[str, Positional]) -> float | None:
    """The number the class multiplies q·k by where it is not 1/√softmax_dim alone, as transformers 5.23 computes
    it: Granite's attention_multiplier, MPT's attn_config.softmax_scale in its place (:attr:`Family.multiplier_field`);
    DeepSeek's kin's 1/√d times YaRN's mscale² at mscale_all_dim under a scaling (:attr:`Family.softmax_mscale`; any
    other class keeps 1/√d, whatever its parameters say); Falcon-H1's times its key_multiplier, by which it
    multiplies every key before q·k (:attr:`Family.key_multiplier_field`). None where it divides by √softmax_dim
    alone, or takes q·k unscaled."""
    family = fields.family
    name, _, inner = family.multiplier_field.partition(".")  # MPT's: a field of its attn_config
    given = fields.get(name) if name else None
    if inner:
        given = given.get(inner) if isinstance(given, Mapping) else None
    if given is not None:  # (one equal to 1/√softmax_dim is none of its own: HyperCLOVAX's default, written out)
        multiplier = fields.number(family.multiplier_field, given)
        return None if softmax_dim is not None and multiplier == softmax_dim ** -0.5 else multiplier
    if softmax_dim is None:
        return None
    scale = multiplier = softmax_dim ** -0.5
    if family.softmax_mscale:  # one layer type: DeepSeek's kin
        options = next(iter(positionals.values())).options
        if options.get("rope_type", "default") != "default" and options.get("mscale_all_dim"):
            multiplier *= yarn_mscale(float(options["factor"]), float(options["mscale_all_dim"])) ** 2
    if family.key_multiplier_field and fields.get(family.key_multiplier_field) is not None:
        multiplier *= fields.number(family.key_multiplier_field)
    return None if multiplier == scale else multiplier


def _causal(fields: Fields) -> bool:
    """Whether a query sees only the keys before it: the family's, or its field's when it has one (XLM's causal,
    Gemma 3's use_bidirectional_attention)."""
    if _bidirectional(fields):
        return False
    if _bert_style(fields):  # BERT's kin posenc has no record of: an encoder unless is_decoder
        return bool(fields.get("is_decoder"))
    name = fields.family.causal_field
    return bool(fields.get(name, fields.family.causal)) if name else fields.family.causal


def _bidirectional(fields: Fields) -> bool:
    """Whether a decoder sees both ways as its class's eager attention masks it (Gemma 3 told to by
    use_bidirectional_attention, read as it reads it: truthy; Gemma's and Gemma 2's eager masks stay causal)."""
    return "eager" in fields.family.bidirectional_in and told_bidirectional(fields)


def _bert_style(fields: Fields) -> bool:
    """A model_type posenc has no record of, read as a learned table because of BERT's ``position_embedding_type``
    (not GPT-2's ``n_positions``): BERT's kin, encoders unless ``is_decoder`` (transformers 5.23's BertModel)."""
    return (not fields.family.class_name and fields.raw.get("position_embedding_type") == "absolute"
            and not fields.has("n_positions") and get_scheme(fields.scheme()).family == "absolute")


def told_bidirectional(fields: Fields) -> bool:
    """Whether the config tells its class to see both ways (its ``bidirectional_field`` true, or Gemma 4's "all")."""
    name, value = fields.family.bidirectional_field, fields.family.bidirectional_value
    if not name:
        return False
    return bool(fields.get(name)) if value is True else fields.get(name) == value


def _source(fields: Fields) -> str:
    """Where the model comes from and how it was read: as its family's class reads it; for a model_type transformers
    does not know, as the class its ``architectures`` names reads it (:mod:`posenc.models.architectures`); else, for a
    model_type posenc does not know, as a Llama-style decoder (a rotary one) or by its scheme's fields (T5's buckets,
    ALiBi, a learned table), from the file's fields only: its class's own defaults are not known."""
    shown = "not given" if fields.file_type is None else _LABEL.sub("_", fields.file_type)[:40]
    if fields.outer_type:  # a composite: its own type, then its language model's
        shown = f"{_LABEL.sub('_', fields.outer_type)[:40]}, its language model's {shown}"
    if fields.architecture:
        read = fields.family.class_name if fields.architecture_type == fields.model_type else \
            f"its language model's {fields.family.class_name}"  # (a composite's: LLaVA's LlamaConfig)
        return (f"a config.json (model_type {shown}, which transformers 5.23 does not know), read as the class its "
                f"architectures names reads it: {fields.architecture} ({read})")
    if fields.family.class_name:
        return f"a config.json (model_type {shown}), read as transformers 5.23 reads it ({fields.family.class_name})"
    scheme = get_scheme(fields.scheme())
    how = "a Llama-style decoder" if scheme.family == "rotary" else f"a model with {scheme.label}"
    return (f"a config.json (model_type {shown}), read as {how}: posenc does not know this "
            "model_type, so its class's own defaults for fields the file leaves out are not applied")


class Fields:
    """A config's language-model fields over its family's defaults, read with checks that name the field."""

    def __init__(self, config: Mapping[str, object]):
        # A model_type transformers does not know whose architectures names a class it has: read as that class's
        named = named_class(config)  # (Kimi K2's DeepSeek-V3, a renamed Qwen2-VL's)
        self.architecture, self.architecture_type = named or (None, None)
        self.read = as_named(config)  # the file as the class it is read as reads it (the check reads it so)
        self.raw = text_fields(self.read)
        path, node = text_node(self.read)
        self.outer = (self.read.get("model_type"), ".".join(path)) if node is NO_TEXT_CONFIG else None  # (LLaVA's)
        text = config.get("text_config")
        self.text_config: Mapping | None = text if isinstance(text, Mapping) else None
        model_type = self.raw.get("model_type")
        self.model_type = model_type if isinstance(model_type, str) else None  # the class's it is read as
        top = config.get("model_type")  # a composite's own (LLaVA's, whose language model's is llama), where nested
        # the file's own name: its language model's, or the one transformers does not know where read as a class
        self.file_type = self.model_type if named is None else top if isinstance(top, str) else None
        self.outer_type: str | None = top if path and named is None and isinstance(top, str) \
            and top != self.model_type else None
        self.family: Family = family(self.model_type)
        # a null overrides a class default, as in transformers; the class's sizes where its record holds none
        self.values = {**class_sizes(self.model_type), **self.family.defaults, **self.raw}
        for standard, own in self.family.attribute_map.items():  # BART's d_model is hidden_size; the standard wins
            if standard in self.raw:
                self.values[own] = self.raw[standard]
            if own in self.values:
                self.values[standard] = self.values[own]

    def has(self, name: str) -> bool:
        return self.values.get(name) is not None

    def get(self, name: str, default: object = None) -> object:
        value = self.values.get(name)
        return default if value is None else value

    def integer(self, name: str, *aliases: str, minimum: int = 1, default: int | None = None,
                required: bool = True, maximum: int = MAX_SIZE) -> int | None:
        """The first of ``name``, ``aliases`` given, as a whole number in [minimum, maximum]."""
        for key in (name, *aliases):
            if self.has(key):
                return whole(self.values[key], key, minimum, maximum)
        if default is not None or not required:
            return default
        names = " or ".join(repr(k) for k in (name, *aliases))
        if self.outer is not None:  # the language model's fields are its class's defaults, which posenc lacks here
            raise ValueError(f"the config has no {names}, which this model needs: {self.outer[0]:.40} keeps its "
                             f"language model's fields in {self.outer[1]}, and this file gives none, so transformers "
                             f"5.23 builds that model from {self.family.class_name or 'its class'}'s defaults, and posenc "
                             f"holds no default of that field. Give the file's {self.outer[1]} (paste the whole "
                             "config.json).")
        raise ValueError(f"the config has no {names}, which this model needs.")

    def number(self, name: str, value: object = None, minimum: float = 0.0, strict: bool = True) -> float:
        return real(self.get(name) if value is None else value, name, minimum, strict)

    def scheme(self) -> str:
        if self.family.refused:  # Pix2Struct's vision encoder: fields that would read as another scheme
            raise ValueError(f"posenc does not draw {self.family.class_name}'s positions: {self.family.refused}")
        for name, when in self.family.refuses:  # IQuestCoder's options no released checkpoint enables
            value = self.get(name)
            if when == "null" and name in self.raw and value is None:  # EXAONE-MoE's strict field
                raise ValueError(f"{name} is null, which {self.family.class_name} refuses (it takes a whole number "
                                 "there): transformers 5.23 builds no model of this config.")
            if when == "null unlisted" and name in self.raw and value is None and not self.has("layer_types"):
                raise ValueError(f"{name} is null and the config lists no layer_types, which {self.family.class_name}"
                                 f" refuses (a null {name} sets {self.family.pattern_field} to 0, and it divides by "
                                 "that to list the layers): transformers 5.23 builds no model of this config. Give "
                                 f"{name}, or list layer_types.")
            if (when == "given" and value is not None) or (when == "true" and bool(value)) or (
                    when == "present" and name in self.raw):
                raise ValueError(f"{name} is {value!r:.40}, which {self.family.class_name} refuses (it "
                                 f"supports no {name}): transformers 5.23 builds no model of this config.")
        switch = self.family.scheme_switch  # DistilBERT's sinusoidal_pos_embds, read as its class does (truthy)
        if switch and (bool(self.get(switch[0])) if isinstance(switch[1], bool) else self.get(switch[0]) == switch[1]):
            return switch[2]
        if get_scheme(self.family.scheme).family != "rotary":
            return self.family.scheme
        attention = self.raw.get("attn_config") if not self.family.class_name else None  # MosaicML's field
        if self.raw.get(ALIBI_FLAG) is True or (isinstance(attention, Mapping) and attention.get(ALIBI_FLAG) is True):
            return "alibi"
        if self.has("relative_attention_num_buckets"):
            return "t5"
        if self.family.defaults or any(self.raw.get(name) is not None for name in ROPE_FIELDS):
            return "rope"
        if self.raw.get("position_embedding_type") == "absolute" or self.has("n_positions"):
            return "learned"
        raise ValueError("the config has no positional field: none of rope_theta, rope_scaling, rope_parameters, "
                         "rotary_pct, n_positions, position_embedding_type, relative_attention_num_buckets or "
                         "alibi, and its model_type "
                         f"{self.model_type!r:.40} is not a family posenc knows; it cannot say how this model "
                         "encodes positions.")

    def layers(self) -> int:
        return self.integer(*LAYER_FIELDS, maximum=MAX_LAYERS)

    def heads(self) -> int:
        return self.integer(*HEAD_FIELDS)

    def head_dim(self) -> int:
        if self.has("head_dim") and not self.family.head_dim_ignored:  # (DeepSeek-OCR 2 derives its own)
            given = whole(self.values["head_dim"], "head_dim", 1)
            if self.family.derived_heads and given != self._derived_head_dim():  # Chameleon's
                raise ValueError(f"head_dim is {given}, but {self.family.class_name}'s attention takes heads of "
                                 f"hidden_size / num_attention_heads = {self._derived_head_dim()} dimensions whatever "
                                 "head_dim says, while its rotary embedding reads head_dim: transformers 5.23 fails "
                                 "at the model's first forward pass. Remove head_dim.")
            return given
        if self.family.head_dim_unset == "model":
            raise ValueError(f"the config gives no head_dim, which {self.family.class_name} keeps None: its attention "
                             "(head_dim^−0.5) and its scalings but linear read it, and transformers 5.23 fails building "
                             "the model. Give head_dim.")
        return self._derived_head_dim()

    def _derived_head_dim(self) -> int:
        """hidden_size // num_attention_heads (a model's own names for them)."""
        names = WIDTH_FIELDS
        if self.family.bottleneck and self.get("use_bottleneck") is True:  # MobileBERT's true_hidden_size
            names = ("intra_bottleneck_size",)
        hidden = self.integer(*names)
        heads = self.heads()
        if hidden < heads:
            raise ValueError(f"{names[0]} ({hidden}) is smaller than num_attention_heads ({heads}), so a head "
                             "would have no dimensions.")
        return hidden // heads

    def share(self) -> object:
        """The top level's share of a head that rotates (the family's ``partial_field``), else MiniMax-M2's
        ``rotary_dim`` / ``head_dim`` (:attr:`Family.share_width_field`); None where neither is given or read."""
        name, width = self.family.partial_field, self.family.share_width_field
        if name and self.get(name) is None and width and self.has(width):
            head_dim = self.head_dim()  # (a wider one: frequencies for more dimensions than a head has, failing)
            return whole(self.values[width], width, 2, maximum=head_dim) / head_dim
        return self.get(name) if name else None

    def share_name(self) -> str:
        """Where :meth:`share` is read from: the family's ``partial_field``, or MiniMax-M2's rotary_dim / head_dim."""
        name = self.family.partial_field
        return f"{self.family.share_width_field} / head_dim" if self.get(name) is None else name

    def context(self) -> int:
        return self.integer(*self.context_fields())

    def context_fields(self) -> tuple[str, ...]:
        """The fields the context is read from, first given first: the family's own (MPT's max_seq_len, whatever
        else the file says), else :data:`CONTEXT_FIELDS`."""
        return (self.family.context_field,) if self.family.context_field else CONTEXT_FIELDS


def whole(value: object, name: str, minimum: int = 1, maximum: int = MAX_SIZE) -> int:
    """``value`` as a whole number in [minimum, maximum], or a ValueError naming the field and the value."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or isinstance(value, float) and (
            not math.isfinite(value) or not value.is_integer()):
        raise ValueError(f"{name} must be a whole number; the config has {value!r:.60}.")
    value = int(value)
    if not minimum <= value <= maximum:
        raise ValueError(f"{name} must be a whole number from {minimum} to {maximum:,}; the config has {value}.")
    return value


def real(value: object, name: str, minimum: float = 0.0, strict: bool = True) -> float:
    """``value`` as a finite number above ``minimum`` (at least it, when not strict), or a ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite number; the config has {value!r:.60}.")
    value = float(value)
    if value < minimum or (strict and value == minimum):
        bound = "greater than" if strict else "at least"
        raise ValueError(f"{name} must be {bound} {minimum:g}; the config has {value:g}.")
    return value


# --- layers ---------------------------------------------------------------------------------------------

def layer_types(fields: Fields) -> list[str]:
    """Each layer's type: ``layer_types`` when given, else the family's rule; "nope" for NoPE layers."""
    types = _attention_types(fields)
    if fields.family.nope_layers == "no_rope_layers":
        types = [t if rotates else NOPE_LAYER for t, rotates in zip(types, _rope_layers(fields, len(types)))]
    elif fields.family.nope_layers == "full_attention" or (  # Cohere 2 rotates its sliding-window layers only,
            fields.family.nope_layers == "windowed" and fields.has("sliding_window")):  # EXAONE 4 when it has a window
        types = [NOPE_LAYER if t == "full_attention" else t for t in types]
    elif fields.family.nope_layers == "layer_rope_theta":  # Muse: a 0 marks a layer without positions
        types = [t if rotates else NOPE_LAYER for t, rotates in zip(types, _marked_rotating(fields, types))]
    elif fields.family.nope_layers == "null_parameters":  # Cohere Compass: a layer type whose parameters are null
        nulled = _null_parameters(fields)
        types = [NOPE_LAYER if t in nulled else t for t in types]
    thetas = layer_thetas(fields, len(types))
    if thetas is not None:  # Granite SWA: a layer whose θ is 0 has no positions
        types = [NOPE_LAYER if theta == 0 else t for t, theta in zip(types, thetas)]
    return types


def _attention_types(fields: Fields) -> list[str]:
    """Each layer's attention: ``layer_types`` when given and the class reads it, else the family's rule (before NoPE
    layers are marked)."""
    given = fields.raw.get("layer_types")
    if given is not None:
        if not isinstance(given, list) or not given:
            raise ValueError(f"layer_types must be a list of layer types; the config has {given!r:.60}.")
        for index, name in enumerate(given):
            if name not in KNOWN_LAYER_TYPES:
                raise ValueError(f"layer_types[{index}] is {name!r:.40}, a layer posenc does not draw: its views are "
                                 "of softmax attention with positions "
                                 f"({', '.join(map(repr, KNOWN_LAYER_TYPES))}), and a model that mixes other layers "
                                 "with them (linear attention, state-space layers, convolutions: Qwen3-Next's, "
                                 "Qwen3.5's) is not read.")
            masks = fields.family.listed_masks
            if masks and name not in masks:
                raise ValueError(f"layer_types[{index}] is {name!r}, a layer {fields.family.class_name}'s model builds "
                                 f"no mask for (it masks {masks[0]} and {masks[1]} layers): transformers 5.23's model "
                                 "fails on it (a KeyError).")
        if len(given) > MAX_LAYERS:
            raise ValueError(f"layer_types lists {len(given)} layers; posenc reads models of at most {MAX_LAYERS}.")
        # a class that ignores the list (Llama's, Mistral's) computes its layers by its rule: the check says so
        types = list(given) if fields.family.reads_layer_types else _family_layers(fields, len(given))
    else:
        sparse = fields.raw.get(fields.family.sparse_field) if fields.family.sparse_field else None
        if isinstance(sparse, Mapping) and isinstance(sparse.get("sparse_attention_freq"), list) and any(
                sparse["sparse_attention_freq"]):
            raise ValueError(f"{fields.family.sparse_field}.sparse_attention_freq makes some of its layers sparse "
                             f"attention ({fields.family.class_name}'s: each query attends to the blocks of keys a "
                             "lightning indexer picks), which posenc does not draw: its views are of softmax "
                             "attention over every key its mask lets a query see.")
        types = _family_layers(fields, fields.layers())
    if fields.family.last_full and types:  # Gemma 4 forces its last layer to full attention
        types[-1] = "full_attention"
    return types


def layer_thetas(fields: Fields, count: int) -> list[float] | None:
    """Each layer's θ from the family's ``layer_theta_field`` (Granite SWA's ``layer_rope_theta``; 0: no positions),
    None where the family or the file has no such list."""
    name = fields.family.layer_theta_field
    return _per_layer_numbers(fields, name, count) if name else None


def _per_layer_numbers(fields: Fields, name: str, count: int) -> list[float] | None:
    """The list ``name`` of a number for each layer, 0 for a layer without positions (Granite SWA's θ, Muse's marks),
    each at least 0; None where the file gives none."""
    if not fields.has(name):
        return None
    listed = fields.get(name)
    if not isinstance(listed, list) or len(listed) != count:
        raise ValueError(f"{name} must list a number for each of the {count} layers (0 for a layer without "
                         f"positions); the config has {listed!r:.80}.")
    return [real(value, f"{name}[{index}]", 0.0, strict=False) for index, value in enumerate(listed)]


def _own_thetas(fields: Fields) -> dict[str, float]:
    """Each layer type's θ from the family's list of every layer's (Granite SWA), one per layer type, 0 for one
    without positions: a list that turns layers of one type at different θ is refused (each view draws one θ per
    layer type)."""
    kinds = _attention_types(fields)
    thetas = layer_thetas(fields, len(kinds))
    if thetas is None:
        return {}
    by_type: dict[str, set[float]] = {}
    for kind, theta in zip(kinds, thetas):
        by_type.setdefault(kind, set()).add(theta)
    for kind, values in by_type.items():
        if len(values) > 1:
            shown = ", ".join(f"{v:,g}" for v in sorted(values))
            raise ValueError(f"{fields.family.layer_theta_field} turns the {kind} layers at different θ ({shown}; 0: "
                             "no positions); posenc draws one θ for every layer of a type.")
    return {kind: values.pop() for kind, values in by_type.items()}


def _family_layers(fields: Fields, count: int) -> list[str]:
    rule, windowed = fields.family.windows, fields.has(fields.family.window_field[0])  # its value read if used
    if rule == "every":
        every = fields.integer(fields.family.pattern_field) if fields.family.pattern_field else fields.family.pattern
        if fields.family.first_full:  # layer 0 full attention, then one in n (ModernBERT, Granite SWA)
            return ["sliding_attention" if i % every else "full_attention" for i in range(count)]
        return ["sliding_attention" if (i + 1) % every else "full_attention" for i in range(count)]
    if rule == "every_from_last":  # Muse: full attention on every n-th layer counted back from the last
        return ["full_attention" if (count - 1 - i) % fields.family.pattern == 0 else "sliding_attention"
                for i in range(count)]
    if rule == "every_and_first":  # MiMo-V2-Flash: layer 0 full attention, and the last of every n
        every = fields.family.pattern
        return ["full_attention" if i == 0 or (i + 1) % every == 0 else "sliding_attention" for i in range(count)]
    if rule == "flint":  # FlintConfig's own pattern
        return ["full_attention" if i < 2 or i % 4 == 1 or i == count - 1 else "sliding_attention" for i in range(count)]
    if rule == "chunked":
        return ["chunked_attention"] * count
    if rule == "gpt_neo":
        return _gpt_neo_layers(fields, count)
    if rule == "longt5":  # its encoder's local attention: local_radius keys either side, on every layer
        kind = fields.get("encoder_attention_type")
        if kind != "local":
            raise ValueError(f"encoder_attention_type is {kind!r:.40}: posenc draws LongT5's local attention only "
                             "(each token sees local_radius keys either side); with transient-global attention each "
                             "token also sees a summary of every block of global_block_size tokens, which no view "
                             "draws.")
        return ["sliding_attention"] * count
    if rule == "alternate":
        return ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(count)]
    if not windowed or rule in ("none", "no_rope_layers"):
        return ["full_attention"] * count
    if rule == "max_window_layers":  # dots.llm1: Qwen2's rule without its switch
        bound = fields.integer("max_window_layers", minimum=0)
        return ["sliding_attention" if i >= bound else "full_attention" for i in range(count)]
    if rule in ("qwen", "qwen2_moe", "qwen3_moe"):  # each class's own rule (transformers 5.23)
        if fields.get("use_sliding_window") is not True:
            return ["full_attention"] * count
        if rule == "qwen3_moe":
            return ["sliding_attention"] * count
        bound = fields.integer("max_window_layers", minimum=0)
        if rule == "qwen2_moe":
            return ["sliding_attention" if i % 2 == 0 and i < bound else "full_attention" for i in range(count)]
        return ["sliding_attention" if i >= bound else "full_attention" for i in range(count)]
    if rule == "all" and fields.get("use_sliding_window") is False:
        return ["full_attention"] * count
    return ["sliding_attention"] * count


def _gpt_neo_layers(fields: Fields, count: int) -> list[str]:
    """GPT-Neo's layers: ``attention_layers`` when the file gives it (GPTNeoConfig keeps it over what it expands), else
    ``attention_types`` expanded ([[["global", "local"], 12]]: 24 layers, every other one local); "local" attends
    to a window (sliding_attention), "global" to the whole context."""
    listed = fields.raw.get("attention_layers")
    if listed is None:
        types = fields.get("attention_types")
        if not isinstance(types, list) or not all(
                isinstance(item, list) and len(item) == 2 and isinstance(item[0], list) and isinstance(item[1], int)
                and not isinstance(item[1], bool) and 0 <= item[1] <= MAX_LAYERS for item in types):
            raise ValueError("attention_types must be a list of [[layer kinds], repeats], as [[['global', 'local'], "
                             f"12]]; the config has {types!r:.60}.")
        listed = [kind for kinds, repeats in types for _ in range(repeats) for kind in kinds][:MAX_LAYERS + 1]
    if not isinstance(listed, list) or any(kind not in ("global", "local") for kind in listed):
        raise ValueError(f"attention_layers must list 'global' or 'local' for each layer; the config has "
                         f"{listed!r:.60}.")
    if len(listed) != count:
        raise ValueError(f"attention_layers lists {len(listed)} layers, but num_layers is {count}: GPTNeoConfig "
                         "refuses the config.")
    return ["sliding_attention" if kind == "local" else "full_attention" for kind in listed]


def _marked_rotating(fields: Fields, types: list[str]) -> list[bool]:
    """Muse's layers with positions: those its ``layer_rope_theta`` gives any θ but 0 (each turning at its RoPE
    parameters' θ, whatever the number), else all but every ``pattern``-th counted back from the last (its class's
    rule). A sliding-window layer without positions is refused: posenc draws those over the whole context."""
    count = len(types)
    marks = _per_layer_numbers(fields, "layer_rope_theta", count)
    rotating = ([(count - 1 - i) % fields.family.pattern != 0 for i in range(count)] if marks is None
                else [mark != 0 for mark in marks])
    for index, (kind, rotates) in enumerate(zip(types, rotating)):
        if kind == "sliding_attention" and not rotates:
            raise ValueError(f"layer {index} is sliding_attention without positions (layer_rope_theta 0 there, or by "
                             f"{fields.family.class_name}'s rule): posenc draws layers without positions over the "
                             "whole context.")
    return rotating


def _rope_layers(fields: Fields, count: int) -> list[bool]:
    """Llama 4 / SmolLM3: no_rope_layers[i] = 1 when layer i rotates (0: NoPE), else one NoPE layer in n."""
    listed = fields.raw.get("no_rope_layers")
    if listed:
        if not isinstance(listed, list) or len(listed) != count or any(v not in (0, 1) for v in listed):
            raise ValueError(f"no_rope_layers must list 0 or 1 for each of the {count} layers; the config has "
                             f"{listed!r:.80}.")
        return [bool(v) for v in listed]
    every = fields.integer("no_rope_layer_interval")
    return [(i + 1) % every != 0 for i in range(count)]


def _null_parameters(fields: Fields) -> set[str]:
    """The layer types whose RoPE parameters, nested by layer type, the file gives as null (Cohere Compass's class
    computes no positions for them)."""
    nested = fields.raw.get("rope_parameters")
    return {kind for kind, value in nested.items() if value is None} if isinstance(nested, Mapping) else set()


def _nope_window(fields: Fields, count: int) -> int | None:
    """The window SmolLM3 masks its NoPE layers with: those ``layer_types`` makes sliding_attention, or, without
    layer_types, every one when ``use_sliding_window`` and ``sliding_window`` are set (its class's rule); Cohere
    Compass's when its null parameters are its sliding_attention layers'; None for none, and for every other family
    (Llama 4's NoPE layers attend to the whole context)."""
    if fields.family.nope_layers == "null_parameters":
        kinds = _null_parameters(fields) & set(_attention_types(fields))
        if kinds == {"sliding_attention"}:
            return _window(fields)
        if len(kinds) > 1:
            raise ValueError("rope_parameters is null for both full_attention and sliding_attention layers: they "
                             "attend without positions, with and without a window, and posenc draws every layer "
                             "without positions alike.")
        return None
    if fields.family.windows != "no_rope_layers":
        return None
    given = fields.raw.get("layer_types")
    if given is None:
        return _window(fields) if fields.get("use_sliding_window") is True else None
    kinds = {kind for kind, rotates in zip(given, _rope_layers(fields, count)) if not rotates}
    if kinds == {"sliding_attention"}:
        return _window(fields)
    if "sliding_attention" in kinds:
        raise ValueError("layer_types makes some layers without positions (no_rope_layers 0) sliding_attention and "
                         "others not; posenc draws every such layer alike.")
    return None


def _window(fields: Fields) -> int | None:
    """transformers' ``sliding_window`` from the field :func:`window_field` names (:func:`window_keys`), None for
    none."""
    name = window_field(fields)
    if not fields.has(name):
        return None
    if fields.family.windows in ("qwen", "qwen2_moe") and fields.get("use_sliding_window") is not True:
        if fields.family.windows == "qwen2_moe":  # (its class writes 0; called only where a layer is sliding)
            raise ValueError(f"layer_types lists sliding_attention layers, but use_sliding_window is not true, so "
                             f"{fields.family.class_name} sets {name} to 0, a window that masks every key: its "
                             "model then attends to every key, later ones too. Set use_sliding_window, or list "
                             "full_attention layers.")
        return None  # Qwen2's class nulls it: sliding layers without a window (the check: its model fails)
    before = name == fields.family.window_plus_one  # keys before the query: 0 is a window of the query alone
    return window_keys(fields, whole(fields.get(name), name, 0 if before else 1, MAX_SIZE - before), name)


def window_field(fields: Fields) -> str:
    """The field the window is read from: the family's ``window_plus_one`` field when the file gives it
    (MiMo-V2-Flash's ``sliding_window_size``), else its ``window_alias`` when the file writes it, null too
    (ModernBERT's sliding_window), else its window field."""
    before, alias = fields.family.window_plus_one, fields.family.window_alias
    if before and fields.has(before):
        return before
    return alias if alias and alias in fields.raw else fields.family.window_field[0]  # (a null one: no window)


def window_keys(fields: Fields, value: int, name: str = "") -> int:
    """transformers' ``sliding_window`` from the value of the window field ``name`` (:func:`window_field`): one more
    than the family's ``window_plus_one`` field (the keys before the query, and the query); ModernBERT's
    local_attention // 2 and Gemma 3's sliding_window // 2 when told to see both ways (keys either side of the query;
    Gemma 4's one more), else the value."""
    if name and name == fields.family.window_plus_one:
        return value + 1
    if name and name == fields.family.window_alias:  # (ModernBERT's sliding_window: transformers' own)
        return value
    if _bidirectional(fields):
        return value // 2 + fields.family.bidirectional_reach
    return value // 2 if fields.family.window_field[1] == "half" else value


def never_masks(fields: Fields, window: int, context: int) -> bool:
    """Whether a sliding window (transformers' ``sliding_window``) masks no key of the context: a causal one of w keys
    from w ≥ context on; one of w keys either side of the query from w ≥ context − 1, the farthest a key can be."""
    return window >= (context if _causal(fields) else context - 1)


# --- RoPE -----------------------------------------------------------------------------------------------

def rope_parameters(fields: Fields, rotary_types: list[str]) -> dict[str, dict]:
    """layer type -> the rope parameters transformers 5.23 computes that layer type's frequencies from."""
    if fields.family.rotary_dim:  # GPT-J, CodeGen: default RoPE at θ 10,000, in their code; no RoPE field is read
        return {t: {"rope_type": "default", "rope_theta": 10_000.0, "_where": "rotary_dim"} for t in rotary_types}
    declared = fields.raw.get("rope_scaling") or fields.raw.get("rope_parameters")
    name = "rope_scaling" if fields.raw.get("rope_scaling") else "rope_parameters"
    if fields.family.v5_only and "rope_scaling" in fields.raw:  # Gemma 4 sets rope_parameters to it, as written
        declared, name = fields.raw["rope_scaling"], "rope_scaling"
        if declared is None:
            raise ValueError(f"rope_scaling is null: {fields.family.class_name} takes it as its rope_parameters, and "
                             "transformers 5.23 fails building the model. Remove it.")
    if declared is not None and not isinstance(declared, Mapping):
        raise ValueError(f"{name} must be an object of RoPE parameters; the config has {declared!r:.60}.")
    if declared is None:  # neither given: the class's own (gpt-oss's YaRN), else default RoPE
        declared = fields.family.default_parameters
    declared = dict(declared or {})
    nested = [key for key in declared if key in set(rotary_types) | set(KNOWN_LAYER_TYPES)]
    family = fields.family
    if nested and not family.reads_nested(name):
        declared, nested = _read_flat(fields, declared, name, nested), []
    if not nested and family.per_layer_parameters:
        declared = _merged_per_layer_type(fields, declared, name)
    if nested and family.v5_only:
        declared = _standardized_by_a_scaling(fields, declared, name)
    parameters = {}
    for layer_type in rotary_types:
        if nested:
            chosen = declared.get(layer_type)
            where = f"{name}.{layer_type}"
            if family.v5_only:  # Gemma 4 fills in nothing: its rotary embedding reads every layer type's as written
                _as_written(fields, chosen, name, layer_type)
            if chosen is not None and not isinstance(chosen, Mapping):
                raise ValueError(f"{where} must be an object of RoPE parameters; the config has {chosen!r:.60}.")
            chosen = dict(chosen or {})
            chosen.pop("truncate", None)  # YaRN reads it from the outer dict, which holds layer types: truncated
        else:
            scaled = fields.family.scaling_layers is None or layer_type in fields.family.scaling_layers
            chosen, where = (dict(declared) if scaled else {}), name
        parameters[layer_type] = _complete(fields, chosen, layer_type, where, nested=bool(nested))
    return parameters


def _standardized_by_a_scaling(fields: Fields, declared: dict, name: str) -> dict:
    """Parameters read as written (:attr:`Family.v5_only`), as transformers 5.23 computes them. Its rotary embedding
    computes each layer type's frequencies in sorted order, a scaling's function (every rope_type but "default")
    first standardizing the config's parameters in place: every layer type's dict takes the top level's rope_theta
    and partial_rotary_factor where it has none. The model then initializes its weights, computing every layer
    type's frequencies again from the parameters so standardized into the buffers of the first pass. So with a
    scaling anywhere, every layer type reads the top level's θ and share where its own parameters have none (without
    one, none does); a layer type before the first scaling that the top level's share gives another width fails
    building the model, and is refused."""
    present = sorted(t for t in set(_attention_types(fields)) if t in declared)  # its layer types, not NoPE's
    for layer_type in present:  # transformers' validation: p-RoPE's parameters state their θ (before any copy)
        own = declared[layer_type]
        if isinstance(own, Mapping) and own.get("rope_type") == "proportional" and own.get("rope_theta") is None:
            raise ValueError(f"{name}.{layer_type} is p-RoPE ('proportional') without a rope_theta of its own: "
                             "transformers 5.23 refuses the config.")
    scaled = [t for t in present if isinstance(declared[t], Mapping)
              and declared[t].get("rope_type", declared[t].get("type", "default")) != "default"]
    if not scaled:
        return declared
    top = {key: fields.raw[key] for key in ("rope_theta", "partial_rotary_factor") if fields.raw.get(key) is not None}
    share = top.get("partial_rotary_factor")
    if share is not None and fields.family.partial_field is not None:  # (Gemma 4's default RoPE takes whole heads)
        head_dim = fields.head_dim()
        for layer_type in present[:present.index(scaled[0])]:
            own = declared[layer_type]
            if isinstance(own, Mapping) and own.get("partial_rotary_factor") is None:
                before = int(head_dim * fields.family.default_share)
                after = int(head_dim * real(share, "partial_rotary_factor", 0.0))
                if after != before:
                    raise ValueError(
                        f"{name}.{layer_type} has no partial_rotary_factor, and the top level's ({share:g}) reaches it "
                        f"once {scaled[0]}'s scaling standardizes the parameters: {fields.family.class_name}'s rotary "
                        f"embedding computes its frequencies for {before} dimensions, then for {after} as the model "
                        "initializes its weights, and transformers 5.23 fails building the model. Give "
                        f"{name}.{layer_type} a partial_rotary_factor of its own.")
    copied = {t: {**top, **declared[t]} for t in present if isinstance(declared[t], Mapping)}
    for layer_type, own in copied.items():  # a refusal names the share where it came from
        if share is not None and declared[layer_type].get("partial_rotary_factor") is None:
            own["_share"] = (f"partial_rotary_factor (the top level's, which {scaled[0]}'s scaling copies into "
                             f"{name}.{layer_type})")
    return {**declared, **copied}


def _as_written(fields: Fields, chosen: object, name: str, layer_type: str) -> None:
    """A class that reads its RoPE parameters as written, nested by layer type (Gemma 4), fills in none of them:
    transformers 5.23 fails building the model without a layer type's parameters, their rope_theta, or the trained
    context llama3, YaRN and LongRoPE read."""
    where = f"{name}.{layer_type}"
    if not isinstance(chosen, Mapping):
        raise ValueError(f"{name} has no {layer_type} parameters, which {fields.family.class_name}'s rotary embedding "
                         "reads (transformers 5.23 fails building the model).")
    rope_type = chosen.get("rope_type", chosen.get("type"))
    needed = ["rope_theta"] + ([TRAINED_CONTEXT] if rope_type in READS_TRAINED_CONTEXT else [])
    missing = [key for key in needed if chosen.get(key) is None]
    if missing:
        raise ValueError(f"{where} has no {' or '.join(missing)}: {fields.family.class_name} fills in none of its "
                         "RoPE parameters, and transformers 5.23 fails building the model.")


def _read_flat(fields: Fields, declared: dict, name: str, nested: list[str]) -> dict:
    """Parameters nested by layer type, read as one flat dict (transformers 5.23): by a class without
    ``layer_types``, and by Gemma 3 and ModernBERT in a v4 ``rope_scaling`` (merged into their own parameters), the
    outer dict is read (no rope_type: default RoPE, the nested ones unread); a class with ``layer_types`` keeps them
    nested, and its rotary embedding, which reads one flat dict, fails (KeyError 'rope_type'): refused."""
    family = fields.family
    if family.nested_parameters == "refused":
        raise ValueError(f"{name} is nested by layer type ({', '.join(nested)}), but {family.class_name} reads one "
                         "flat dict of RoPE parameters: transformers 5.23 builds the config and fails building the "
                         f"rotary embedding (KeyError 'rope_type'). Write one flat {name}.")
    return {key: value for key, value in declared.items() if key not in nested}


def _merged_per_layer_type(fields: Fields, declared: dict, name: str) -> dict:
    """A flat scaling as a class that keeps its RoPE parameters per layer type reads it (Gemma 3, ModernBERT, in
    transformers 5.23): a v4 ``rope_scaling`` is merged into the class's own ``{"rope_type": "default"}``, which v4's
    ``type`` does not replace, and YaRN's ``truncate`` is not read (the outer dict holds only layer types); a flat v5
    ``rope_parameters`` is not read (Gemma 3: default RoPE) or refused (ModernBERT)."""
    family = fields.family
    if family.v5_only or (name == "rope_parameters" and declared):  # Gemma 4: a rope_scaling is its rope_parameters
        if family.flat_parameters == "refused":
            raise ValueError(f"{name} must be nested by layer type ('full_attention', 'sliding_attention'): "
                             f"{family.class_name} keeps its RoPE parameters per layer type, and transformers 5.23 "
                             "refuses a flat one.")
        return {}
    merged = {"rope_type": "default", **declared}
    merged.pop("truncate", None)
    return merged


TRAINED_CONTEXT = "original_max_position_embeddings"
READS_TRAINED_CONTEXT = ("llama3", "yarn", "longrope")
"""The scalings that read L₀, the context the model was trained on (dynamic NTK takes max_position_embeddings)."""


def trained_context(fields: Fields, parameters: Mapping, where: str, *, nested: bool) -> tuple[object, str]:
    """L₀ of a llama3, YaRN or LongRoPE scaling as transformers 5.23 computes with it, and the field it comes from,
    dotted as in the file's language-model fields:

    - parameters not kept per layer type (``nested`` in the file, or the family's ``per_layer_parameters``) take
      the language model's config's own ``original_max_position_embeddings`` over the scaling's when it has one
      (:func:`_has_own_trained_context`). (transformers' rope functions standardize the parameters again once the
      config holds every field of the file, checked on each family's class; ``config.rope_parameters`` shows the
      scaling's value until the model is built.)
    - else the scaling's own; without one, ``max_position_embeddings``."""
    if not (nested or fields.family.per_layer_parameters) and _has_own_trained_context(fields):
        return fields.get(TRAINED_CONTEXT), TRAINED_CONTEXT
    if parameters.get(TRAINED_CONTEXT) is not None:
        return parameters[TRAINED_CONTEXT], f"{where}.{TRAINED_CONTEXT}"
    return fields.context(), "max_position_embeddings"


def _has_own_trained_context(fields: Fields) -> bool:
    """Whether the language model's config holds an ``original_max_position_embeddings`` of its own: its class has
    the field (Phi-3's default 4,096), or the file gives it where that config is built from: inside ``text_config``
    when there is one (the top level's is the outer config's), at the top level unless the model_type is a flat
    vision-language config (Qwen2-VL's text config takes only its class's fields from there)."""
    if TRAINED_CONTEXT in fields.family.defaults:
        return True
    if fields.family.composite and fields.text_config is None:  # a flat file: not its text config's field
        return False
    return fields.raw.get(TRAINED_CONTEXT) is not None  # text_config's alone when there is one (text_fields)


def _complete(fields: Fields, chosen: dict, layer_type: str, where: str, *, nested: bool) -> dict:
    """One layer type's parameters with transformers' defaults filled in (θ, type, original context)."""
    theta_field = fields.family.theta_fields.get(layer_type)
    if theta_field == "":  # no field reaches this layer type's θ (OLMo 3's sliding layers): the class's default
        theta = fields.family.defaults.get("rope_theta", 10_000.0)
    else:
        theta = next((fields.get(f) for f in (theta_field, "rope_theta", "rotary_emb_base") if f and fields.has(f)),
                     10_000.0)
    chosen.setdefault("rope_theta", theta)
    rope_type = chosen.get("rope_type", chosen.get("type", "default"))
    share = fields.share()
    if share is not None and "partial_rotary_factor" not in chosen:  # the top level's, named in a refusal
        chosen.update(partial_rotary_factor=share, _share=fields.share_name())
    if rope_type == "mrope":  # Qwen2-VL's v4 name: default frequencies, sections apart
        rope_type = "default"
    rope_type = fields.family.rope_type(rope_type)
    if not isinstance(rope_type, str) or rope_type not in ROPE_SCALINGS or rope_type == "ntk" or (
            rope_type == "proportional" and not fields.family.v5_only):  # p-RoPE: Gemma 4's
        key = "rope_type" if "rope_type" in chosen else "type"
        if rope_type == "proportional":
            raise ValueError(f"{where}.{key} is 'proportional' (p-RoPE), which posenc reads in Gemma 4's configs "
                             f"(Gemma4TextConfig) only; {fields.family.class_name or 'a model_type it has no record of'}"
                             " may read its share of pairs otherwise.")
        raise ValueError(f"{where}.{key} is {rope_type!r:.40}, a RoPE scaling posenc does not compute; it knows "
                         "'default', 'linear', 'dynamic', 'yarn', 'llama3' and 'longrope' (and Gemma 4's "
                         "'proportional').")
    chosen["rope_type"] = rope_type
    if fields.family.head_dim_unset and rope_type in ("dynamic", "yarn", "longrope") and not fields.has("head_dim"):
        raise ValueError(f"{where} is {rope_type!r}, whose function in transformers 5.23 reads head_dim, and the "
                         f"config gives none: {fields.family.class_name} keeps it None, and building the model fails. "
                         "Give head_dim.")
    if fields.family.mscale_pair and rope_type != "default":  # PhiMoE's own cos/sin factor
        chosen.update(_mscale_pair(fields, chosen, rope_type, where))
        rope_type = chosen["rope_type"]
    if fields.family.ntk_alpha and rope_type == "dynamic" and chosen.get("alpha"):
        chosen.update(_ntk_alpha(fields, chosen, where))
        rope_type = "default"
    if "partial_rotary_factor" not in chosen and (share := default_share(fields, rope_type)) is not None:
        chosen["partial_rotary_factor"] = share  # MiMo-V2-Flash's default RoPE: 0.334
        chosen["_share"] = f"{fields.family.class_name}'s default share"
    if rope_type in READS_TRAINED_CONTEXT:
        chosen[TRAINED_CONTEXT] = trained_context(fields, chosen, where, nested=nested)[0]
    chosen["_where"] = where
    return chosen


def default_share(fields: Fields, rope_type: object) -> float | None:
    """The share of each head a scaling of ``rope_type`` (None: not given, the default) rotates where neither it nor
    the top level gives one, when the class's is not the whole head: MiMo-V2-Flash's default RoPE, 0.334; None
    elsewhere (the whole head, or the scaling's own rule)."""
    share = fields.family.default_share
    return share if rope_type in ("default", None) and share != 1 else None


def _mscale_pair(fields: Fields, chosen: dict, rope_type: str, where: str) -> dict:
    """PhiMoE's scaling as transformers 5.23 computes it: cos and sin times its short_mscale (long_mscale past
    original_max_position_embeddings) in place of the scaling's factor, LongRoPE's frequencies from its short_factor
    at every length, dynamic NTK's at no length (its rotary embedding recomputes them without the input's length:
    default RoPE). Refused where posenc would draw otherwise: two factors that differ (posenc draws one at every
    length), a factor on a scaling without one in posenc (linear, llama3, dynamic)."""
    name = fields.family.class_name
    factors = {}
    for key in ("short_mscale", "long_mscale"):
        if chosen.get(key) is None:
            raise ValueError(f"{where} ({rope_type!r}) gives no {key}, which {name} needs for every scaling: "
                             "transformers 5.23 refuses the config.")
        factors[key] = real(chosen[key], f"{where}.{key}", 0.0)
    short, long = factors["short_mscale"], factors["long_mscale"]
    if short != long:
        raise ValueError(f"{where}.short_mscale ({short:g}) and long_mscale ({long:g}) differ: {name}'s model "
                         "multiplies cos and sin by the one or the other as the input is shorter or longer than "
                         "original_max_position_embeddings, and posenc draws one factor at every length.")
    if rope_type not in READS_TRAINED_CONTEXT and chosen.get(TRAINED_CONTEXT) is None:
        raise ValueError(f"{where} ({rope_type!r}) gives no {TRAINED_CONTEXT}, which {name}'s model compares the "
                         "input's length with to pick short_mscale or long_mscale: transformers 5.23 fails at its "
                         "first forward pass.")
    if rope_type in ("yarn", "longrope"):
        return {"attention_factor": short} | (  # (LongRoPE's long list: never read)
            {"long_factor": chosen["short_factor"]} if rope_type == "longrope" and "short_factor" in chosen else {})
    if short != 1:
        raise ValueError(f"{where}.short_mscale is {short:g}: {name}'s model multiplies cos and sin by it, which "
                         f"posenc's {rope_type!r} scaling does not.")
    return {"rope_type": "default"} if rope_type == "dynamic" else {}  # its model computes dynamic NTK for no length


def _ntk_alpha(fields: Fields, chosen: dict, where: str) -> dict:
    """HunYuan's "dynamic" parameters with an alpha (its DynamicNTKAlpha): default RoPE at θ·α^(d/(d − 2)), d the
    head's width, at every length (transformers 5.23's HunYuan rotary embeddings, ``ntk_alpha``)."""
    theta = real(chosen.get("rope_theta"), f"{where}.rope_theta", 0.0)
    alpha = real(chosen["alpha"], f"{where}.alpha", 0.0)
    width = fields.head_dim()
    if width <= 2:
        raise ValueError(f"{where} is NTK-α (dynamic with an alpha), whose θ·α^(d/(d − 2)) needs a head wider than 2 "
                         f"dimensions; head_dim is {width}.")
    try:
        stretched = theta * alpha ** (width / (width - 2))
    except OverflowError:
        stretched = math.inf
    if not math.isfinite(stretched):
        raise ValueError(f"{where}.alpha ({alpha:g}) stretches θ {theta:g} past any finite number "
                         f"(θ·α^({width}/{width - 2})).")
    return {"rope_type": "default", "rope_theta": stretched, "_ntk_alpha": (theta, alpha, width)}


def ntk_alpha_derivation(positional: Positional) -> str:
    """How a layer's NTK-α θ is computed, with the file's numbers: "10,000 × 1,000^(128/126) = 11,158,840" (θ ×
    α^(d/(d − 2)), rounded as the sidebar shows θ); "" where its θ is the file's. The check and the sidebar say it."""
    if not positional.extra.get("ntk_alpha"):
        return ""
    theta, alpha, width = positional.extra["ntk_alpha"]
    return f"{readable(theta)} × {readable(alpha)}^({width}/{width - 2}) = {positional.base:,.0f}"


def readable(value: float) -> str:
    """A number as a reader writes it: 5,000,000, not 5e+06 (a fraction or a huge one as %g)."""
    return f"{value:,.0f}" if float(value).is_integer() and abs(value) < 1e15 else f"{value:,g}"


def _rotary(fields: Fields, head_dim: int) -> tuple[int, float]:
    """(the dimensions that rotate, the head's width they are a part of): partial rotary, GPT-J and CodeGen,
    DeepSeek."""
    if fields.has("qk_rope_head_dim"):
        return whole(fields.get("qk_rope_head_dim"), "qk_rope_head_dim", 2), head_dim
    if fields.family.rotary_dim:
        return whole(fields.get("rotary_dim"), "rotary_dim", 2), head_dim
    name = fields.family.partial_field
    if not name:  # a class that rotates whole heads (_rope_positional refuses a share it cannot compute), or
        return head_dim, head_dim  # reads its share in its RoPE parameters only (_rope_positional)
    share = fields.share()
    fraction = real(1.0 if share is None else share, name, 0.0)
    if fraction > 1:
        raise ValueError(f"{name} must be at most 1 (the share of a head that rotates); the config has {fraction:g}.")
    return int(head_dim * fraction), head_dim


def _rope_model(fields: Fields) -> tuple[list[str], dict[str, Positional], int, int]:
    types = layer_types(fields)
    context = fields.context()
    head_dim = fields.head_dim()
    rotary_dims, _ = _rotary(fields, head_dim)
    if fields.has("qk_rope_head_dim"):  # DeepSeek: a head of qk_nope + qk_rope dimensions, the last rotating
        head_dim = whole(fields.get("qk_nope_head_dim"), "qk_nope_head_dim", 0) + rotary_dims
    if rotary_dims % 2 or rotary_dims == 0:
        raise ValueError(f"the rotated width of a head must be an even number of dimensions (RoPE turns pairs); "
                         f"this config rotates {rotary_dims} of {head_dim}.")
    window = _window(fields) if "sliding_attention" in types else None  # Qwen2-MoE writes 0 for no window
    unmasked = window is not None and never_masks(fields, window, context)
    rotary_types = [t for t in dict.fromkeys(types) if t != NOPE_LAYER]
    parameters = rope_parameters(fields, list(dict.fromkeys([*rotary_types, "full_attention"])) if unmasked
                                 else rotary_types)
    own = _own_thetas(fields)  # Granite SWA's θ of each layer
    for kind, theta in own.items():
        if kind in parameters and theta:
            parameters[kind] |= {"rope_theta": theta}  # (read, and checked, in layer_thetas)
    if unmasked and (not own or own.get("sliding_attention") == own.get("full_attention")) and _alike(
            parameters["sliding_attention"], parameters["full_attention"]):  # so: full attention
        types = ["full_attention" if t == "sliding_attention" else t for t in types]
        rotary_types = [t for t in dict.fromkeys(types) if t != NOPE_LAYER]
    widths = {t: _type_head_dim(fields, t, types, head_dim) for t in rotary_types}  # Gemma 4's global heads
    positionals = {t: _rope_positional(fields, t, parameters[t], widths[t],
                                       rotary_dims if widths[t] == head_dim else widths[t], window, context)
                   for t in rotary_types}
    if NOPE_LAYER in types:
        nope_window = _nope_window(fields, len(types))
        nope_window = nope_window if nope_window is not None and nope_window < context else None
        sinks = {"attention_sinks": True} if NOPE_LAYER in fields.family.sinks else {}  # Flint's
        positionals[NOPE_LAYER] = Positional("nope", MappingProxyType({}), None, 0, nope_window, head_dim, None,
                                             MappingProxyType(_temperature(fields) | sinks))
    return types, positionals, context, fields.integer("query_pre_attn_scalar", default=head_dim)


def _type_head_dim(fields: Fields, layer_type: str, types: list[str], head_dim: int) -> int:
    """The width of a layer type's heads where the family sets it apart (:attr:`Family.head_dim_fields`): Gemma 4's
    full-attention layers, ``global_head_dim``, or, in a file transformers saved, ``per_layer_config``'s head_dim
    of each of its layers (by index; a layer it does not list keeps ``head_dim``); else ``head_dim``."""
    if not fields.family.head_dim_fields:
        return head_dim
    name = fields.family.head_dim_fields.get(layer_type)
    overrides = fields.raw.get("per_layer_config")
    if overrides is None:
        return whole(fields.get(name), name, 1) if name else head_dim
    if not isinstance(overrides, Mapping) or not all(isinstance(k, str) and k.isdigit() for k in overrides):
        raise ValueError("per_layer_config must map layer indices (\"05\" as transformers writes them) to their "
                         f"fields; the config has {overrides!r:.60}.")
    by_index = {int(key): entry for key, entry in overrides.items()}
    widths = set()
    for index, kind in enumerate(types):
        if kind == layer_type:
            entry = by_index.get(index)
            width = entry.get("head_dim") if isinstance(entry, Mapping) else None
            widths.add(head_dim if width is None else whole(width, f"per_layer_config.{index}.head_dim", 1))
    if len(widths) > 1:
        raise ValueError(f"per_layer_config gives the {layer_type} layers heads of different widths "
                         f"({', '.join(map(str, sorted(widths)))}); posenc draws one width for every layer of a type.")
    return widths.pop() if widths else head_dim


def _alike(sliding: dict, full: dict) -> bool:
    """Whether sliding-window layers rotate as full-attention ones would (not so where θ or the scaling is kept per
    layer type: Gemma 3's local layers turn at rope_local_base_freq whatever their window)."""
    return {k: v for k, v in sliding.items() if k != "_where"} == {k: v for k, v in full.items() if k != "_where"}


def _rope_positional(fields: Fields, layer_type: str, parameters: dict, head_dim: int, rotary_dims: int,
                     window: int | None, context: int) -> Positional:
    where = parameters["_where"]
    rope_type = parameters["rope_type"]
    base = real(parameters["rope_theta"], f"{where}.rope_theta", 0.0)
    fraction = parameters.get("partial_rotary_factor")
    share = None
    if scales_whole_head(rope_type):  # p-RoPE (Gemma 4): every pair of the head, the last ones at θ = 0
        share = real(1.0 if fraction is None else fraction, f"{where}.partial_rotary_factor", 0.0)
        if share > 1:
            raise ValueError(f"{where}.partial_rotary_factor must be at most 1 (the share of pairs p-RoPE turns); "
                             f"the config has {share:g}.")
        fraction, rotary_dims = None, head_dim
    elif fields.family.head_share:  # Mistral 4: frequencies for head_dim × its share, qk_rope_head_dim rotated
        _head_share(fields, where, rope_type, head_dim, rotary_dims, fraction)
        fraction = None
    elif fields.family.partial_field is None:
        _whole_heads(fields, where, rope_type, rotary_dims, fraction)
        fraction = None
    if fraction is not None and not fields.has("qk_rope_head_dim"):
        fraction = real(fraction, f"{where}.partial_rotary_factor", 0.0)
        rotary_dims = int(head_dim * min(fraction, 1.0))
        stated = parameters.get("_share", f"{where}.partial_rotary_factor")
        if rotary_dims % 2 or rotary_dims == 0:
            raise ValueError(f"{stated} {fraction:g} rotates int({head_dim} × {fraction:g}) = "
                             f"{rotary_dims} of {head_dim} dimensions of a head: the rotated width must be an even "
                             "number of dimensions (RoPE turns pairs).")
        if fields.family.fixed_width and rotary_dims != head_dim:
            raise ValueError(f"{stated} is {fraction:g}: {fields.family.class_name}'s rotary "
                             f"embedding computes frequencies for {rotary_dims} of a head's {head_dim} dimensions, but "
                             "its attention rotates the whole head, and transformers 5.23 fails at the model's first "
                             "forward pass. Remove the share.")
    scaling = _scaling(parameters, rope_type, where, context)
    interleave = fields.get("rope_interleave", True) if "rope_interleave" in fields.family.defaults else True
    layout = "interleaved" if fields.family.layout == "interleaved" and interleave else "half"
    options = {"layout": layout, "rope_type": rope_type,
               "rotary_fraction": rotary_dims / head_dim if share is None else share, **scaling}
    extra = {}
    section = parameters.get("mrope_section")
    if section is not None:
        if not isinstance(section, list) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                                    for v in section):
            raise ValueError(f"{where}.mrope_section must be a list of whole numbers; the config has {section!r:.60}.")
        extra["mrope_section"] = tuple(section)
        if parameters.get("mrope_interleaved") is True:
            extra["mrope_interleaved"] = True
    if layer_type in fields.family.sinks:
        extra["attention_sinks"] = True
    if fields.family.beside:  # Falcon-H1's Mamba-2 path (the sidebar says so)
        extra["beside"] = fields.family.beside
    if "_ntk_alpha" in parameters:  # HunYuan's θ, stretched (the sidebar says how)
        extra["ntk_alpha"] = parameters["_ntk_alpha"]
    beta = parameters.get("llama_4_scaling_beta")
    if fields.family.query_beta and beta is not None:  # Ministral 3's query scale (the check: it needs both)
        extra["llama_4_scaling_beta"] = real(beta, f"{where}.llama_4_scaling_beta", 0.0, strict=False)
        extra["llama_4_original"] = real(parameters.get(TRAINED_CONTEXT, context), f"{where}.{TRAINED_CONTEXT}", 0.0)
    if fields.has("qk_rope_head_dim"):
        extra.update(qk_nope_head_dim=head_dim - rotary_dims,
                     v_head_dim=whole(fields.get("v_head_dim", head_dim - rotary_dims), "v_head_dim", 1))
    chunk = fields.integer("attention_chunk_size", required=False) if layer_type == "chunked_attention" else None
    return Positional("rope", MappingProxyType({k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}),
                      base, rotary_dims, window if layer_type == "sliding_attention" else None, head_dim, chunk,
                      MappingProxyType(extra))


def _whole_heads(fields: Fields, where: str, rope_type: str, width: int, own: object) -> None:
    """A class with no share of a head to rotate (it rotates its ``width``: a whole head, DeepSeek's
    qk_rope_head_dim) given one: under default RoPE transformers 5.23 ignores it (the class computes its own
    frequencies); a scaling's frequencies are computed for the share, and the model fails at its first forward pass
    (cos and sin narrower than what rotates: checked on Llama, Gemma 2 and DeepSeek-V3 models). That is refused."""
    field, stated = ((f"{where}.partial_rotary_factor", own) if own is not None
                     else ("partial_rotary_factor", fields.raw.get("partial_rotary_factor")))
    if stated is None or rope_type == "default":
        return
    share = real(stated, field, 0.0)
    if int(width * share) != width:
        raise ValueError(f"{field} is {share:g}, but {fields.family.class_name or 'this class'} takes no share of a "
                         f"head to rotate: transformers 5.23 computes this {rope_type} scaling's frequencies for "
                         f"{int(width * share)} of the {width} dimensions it rotates, and the model fails at its first "
                         "forward pass. Remove partial_rotary_factor.")


def _head_share(fields: Fields, where: str, rope_type: str, head_dim: int, width: int, own: object) -> None:
    """A class that computes its frequencies for head_dim × its parameters' share and rotates ``width``
    (qk_rope_head_dim; :attr:`Family.head_share`: Mistral 4): the share is the parameters' own, else the class's
    qk_rope_head_dim / head_dim in v5's rope_parameters (or its own parameters), else the top level's
    partial_rotary_factor, else 1 (a v4 rope_scaling); default
    RoPE takes the whole head. Any other width than ``width`` fails at the model's first forward pass (transformers
    5.23: cos and sin wider than what rotates). That is refused."""
    if rope_type == "default":
        computed, why = head_dim, "default RoPE takes the whole head"
    else:
        top = fields.raw.get("partial_rotary_factor")  # a v4 rope_scaling takes the top level's share
        stated = own if own is not None else width / head_dim if where.startswith("rope_parameters") else \
            1.0 if top is None else top
        share = real(stated, f"{where}.partial_rotary_factor", 0.0)
        computed, why = int(head_dim * share), f"{head_dim} × partial_rotary_factor {share:g}"
    if computed != width:
        raise ValueError(f"{fields.family.class_name}'s rotary embedding computes frequencies for {computed} "
                         f"dimensions of its {head_dim}-wide heads ({why}), but its attention rotates "
                         f"qk_rope_head_dim = {width}: transformers 5.23 fails at the model's first forward pass. Give "
                         f"rope_parameters a scaling (not default) with partial_rotary_factor {width / head_dim:g}.")


def _scaling(parameters: dict, rope_type: str, where: str, context: int) -> dict:
    """The scaling's parameters under posenc's names (those the scaling takes; unknown keys dropped)."""
    takes = rope_scaling_parameters(rope_type)
    scaling = {key: parameters[key] for key in takes if parameters.get(key) is not None}
    if rope_type == "dynamic":  # transformers' dynamic NTK reads L₀ from max_position_embeddings
        scaling["original_max_position_embeddings"] = context
    if rope_type == "yarn" and "factor" not in scaling and "original_max_position_embeddings" in scaling:
        scaling["factor"] = context / whole(scaling["original_max_position_embeddings"],
                                            f"{where}.original_max_position_embeddings")
    if rope_type == "longrope" and "factor" not in scaling:
        scaling["max_position_embeddings"] = context
    for key, value in scaling.items():
        if key in ("short_factor", "long_factor"):
            if not isinstance(value, list) or not all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                                                      for v in value):
                raise ValueError(f"{where}.{key} must be a list of numbers; the config has {value!r:.60}.")
        elif key == "truncate":
            if not isinstance(value, bool):
                raise ValueError(f"{where}.truncate must be true or false; the config has {value!r:.40}.")
        elif key in ("original_max_position_embeddings", "max_position_embeddings"):
            scaling[key] = whole(value, f"{where}.{key}")
        else:
            scaling[key] = real(value, f"{where}.{key}", 0.0, strict=False)
    missing = [key for key, default in takes.items() if default is _REQUIRED and key not in scaling]
    if missing:
        raise ValueError(f"{where} has rope_type {rope_type!r} but no {', '.join(missing)}, which that scaling "
                         "needs.")
    return scaling


_REQUIRED = next(iter(rope_scaling_parameters("linear").values()))  # inspect.Parameter.empty


def _temperature(fields: Fields) -> dict:
    """Llama 4's NoPE-layer query temperature, when the config turns it on."""
    if fields.model_type != "llama4_text" or fields.get("attn_temperature_tuning") in (False, 0):
        return {}
    return {"attn_temperature_tuning": True, "floor_scale": whole(fields.get("floor_scale"), "floor_scale"),
            "attn_scale": real(fields.get("attn_scale"), "attn_scale", 0.0, strict=False)}


# --- learned tables, sinusoids, T5's buckets, ALiBi ---------------------------------------------------------------

def _learned_model(fields: Fields) -> tuple[list[str], dict[str, Positional], int, int]:
    kind = fields.raw.get("position_embedding_type", "absolute")
    switch = fields.family.scheme_switch
    if kind != "absolute" and switch and switch[0] == "position_embedding_type":  # ESM: no positions at all
        raise ValueError(f"position_embedding_type is {kind!r:.40}: {fields.family.class_name}'s model adds positions "
                         f"for 'absolute' (a learned table) and {switch[1]!r} only, and none for another.")
    if kind != "absolute" and not fields.family.class_name:  # (BERT's kin read none in 5.23: the check warns)
        raise ValueError(f"position_embedding_type is {kind!r:.40}; posenc reads 'absolute' (a learned table) "
                         "only.")
    size, head_dim, count = fields.context() + fields.family.row_offset, fields.head_dim(), fields.layers()
    learned = Positional("learned", MappingProxyType({"table_size": size}), None, 0, None, head_dim,
                         extra=MappingProxyType({"model_width": _model_width(fields, head_dim)}))
    types = layer_types(fields) if fields.family.windows == "gpt_neo" else ["full_attention"] * count
    first = _first_position(fields)  # the rows before it are never a token's
    if first >= size:  # only from pad_token_id + 1 (a fixed offset's rows are added to the table)
        raise ValueError(f"max_position_embeddings is {size}, but positions count from pad_token_id + 1 = {first}"
                         f" in a {fields.model_type} model: its table holds no token.")
    context = size - first
    return *_windowed(fields, types, learned, context), context, head_dim  # GPT-Neo's local layers


def _windowed(fields: Fields, types: list[str], positional: Positional,
              context: int) -> tuple[list[str], dict[str, Positional]]:
    """The layers and each layer type's Positional for a scheme drawn alike on every layer, its sliding-window
    layers (GPT-Neo's, LongT5's) in the family's window; all full attention where the window masks nothing."""
    window = _window(fields) if "sliding_attention" in types else None
    if window is not None and never_masks(fields, window, context):  # a window reaching every key
        types, window = ["full_attention"] * len(types), None
    return types, {t: positional._replace(window=window if t == "sliding_attention" else None)
                   for t in dict.fromkeys(types)}


def _first_position(fields: Fields) -> int:
    """The position a model's first token is encoded at (its table's row): pad_token_id + 1 where positions count from
    it (RoBERTa's, M2M100's), the family's fixed offset (OPT's and XGLM's 2), else 0."""
    return fields.integer("pad_token_id", minimum=0) + 1 if fields.family.padding_offset else fields.family.row_offset


def _model_width(fields: Fields, head_dim: int) -> int:
    """The width of the embeddings an absolute table is added to: the family's field (ALBERT's embedding_size), the
    hidden size, else heads × head_dim."""
    if fields.family.width_field:  # ALBERT's embedding_size: its table is narrower than its hidden size
        return fields.integer(fields.family.width_field)
    return fields.integer(*WIDTH_FIELDS) if any(fields.has(name) for name in WIDTH_FIELDS) else \
        head_dim * fields.heads()


SINUSOIDAL_BASE = 10_000.0
"""n of the sinusoids every family posenc reads computes (a literal in each class's code, no config field)."""


def _sinusoidal_model(fields: Fields) -> tuple[list[str], dict[str, Positional], int, int]:
    """Fixed sinusoids added to the embeddings, each row's sines before its cosines (Marian's, fairseq's) or
    interleaved with them (DistilBERT's, XLM's: the paper's), from position 0 or from the family's first (M2M100:
    pad_token_id + 1; XGLM: 2)."""
    family, head_dim, count = fields.family, fields.head_dim(), fields.layers()
    width = _model_width(fields, head_dim)
    named = family.width_field or family.attribute_map.get("hidden_size", "hidden_size")  # Marian's d_model
    layout = "split" if family.layout == "half" else "interleaved"
    if width % 2 and layout == "split":
        raise ValueError(f"{named} is {width}: {family.class_name} puts each row's sines before its cosines, which "
                         "posenc draws for an even width only.")
    if family.spacing == "tensor2tensor" and width < 4:
        raise ValueError(f"{named} is {width}: {family.class_name} spreads its frequencies over {named}/2 − 1 steps "
                         "and divides by zero below 4.")
    first = _first_position(fields)
    context = fields.context()
    extra = {"model_width": width, **({"first_position": first} if first else {}),
             **({"table_rows": context} if family.fixed_rows else {}),  # Marian's: a longer input has no row
             **({"exact_length": context} if family.exact_length else {})}  # Whisper's: every input that long
    sinusoids = Positional("sinusoidal", MappingProxyType({"layout": layout, "spacing": family.spacing}),
                           SINUSOIDAL_BASE, 0, None, head_dim, extra=MappingProxyType(extra))
    return ["full_attention"] * count, {"full_attention": sinusoids}, context, head_dim


def _t5_model(fields: Fields) -> tuple[list[str], dict[str, Positional], int, None]:
    """T5's buckets, added to every layer's logits; MPNet's with a learned table added to its embeddings too."""
    family, heads = fields.family, fields.heads()
    buckets = fields.integer("relative_attention_num_buckets", minimum=2)
    if family.fixed_buckets:  # MPNet's code: 32 buckets out to 128; the file's count sizes the bias's embedding only
        if buckets < family.fixed_buckets[0]:
            raise ValueError(f"relative_attention_num_buckets is {buckets}: {family.class_name}'s model computes "
                             f"{family.fixed_buckets[0]} buckets whatever it says, and its bias has no row for the "
                             "last ones (transformers raises an index error).")
        buckets, distance = family.fixed_buckets
    else:
        distance = fields.integer("relative_attention_max_distance", default=128, minimum=2)
    if _causal(fields) != family.causal:  # Pix2Struct's text model: one-way buckets, whatever it attends to
        raise ValueError(f"{family.causal_field} is {str(not family.causal).lower()}: {family.class_name}'s model "
                         f"then attends {'both ways' if family.causal else 'causally'} with buckets counted "
                         f"{'one way' if family.causal else 'both ways'}, which posenc's T5 bias does not draw.")
    direction = "causal" if family.causal else "bidirectional"  # a decoder's buckets count one way
    options = {"num_heads": heads, "num_buckets": buckets, "max_distance": distance, "direction": direction}
    head_dim = fields.integer("d_kv", default=None, required=False) or fields.head_dim()
    context, extra = fields.integer("n_positions", "max_position_embeddings", default=512), {}
    if family.added_table:  # MPNet's table, from row 2: its rows bound the context
        first = _first_position(fields)
        if first >= context:
            raise ValueError(f"max_position_embeddings is {context}, but {family.class_name}'s model reads row p + "
                             f"{first} for the token at position p: its table holds no token.")
        extra = {"added_table": context, "first_position": first}
        context -= first
    t5 = Positional("t5", MappingProxyType(options), None, 0, None, head_dim, extra=MappingProxyType(extra))
    types = _family_layers(fields, fields.layers())  # LongT5's local layers; T5's, MPNet's: full attention
    return *_windowed(fields, types, t5, context), context, head_dim


def _alibi_model(fields: Fields) -> tuple[list[str], dict[str, Positional], int, int]:
    heads, head_dim = fields.heads(), fields.head_dim()
    if fields.model_type == "bloom":  # BLOOM's config has no length: its model card's training sequence
        context = fields.integer("seq_length", "max_position_embeddings", default=2048)
    else:
        context = fields.context()
    attention = fields.raw.get("attn_config")
    bias_max = attention.get("alibi_bias_max") if isinstance(attention, Mapping) else None
    if bias_max is not None and bias_max != 8 and not fields.family.class_name:  # MPT's class: 8 whatever it says
        raise ValueError(f"attn_config.alibi_bias_max is {bias_max!r:.40}: MosaicML's code gives slopes "
                         "2^(−alibi_bias_max·k/n), and posenc draws ALiBi's slopes 2^(−8k/n) (BLOOM's, MPT's in "
                         "transformers) only.")
    alibi = Positional("alibi", MappingProxyType({"num_heads": heads, "direction": "causal"}), None, 0, None, head_dim)
    return ["full_attention"] * fields.layers(), {"full_attention": alibi}, context, head_dim
