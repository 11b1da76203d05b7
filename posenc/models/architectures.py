"""The class a config.json's ``architectures`` names, for a file whose ``model_type`` transformers 5.23 does not know.

Such a file belongs to a model with code of its own, loaded through ``auto_map`` (Kimi K2's ``kimi_k2``, a copy of
DeepSeek-V3's code; a fine-tune of Qwen2-VL renamed): transformers' auto classes refuse it, and the class it names
reads it when called by name (``DeepseekV3ForCausalLM.from_pretrained``), with the defaults and rules of that class's
configuration: a language model's (DeepSeek-V3's) or a composite's, which builds its language model's config from
the file's ``text_config``, its own defaults or the top-level fields it folds in (Qwen2-VL's, LLaVA's). posenc reads
it so, where it knows that class's family, instead of as a Llama-style decoder (:mod:`posenc.models.config`), and
its check says so: the model's own code may differ from the class it names.

data/architectures.json holds transformers 5.23's model classes by name, each with the model_type of the
configuration class it reads, for the families posenc reads from a file's top level and the composites
(:data:`~posenc.models.config_file.COMPOSITE_TYPES`), and every model_type transformers knows (written by
tests/helpers/architectures_table.py; tests/models/test_model_architectures.py holds it to transformers).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from importlib import resources

from posenc.models.config_file import COMPOSITE_TYPES, text_fields, text_node
from posenc.models.families import family

MAX_NAMES = 16
"""The entries of ``architectures`` looked at, at most (a file lists one, sometimes two)."""


@functools.cache
def _table() -> tuple[frozenset[str], Mapping[str, str]]:
    data = json.loads(resources.files("posenc.models").joinpath("data/architectures.json").read_text("utf-8"))
    return frozenset(data["model_types"]), data["architectures"]


def named_class(config: Mapping[str, object]) -> tuple[str, str] | None:
    """(the class, the model_type of its configuration class) of the first entry of ``config``'s ``architectures``
    that transformers 5.23 has and posenc knows the family of, when the file's model_type is one transformers does
    not know; else None (a model_type it knows is read as its own class reads it, whatever ``architectures`` says).
    None too where that class reads its fields from the top level and the file nests them (it is read from its
    ``text_config``, by that config's own model_type), and where the language model that class builds is of a type
    posenc does not know (a composite's ``text_config`` of such a type: read from the file's fields alone)."""
    model_types, architectures = _table()
    model_type = config.get("model_type")
    names = config.get("architectures")
    if (isinstance(model_type, str) and model_type in model_types) or not isinstance(names, list):
        return None
    for name in names[:MAX_NAMES]:
        if isinstance(name, str) and name in architectures:
            named = architectures[name]
            if named not in COMPOSITE_TYPES and text_node(config)[0]:
                return None
            own = text_fields({**config, "model_type": named}).get("model_type")  # its language model's
            return (name, named) if isinstance(own, str) and family(own).class_name else None
    return None


def as_named(config: Mapping[str, object]) -> Mapping[str, object]:
    """``config`` as the class its ``architectures`` names reads it (:func:`named_class`): with that class's
    model_type in place of the file's, which transformers 5.23 does not know; else ``config`` itself."""
    named = named_class(config)
    return config if named is None else {**config, "model_type": named[1]}
