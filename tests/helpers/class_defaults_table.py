"""transformers 5.23's configuration classes' defaults that posenc reads where a config.json leaves them out: what
posenc/models/data/class_defaults.json holds (tests/models/test_model_class_defaults.py holds the file to
transformers). Written again with

    python tests/helpers/class_defaults_table.py > posenc/models/data/class_defaults.json

- ``sizes``: for every family of posenc.models.families.FAMILIES that rotates, its class's default depth, heads
  and width, each under the name the class takes it by (its ``attribute_map``: GPT-J's ``n_layer``), where the
  family's record holds no default of it by any name (LongCat-Flash's ``num_layers``). A head's width is not here:
  where a class's is a default of its own (Gemma's 256), the family's record holds it; where the class computes it
  from these (Llama's hidden_size / num_attention_heads), posenc computes it alike.
- ``text_configs``: for every composite of posenc.models.config_file.TEXT_CONFIG_TYPES whose class sets fields of
  its language model's config other than its text class's defaults, those of the fields posenc reads
  (:data:`~posenc.models.config_link.POSITIONAL_FIELDS`, the depth, ``layer_types``): ``given``, set in a
  ``text_config`` the file gives (the file's fields win over them; PaliGemma's ``use_bidirectional_attention``),
  and ``absent``, the text config it builds where the file gives none (Mistral 3's: 40 layers, θ 1,000,000,000);
  with its head's width where it sets another width or heads (Mistral 3's 5,120 wide over 32 heads of 128).
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

SIZES = ("num_hidden_layers", "num_attention_heads", "hidden_size")


def _sizes(transformers, FAMILIES) -> dict:
    sizes = {}
    for model_type, family in sorted(FAMILIES.items()):
        if family.scheme != "rope" or not family.class_name:
            continue
        config_class = getattr(transformers, family.class_name)
        defaults = config_class()
        own = {}
        for standard in SIZES:
            name = config_class.attribute_map.get(standard, standard)
            value = getattr(defaults, name, None)
            held = {standard, name, family.attribute_map.get(standard, standard)} & set(family.defaults)
            if not held and isinstance(value, int):
                own[name] = value
        if own:
            sizes[model_type] = own
    return sizes


def _text_configs() -> dict:
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    from posenc.models.config_file import TEXT_CONFIG_TYPES
    from posenc.models.config_link import POSITIONAL_FIELDS

    read = POSITIONAL_FIELDS | {"num_hidden_layers", "num_layers", "n_layer", "n_layers", "layer_types"}
    text_configs = {}
    for outer, inner in sorted(TEXT_CONFIG_TYPES.items()):
        own = json.loads(CONFIG_MAPPING[inner]().to_json_string(use_diff=False))
        sets = {}
        for case, text_config in (("given", {"model_type": inner}), ("absent", None)):
            try:
                built = CONFIG_MAPPING[outer](text_config=text_config).get_text_config()
            except Exception:  # noqa: BLE001 - a class that refuses these (Gemma 4's assistant its own): no model
                continue
            written = json.loads(built.to_json_string(use_diff=False))
            differs = {key: value for key, value in written.items()
                       if key in read and key not in ("_name_or_path", "model_type") and own.get(key) != value}
            if {"hidden_size", "num_attention_heads"} & set(differs) and written.get("head_dim") is not None:
                differs["head_dim"] = written["head_dim"]  # (its own, or its text class's 128, not the new quotient)
            theta = differs.get("rope_parameters")
            if case == "given" and isinstance(theta, dict) and set(theta) == {"rope_theta", "rope_type"} \
                    and theta["rope_type"] == "default":  # (as rope_theta: a file's own rope_parameters win whole)
                differs["rope_theta"] = differs.pop("rope_parameters")["rope_theta"]
            if differs:
                sets[case] = differs
        if sets:
            text_configs[outer] = sets
    return text_configs


def table() -> dict:
    import transformers

    from posenc.models.families import FAMILIES

    transformers.logging.set_verbosity_error()
    return {"transformers": transformers.__version__, "sizes": _sizes(transformers, FAMILIES),
            "text_configs": _text_configs()}


if __name__ == "__main__":
    print(json.dumps(table(), indent=0, sort_keys=True))
