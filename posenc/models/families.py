r"""What a model family's configuration class adds to its ``config.json`` (transformers 5.23), one record each.

A config.json lists only what differs from its configuration class's defaults: Gemma 3's leaves out
``rope_theta`` (Gemma3TextConfig: 1,000,000 for global layers) and often ``max_position_embeddings``;
GPT-NeoX's rotates a quarter of each head unless ``rotary_pct`` says otherwise. :data:`FAMILIES` holds,
for each ``model_type`` whose defaults or rules change a position, the record :func:`family` returns;
every other model_type reads as a Llama-style decoder (one θ, a window on every layer when
``sliding_window`` is set). Only the fields positions depend on are listed; each entry states only what
differs from :class:`Family`'s defaults, as transformers' configuration classes do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

# Whether a cache that has dropped a text's first keys leaves the position terms of the keys it keeps as one forward
# pass computes them, by a model's scheme (Family.cache_windows): rotary and absolute positions are in the keys
# themselves; ALiBi's bias, linear in the distance, moves every logit of a query alike, which the softmax ignores;
# T5's buckets count their distances from the first key kept.
_CACHE_KEEPS_POSITIONS = MappingProxyType({"rope": True, "learned": True, "sinusoidal": True, "alibi": True,
                                           "t5": False})


@dataclass(frozen=True)
class Family:
    """How one family's configuration class reads positions.

    ``scheme``: "rope", "learned", "sinusoidal", "t5" or "alibi"; ``spacing``: a sinusoidal family's frequency
    spacing (posenc's "vaswani": Marian, Pegasus; "tensor2tensor": fairseq's, M2M100, XGLM), its sines before its
    cosines in every row (the split layout); ``fixed_rows``: sinusoids computed once, as a table of
    ``max_position_embeddings`` rows, so that a longer input fails (Marian, Pegasus; fairseq's grow with the input);
    ``defaults``: the class's default of each positional
    field; ``theta_fields``: layer type -> the v4 field holding its θ (Gemma 3's ``rope_local_base_freq``; "": none,
    the class's default θ whatever the file says: OLMo 3's sliding-window layers);
    ``scaling_layers``: the layer types a v4 ``rope_scaling`` applies to (None: every rotary one);
    ``layout``: "half" (rotate_half; sinusoids: each row's sines before its cosines, posenc's split layout) or
    "interleaved" (adjacent pairs; sinusoids: sin, cos, sin, … as the paper), halves where the class has a
    ``rope_interleave`` field (in ``defaults``: DeepSeek-V3, Mistral 4) and the file sets it false; ``causal``: a decoder;
    ``causal_field``: the field that makes it one when true (XLM's ``causal``, BERT's ``is_decoder``), "" for none;
    ``bidirectional_field``: the field that makes a decoder see both ways when true, its sliding windows halved to
    either side of the query (Gemma 3's ``use_bidirectional_attention``: EmbeddingGemma), "" for none;
    ``bidirectional_in``: the attention implementations whose masks honour it (Gemma 3: eager and sdpa; Gemma:
    sdpa only; Gemma 2: none of those it runs on a CPU): posenc draws eager's, and the check warns where they differ;
    ``scheme_switch``: (field, value, scheme): the scheme when the field has that value (DistilBERT's
    ``sinusoidal_pos_embds`` true: sinusoids), else ``scheme``;
    ``width_field``: the field giving an absolute table's width where it is not the hidden size (ALBERT's
    ``embedding_size``);
    ``windows``: how layers get windows without ``layer_types`` ("all": every layer when
    ``sliding_window`` is set, unless ``use_sliding_window`` is false (a model_type posenc does not know);
    "sliding_window": every layer when ``sliding_window`` is set, whatever else the file says (Mistral);
    "qwen": from layer ``max_window_layers`` on when ``use_sliding_window``, "max_window_layers": the same whatever
    ``use_sliding_window`` says (dots.llm1), "qwen2_moe": the even layers below
    ``max_window_layers`` when ``use_sliding_window``, "qwen3_moe": every layer when ``use_sliding_window``,
    "gpt_neo": GPT-Neo's ``attention_layers``, else its ``attention_types`` expanded ("local": a window),
    "longt5": every layer a window when ``encoder_attention_type`` is "local" (LongT5; "transient-global" refused),
    "every": one full layer in ``pattern_field`` layers (or in ``pattern``, fixed in the class), "every_and_first":
    the same and layer 0 (MiMo-V2-Flash), "every_from_last": one full layer in ``pattern`` counted back from the last
    (Muse), "flint": full
    attention on layers 0, 1, every fourth from 1 and the last (Flint), "alternate": every
    other layer (Gemma 2, gpt-oss), "chunked": Llama 4's chunked attention on every layer that rotates,
    "no_rope_layers": SmolLM3's, the layers without positions when ``use_sliding_window``, "none");
    ``section_required``: the class refuses RoPE parameters without an ``mrope_section`` (Cosmos3-Edge's validation
    reads it: KeyError), where it sets its own only when the file gives none: the check gives an error;
    ``listed_layers``: a class whose rule is "none", "sliding_window" or "qwen3_moe" but whose model still windows
    the layers a file's ``layer_types`` makes sliding_attention (Ministral, Laguna, Mellum, Cohere Compass): the
    other classes of those rules compute their layers by their rule whatever the list says
    (:attr:`reads_layer_types`);
    ``own_layer_types``: a class of rule "none" that lists its layers itself where the file gives no ``layer_types``
    (MiniMax-M3's text model: every layer full_attention; Falcon-H1: every layer hybrid; so do the classes of
    ``listed_layers``), so that its cache keeps every key whatever ``sliding_window`` says: the other classes of that
    rule list none, and their cache (transformers 5.23's DynamicCache) keeps the last ``sliding_window`` − 1 keys of
    every layer (:attr:`cache_drops_keys`);
    ``eager_only``: a class whose model has no sdpa attention in transformers 5.23 (``_supports_sdpa`` false), so
    that eager attention is its default: the others default to sdpa, whose step through a cache attends to every key
    the cache holds for the layer where the forward pass builds no mask for a step (its own layers all full), where
    eager attention applies that pass's mask; ``masks_every_step``: a class whose forward pass builds the mask at
    every step, under sdpa too (Falcon's, onto which it adds ALiBi); ``cacheless``: a decoder (or an encoder a field
    makes one) whose model takes no transformers cache, so that what the cache would read is never read (GPT-1's
    and ESM's run the whole text again for each token they generate; XLM's and FlauBERT's keep a cache of their own,
    which reads no window); ``cache_fails_under``: the schemes under which generating through a cache that has
    dropped a key fails (Falcon's ALiBi: its bias is built for every token of the text, against the keys the cache
    keeps);
    ``window_field``: the field of the window and how it becomes transformers' ``sliding_window``
    ("half": ModernBERT's ``local_attention`` // 2); ``window_plus_one``: a field counting the keys a query sees
    before itself, so that the window is one more, winning over ``window_field`` when given (MiMo-V2-Flash's
    ``sliding_window_size``, SGLang's); ``window_alias``: a field that wins over ``window_field`` when the file gives
    it, read as transformers' ``sliding_window`` itself (ModernBERT's ``sliding_window``, whose setter sets
    ``local_attention`` to twice it; ModernBERT-decoder's, an attribute its mask reads); ``nope_layers``: which
    layers have no positions: those ``no_rope_layers`` marks 0 ("no_rope_layers": Llama 4, SmolLM3), every full-attention layer ("full_attention":
    Cohere 2, whose sliding-window layers alone rotate), every full-attention layer when the config has a
    ``sliding_window`` ("windowed": EXAONE 4, whose layers all rotate when it is null), those ``layer_rope_theta``
    gives 0 ("layer_rope_theta": Muse, whose other layers turn at the RoPE parameters' θ whatever the number; without
    the list, every ``pattern``-th layer counted back from the last), those of a layer type whose RoPE parameters,
    nested by layer type, are null ("null_parameters": Cohere Compass), or none ("");
    ``rope_type_aliases``: old names the class renames (Phi-3's "su" -> "longrope");
    ``nested_parameters``: what the class does with ``rope_parameters`` nested by layer type: "read" (Gemma 3,
    ModernBERT: :attr:`per_layer_parameters`), "ignored" (a class without ``layer_types`` reads the dict as flat,
    finds no rope_type and computes default RoPE), "refused" (a class with ``layer_types`` keeps it nested, and its
    rotary embedding, which reads one flat dict, fails) or "as written" (a model_type posenc does not know: nested
    parameters are read per layer type, a flat dict as one, and nothing is said of its class);
    ``flat_parameters``: what a class that reads them per layer type does with a flat v5 ``rope_parameters``: "read"
    (every other class), "ignored" (Gemma 3: default RoPE on every layer type) or "refused" (ModernBERT's strict
    field);
    ``rope_types``: the RoPE types the class accepts, where it refuses the others (Phi-3: default and LongRoPE);
    ``composite``: the model_type names a vision-language config written flat (Qwen2-VL's), whose language model's
    config takes from the top level only the fields its class has; ``partial_field``: the field giving the share of
    a head that rotates (GPT-NeoX's ``rotary_pct``, which wins over ``partial_rotary_factor``), "" for a class that
    reads a share in its RoPE parameters only (MiMo-V2-Flash), or None for a class
    that rotates whole heads: its default RoPE ignores ``partial_rotary_factor``, and a scaling computed with one
    fails at the model's first forward pass; ``default_share``: the share its default RoPE rotates when its
    parameters give none (MiMo-V2-Flash: int(head_dim × 0.334) dimensions; every scaling: the whole head);
    ``fixed_width``: its attention rotates every dimension of a head whatever width its frequencies cover, and fails
    at the first forward pass unless they cover the head (Mellum, given a share below 1);
    ``padding_offset``: a learned table (or fairseq's sinusoids: M2M100) whose positions count from
    ``pad_token_id`` + 1 (RoBERTa's ``create_position_ids_from_input_ids``), so that its ``max_position_embeddings`` rows hold
    ``max_position_embeddings − pad_token_id − 1`` tokens (roberta-base's 514: 512); ``row_offset``: a learned table
    of ``max_position_embeddings`` + row_offset rows whose token at position p reads row p + row_offset (OPT: 2, so
    that its 2,050 rows hold 2,048 tokens; XGLM's sinusoids: token p is position p + 2); ``rotary_dim``: the class
    rotates the first ``rotary_dim`` dimensions of a head, adjacent pairs, θ fixed at 10,000 in its code (GPT-J,
    CodeGen); ``default_parameters``: the RoPE parameters the class sets when the file gives neither
    ``rope_scaling`` nor ``rope_parameters`` (gpt-oss: YaRN ×32 from 4,096 tokens; Apertus: llama3 with its own θ,
    which wins over a top-level ``rope_theta``), None for default RoPE; ``attribute_map``: the class's names for
    standard fields (its ``attribute_map``: BART's ``d_model`` is ``hidden_size``), a standard name in the file
    winning over the class's own, as in transformers; ``encoder_decoder``: the class builds an encoder-decoder, read
    as its encoder: bidirectional, its ``encoder_layers`` and ``encoder_attention_heads`` (BART, Marian, T5; its
    decoder attends causally, its positions from an equal table, or T5's buckets one way); ``added_table``: the class
    adds a learned table of ``max_position_embeddings`` rows to its embeddings besides its scheme's bias, token p
    reading row p + ``row_offset`` (MPNet: RoBERTa's, its padding index fixed at 1 whatever ``pad_token_id`` says, so
    from row 2), which bounds its context; ``fixed_buckets``: T5's buckets and farthest distance as the class's code fixes them
    whatever the file says (MPNet: 32 out to 128; its ``relative_attention_num_buckets`` sizes the bias's embedding
    only, and fewer than 32 fail); ``context_field``: the one field the class reads its context from, where it is
    not one of the usual names (MPT's ``max_seq_len``: its ALiBi is built for exactly so many keys), "" for those;
    ``fixed_slopes``: an ALiBi class whose code computes the slopes of a bias max of 8, 2^(−8k/n), and adds them
    whatever ``attn_config`` says (MPT's ``alibi`` and ``alibi_bias_max``, which MosaicML's own code reads);
    ``exact_length``: every input is exactly the context long (Whisper's encoder: it refuses mel features of another
    length than twice ``max_source_positions``); ``first_full``: the "every" pattern's full-attention layer comes
    first in each group of layers (ModernBERT: layer 0 global, then one in n; Granite SWA), not last;
    ``layer_theta_field``: the field listing each layer's θ, 0 for a layer without positions, read over its layer
    type's θ (Granite SWA's ``layer_rope_theta``; without it, every layer at ``rope_theta``); ``last_full``: the
    class makes the last layer full attention whatever ``layer_types`` says (Gemma 4); ``bidirectional_value``: the
    value of ``bidirectional_field`` that makes the class see both ways (True: any true value; Gemma 4's "all",
    whose "vision" leaves text causal); ``bidirectional_reach``: keys either side of the query beyond half the
    window when it sees both ways (Gemma 4: 1, its mask's bound being inclusive; Gemma 3's: half the window);
    ``head_dim_fields``: layer type -> the field of its heads' width where it is
    not ``head_dim`` (Gemma 4's full-attention layers: ``global_head_dim``, or ``per_layer_config`` by layer index
    in a file transformers saved); ``v5_only``: the class reads ``rope_parameters`` as written, nested by layer
    type (a v4 ``rope_scaling`` replaces it as written; ``rope_theta`` and its kin are not read: Gemma 4);
    ``unscaled_softmax``: the class's attention takes q·k unscaled (its ``scaling`` 1.0: T5 and its kin, Gemma 3n,
    Gemma 4; GPT-Neo's, which keeps no scaling), where every other divides it by √``query_pre_attn_scalar`` or
    √head_dim; ``bottleneck``: its heads split ``intra_bottleneck_size`` when ``use_bottleneck`` is true, not the
    hidden size (MobileBERT: its ``true_hidden_size``, which the class computes from these whatever the file says);
    ``multiplier_field``: the field the class multiplies q·k by in place of 1/√head_dim, its default in
    ``defaults`` (Granite's ``attention_multiplier``, 1 unless the file says otherwise; absent: 1/√head_dim, as
    HyperCLOVA X computes it), or a field of a nested object (MPT's ``attn_config.softmax_scale``: null, 1/√head_dim);
    ``softmax_mscale``: under a scaling with ``mscale_all_dim`` the class multiplies the softmax's 1/√d by YaRN's
    mscale² at it (DeepSeek-V2's ``yarn_apply_mscale`` and its kin); every other class's 1/√d stays, whatever the
    parameters say; ``key_multiplier_field``: the field the class multiplies every key by before q·k, its default
    in ``defaults`` (Falcon-H1's ``key_multiplier``);
    ``query_beta``: the class multiplies every query, once rotated, by 1 + β·ln(1 + ⌊p/L₀⌋), β its RoPE parameters'
    ``llama_4_scaling_beta`` and L₀ their ``original_max_position_embeddings``, and fails without either (Ministral
    3, Mistral 4);
    ``head_share``: the class computes its frequencies for head_dim × its parameters' ``partial_rotary_factor`` (which
    it sets to qk_rope_head_dim / head_dim in v5's rope_parameters, not in a v4 rope_scaling; default RoPE takes the
    whole head) while its attention rotates ``qk_rope_head_dim``, and fails at its first forward pass on any other
    width (Mistral 4);
    ``sinks``: the layer types whose attention adds a learned sink to the softmax's sum ("nope" for layers without
    positions; gpt-oss, Granite SWA and Flint: every one; MiMo-V2-Flash: its sliding-window layers);
    ``mscale_pair``: the class multiplies a scaling's cos and sin by its ``short_mscale`` (``long_mscale`` past
    ``original_max_position_embeddings``), which it needs, in place of the scaling's own factor, and computes
    LongRoPE's frequencies from its ``short_factor`` at every length (PhiMoE in transformers 5.23);
    ``sparse_field``: the field whose ``sparse_attention_freq`` makes layers of sparse attention where the file gives
    no ``layer_types`` (MiniMax-M3's ``sparse_attention_config``: its queries attend to the key blocks a lightning
    indexer picks), which posenc refuses, as it does those layer_types name;
    ``share_width_field``: a field giving the rotated width in dimensions, read as a share of ``head_dim`` where the
    top level gives no ``partial_rotary_factor`` (MiniMax-M2's ``rotary_dim``, as its released files write it);
    ``ntk_alpha``: a "dynamic" scaling with a nonzero ``alpha`` is NTK-α, default RoPE at θ·α^(d/(d − 2)) whatever
    the input's length, d the file's ``head_dim`` (HunYuan's "DynamicNTKAlpha"); ``head_dim_unset``: what fails
    where the file gives no ``head_dim``, which the class keeps None: "model", its attention (head_dim^−0.5) and the
    scalings that read it (HunYuan, Ministral: posenc refuses the file), "scalings", the dynamic, YaRN and LongRoPE
    functions of transformers 5.23, which read it (Mixtral: posenc refuses them), or "" (nothing);
    ``derived_heads``: the class's attention takes heads hidden_size / num_attention_heads wide whatever head_dim
    says, while its rotary embedding reads head_dim (Chameleon): another head_dim fails at the model's first
    forward pass, and posenc refuses it;
    ``head_dim_ignored``: the class sets head_dim to hidden_size // num_attention_heads whatever the file says, its
    attention and rotary embedding alike (DeepSeek-OCR 2's text model): the check warns where the file differs;
    ``beside``: a sentence on what the class's layers run beside their attention with positions, that no view
    draws (Falcon-H1's Mamba-2 path, its output added to every attention's; IDEFICS's gated cross-attention to the
    images before the self-attention): the sidebar says so;
    ``refuses``: (field, when) pairs of fields the class refuses, "true" any true value (IQuestCoder's
    use_sliding_window), "given" any but null (its clip_qkv; "not supported"), "present" any, null too (Falcon-H1's
    layer_types, a property of its own that takes no value), "null" a null the file writes
    (EXAONE-MoE's sliding_window, a strict whole number), "null unlisted" such a null where the file lists no
    layer_types (EXAONE 4's class sets its pattern to 0 then and divides by it): its model is never built, and posenc
    refuses the file, naming the field;
    ``default_section``: the M-RoPE section, in pairs, its rotary embedding splits the frequencies by where the
    parameters give none (ERNIE 4.5 VL's [22, 22, 20], which covers heads of 128 only): the check holds it to the
    head as it holds a given one;
    ``refused``: why posenc refuses the class's configs, whose fields
    would read as some other scheme (Pix2Struct's vision encoder), "" for none. A T5-style family that is ``causal``
    counts its buckets one way (Pix2Struct's text decoder), and one told otherwise by its ``causal_field`` is refused.
    """

    scheme: str = "rope"
    defaults: Mapping[str, object] = field(default_factory=dict)
    theta_fields: Mapping[str, str] = field(default_factory=dict)
    scaling_layers: tuple[str, ...] | None = None
    layout: str = "half"
    causal: bool = True
    windows: str = "all"
    window_field: tuple[str, str] = ("sliding_window", "as is")
    pattern_field: str = ""
    pattern: int = 0
    nope_layers: str = ""
    rope_type_aliases: Mapping[str, str] = field(default_factory=dict)
    class_name: str = ""
    nested_parameters: str = "ignored"
    flat_parameters: str = "read"
    partial_field: str | None = "partial_rotary_factor"
    composite: bool = False
    rope_types: tuple[str, ...] | None = None
    padding_offset: bool = False
    row_offset: int = 0
    rotary_dim: bool = False
    default_parameters: Mapping[str, object] | None = None
    attribute_map: Mapping[str, str] = field(default_factory=dict)
    spacing: str = "vaswani"
    fixed_rows: bool = False
    scheme_switch: tuple[str, object, str] | None = None
    causal_field: str = ""
    bidirectional_field: str = ""
    bidirectional_in: tuple[str, ...] = ("eager", "sdpa")
    width_field: str = ""
    encoder_decoder: bool = False
    added_table: bool = False
    fixed_buckets: tuple[int, int] | None = None
    context_field: str = ""
    fixed_slopes: bool = False
    exact_length: bool = False
    first_full: bool = False
    last_full: bool = False
    layer_theta_field: str = ""
    bidirectional_value: object = True
    bidirectional_reach: int = 0
    head_dim_fields: Mapping[str, str] = field(default_factory=dict)
    v5_only: bool = False
    unscaled_softmax: bool = False
    bottleneck: bool = False
    multiplier_field: str = ""
    softmax_mscale: bool = False
    key_multiplier_field: str = ""
    query_beta: bool = False
    head_share: bool = False
    default_share: float = 1.0
    fixed_width: bool = False
    window_plus_one: str = ""
    window_alias: str = ""
    sinks: tuple[str, ...] = ()
    mscale_pair: bool = False
    sparse_field: str = ""
    share_width_field: str = ""
    ntk_alpha: bool = False
    head_dim_unset: str = ""
    derived_heads: bool = False
    head_dim_ignored: bool = False
    beside: str = ""
    refuses: tuple[tuple[str, str], ...] = ()
    default_section: tuple[int, ...] = ()
    section_required: bool = False
    listed_layers: bool = False
    own_layer_types: bool = False
    eager_only: bool = False
    masks_every_step: bool = False
    cacheless: bool = False
    cache_fails_under: tuple[str, ...] = ()
    refused: str = ""

    @property
    def reads_layer_types(self) -> bool:
        """Whether the class's model attends as a file's ``layer_types`` lists (a window on its sliding_attention
        layers): every class but those that never window ("none": Llama, OLMo, ...), window every layer by their
        own rule ("sliding_window": Mistral's, "qwen3_moe") or read their layers from fields of their own (GPT-Neo's
        ``attention_types``, LongT5's ``encoder_attention_type``), which ignore the list, unless ``listed_layers``."""
        return self.listed_layers or self.windows not in ("none", "sliding_window", "qwen3_moe", "gpt_neo", "longt5")

    @property
    def cache_drops_keys(self) -> bool:
        """Whether the class's cache keeps only the last ``sliding_window`` − 1 keys of each layer (transformers 5.23's
        DynamicCache reads the field) where its forward pass applies the window nowhere: a class of rule "none" that
        keeps a cache and lists no layers of its own, as those that read a file's list, ``listed_layers``, do."""
        return self.windows == "none" and not (self.own_layer_types or self.listed_layers or self.cacheless)

    @property
    def cache_windows(self) -> bool:
        """Whether generating token by token through such a cache (:attr:`cache_drops_keys`) attends as a window
        would: to the last ``sliding_window`` keys, each at its own position. Positions are then those of one forward
        pass where they are in the keys the cache keeps (rotary, a learned table or sinusoids added at the input) or
        in a bias linear in the distance, which a shift of every key leaves the softmax's as it was (ALiBi); a class
        of T5's buckets counts its distances from the first key the cache keeps, not from the text's first token,
        and does not."""
        return self.cache_drops_keys and _CACHE_KEEPS_POSITIONS[self.scheme]

    @property
    def listed_masks(self) -> tuple[str, ...]:
        """The layer types a file's ``layer_types`` may name, where the class reads the list: those its model builds
        a mask for, by name (full attention and Llama 4's chunks, or full and sliding-window attention: every other
        class's), the model failing on any other as it is built or at its first forward pass (a KeyError); () for a
        model_type posenc has no record of, whose list is read as written."""
        if not self.class_name or not self.reads_layer_types:
            return ()
        return ("full_attention", "chunked_attention" if self.windows == "chunked" else "sliding_attention")

    @property
    def per_layer_parameters(self) -> bool:
        """transformers keeps the class's RoPE parameters per layer type, a v4 ``rope_scaling`` included (Gemma 3,
        ModernBERT), so they never take a top-level ``original_max_position_embeddings``, nor YaRN's ``truncate``
        (read from the outer dict, which holds only layer types), and a ``rope_scaling`` is merged into the class's
        own ``{"rope_type": "default"}``, so that v4's ``type`` does not replace it."""
        return self.nested_parameters == "read"

    def reads_nested(self, name: str) -> bool:
        """Whether RoPE parameters nested by layer type under ``name`` ("rope_scaling" or "rope_parameters") are read
        per layer type: in a class that keeps them so, under v5's name only (a v4 ``rope_scaling`` is merged into its
        own parameters as one flat dict); in a model_type posenc does not know, as written; else never."""
        if self.v5_only:  # Gemma 4: a rope_scaling is its rope_parameters
            return True
        if self.per_layer_parameters:
            return name == "rope_parameters"
        return self.nested_parameters == "as written"

    def rope_type(self, name: object) -> object:
        """``name`` as the class reads it: an old name renamed (Phi-3's "su" -> "longrope"), anything else as is."""
        return self.rope_type_aliases.get(name, name) if isinstance(name, str) else name


def _family(**kwargs: object) -> Family:
    for key in ("defaults", "theta_fields", "rope_type_aliases", "default_parameters", "attribute_map",
                "head_dim_fields"):
        if key in kwargs:
            kwargs[key] = MappingProxyType(dict(kwargs[key]))
    return Family(**kwargs)


_QWEN = dict(windows="qwen", partial_field=None, nested_parameters="refused",
             defaults={"use_sliding_window": False, "max_window_layers": 28, "sliding_window": 4096,
                       "max_position_embeddings": 32_768})
_QWEN_VL = dict(_QWEN, defaults=dict(_QWEN["defaults"], rope_theta=1_000_000.0,  # Qwen2(.5)-VL's default_theta
                                     max_window_layers=80))  # and windows from layer 80 on, not Qwen2's 28

_EXAONE = dict(windows="every", pattern_field="sliding_window_pattern", nope_layers="windowed", partial_field=None,
               nested_parameters="refused",
               defaults={"max_position_embeddings": 2048, "sliding_window": 4096, "sliding_window_pattern": 4})

_GRANITE_SWA = dict(eager_only=True, windows="every", pattern=4, first_full=True, layer_theta_field="layer_rope_theta",
                    partial_field=None, nested_parameters="refused", multiplier_field="attention_multiplier",
                    sinks=("full_attention", "sliding_attention"),
                    defaults={"max_position_embeddings": 8192, "sliding_window": 128, "attention_multiplier": 1.0})
_MODERNBERT = dict(windows="every", first_full=True, pattern_field="global_attn_every_n_layers",
                   window_field=("local_attention", "half"), window_alias="sliding_window", nested_parameters="read",
                   flat_parameters="refused",
                   partial_field=None,
                   theta_fields={"full_attention": "global_rope_theta", "sliding_attention": "local_rope_theta"},
                   defaults={"global_rope_theta": 160_000.0, "local_rope_theta": 10_000.0, "local_attention": 128,
                             "global_attn_every_n_layers": 3, "max_position_embeddings": 8192})
_GRANITE = dict(windows="none", partial_field=None, multiplier_field="attention_multiplier",
                defaults={"max_position_embeddings": 2048, "attention_multiplier": 1.0})  # Llama's, q·k × it

_AS_WRITTEN = dict(v5_only=True, nested_parameters="read", flat_parameters="refused", partial_field="",
                   theta_fields={"full_attention": "", "sliding_attention": ""})
"""A class that reads its RoPE parameters nested by layer type as written (its own when the file gives none), with
their θ and share, a top-level rope_theta or partial_rotary_factor only where a scaling copies them in
(:func:`~posenc.models.config.rope_parameters`): Laguna, Mellum, MiMo-V2-Flash."""

_NO_WINDOW = dict(windows="none", partial_field=None)
"""A Llama-style decoder whose model applies no window: every layer attends to every earlier key, whatever
``sliding_window`` the file gives (its class stores it, or takes it as an attribute no model reads)."""

_BERT = dict(scheme="learned", causal=False, causal_field="is_decoder", windows="none",
             defaults={"max_position_embeddings": 512, "hidden_size": 768, "num_attention_heads": 12,
                       "num_hidden_layers": 12})
_ROBERTA = _BERT | {"padding_offset": True, "defaults": {**_BERT["defaults"], "pad_token_id": 1}}
_ENCODER_ONLY = _BERT | {"causal_field": ""}  # attends both ways whatever is_decoder says


def _kin(base: dict, **defaults: object) -> dict:
    """A kin's record (BERT's, BART's): ``base`` with the class's own defaults over the base's."""
    return base | {"defaults": {**base["defaults"], **defaults}}


_ENCODER = {"hidden_size": "d_model", "num_attention_heads": "encoder_attention_heads",
            "num_hidden_layers": "encoder_layers"}  # BartConfig's attribute_map and its kin's
_BART = dict(scheme="learned", causal=False, windows="none", row_offset=2, attribute_map=_ENCODER, encoder_decoder=True,
             defaults={"max_position_embeddings": 1024, "d_model": 1024, "encoder_attention_heads": 16,
                       "encoder_layers": 12})

_XLM = dict(scheme="learned", causal=False, causal_field="causal", windows="none", layout="interleaved",
            fixed_rows=True, scheme_switch=("sinusoidal_embeddings", True, "sinusoidal"),
            attribute_map={"hidden_size": "emb_dim", "num_attention_heads": "n_heads", "num_hidden_layers": "n_layers"},
            defaults={"max_position_embeddings": 512, "emb_dim": 2048, "n_heads": 16, "n_layers": 12})
_MARIAN = _BART | {"scheme": "sinusoidal", "row_offset": 0, "fixed_rows": True}  # a table of sinusoids from row 0
_FAIRSEQ = _BART | {"scheme": "sinusoidal", "spacing": "tensor2tensor", "row_offset": 0, "padding_offset": True,
                    "defaults": {**_BART["defaults"], "pad_token_id": 1}}  # M2M100's positions from pad_token_id + 1

_T5 = dict(scheme="t5", causal=False, windows="none", encoder_decoder=True, unscaled_softmax=True,
           defaults={"relative_attention_num_buckets": 32, "relative_attention_max_distance": 128, "d_kv": 64,
                     "num_heads": 8, "num_layers": 6, "n_positions": 512})  # n_positions: t5-base's file's

FAMILIES: Mapping[str, Family] = MappingProxyType({
    "llama": _family(class_name="LlamaConfig", windows="none", partial_field=None,
                     defaults={"max_position_embeddings": 2048}),
    "mistral": _family(class_name="MistralConfig", partial_field=None, windows="sliding_window",
                       defaults={"max_position_embeddings": 131_072, "sliding_window": 4096}),
    "ministral3": _family(class_name="Ministral3Config", partial_field=None, windows="sliding_window", query_beta=True,
                          default_parameters={"rope_type": "yarn", "rope_theta": 1_000_000.0, "factor": 16.0,
                                              "original_max_position_embeddings": 16_384, "beta_fast": 32.0,
                                              "beta_slow": 1.0, "mscale_all_dim": 1.0, "mscale": 1.0,
                                              "llama_4_scaling_beta": 0.1},
                          defaults={"head_dim": 128, "max_position_embeddings": 262_144}),
    "ministral": _family(class_name="MinistralConfig", partial_field=None, windows="sliding_window", listed_layers=True,
                         nested_parameters="refused", head_dim_unset="model",
                         defaults={"max_position_embeddings": 131_072, "sliding_window": 4096}),
    "starcoder2": _family(class_name="Starcoder2Config", partial_field=None, windows="sliding_window",  # Mistral's
                          defaults={"max_position_embeddings": 4096}),
    "phimoe": _family(class_name="PhimoeConfig", partial_field=None, windows="sliding_window", mscale_pair=True,
                      defaults={"rope_theta": 1_000_000.0, "max_position_embeddings": 131_072}),
    "mixtral": _family(class_name="MixtralConfig", partial_field=None, windows="sliding_window", head_dim_unset="scalings",
                       defaults={"rope_theta": 1_000_000.0, "max_position_embeddings": 131_072}),
    "qwen2": _family(class_name="Qwen2Config", **_QWEN),
    "qwen3": _family(class_name="Qwen3Config", **_QWEN | {"defaults": {**_QWEN["defaults"], "head_dim": 128}}),
    "qwen2_moe": _family(class_name="Qwen2MoeConfig", **_QWEN | {"windows": "qwen2_moe"}),
    "qwen3_moe": _family(class_name="Qwen3MoeConfig",
                         **_QWEN | {"windows": "qwen3_moe", "nested_parameters": "ignored"}),
    "qwen2_vl": _family(class_name="Qwen2VLTextConfig", composite=True, **_QWEN_VL),
    "qwen2_vl_text": _family(class_name="Qwen2VLTextConfig", **_QWEN_VL),
    "qwen2_5_vl": _family(class_name="Qwen2_5_VLTextConfig", composite=True, **_QWEN_VL),
    "qwen2_5_vl_text": _family(class_name="Qwen2_5_VLTextConfig", **_QWEN_VL),
    "qwen2_5_omni_text": _family(class_name="Qwen2_5OmniTextConfig",
                                  **_kin(_QWEN_VL, sliding_window=32_768, max_window_layers=28)),
    "qwen3_vl_text": _family(class_name="Qwen3VLTextConfig", windows="none", partial_field=None,
                             defaults={"rope_theta": 500_000.0, "max_position_embeddings": 128_000, "head_dim": 128}),
    "dots1": _family(class_name="Dots1Config", windows="max_window_layers", partial_field=None,
                     nested_parameters="refused",
                     defaults={"sliding_window": 4096, "max_window_layers": 62, "max_position_embeddings": 2048}),
    "qwen3_vl_moe_text": _family(class_name="Qwen3VLMoeTextConfig", windows="none", partial_field=None,
                                 defaults={"rope_theta": 500_000.0, "max_position_embeddings": 128_000}),
    "qwen3_omni_moe_text": _family(class_name="Qwen3OmniMoeTextConfig", windows="none", partial_field=None,
                                   defaults={"rope_theta": 1_000_000.0, "max_position_embeddings": 32_768}),
    "phi3": _family(class_name="Phi3Config", windows="sliding_window",
                    rope_type_aliases={"su": "longrope", "yarn": "longrope"}, rope_types=("default", "longrope"),
                    defaults={"original_max_position_embeddings": 4096, "max_position_embeddings": 4096}),
    "phi4_multimodal": _family(class_name="Phi4MultimodalConfig", windows="sliding_window",  # Phi-3's language model
                               rope_type_aliases={"su": "longrope", "yarn": "longrope"},
                               rope_types=("default", "longrope"),
                               defaults={"original_max_position_embeddings": 4096, "max_position_embeddings": 131_072}),
    "phi": _family(class_name="PhiConfig", windows="none",
                   defaults={"partial_rotary_factor": 0.5, "max_position_embeddings": 2048}),
    "stablelm": _family(class_name="StableLmConfig", windows="none",
                        defaults={"partial_rotary_factor": 0.25, "max_position_embeddings": 4096}),
    "falcon": _family(class_name="FalconConfig", windows="none", partial_field=None,  # "alibi": true reads as ALiBi
                      masks_every_step=True, cache_fails_under=("alibi",),
                      defaults={"max_position_embeddings": 2048, "rope_theta": 10_000.0}),
    "gemma": _family(class_name="GemmaConfig", windows="none", partial_field=None,
                     bidirectional_field="use_bidirectional_attention", bidirectional_in=("sdpa",),
                     defaults={"head_dim": 256, "max_position_embeddings": 8192}),
    "gemma2": _family(class_name="Gemma2Config", windows="alternate", partial_field=None, nested_parameters="refused",
                      bidirectional_field="use_bidirectional_attention", bidirectional_in=(), eager_only=True,
                      defaults={"head_dim": 256, "max_position_embeddings": 8192, "sliding_window": 4096,
                                "query_pre_attn_scalar": 256}),
    "vaultgemma": _family(class_name="VaultGemmaConfig", windows="alternate", partial_field=None, eager_only=True,
                          nested_parameters="refused",  # Gemma 2's layers, trained with differential privacy
                          defaults={"head_dim": 256, "max_position_embeddings": 8192, "sliding_window": 4096,
                                    "query_pre_attn_scalar": 256}),
    "gemma3_text": _family(class_name="Gemma3TextConfig", windows="every", pattern_field="sliding_window_pattern",
                           bidirectional_field="use_bidirectional_attention",
                           theta_fields={"full_attention": "rope_theta", "sliding_attention": "rope_local_base_freq"},
                           scaling_layers=("full_attention",), nested_parameters="read", flat_parameters="ignored",
                           partial_field=None,
                           defaults={"head_dim": 256, "max_position_embeddings": 131_072, "sliding_window": 4096,
                                     "sliding_window_pattern": 6, "rope_theta": 1_000_000.0,
                                     "rope_local_base_freq": 10_000.0, "num_hidden_layers": 26,
                                     "query_pre_attn_scalar": 256}),
    "gemma3n_text": _family(class_name="Gemma3nTextConfig", windows="every", pattern=5,  # Gemma 3n: as Gemma 3's
                            theta_fields={"full_attention": "rope_theta", "sliding_attention": "rope_local_base_freq"},
                            scaling_layers=("full_attention",), nested_parameters="read", flat_parameters="ignored",
                            partial_field=None, unscaled_softmax=True,  # every fifth layer full attention
                            defaults={"head_dim": 256, "max_position_embeddings": 32_768, "sliding_window": 512,
                                      "rope_theta": 1_000_000.0, "rope_local_base_freq": 10_000.0,
                                      "num_hidden_layers": 35, "hidden_size": 2048, "num_attention_heads": 8}),
    "gemma4_text": _family(class_name="Gemma4TextConfig", windows="every", pattern=6, last_full=True, v5_only=True,
                           bidirectional_field="use_bidirectional_attention", bidirectional_value="all",
                           bidirectional_reach=1, unscaled_softmax=True,
                           nested_parameters="read", flat_parameters="refused", partial_field=None,
                           theta_fields={"full_attention": "", "sliding_attention": ""},
                           head_dim_fields={"full_attention": "global_head_dim"},
                           default_parameters={"sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
                                               "full_attention": {"rope_type": "proportional", "rope_theta": 1e6,
                                                                  "partial_rotary_factor": 0.25}},
                           defaults={"head_dim": 256, "global_head_dim": 512, "max_position_embeddings": 131_072,
                                     "sliding_window": 512, "num_hidden_layers": 30, "hidden_size": 2304,
                                     "num_attention_heads": 8}),
    "llama4_text": _family(class_name="Llama4TextConfig", windows="chunked", layout="interleaved",
                           nope_layers="no_rope_layers",
                           nested_parameters="refused", partial_field=None,
                           defaults={"rope_theta": 500_000.0, "head_dim": 128, "max_position_embeddings": 131_072,
                                     "no_rope_layer_interval": 4, "attention_chunk_size": 8192,
                                     "attn_temperature_tuning": True, "floor_scale": 8192, "attn_scale": 0.1}),
    "smollm3": _family(class_name="SmolLM3Config", windows="no_rope_layers", nope_layers="no_rope_layers",
                       partial_field=None, nested_parameters="refused",
                       defaults={"rope_theta": 2_000_000.0, "max_position_embeddings": 32_768,
                                 "no_rope_layer_interval": 4}),
    "gpt_oss": _family(class_name="GptOssConfig", windows="alternate", partial_field=None, nested_parameters="refused",
                       sinks=("full_attention", "sliding_attention"), eager_only=True,
                       default_parameters={"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
                                           "truncate": False, "original_max_position_embeddings": 4096},
                       defaults={"head_dim": 64, "sliding_window": 128, "rope_theta": 150_000.0,
                                 "max_position_embeddings": 131_072}),
    "deepseek_v3": _family(class_name="DeepseekV3Config", windows="none", layout="interleaved", partial_field=None,
                           softmax_mscale=True,
                           defaults={"qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
                                     "max_position_embeddings": 4096, "rope_interleave": True}),
    "deepseek_v2": _family(class_name="DeepseekV2Config", windows="none", layout="interleaved", partial_field=None,
                           softmax_mscale=True,
                           defaults={"qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
                                     "max_position_embeddings": 2048}),  # pairs as complex numbers, always
    "minicpm3": _family(class_name="MiniCPM3Config", windows="none", partial_field=None,  # DeepSeek-V2's, in halves
                        softmax_mscale=True,
                        defaults={"qk_rope_head_dim": 32, "qk_nope_head_dim": 64, "max_position_embeddings": 32_768}),
    "longcat_flash": _family(class_name="LongcatFlashConfig", windows="none", layout="interleaved", partial_field=None,
                             softmax_mscale=True, attribute_map={"num_hidden_layers": "num_layers"},
                             beside="Each of its layers runs two attentions, one after the other, each with weights of "
                                    "its own and these positions and masks (twice as many attentions as layers, "
                                    "each keeping its keys in the cache), and a shortcut MoE beside them",
                             defaults={"qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
                                       "max_position_embeddings": 131_072, "rope_theta": 10_000_000.0,
                                       "num_layers": 28, "hidden_size": 6144, "num_attention_heads": 64}),
    "cwm": _family(class_name="CwmConfig", windows="every", pattern=4, first_full=True, partial_field=None,
                   nested_parameters="refused",  # Code World Model: layer 0 full attention, then one in four
                   default_parameters={"rope_type": "llama3", "rope_theta": 1_000_000.0, "factor": 16.0,
                                       "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                       "original_max_position_embeddings": 8192},
                   defaults={"head_dim": 128, "max_position_embeddings": 131_072, "sliding_window": 8192,
                             "rope_theta": 1_000_000.0}),
    "higgs_audio_v2": _family(class_name="HiggsAudioV2Config", windows="none", partial_field=None,
                              default_parameters={"rope_type": "llama3", "rope_theta": 500_000.0, "factor": 32.0,
                                                  "low_freq_factor": 0.125, "high_freq_factor": 0.5,
                                                  "original_max_position_embeddings": 1024},
                              defaults={"head_dim": 128, "max_position_embeddings": 2048}),
    "mistral4": _family(class_name="Mistral4Config", windows="none", layout="interleaved", partial_field=None,
                        head_share=True, query_beta=True, softmax_mscale=True,  # DeepSeek's MLA; Ministral 3's β
                        default_parameters={"rope_type": "yarn", "rope_theta": 10_000.0, "factor": 128.0,
                                            "original_max_position_embeddings": 8192, "beta_fast": 32.0,
                                            "beta_slow": 1.0, "mscale_all_dim": 1.0, "mscale": 1.0,
                                            "llama_4_scaling_beta": 0.1},
                        defaults={"qk_rope_head_dim": 64, "qk_nope_head_dim": 64, "v_head_dim": 128,
                                  "max_position_embeddings": 1_048_576, "rope_interleave": True}),
    "mimo_v2_flash": _family(class_name="MiMoV2FlashConfig", windows="every_and_first", pattern=6, **_AS_WRITTEN,
                             window_plus_one="sliding_window_size", default_share=0.334, sinks=("sliding_attention",),
                             eager_only=True,
                             default_parameters={  # (each with partial_rotary_factor 0.334: default_share)
                                 "full_attention": {"rope_type": "default", "rope_theta": 5_000_000.0},
                                 "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0}},
                             defaults={"head_dim": 192, "sliding_window": 129, "max_position_embeddings": 131_072,
                                       "num_hidden_layers": 48, "hidden_size": 4096, "num_attention_heads": 64}),
    "laguna": _family(class_name="LagunaConfig", windows="none", listed_layers=True,  # (heads per layer: a count only)
                      **_AS_WRITTEN,
                      default_parameters={
                          "full_attention": {"rope_type": "default", "rope_theta": 500_000.0,
                                             "partial_rotary_factor": 0.5},
                          "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0,
                                                "partial_rotary_factor": 1.0}},
                      defaults={"head_dim": 128, "sliding_window": 512, "max_position_embeddings": 131_072,
                                "num_hidden_layers": 40, "hidden_size": 2048, "num_attention_heads": 48}),
    "mellum": _family(class_name="MellumConfig", windows="none", listed_layers=True, fixed_width=True, **_AS_WRITTEN,
                      default_parameters={"full_attention": {"rope_type": "default", "rope_theta": 500_000.0},
                                          "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0}},
                      defaults={"head_dim": 128, "sliding_window": 1024, "max_position_embeddings": 131_072,
                                "num_hidden_layers": 28, "hidden_size": 2304, "num_attention_heads": 32}),
    "moshi": _family(class_name="MoshiConfig", windows="none", partial_field=None,  # its sliding_window: its
                     defaults={"max_position_embeddings": 3000, "sliding_window": 3000}),  # cache's only
    "kyutai_speech_to_text": _family(class_name="KyutaiSpeechToTextConfig", windows="none", partial_field=None,
                                     defaults={"max_position_embeddings": 750, "sliding_window": 375}),  # as Moshi's
    "dbrx": _family(class_name="DbrxConfig", windows="none", partial_field=None,  # (attn_config.rope_theta: unread)
                    attribute_map={"hidden_size": "d_model", "num_attention_heads": "n_heads",
                                   "num_hidden_layers": "n_layers", "max_position_embeddings": "max_seq_len"},
                    defaults={"d_model": 2048, "n_heads": 16, "n_layers": 24, "max_seq_len": 2048}),
    **{model_type: _family(class_name=class_name, **_NO_WINDOW, defaults=defaults)
       for model_type, class_name, defaults in (
           ("arcee", "ArceeConfig", {"max_position_embeddings": 4096}),
           ("aria_text", "AriaTextConfig", {"max_position_embeddings": 2048}),
           ("bitnet", "BitNetConfig", {"rope_theta": 500_000.0, "max_position_embeddings": 2048}),
           ("csm", "CsmConfig", {"rope_theta": 500_000.0, "max_position_embeddings": 2048}),
           ("diffllama", "DiffLlamaConfig", {"max_position_embeddings": 2048}),
           ("emu3_text_model", "Emu3TextConfig", {"rope_theta": 1_000_000.0, "max_position_embeddings": 9216}),
           ("flex_olmo", "FlexOlmoConfig", {"rope_theta": 500_000.0, "max_position_embeddings": 4096}),
           ("hy_v3", "HYV3Config", {"rope_theta": 11_158_840.0, "max_position_embeddings": 131_072,
                                    "head_dim": 128}),
           ("internlm3", "InternLM3Config", {"max_position_embeddings": 32_768, "head_dim": 128}),
           ("jais2", "Jais2Config", {"max_position_embeddings": 8192}),
           ("molmo2_text", "Molmo2TextConfig", {"max_position_embeddings": 36_864, "head_dim": 128}),
           ("olmo", "OlmoConfig", {"max_position_embeddings": 2048}),
           ("olmo2", "Olmo2Config", {"max_position_embeddings": 2048}),
           ("olmoe", "OlmoeConfig", {"max_position_embeddings": 4096}),
           ("seed_oss", "SeedOssConfig", {"max_position_embeddings": 524_288, "head_dim": 128}))},
    "deepseek_ocr2_text": _family(class_name="DeepseekOcr2TextConfig", **_NO_WINDOW, head_dim_ignored=True,
                                  defaults={"max_position_embeddings": 2048}),
    "paddleocr_vl_text": _family(class_name="PaddleOCRTextConfig", **_NO_WINDOW,  # M-RoPE: on text, 1-D
                                 default_section=(16, 24, 24),  # its rotary embedding's, which fits heads of 128
                                 defaults={"rope_theta": 500_000.0, "max_position_embeddings": 131_072,
                                           "head_dim": 128}),
    "glm_image_text": _family(class_name="GlmImageTextConfig",
                              **_NO_WINDOW | {"partial_field": "partial_rotary_factor"},  # read in its parameters
                              default_section=(8, 12, 12),  # M-RoPE on its share of a head: on text, 1-D
                              defaults={"max_position_embeddings": 131_072}),
    "cosmos3_edge_text": _family(class_name="Cosmos3EdgeTextConfig", **_NO_WINDOW, rope_types=("default",),
                                 default_section=(24, 20, 20), section_required=True,  # which fits heads of 128
                                 default_parameters={  # its own θ, which wins over a top-level rope_theta;
                                     "rope_type": "default", "rope_theta": 100_000_000.0,  # its M-RoPE interleaved
                                     "mrope_section": [24, 20, 20]},  # as Qwen3-VL's: on text, 1-D
                                 defaults={"rope_theta": 100_000_000.0, "max_position_embeddings": 131_072,
                                           "head_dim": 128}),
    "cohere_compass_text": _family(class_name="CohereCompassTextConfig", windows="none", listed_layers=True,
                                   nope_layers="null_parameters", v5_only=True, nested_parameters="read", flat_parameters="refused",
                                   partial_field=None,
                                   theta_fields={"full_attention": "", "sliding_attention": ""},  # windows: layer_types
                                   defaults={"max_position_embeddings": 8192, "sliding_window": 4096}),
    "solar_open": _family(class_name="SolarOpenConfig", **_NO_WINDOW | {"partial_field": "partial_rotary_factor"},
                          fixed_width=True,  # its default RoPE reads a share, its attention the whole head
                          defaults={"rope_theta": 1_000_000.0, "max_position_embeddings": 131_072, "head_dim": 128}),
    "iquestcoder": _family(class_name="IQuestCoderConfig", **_NO_WINDOW,
                           refuses=(("use_sliding_window", "true"), ("clip_qkv", "given")),
                           defaults={"max_position_embeddings": 131_072, "head_dim": 128}),
    "chameleon": _family(class_name="ChameleonConfig", windows="none", partial_field=None, derived_heads=True,
                         defaults={"max_position_embeddings": 4096}),
    "idefics": _family(class_name="IdeficsConfig", windows="none", partial_field=None, derived_heads=True,
                       beside="A gated cross-attention to the images' features, without positions, runs before the "
                              "self-attention of every cross_layer_interval-th layer (every one by default)",
                       defaults={"max_position_embeddings": 2048}),
    "voxtral_realtime_text": _family(class_name="VoxtralRealtimeTextConfig", partial_field=None,
                                     windows="sliding_window",  # Mistral's, a window of 4,096 unless null
                                     defaults={"max_position_embeddings": 131_072, "sliding_window": 4096}),
    "falcon_h1": _family(class_name="FalconH1Config", windows="none", partial_field=None, own_layer_types=True,
                         beside="Each of its layers adds a Mamba-2 state-space path (positions enter it by its "
                                "recurrence) to its attention's output",
                         key_multiplier_field="key_multiplier",
                         refuses=(("layer_types", "present"),),  # (its layers_block_type: a property without setter)
                         defaults={"rope_theta": 10_000.0, "max_position_embeddings": 8192, "key_multiplier": 1.0}),
    "jetmoe": _family(class_name="JetMoeConfig", **_NO_WINDOW, attribute_map={"head_dim": "kv_channels"},
                      defaults={"max_position_embeddings": 4096, "kv_channels": 128}),  # heads of kv_channels
    **{model_type: _family(class_name=class_name, **_NO_WINDOW, ntk_alpha=True, head_dim_unset="model",
                           defaults={"max_position_embeddings": 2048})
       for model_type, class_name in (("hunyuan_v1_dense", "HunYuanDenseV1Config"),
                                      ("hunyuan_v1_moe", "HunYuanMoEV1Config"))},
    "hunyuan_vl_text": _family(class_name="HunYuanVLTextConfig", **_NO_WINDOW, ntk_alpha=True, head_dim_unset="model",
                               attribute_map={"head_dim": "attention_head_dim"},  # its checkpoints' own name
                               defaults={"max_position_embeddings": 2048}),
    "minimax_m2": _family(class_name="MiniMaxM2Config", **_NO_WINDOW | {"partial_field": "partial_rotary_factor"},
                          share_width_field="rotary_dim",
                          defaults={"rope_theta": 5_000_000.0, "max_position_embeddings": 196_608, "head_dim": 128}),
    "minimax_m3_vl_text": _family(class_name="MiniMaxM3VLTextConfig", windows="none", own_layer_types=True,
                                  sparse_field="sparse_attention_config",  # its rotary_dim: declared, never read
                                  defaults={"rope_theta": 5_000_000.0, "max_position_embeddings": 524_288,
                                            "head_dim": 128}),
    **{model_type: _family(class_name=class_name, windows="every_from_last", pattern=4, nope_layers="layer_rope_theta",
                           partial_field=None, nested_parameters="refused", **own)
       for model_type, class_name, own in (
           ("muse_glimmer_text", "MuseGlimmerTextConfig",
            {"defaults": {"max_position_embeddings": 131_072, "sliding_window": 2048, "head_dim": 128}}),
           ("muse_spark_text", "MuseSparkTextConfig",  # its own θ wins over a top-level rope_theta
            {"default_parameters": {"rope_type": "default", "rope_theta": 500_000.0},
             "defaults": {"max_position_embeddings": 1_048_576, "sliding_window": 2048, "head_dim": 64}}))},
    "gpt_neox_japanese": _family(class_name="GPTNeoXJapaneseConfig", **_NO_WINDOW | {"partial_field": "rotary_pct"},
                                 theta_fields={"full_attention": "rotary_emb_base"}, eager_only=True,
                                 defaults={"rotary_pct": 1.0, "rotary_emb_base": 10_000.0,
                                           "max_position_embeddings": 2048}),
    "modernbert": _family(class_name="ModernBertConfig", causal=False, **_MODERNBERT,
                          refuses=(("sliding_window", "null"),)),  # (its setter doubles it: a TypeError)
    "modernbert-decoder": _family(class_name="ModernBertDecoderConfig", **_MODERNBERT),  # the same, causal
    "olmo3": _family(class_name="Olmo3Config", windows="every", pattern=4, partial_field=None,
                     theta_fields={"full_attention": "rope_theta", "sliding_attention": ""},
                     scaling_layers=("full_attention",), nested_parameters="read", flat_parameters="ignored",
                     defaults={"rope_theta": 500_000.0, "max_position_embeddings": 2048, "sliding_window": 4096}),
    "cohere": _family(class_name="CohereConfig", windows="none", layout="interleaved", partial_field=None,
                      defaults={"rope_theta": 500_000.0, "max_position_embeddings": 8192}),
    "cohere2": _family(class_name="Cohere2Config", windows="every", pattern_field="sliding_window_pattern",
                       layout="interleaved", nope_layers="full_attention", partial_field=None,
                       nested_parameters="refused",
                       defaults={"max_position_embeddings": 8192, "sliding_window": 4096,
                                 "sliding_window_pattern": 4}),
    "exaone4": _family(class_name="Exaone4Config", refuses=(("sliding_window", "null unlisted"),), **_EXAONE),
    "exaone_moe": _family(class_name="ExaoneMoeConfig", **_EXAONE, refuses=(("sliding_window", "null"),)),
    "afmoe": _family(class_name="AfmoeConfig", windows="every", pattern_field="global_attn_every_n_layers",
                     nope_layers="full_attention", partial_field=None, nested_parameters="refused",
                     defaults={"max_position_embeddings": 16_384, "sliding_window": 1024,
                               "global_attn_every_n_layers": 4, "head_dim": 128}),
    "flint": _family(class_name="FlintConfig", windows="flint", nope_layers="full_attention", partial_field=None,
                     nested_parameters="refused", sinks=("sliding_attention", "nope"),  # (its full layers: NoPE)
                     eager_only=True,
                     defaults={"max_position_embeddings": 262_144, "sliding_window": 513, "head_dim": 128}),
    "kolibri1": _family(class_name="Kolibri1Config", **_EXAONE | {"pattern_field": "", "pattern": 5, "defaults": {
        "max_position_embeddings": 262_144, "sliding_window": 513, "head_dim": 128}}),  # EXAONE 4's rule, 1 in 5
    "granite": _family(class_name="GraniteConfig", **_GRANITE),
    "granitemoe": _family(class_name="GraniteMoeConfig", **_GRANITE),
    "granitemoeshared": _family(class_name="GraniteMoeSharedConfig", **_GRANITE),
    "granite_docling_text": _family(class_name="GraniteDoclingTextConfig", **_GRANITE | {"defaults": {
        "max_position_embeddings": 32_768, "attention_multiplier": 0.015625}}),
    "granite4_vision_text": _family(class_name="Granite4VisionTextConfig", **_GRANITE),  # Granite 4 Vision's
    "hyperclovax": _family(class_name="HyperCLOVAXConfig", **_GRANITE | {"defaults": {
        "max_position_embeddings": 2048}}),  # no attention_multiplier: 1/√head_dim
    "granite_swa": _family(class_name="GraniteSWAConfig", **_GRANITE_SWA),
    "granitemoe_swa": _family(class_name="GraniteMoeSWAConfig", **_kin(_GRANITE_SWA, max_position_embeddings=2048)),
    "helium": _family(class_name="HeliumConfig", windows="none", layout="interleaved", partial_field=None,
                      defaults={"rope_theta": 100_000.0, "head_dim": 128, "max_position_embeddings": 4096}),
    "ernie4_5": _family(class_name="Ernie4_5Config", windows="none", layout="interleaved", partial_field=None,
                        defaults={"rope_theta": 500_000.0, "head_dim": 128, "max_position_embeddings": 131_072}),
    "ernie4_5_moe": _family(class_name="Ernie4_5_MoeConfig", windows="none", layout="interleaved",
                            partial_field=None,
                            defaults={"rope_theta": 500_000.0, "max_position_embeddings": 131_072}),
    "ernie4_5_vl_moe_text": _family(  # its 3-D RoPE: on text, every frequency in ERNIE 4.5's order
        class_name="Ernie4_5_VLMoeTextConfig", windows="none", layout="interleaved", partial_field=None,
        rope_types=("default",), default_section=(22, 22, 20),
        defaults={"rope_theta": 500_000.0, "max_position_embeddings": 131_072}),
    "glm": _family(class_name="GlmConfig", windows="none", layout="interleaved",
                   defaults={"partial_rotary_factor": 0.5, "head_dim": 128, "max_position_embeddings": 131_072}),
    "glm4": _family(class_name="Glm4Config", windows="none", layout="interleaved",
                    defaults={"partial_rotary_factor": 0.5, "head_dim": 128, "max_position_embeddings": 131_072}),
    "glm4_moe": _family(class_name="Glm4MoeConfig", windows="none",
                        defaults={"partial_rotary_factor": 0.5, "max_position_embeddings": 131_072}),
    "nemotron": _family(class_name="NemotronConfig", windows="none",
                        defaults={"partial_rotary_factor": 0.5, "max_position_embeddings": 4096}),
    "persimmon": _family(class_name="PersimmonConfig", windows="none",
                         defaults={"partial_rotary_factor": 0.5, "max_position_embeddings": 16_384}),
    "apertus": _family(class_name="ApertusConfig", windows="none", partial_field=None,
                       default_parameters={"rope_type": "llama3", "rope_theta": 12_000_000.0, "factor": 8.0,
                                           "original_max_position_embeddings": 8192, "low_freq_factor": 1.0,
                                           "high_freq_factor": 4.0},
                       defaults={"rope_theta": 12_000_000.0, "max_position_embeddings": 65_536}),
    "gte": _family(class_name="GteConfig", causal=False, windows="none", partial_field=None,
                   defaults={"rope_theta": 160_000.0, "max_position_embeddings": 8192}),
    "jina_embeddings_v3": _family(class_name="JinaEmbeddingsV3Config", causal=False, windows="none",
                                  partial_field=None,
                                  defaults={"rope_theta": 20_000.0, "max_position_embeddings": 8194}),
    "nomic_bert": _family(class_name="NomicBertConfig", causal=False, windows="none", partial_field=None,
                          defaults={"rope_theta": 1000.0, "max_position_embeddings": 2048, "head_dim": 64}),
    "eurobert": _family(class_name="EuroBertConfig", causal=False, windows="none", partial_field=None,
                        defaults={"rope_theta": 10_000.0, "max_position_embeddings": 8192, "head_dim": 64}),
    "esmc": _family(class_name="EsmcConfig", causal=False, windows="none", partial_field=None,
                    defaults={"rope_theta": 10_000.0, "max_position_embeddings": 2048, "head_dim": 64}),
    "gpt_neox": _family(class_name="GPTNeoXConfig", windows="none", partial_field="rotary_pct",
                        theta_fields={"full_attention": "rotary_emb_base"},
                        defaults={"rotary_pct": 0.25, "rotary_emb_base": 10_000.0, "max_position_embeddings": 2048}),
    "gptj": _family(class_name="GPTJConfig", windows="none", layout="interleaved", rotary_dim=True,  # θ fixed
                    eager_only=True, defaults={"rotary_dim": 64, "n_positions": 2048, "rotary_emb_base": 10_000.0}),
    "codegen": _family(class_name="CodeGenConfig", windows="none", layout="interleaved", rotary_dim=True,  # as GPT-J
                       eager_only=True, defaults={"rotary_dim": 64, "n_positions": 2048, "rotary_emb_base": 10_000.0}),
    "gpt2": _family(scheme="learned", class_name="GPT2Config", windows="none",
                    defaults={"n_positions": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12}),
    "esm": _family(class_name="EsmConfig", partial_field=None, cacheless=True,
                   scheme_switch=("position_embedding_type", "rotary", "rope"),  # ESM-2's; ESM-1b's a table
                   **_kin(_ROBERTA, max_position_embeddings=1026, pad_token_id=None, rope_theta=10_000.0)),
    "openai-gpt": _family(eager_only=True, cacheless=True, scheme="learned", class_name="OpenAIGPTConfig",
                          windows="none",
                          defaults={"n_positions": 512, "n_embd": 768, "n_head": 12, "n_layer": 12}),
    "gpt_bigcode": _family(scheme="learned", class_name="GPTBigCodeConfig", windows="none",
                           defaults={"n_positions": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12}),
    "gpt_neo": _family(scheme="learned", class_name="GPTNeoConfig", windows="gpt_neo", unscaled_softmax=True,
                       window_field=("window_size", "as is"), eager_only=True,
                       attribute_map={"num_attention_heads": "num_heads", "num_hidden_layers": "num_layers"},
                       defaults={"max_position_embeddings": 2048, "hidden_size": 2048, "num_heads": 16,
                                 "num_layers": 24, "window_size": 256,
                                 "attention_types": [[["global", "local"], 12]]}),
    "ctrl": _family(scheme="sinusoidal", class_name="CTRLConfig", windows="none", fixed_rows=True,
                    attribute_map={"max_position_embeddings": "n_positions", "hidden_size": "n_embd",
                                   "num_attention_heads": "n_head", "num_hidden_layers": "n_layer"},
                    defaults={"n_positions": 256, "n_embd": 1280, "n_head": 16, "n_layer": 48}),
    "bert": _family(class_name="BertConfig", **_BERT),
    "roberta": _family(class_name="RobertaConfig", **_ROBERTA),
    "xlm-roberta": _family(class_name="XLMRobertaConfig", **_ROBERTA),
    "camembert": _family(class_name="CamembertConfig", **_ROBERTA),
    "data2vec-text": _family(class_name="Data2VecTextConfig", **_ROBERTA),
    "roberta-prelayernorm": _family(class_name="RobertaPreLayerNormConfig", **_ROBERTA),
    "xmod": _family(class_name="XmodConfig", **_ROBERTA),
    "xlm-roberta-xl": _family(class_name="XLMRobertaXLConfig",
                              **_kin(_ROBERTA, max_position_embeddings=514, hidden_size=2560, num_attention_heads=32,
                                      num_hidden_layers=36)),
    "ibert": _family(eager_only=True, class_name="IBertConfig", **_ROBERTA | {"causal_field": ""}),
    "electra": _family(class_name="ElectraConfig", width_field="embedding_size",
                       **_kin(_BERT, hidden_size=256, embedding_size=128, num_attention_heads=4)),
    "rembert": _family(eager_only=True, class_name="RemBertConfig", width_field="input_embedding_size",
                       **_kin(_BERT, hidden_size=1152, input_embedding_size=256, num_attention_heads=18,
                               num_hidden_layers=32)),
    "ernie": _family(class_name="ErnieConfig", **_BERT),
    "megatron-bert": _family(eager_only=True, class_name="MegatronBertConfig",
                             **_kin(_BERT, hidden_size=1024, num_attention_heads=16, num_hidden_layers=24)),
    "bert-generation": _family(class_name="BertGenerationConfig",
                               **_kin(_BERT, hidden_size=1024, num_attention_heads=16, num_hidden_layers=24)),
    "albert": _family(class_name="AlbertConfig", width_field="embedding_size",
                      **_kin(_ENCODER_ONLY, hidden_size=4096, embedding_size=128, num_attention_heads=64)),
    "convbert": _family(eager_only=True, class_name="ConvBertConfig", width_field="embedding_size",
                        **_kin(_ENCODER_ONLY, embedding_size=768)),
    "mobilebert": _family(class_name="MobileBertConfig", bottleneck=True,  # its table: hidden_size wide
                          **_kin(_ENCODER_ONLY, hidden_size=512, num_attention_heads=4, num_hidden_layers=24,
                                 use_bottleneck=True, intra_bottleneck_size=128)),
    "squeezebert": _family(eager_only=True, class_name="SqueezeBertConfig", **_ENCODER_ONLY),
    "splinter": _family(eager_only=True, class_name="SplinterConfig", **_ENCODER_ONLY),
    "opt": _family(scheme="learned", class_name="OPTConfig", windows="none", row_offset=2,
                   defaults={"max_position_embeddings": 2048, "hidden_size": 768, "num_attention_heads": 12,
                             "num_hidden_layers": 12}),
    "bart": _family(class_name="BartConfig", **_BART),
    "mbart": _family(class_name="MBartConfig", **_BART),
    "mvp": _family(eager_only=True, class_name="MvpConfig", **_BART),
    "plbart": _family(class_name="PLBartConfig",
                      **_kin(_BART, d_model=768, encoder_attention_heads=12, encoder_layers=6)),
    "blenderbot": _family(class_name="BlenderbotConfig", **_kin(
        _BART | {"row_offset": 0}, max_position_embeddings=128, d_model=2560, encoder_attention_heads=32,
        encoder_layers=2)),
    "blenderbot-small": _family(class_name="BlenderbotSmallConfig", **_kin(
        _BART | {"row_offset": 0}, max_position_embeddings=512, d_model=512, encoder_layers=8)),
    "biogpt": _family(scheme="learned", class_name="BioGptConfig", windows="none", row_offset=2,
                      defaults={"max_position_embeddings": 1024, "hidden_size": 1024, "num_attention_heads": 16,
                                "num_hidden_layers": 24}),
    "marian": _family(class_name="MarianConfig", **_MARIAN),
    "pegasus": _family(class_name="PegasusConfig", **_MARIAN),
    "m2m_100": _family(class_name="M2M100Config", **_FAIRSEQ),
    "nllb-moe": _family(eager_only=True, class_name="NllbMoeConfig", **_FAIRSEQ),
    "fsmt": _family(eager_only=True, class_name="FSMTConfig", **_FAIRSEQ),
    "whisper": _family(class_name="WhisperConfig", **_FAIRSEQ | {
        "padding_offset": False, "fixed_rows": True, "exact_length": True, "context_field": "max_source_positions",
        "defaults": {"max_source_positions": 1500, "d_model": 384, "encoder_attention_heads": 6,
                     "encoder_layers": 4}}),
    "xglm": _family(eager_only=True, class_name="XGLMConfig", **_FAIRSEQ | {
        "causal": True, "padding_offset": False, "row_offset": 2,
        "attribute_map": {"hidden_size": "d_model", "num_attention_heads": "attention_heads",
                          "num_hidden_layers": "num_layers"},
        "defaults": {"max_position_embeddings": 2048, "d_model": 1024, "attention_heads": 16, "num_layers": 24}}),
    "distilbert": _family(class_name="DistilBertConfig", **_XLM | {
        "causal_field": "", "scheme_switch": ("sinusoidal_pos_embds", True, "sinusoidal"),
        "attribute_map": {"hidden_size": "dim", "num_attention_heads": "n_heads", "num_hidden_layers": "n_layers"},
        "defaults": {"max_position_embeddings": 512, "dim": 768, "n_heads": 12, "n_layers": 6}}),
    "xlm": _family(eager_only=True, cacheless=True, class_name="XLMConfig", **_XLM),
    "flaubert": _family(eager_only=True, cacheless=True, class_name="FlaubertConfig", **_XLM),
    "t5": _family(class_name="T5Config", **_T5),
    "mt5": _family(class_name="MT5Config", **_kin(_T5, num_heads=6, num_layers=8)),
    "umt5": _family(class_name="UMT5Config", **_kin(_T5, num_heads=6, num_layers=8)),  # a bias in every layer
    "pop2piano": _family(class_name="Pop2PianoConfig", **_T5),
    "switch_transformers": _family(eager_only=True, class_name="SwitchTransformersConfig",
                                   **_kin(_T5, num_heads=12, num_layers=12)),
    "mpnet": _family(eager_only=True, scheme="t5", class_name="MPNetConfig", causal=False, windows="none", row_offset=2,
                     added_table=True, fixed_buckets=(32, 128),
                     defaults={**_ROBERTA["defaults"], "relative_attention_num_buckets": 32}),
    "mpt": _family(eager_only=True, scheme="alibi", class_name="MptConfig", windows="none", context_field="max_seq_len",
                   fixed_slopes=True, multiplier_field="attn_config.softmax_scale",
                   attribute_map={"hidden_size": "d_model", "num_attention_heads": "n_heads",
                                  "num_hidden_layers": "n_layers"},
                   defaults={"d_model": 2048, "n_heads": 16, "n_layers": 24, "max_seq_len": 2048}),
    "longt5": _family(eager_only=True, class_name="LongT5Config", **_kin(
        _T5 | {"windows": "longt5", "window_field": ("local_radius", "as is")}, d_model=512, local_radius=127,
        encoder_attention_type="local")),  # (n_positions: none in its class; 512 is the reader's default too)
    "pix2struct_text_model": _family(
        scheme="t5", class_name="Pix2StructTextConfig", causal_field="is_decoder", windows="none", unscaled_softmax=True,
        attribute_map={"num_attention_heads": "num_heads", "num_hidden_layers": "num_layers"},
        defaults={"relative_attention_num_buckets": 32, "relative_attention_max_distance": 128, "hidden_size": 768,
                  "d_kv": 64, "num_heads": 12, "num_layers": 12, "is_decoder": True}),
    "bloom": _family(eager_only=True, scheme="alibi", class_name="BloomConfig", windows="none",
                     defaults={"n_head": 8, "n_layer": 2, "hidden_size": 64}),
})
"""model_type -> :class:`Family`; a model_type not listed reads as :data:`DEFAULT_FAMILY`."""

_ROTATES_OTHERWISE = ("its model in transformers 5.23 rotates a query otherwise than a Llama-style decoder does "
                      "(posenc's reading of a model_type it has no record of), in a way posenc does not read yet.")

_STATE_SPACE = ("most of its layers are Mamba state-space layers, which have no attention (and so no positions) to "
                "draw, beside a few attention layers; read as a Llama-style decoder, every layer would be drawn as "
                "attention.")

_CONVOLUTIONS = ("most of its layers are short convolutions (those its full_attn_idxs or layer_types do not make "
                 "attention), which have no attention (and so no positions) to draw, beside a few attention layers; "
                 "read as a Llama-style decoder, every layer would be drawn as attention.")

_LOCAL_AND_GLOBAL = ("each token attends to the keys within its layer's attention_window around it, and global "
                     "tokens to every key, which posenc does not read; read as a plain learned table, it would be "
                     "drawn with full attention.")
_BLOCK_SPARSE = ("its block-sparse attention (attention_type 'block_sparse': window, global and random blocks) is "
                 "not drawn; read as a plain learned table, it would be drawn with full attention.")
_LAYOUT = ("it adds positions of each token's box on the page (2-D layout), which no view draws; read as a plain "
           "learned table, it would be drawn with its 1-D positions alone.")
_DISENTANGLED = ("its attention adds disentangled relative terms (content to position and position to content, over "
                 "relative distances) when relative_attention is true, as in every released DeBERTa, which no view "
                 "draws; read as a plain learned table, it would be drawn without them.")

_NESTED_ENCODER_DECODER = ("it is an encoder-decoder of two {} models whose configs nest under encoder and decoder, "
                           "its encoder attending both ways, its sliding-window layers too, which posenc does not "
                           "read.")
_APPROXIMATED = ("it approximates softmax attention {}, which no view draws; read as a plain learned table, it "
                 "would be drawn with exact attention over every key, from row 0 (its tokens read row p + 2).")

REFUSED: Mapping[str, Family] = MappingProxyType({
    "pix2struct_vision_model": _family(
        class_name="Pix2StructVisionConfig",
        refused="its patches' positions are learned rows and columns of the image (2-D), added to each patch, which "
                "no view draws; its relative_attention_num_buckets is never read."),
    "embedding_gemma2_text": _family(
        class_name="EmbeddingGemma2TextConfig",
        refused="it attends both ways, with heads of another width in its full-attention layers (its "
                "per_layer_config), which posenc does not read; read as a Llama-style decoder, it would be drawn "
                "causal."),
    **{model_type: _family(class_name=class_name, refused=reason) for model_type, class_name, reason in (
        ("longformer", "LongformerConfig", _LOCAL_AND_GLOBAL), ("led", "LEDConfig", _LOCAL_AND_GLOBAL),
        ("big_bird", "BigBirdConfig", _BLOCK_SPARSE), ("bigbird_pegasus", "BigBirdPegasusConfig", _BLOCK_SPARSE),
        ("layoutlm", "LayoutLMConfig", _LAYOUT), ("layoutlmv2", "LayoutLMv2Config", _LAYOUT),
        ("layoutlmv3", "LayoutLMv3Config", _LAYOUT), ("lilt", "LiltConfig", _LAYOUT), ("bros", "BrosConfig", _LAYOUT),
        ("markuplm", "MarkupLMConfig",
         "it adds an embedding of each token's XPath in the page beside its learned table, which no view draws."),
        ("udop", "UdopConfig", "it adds 2-D biases of each token's box on the page (relative_bias_args) to T5's "
                               "buckets, which no view draws; read by its fields, it would be drawn as T5's alone."),
        ("tapas", "TapasConfig", "its positions restart in each table cell (reset_position_index_per_cell), beside "
                                 "row, column and rank embeddings, which no view draws."),
        ("deberta", "DebertaConfig", _DISENTANGLED), ("deberta-v2", "DebertaV2Config", _DISENTANGLED),
        ("reformer", "ReformerConfig", "its positions are axial (axial_pos_embds: a grid of two learned tables) and "
                                       "its attention hashed or local, which no view draws."),
        ("fnet", "FNetConfig", "it mixes tokens by a Fourier transform instead of attention: no view of attention "
                               "applies to it."),
        ("nystromformer", "NystromformerConfig", _APPROXIMATED.format(
            "by num_landmarks landmarks (Nyström's method) unless the input is exactly that long")),
        ("yoso", "YosoConfig", _APPROXIMATED.format("by hashing queries and keys (LSH, num_hash hashes)")),
        ("mra", "MraConfig", _APPROXIMATED.format("at several resolutions of blocks (block_per_row, approx_mode)")),
        ("canine", "CanineConfig", "its characters attend in blocks of local_transformer_stride and are pooled "
                                   "downsampling_rate to one by a strided convolution before the deep layers, which "
                                   "no view draws."),
        ("funnel", "FunnelConfig", "its blocks pool the sequence to half its length, and its attention adds relative "
                                   "position terms of its own (attention_type), which no view draws."),
        ("xlnet", "XLNetConfig", "its attention adds Transformer-XL's relative sinusoids, both ways when attn_type is "
                                 "'bi' (a segment term and two-stream attention in pretraining), which posenc does "
                                 "not read."),
        ("t5gemma", "T5GemmaConfig", _NESTED_ENCODER_DECODER.format("Gemma 2")),
        ("t5gemma2", "T5Gemma2Config", _NESTED_ENCODER_DECODER.format("Gemma 3")),
        ("luke", "LukeConfig", "its entity tokens take the mean of their words' position embeddings, and its "
                               "entity-aware attention gives words and entities queries of their own, which no view "
                               "draws; read as a plain learned table, it would be drawn with its words alone."))},
    **{model_type: _family(class_name=class_name, refused=_STATE_SPACE) for model_type, class_name in (
        ("bamba", "BambaConfig"), ("zamba2", "Zamba2Config"))},
    **{model_type: _family(class_name=class_name, refused=_CONVOLUTIONS) for model_type, class_name in (
        ("lfm2", "Lfm2Config"), ("lfm2_moe", "Lfm2MoeConfig"))},
    "recurrent_gemma": _family(
        class_name="RecurrentGemmaConfig",
        refused="most of its blocks are recurrent (block_types: an RG-LRU recurrence, two in every three by default), "
                "which have no attention (and so no positions) to draw, beside local attention blocks "
                "(attention_window_size); read as a Llama-style decoder, every block would be drawn as attention."),
    "doge": _family(
        class_name="DogeConfig",
        refused="beyond keep_window_size keys (2,048 by default) each query attends only to the keys its learned "
                "dynamic mask ranks highest, which posenc does not read; read as a Llama-style decoder, it would be "
                "drawn attending to every earlier key."),
    "beam": _family(
        class_name="BeamConfig",
        refused="its full-attention layers have no positions and scale each query by (1 + (p + 1)/2048)^0.1 (a "
                "temperature of its own), which posenc does not draw; read as a Llama-style decoder, they would be "
                "drawn rotating."),
    "neomme": _family(
        class_name="NeoMMEConfig",
        refused="it attends both ways, its sliding-window layers alternating windows of two widths (per_layer_config: "
                "256 and 1,024 keys either side by default) and its image patches placed in 2-D, which posenc does "
                "not read; read as a Llama-style decoder, it would be drawn causal, with one window."),
    "hrm_text": _family(
        class_name="HrmTextConfig",
        refused="its layers run in cycles, one stack of layers passed through H_cycles × (L_cycles + 1) times (a "
                "file's num_hidden_layers counts the passes where it gives num_layers_per_stack, else the layers of "
                "one stack), and the tokens its token_type_ids mark attend both ways, which posenc does not read; "
                "read as a Llama-style decoder, it would be drawn as num_hidden_layers layers of their own."),
    "ultrabert": _family(
        class_name="UltrabertConfig",
        refused="it attends both ways, in windows and with θ per layer of its own rules (attention_windows, a list "
                "of rope_theta), which posenc does not read; read as a Llama-style decoder, it would be drawn "
                "causal."),
    **{model_type: _family(
        class_name="MllamaTextConfig",  # (mllama: its text_config, whatever model_type it gives)
        refused="the layers its cross_attention_layers lists (3, 8, 13, … by default) attend to the image's tiles "
                "instead of the text, without positions, and are skipped on text alone, which posenc does not "
                "draw; read as a Llama-style decoder, every layer would be drawn as self-attention with positions.")
       for model_type in ("mllama_text_model", "mllama")},
    **{model_type: _family(
        class_name="Step3p7TextConfig",  # (step3p7: its text_config, whatever model_type it gives)
        refused="it reads rope_theta and partial_rotary_factors as lists of every layer's (each layer type turning "
                "as its first layer does), its use_bidirectional_attention letting a sliding-window layer see "
                "sliding_window − 1 keys either side, which posenc does not read; read as a Llama-style decoder, "
                "it would be drawn with one θ and share.")
       for model_type in ("step3p5", "step3p7")},
    **{model_type: _family(class_name=class_name, refused=_ROTATES_OTHERWISE) for model_type, class_name in (
        ("axk1", "AXK1Config"), ("cohere2_moe", "Cohere2MoeConfig"), ("glm4_moe_lite", "Glm4MoeLiteConfig"),
        ("glm4v_text", "Glm4vTextConfig"), ("glm_ocr_text", "GlmOcrTextConfig"),
        ("nanochat", "NanoChatConfig"), ("openai_privacy_filter", "OpenAIPrivacyFilterConfig"),
        ("youtu", "YoutuConfig"))},
})
"""model_type -> the record of a class posenc refuses, whose fields would otherwise read as some scheme."""

DEFAULT_FAMILY = _family(nested_parameters="as written")
"""A Llama-style decoder: RoPE in halves, θ 10,000 unless ``rope_theta``, a window when ``sliding_window``."""


RENAMED: Mapping[str, str] = MappingProxyType({"exaone4_5_text": "exaone4"})
"""Old model_type names a class renames as it reads a file (EXAONE 4.5's text model, first released as
exaone4_5_text, is exaone4 since: Exaone4_5_Config renames it)."""


def family(model_type: object) -> Family:
    """The record of ``model_type`` (a config's "model_type"): a family's, a refused class's, or the Llama-style
    default; an old name as the class renames it."""
    if not isinstance(model_type, str):
        return DEFAULT_FAMILY
    model_type = RENAMED.get(model_type, model_type)
    return FAMILIES.get(model_type) or REFUSED.get(model_type, DEFAULT_FAMILY)
