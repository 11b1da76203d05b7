"""transformers 5.23's model classes by name, each with the model_type of the configuration class it reads
(``config_class.model_type``), for the families posenc knows (posenc.models.families.FAMILIES) and the
composites whose class builds its language model's config (posenc.models.config_file.COMPOSITE_TYPES), and every
model_type transformers knows: what posenc/models/data/architectures.json holds (tests/models/test_model_architectures.py
holds the file to it). Written again with

    python tests/helpers/architectures_table.py > posenc/models/data/architectures.json

A class that transformers' auto mappings list under one model_type reads that type's configuration class (the
mappings pair each type with its own classes); one listed under several (GPT-2's classes under gpt2 and gpt-sw3) is
imported and asked."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def table() -> dict:
    import transformers
    from transformers.models.auto import configuration_auto, modeling_auto

    from posenc.models.config_file import COMPOSITE_TYPES
    from posenc.models.families import FAMILIES

    types: dict[str, set[str]] = {}
    for name in dir(modeling_auto):
        if name.startswith("MODEL") and name.endswith("_MAPPING_NAMES"):
            for model_type, classes in getattr(modeling_auto, name).items():
                for cls in classes if isinstance(classes, (list, tuple)) else [classes]:
                    types.setdefault(cls, set()).add(model_type)
    known = {model_type for model_type, family in FAMILIES.items() if family.class_name} | COMPOSITE_TYPES
    architectures = {}
    for cls, model_types in sorted(types.items()):
        if not model_types & known:
            continue
        if len(model_types) > 1:
            model_class = getattr(transformers, cls, None)
            model_types = {model_class.config_class.model_type} if model_class is not None else set()
        (model_type,) = model_types or {None}
        if model_type in known:
            architectures[cls] = model_type
    return {"transformers": transformers.__version__, "model_types": sorted(configuration_auto.CONFIG_MAPPING_NAMES),
            "architectures": architectures}


if __name__ == "__main__":
    print(json.dumps(table(), indent=0, sort_keys=True))
