r"""A config's positional fields in a link: what a shared view needs of a ``config.json``, compactly (no numpy).

A link cannot carry a file, and a config.json is mostly fields positions never read (vocabulary, MLP widths,
dropout, the tokenizer's ids). :func:`positional_fields` keeps the fields :func:`posenc.models.from_config` and
:func:`posenc.models.check` read (:data:`POSITIONAL_FIELDS`, at the top level and in ``text_config`` or the
thinker's), so the model and the findings of the kept fields equal those of the whole file
(tests/models/test_config_link.py, for every config in tests/models/configs/ and for generated ones). :func:`to_link` writes them as

    1.<base64url of the zlib-compressed JSON, in the file's order, no spaces>.<8 hex digits of its SHA-256>

about 250 characters for Llama 3.1 8B and 950 for Phi-3 mini 128k with its two lists of 48 factors.
:func:`from_link` reads it back, refusing with one sentence a text that is not such a link, a link whose check
digits do not match (changed or cut), one longer than :data:`MAX_LINK` characters, or one whose JSON would
inflate past :data:`posenc.models.config_file.MAX_BYTES` (read no further than that). The check digits catch
a link edited by hand or cut by a chat client; they are not a signature (anyone can compute them), and need not
be: a link's config is read as untrusted as an upload (:mod:`posenc.models.config_file`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import zlib

from posenc.models.architectures import as_named
from posenc.models.config_file import MAX_BYTES, NO_TEXT_CONFIG, parse_json, read_config, text_node

VERSION = "1"
MAX_LINK = 8000
"""The longest link form read or written (characters): HAProxy's default buffer takes a request line of about
16 kB, and a config's positional fields compress to far less (Phi-3's, the longest preset's, to ~950)."""
CHECK_DIGITS = 8

POSITIONAL_FIELDS = frozenset({
    "_name_or_path", "model_type",
    # RoPE: θ, its scaling (v4, v5), the rotated width, per-family θ fields
    "rope_theta", "rope_scaling", "rope_parameters", "partial_rotary_factor", "rotary_pct", "rotary_emb_base",
    "rotary_dim", "rope_local_base_freq", "global_rope_theta", "local_rope_theta", "rope_interleave",
    "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "original_max_position_embeddings", "layer_rope_theta",
    # the head's width (Gemma 4's full-attention layers': global_head_dim, per_layer_config in a saved file)
    "head_dim", "global_head_dim", "per_layer_config", "hidden_size", "num_attention_heads", "n_embd", "n_head",
    "num_heads", "n_heads", "d_model",
    "d_kv", "query_pre_attn_scalar", "encoder_attention_heads", "attention_heads", "dim", "emb_dim",
    "use_bottleneck", "intra_bottleneck_size", "attention_multiplier", "key_multiplier", "kv_channels",
    "attention_head_dim",
    # the layers and their windows
    "layer_types", "sparse_attention_config", "num_hidden_layers", "n_layer", "num_layers", "n_layers", "sliding_window",
    "sliding_window_pattern", "use_sliding_window", "max_window_layers", "no_rope_layers", "no_rope_layer_interval",
    "attention_chunk_size", "global_attn_every_n_layers", "local_attention", "encoder_layers", "attention_types",
    "attention_layers", "window_size", "local_radius", "encoder_attention_type",
    # whether a query sees the keys after it (BERT's is_decoder, XLM's causal, Gemma 3's)
    "is_decoder", "causal", "use_bidirectional_attention",
    # Llama 4's query temperature
    "attn_temperature_tuning", "floor_scale", "attn_scale",
    # the context
    "max_position_embeddings", "n_positions", "n_ctx", "max_seq_len", "max_sequence_length", "seq_length",
    "max_source_positions",
    # learned tables (their width, where positions start), sinusoids, T5's buckets, ALiBi
    "position_embedding_type", "embedding_size", "input_embedding_size", "pad_token_id", "sinusoidal_pos_embds",
    "sinusoidal_embeddings", "relative_attention_num_buckets", "relative_attention_max_distance", "alibi",
    "attn_config",
})
"""The fields positions depend on: what :func:`posenc.models.from_config` and :func:`posenc.models.check` read."""


def positional_fields(config: object) -> dict:
    """The config (a dict, a JSON text or a path, read by :func:`~posenc.models.config_file.read_config`) with
    only :data:`POSITIONAL_FIELDS`, at the top level and inside ``text_config`` (or the thinker's: kept there, so
    that a finding names the field where the file has it), and ``architectures`` where the file is read as the class
    it names (:func:`~posenc.models.architectures.named_class`: a model_type transformers 5.23 does not know)."""
    config = read_config(config)
    read = as_named(config)  # (the file itself, unless read as the class its architectures names)
    kept = {key: value for key, value in config.items() if key in POSITIONAL_FIELDS or (
        key == "architectures" and read is not config)}  # the class a type transformers lacks reads as
    path, text = text_node(read)  # (where the class it is read as finds its language model's fields)
    if path and text is not NO_TEXT_CONFIG:  # kept even when it keeps nothing: the reader takes its fields alone
        nested: dict = {key: value for key, value in text.items() if key in POSITIONAL_FIELDS}
        for key in reversed(path):
            nested = {key: nested}
        kept |= nested
    return kept


def to_link(config: object) -> str:
    """The link form of ``config``'s positional fields (module docstring); a ValueError when even those make a
    link longer than :data:`MAX_LINK` characters (a config with thousands of layer types)."""
    text = json.dumps(positional_fields(config), separators=(",", ":"), ensure_ascii=False)  # the file's order
    data = text.encode("utf-8")
    packed = base64.urlsafe_b64encode(zlib.compress(data, 9)).decode("ascii").rstrip("=")
    link = f"{VERSION}.{packed}.{_digits(data)}"
    if len(link) > MAX_LINK:
        raise ValueError(f"this config's positional fields make a link of {len(link):,} characters, more than the "
                         f"{MAX_LINK:,} a link can carry; the views use it here, but a link cannot reproduce them.")
    return link


def from_link(link: object) -> dict:
    """The positional fields a link form holds (:func:`to_link`), read as a config is; a ValueError with one
    sentence for anything else."""
    if not isinstance(link, str) or not link:
        raise ValueError("the link holds no config.")
    if len(link) > MAX_LINK:
        raise ValueError(f"the config in the link is {len(link):,} characters long; a config's link form is at most "
                         f"{MAX_LINK:,}.")
    parts = link.strip().split(".")
    if len(parts) != 3 or parts[0] != VERSION:
        raise ValueError("the config in the link is not in posenc's link form (1.<data>.<check digits>); it was "
                         "changed or cut. Open the view again from the config.json.")
    _, packed, digits = parts
    try:
        compressed = base64.b64decode(packed + "=" * (-len(packed) % 4), altchars=b"-_", validate=True)
        inflater = zlib.decompressobj()
        data = inflater.decompress(compressed, MAX_BYTES + 1)  # never more than a config may be
        complete = inflater.eof and len(data) <= MAX_BYTES
    except (binascii.Error, ValueError, zlib.error):
        raise ValueError("the config in the link cannot be read (its data is not posenc's link form); it was "
                         "changed or cut. Open the view again from the config.json.") from None
    if not complete:
        raise ValueError("the config in the link is cut short or inflates past "
                         f"{MAX_BYTES:,} bytes; open the view again from the config.json.")
    if digits != _digits(data):
        raise ValueError("the config in the link does not match its check digits: the link was changed or cut. "
                         "Open the view again from the config.json.")
    try:
        return parse_json(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("the config in the link is not UTF-8 text.") from None


def _digits(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:CHECK_DIGITS]
