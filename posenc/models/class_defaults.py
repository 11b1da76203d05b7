"""What a configuration class gives a config.json that leaves a field out: the sizes of a rotary family's class,
and the text config a composite's class builds.

transformers builds a model from a file's fields over its configuration class's defaults, so a file need not list
a value equal to its class's: LLaVA-1.5's text_config, saved by transformers 4 as what differs from LlamaConfig's
defaults, gives no depth, heads or width (LlamaConfig's: 32 layers, 32 heads, 4,096 wide). posenc reads such a file
as its class builds it, as it reads the learned, T5 and ALiBi families' (their records hold their sizes), and its
check names each size it took from the class (:mod:`posenc.models.check`). A composite's class may set its
language model's fields itself: in a text_config the file gives (Voxtral's θ, PaliGemma's attention both ways),
or in the one it builds where the file gives none (Mistral 3's 40 layers at θ 1,000,000,000).

data/class_defaults.json holds both, of transformers 5.23 (written by tests/helpers/class_defaults_table.py;
tests/models/test_model_class_defaults.py holds it to transformers).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from importlib import resources
from types import MappingProxyType

from posenc.models.families import RENAMED

NONE: Mapping[str, object] = MappingProxyType({})


@functools.cache
def _table() -> tuple[Mapping[str, Mapping[str, int]], Mapping[str, Mapping[str, Mapping[str, object]]]]:
    data = json.loads(resources.files("posenc.models").joinpath("data/class_defaults.json").read_text("utf-8"))
    return data["sizes"], data["text_configs"]


def class_sizes(model_type: object) -> Mapping[str, int]:
    """The default sizes (depth, heads, width) of ``model_type``'s configuration class (an old name as its class
    renames it, as :func:`~posenc.models.families.family` reads it) that its family's record does not hold, by the
    class's names for them; none for a type posenc has no rotary family of."""
    if not isinstance(model_type, str):
        return NONE
    return MappingProxyType(_table()[0].get(RENAMED.get(model_type, model_type), NONE))


def text_config_defaults(outer: str, given: bool) -> Mapping[str, object]:
    """The fields of its language model's config the composite class ``outer`` sets over its text class's defaults
    (those posenc reads): in a text_config the file gives (``given``; the file's own fields win over them), or in
    the one it builds where the file gives none."""
    sets = _table()[1].get(outer, NONE)
    return MappingProxyType(sets.get("given" if given else "absent", NONE))
