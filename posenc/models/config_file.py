r"""Reading a model's ``config.json`` safely: a dict, a JSON text or a path in, a plain dict out (no numpy).

A config comes from a user (an upload, a pasted text, a file on disk), so everything that could make a
reader hang, recurse or accept a number that is not one is refused here with one sentence, as a
ValueError: more than :data:`MAX_BYTES` of text, nesting deeper than :data:`MAX_DEPTH`, NaN and
±Infinity (JSON has neither; Python's ``json`` accepts them), numbers too large for a float or with more
digits than any config needs, and anything but a JSON object at the top. Vision-language models keep
their language model's fields in ``text_config`` (Qwen3-VL, Gemma 3, Llama 4): :func:`text_fields`
reads those alone, as transformers builds the text model's configuration from them.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from posenc.models.class_defaults import text_config_defaults
from posenc.models.families import FAMILIES

MAX_BYTES = 1_000_000
"""The largest config read (1 MB); Phi-3's, with its two lists of 48 factors, is under 4 kB."""
MAX_DEPTH = 32
"""The deepest nesting of objects and lists accepted (a config nests three or four levels)."""
MAX_DIGITS = 40
"""The most characters of one number (a float32 written in full has 20)."""


def read_config(source: object) -> dict:
    """The config as a dict: ``source`` is a dict, a JSON text (``str`` or ``bytes``) or a path to a file.

    A ``str`` that starts with ``{`` (after white space) is read as JSON text, any other ``str`` or a
    :class:`os.PathLike` as a path. Refused with a ValueError: more than 1 MB, not JSON, NaN or ±Infinity,
    nesting deeper than 32, a top level that is not an object, a dict with keys that are not strings.
    """
    if isinstance(source, Mapping):
        config = dict(source)
        _check_value(config, "the config", 0)
        return config
    if isinstance(source, (bytes, bytearray)):
        if len(source) > MAX_BYTES:
            raise ValueError(_too_big(len(source)))
        try:
            return parse_json(bytes(source).decode("utf-8"))
        except UnicodeDecodeError as error:
            raise ValueError(f"the config is not UTF-8 text (byte {error.start} cannot be read).") from None
    if isinstance(source, str) and source.lstrip().startswith("{"):
        return parse_json(source)
    if isinstance(source, (str, os.PathLike)):
        return parse_json(_read_file(source))
    raise ValueError(f"a config must be a dict, a JSON text or the path of a config.json; got a "
                     f"{type(source).__name__}.")


def _read_file(path: str | os.PathLike) -> str:
    try:
        with open(Path(path), "rb") as file:
            data = file.read(MAX_BYTES + 1)
    except (OSError, ValueError) as error:  # ValueError: a path with a NUL byte
        shown = os.fspath(path) if isinstance(path, os.PathLike) else path
        reason = getattr(error, "strerror", None) or str(error)
        raise ValueError(f"cannot read the config file {str(shown)[:200]!r}: {reason}.") from None
    if len(data) > MAX_BYTES:
        raise ValueError(_too_big(len(data), at_least=True))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"the config file is not UTF-8 text (byte {error.start} cannot be read).") from None


def _too_big(size: int, at_least: bool = False) -> str:
    more = "more than " if at_least else ""
    return (f"the config is {more}{size:,} bytes; a config.json is a few kilobytes, and at most "
            f"{MAX_BYTES:,} bytes are read.")


def parse_json(text: str) -> dict:
    """A JSON object's text as a dict, refused as :func:`read_config` says."""
    if len(text) > MAX_BYTES:
        raise ValueError(_too_big(len(text)))
    _check_nesting(text)
    try:
        config = json.loads(text, parse_constant=_no_constant, parse_float=_float, parse_int=_int)
    except json.JSONDecodeError as error:
        raise ValueError(f"the config is not valid JSON: {error.msg} at line {error.lineno}, column "
                         f"{error.colno}.") from None
    except RecursionError:  # _check_nesting makes this unreachable; kept so no other exception escapes
        raise ValueError(f"the config nests deeper than {MAX_DEPTH} levels.") from None
    if not isinstance(config, dict):
        raise ValueError(f"a config.json holds one JSON object ({{...}}); this text holds a "
                         f"{type(config).__name__}.")
    return config


def _check_nesting(text: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH before the parser recurses (brackets inside strings skipped)."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise ValueError(f"the config nests deeper than {MAX_DEPTH} levels of objects and lists; a "
                                 "config.json nests three or four.")
        elif char in "]}":
            depth -= 1


def _no_constant(name: str) -> float:
    raise ValueError(f"the config holds {name}, which is not a JSON number (a field must be a finite number).")


def _float(text: str) -> float:
    if len(text) > MAX_DIGITS:
        raise ValueError(f"the config holds a number of {len(text)} characters ({text[:20]}...); at most "
                         f"{MAX_DIGITS} are read.")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the config holds {text}, too large for a 64-bit float (it would be infinite).")
    return value


def _int(text: str) -> int:
    if len(text) > MAX_DIGITS:
        raise ValueError(f"the config holds a whole number of {len(text)} digits ({text[:20]}...); at most "
                         f"{MAX_DIGITS} are read.")
    return int(text)


