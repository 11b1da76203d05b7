"""The class a config.json's ``architectures`` names, for a file whose ``model_type`` transformers 5.23 does not know.

Such a file belongs to a model with code of its own, loaded through ``auto_map`` (Kimi K2's ``kimi_k2``, a copy of
DeepSeek-V3's code): transformers' auto classes refuse it, and the class it names reads it when called by name
(``DeepseekV3ForCausalLM.from_pretrained``), with the defaults and rules of that class's configuration. posenc reads
it so, where it knows that class's family, instead of as a Llama-style decoder (:mod:`posenc.models.config`), and
its check says so: the model's own code may differ from the class it names.

data/architectures.json holds transformers 5.23's model classes by name, each with the model_type of the
configuration class it reads, for the families posenc reads from a file's top level, and every model_type
transformers knows (written by tests/helpers/architectures_table.py; tests/models/test_model_architectures.py holds
it to transformers).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from importlib import resources

from posenc.models.config_file import text_node

MAX_NAMES = 16
"""The entries of ``architectures`` looked at, at most (a file lists one, sometimes two)."""


@functools.cache
def _table() -> tuple[frozenset[str], Mapping[str, str]]:
    data = json.loads(resources.files("posenc.models").joinpath("data/architectures.json").read_text("utf-8"))
    return frozenset(data["model_types"]), data["architectures"]


def named_class(config: Mapping[str, object]) -> tuple[str, str] | None:
    """(the class, the model_type of its configuration class) of the first entry of ``config``'s ``architectures``
    that transformers 5.23 has and posenc knows the family of, when the file's model_type is one transformers does
    not know and its language model's fields are its top level; else None (a model_type it knows is read as its own
    class reads it, whatever ``architectures`` says)."""
    model_types, architectures = _table()
    model_type = config.get("model_type")
    names = config.get("architectures")
    if (isinstance(model_type, str) and model_type in model_types) or not isinstance(names, list) or text_node(config)[0]:
        return None  # (a file whose language model's fields are nested is read from there, by its own model_type)
    for name in names[:MAX_NAMES]:
        if isinstance(name, str) and name in architectures:
            return name, architectures[name]
    return None