def _check_value(value: object, where: str, depth: int) -> None:
    """A dict given directly: JSON's kinds only (str keys; str, bool, None, finite numbers, lists, dicts)."""
    if depth > MAX_DEPTH:
        raise ValueError(f"the config nests deeper than {MAX_DEPTH} levels of objects and lists.")
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"{where} has a key {key!r:.40} that is not a string, as every JSON key is.")
            _check_value(item, f"{where}.{key}" if depth else key, depth + 1)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check_value(item, f"{where}[{index}]", depth + 1)
    elif isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where} is {value}, not a finite number.")
    elif not isinstance(value, (str, bool, int, float, type(None))):
        raise ValueError(f"{where} is a {type(value).__name__}, not a JSON value (text, number, true/false, "
                         "null, list or object).")


TEXT_PATHS = (("text_config",), ("thinker_config", "text_config"))
"""Where a composite config keeps its language model's fields: ``text_config``, or its thinker's (Qwen2.5-Omni's and
Qwen3-Omni's: the thinker reads and writes the text, its talker another transformer turning that into speech)."""
THINKER_TEXT_TYPES = {"qwen2_5_omni": "qwen2_5_omni_text", "qwen3_omni_moe": "qwen3_omni_moe_text"}
"""model_type -> its thinker's language model's, given where its text_config gives none (the class's text config's);
a thinker's fields are read under these alone."""


TEXT_CONFIG_TYPES = {
    "aria": "aria_text", "audioflamingo3": "qwen2", "aya_vision": "cohere2", "blip-2": "opt",
    "cohere2_vision": "cohere2", "cohere_compass": "cohere_compass_text", "cosmos3_edge": "cosmos3_edge_text",
    "cosmos3_omni": "qwen3_vl_text", "deepseek_ocr2": "deepseek_ocr2_text", "deepseek_vl": "llama",
    "deepseek_vl_hybrid": "llama", "emu3": "emu3_text_model", "ernie4_5_vl_moe": "ernie4_5_vl_moe_text",
    "exaone4_5": "exaone4", "fast_vlm": "qwen2", "florence2": "bart", "fun_asr_nano": "qwen3", "fuyu": "persimmon",
    "gemma3": "gemma3_text", "gemma3n": "gemma3n_text", "gemma4": "gemma4_text", "gemma4_assistant": "gemma4_text",
    "glm_image": "glm_image_text", "glmasr": "llama", "got_ocr2": "qwen2", "granite4_vision": "granite4_vision_text",
    "granite_docling": "granite_docling_text", "granite_speech": "granite", "granite_speech_plus": "granite",
    "grounding-dino": "bert", "hunyuan_vl": "hunyuan_vl_text", "hyperclovax_vision_v2": "hyperclovax",
    "idefics2": "mistral", "idefics3": "llama", "instructblip": "opt", "instructblipvideo": "opt",
    "internvl": "qwen2", "janus": "llama", "kimi_k25": "deepseek_v3", "lighton_ocr": "qwen3",
    "llama4": "llama4_text", "llava": "llama", "llava_next": "llama", "llava_next_video": "llama",
    "llava_onevision": "qwen2", "minimax_m3_vl": "minimax_m3_vl_text", "mistral3": "mistral",
    "mm-grounding-dino": "bert", "modernvbert": "modernbert", "molmo2": "molmo2_text",
    "moss_transcribe_diarize": "qwen3", "muse_glimmer": "muse_glimmer_text", "muse_spark": "muse_spark_text",
    "musicflamingo": "qwen2", "ovis2": "qwen2", "paddleocr_vl": "paddleocr_vl_text", "paligemma": "gemma",
    "pe_audio": "modernbert", "pe_audio_video": "modernbert", "pe_video": "modernbert", "perception_lm": "llama",
    "pix2struct": "pix2struct_text_model", "pp_chart2table": "qwen2", "qianfan_ocr": "qwen3",
    "qwen2_5_omni_thinker": "qwen2_5_omni_text", "qwen2_audio": "qwen2", "qwen3_asr": "qwen3",
    "qwen3_omni_moe_thinker": "qwen3_omni_moe_text", "qwen3_vl": "qwen3_vl_text",
    "qwen3_vl_moe": "qwen3_vl_moe_text", "shieldgemma2": "gemma3_text", "smolvlm": "llama", "vibevoice": "qwen2",
    "vibevoice_asr": "qwen2", "video_llama_3": "qwen2", "video_llava": "llama", "vipllava": "llama",
    "vision-text-dual-encoder": "bert", "voxtral": "llama", "voxtral_realtime": "voxtral_realtime_text",
}
"""model_type -> its language model's, given where its ``text_config`` gives none: transformers 5.23 builds that
config by the type its class's ``sub_configs_defaults`` names (LLaVA's: llama), not by the outer type; those of the
types posenc has a record of (a thinker's alone too: Qwen2.5-Omni's and Qwen3-Omni's)."""
FOLDED_TEXT_FIELDS: dict[str, frozenset[str] | None] = {
    "fuyu": frozenset({"attention_dropout", "eos_token_id", "hidden_act", "hidden_dropout", "hidden_size",
                       "initializer_range", "intermediate_size", "layer_norm_eps", "max_position_embeddings",
                       "num_attention_heads", "num_hidden_layers", "qk_layernorm", "use_cache", "vocab_size",
                       "rope_scaling", "rope_theta"}),
    "hunyuan_vl": None, "paddleocr_vl": None}
"""model_type -> the top-level fields its class folds into its text config where the file gives no ``text_config``
(None: every field of its text config's class), as their checkpoints on the Hub are saved, flat (transformers 5.23's
``__post_init__``: Fuyu's the fields its Persimmon text config is built with, and θ; the others', all of them)."""
COMPOSITE_TYPES = frozenset({*TEXT_CONFIG_TYPES, *THINKER_TEXT_TYPES, *FOLDED_TEXT_FIELDS,
                             *(model_type for model_type, family in FAMILIES.items() if family.composite)})
"""The model_types whose class builds its language model's config itself: from a nested ``text_config`` (or the
thinker's), from its own defaults where the file gives none, or from the top-level fields it folds in (and Qwen2-VL's,
written flat: :class:`~posenc.models.families.Family`'s ``composite``); what a file of a type transformers 5.23 does
not know reads as when its ``architectures`` names one of their classes (:mod:`posenc.models.architectures`)."""
NO_TEXT_CONFIG: Mapping = MappingProxyType({})
"""The language model's fields of a composite file that gives no ``text_config`` (or a null one): none, as
transformers 5.23 builds its class's default text config then, whatever the top level says (:func:`text_node`)."""


def text_node(config: Mapping[str, object]) -> tuple[tuple[str, ...], Mapping]:
    """The keys down to the object holding the language model's fields (:data:`TEXT_PATHS`), and that object: ((),
    the config itself) for the top level; that path and :data:`NO_TEXT_CONFIG` for a composite of
    :data:`TEXT_CONFIG_TYPES` whose file gives no text_config, unless its class folds the top level into one
    (:data:`FOLDED_TEXT_FIELDS`: the top level then), and for a thinker's (:data:`THINKER_TEXT_TYPES`) that gives no
    thinker_config or none in it."""
    model_type = config.get("model_type")
    for path in TEXT_PATHS:
        if path[0] == "thinker_config" and not (isinstance(model_type, str) and model_type in THINKER_TEXT_TYPES):
            continue  # (a model_type of any JSON value: a list is no key)
        node: object = config
        for key in path:  # (down the path while its values are objects: node is the first that is none)
            if not isinstance(node, Mapping):
                break
            node = node.get(key)
        if isinstance(node, Mapping):
            return path, node
        if path[0] == "thinker_config" and node is None:  # (no thinker_config, or none in it: null or absent)
            return path, NO_TEXT_CONFIG  # (its thinker's default text config, as transformers 5.23 builds it)
    if isinstance(model_type, str) and model_type in TEXT_CONFIG_TYPES and config.get("text_config") is None \
            and model_type not in FOLDED_TEXT_FIELDS:
        return ("text_config",), NO_TEXT_CONFIG
    return (), config


def text_fields(config: Mapping[str, object]) -> dict:
    """The fields the language model reads: ``text_config``'s (or the thinker's) alone when it is an object
    (transformers 5.23 builds the language model's config from it, whatever the top level says: a top-level head_dim
    or rope_parameters belongs to another tower, MusicFlamingo's audio encoder's), over the fields the outer class
    sets there (:func:`~posenc.models.class_defaults.text_config_defaults`: in a text_config the file gives, or in
    the one it builds where the file gives none), with the file's name and, where it gives none, the model_type the outer
    class gives it (a thinker's text model's, or :data:`TEXT_CONFIG_TYPES`), else the top level's; the top-level
    fields its class folds into its text config of a file that gives none (:data:`FOLDED_TEXT_FIELDS`), as it would
    its text_config's; else the top level's."""
    path, node = text_node(config)
    outer = config.get("model_type")
    outer = outer if isinstance(outer, str) else ""  # (a model_type of any JSON value: a list is no key)
    if not path and outer in FOLDED_TEXT_FIELDS and config.get("text_config") is None:  # (a flat PaddleOCR-VL)
        folded = FOLDED_TEXT_FIELDS[outer]
        node = {key: value for key, value in config.items()
                if key != "model_type" and (folded is None or key in folded)}
        path = ("text_config",)
    if not path:
        return dict(config)
    own = {**text_config_defaults(outer, given=node is not NO_TEXT_CONFIG), **node} if path == ("text_config",) \
        else dict(node)
    if path[0] == "thinker_config" and "model_type" not in own:
        own["model_type"] = THINKER_TEXT_TYPES[outer]
    elif "model_type" not in own and outer in TEXT_CONFIG_TYPES:
        own["model_type"] = TEXT_CONFIG_TYPES[outer]
    for key in ("model_type", "_name_or_path"):
        if key not in own and key in config:
            own[key] = config[key]
    return own
