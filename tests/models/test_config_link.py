"""posenc.models.config_link: a config's positional fields in a link, read back exactly, refused when tampered."""

import base64
import json
import re
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from posenc import models
from posenc.models.config_file import MAX_BYTES
from posenc.models.config_link import MAX_LINK, POSITIONAL_FIELDS, from_link, positional_fields, to_link
from posenc.models.families import FAMILIES

CONFIGS = sorted((Path(__file__).parent / "configs").glob("*.json"))
JUNK = {"vocab_size": 128256, "intermediate_size": 14336, "torch_dtype": "bfloat16", "bos_token_id": 1,
        "architectures": ["LlamaForCausalLM"], "hidden_act": "silu", "tie_word_embeddings": False}


def _model_or_refusal(config):
    try:
        return models.from_config(config)
    except ValueError as error:
        return str(error)


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_the_link_reproduces_model_and_findings(path):
    """For every real config in tests/: the link form's model and findings equal the whole file's."""
    config = json.loads(path.read_text())
    link = to_link(config)
    back = from_link(link)
    assert back == positional_fields(config)
    assert _model_or_refusal(back) == _model_or_refusal(config)
    assert models.check(back) == models.check(config)
    assert set(back) <= POSITIONAL_FIELDS | {"text_config"}
    assert len(link) < 1000  # compact: Phi-3's two lists of 48 factors are the longest, ~950 characters


def _named_fields(family) -> set[str]:
    """Every field a family's record names: its class defaults, its names for standard fields, its θ, pattern,
    window, share, causal, scheme and width fields, and pad_token_id where positions count from it."""
    names = {*family.defaults, *family.attribute_map, *family.attribute_map.values(), *family.theta_fields.values(),
             family.pattern_field, family.window_field[0], family.partial_field or "", family.causal_field,
             family.width_field, family.scheme_switch[0] if family.scheme_switch else "", family.context_field,
             family.bidirectional_field, family.layer_theta_field, *family.head_dim_fields.values()}
    return (names | ({"pad_token_id"} if family.padding_offset or family.row_offset else set())) - {""}


def test_every_field_the_reader_reads_is_kept_in_a_link():
    """A link keeps the fields from_config and check read: those their code names (fields.get("…") and the like) and
    those every family's record names. A link dropped pad_token_id (a RoBERTa config's with pad_token_id 3 read as
    pad_token_id 1: 510 tokens, not 508), BERT's is_decoder and every field of the families read since."""
    root = Path(models.__file__).parent
    read = set()
    for name in ("config.py", "check.py"):
        source = (root / name).read_text()
        read |= set(re.findall(r"(?:fields|raw|values)\.(?:get|has|integer|number)\(\s*\"(\w+)\"", source))
    named = set().union(*(_named_fields(family) for family in FAMILIES.values()))
    assert read and not (read | named) - POSITIONAL_FIELDS, sorted((read | named) - POSITIONAL_FIELDS)
    roberta = {"model_type": "roberta", "max_position_embeddings": 512, "pad_token_id": 3, "vocab_size": 50265}
    assert models.from_config(from_link(to_link(roberta))).context_length == 508


def test_fields_positions_never_read_stay_out():
    config = json.loads((Path(__file__).parent / "configs" / "llama-3.1-8b.json").read_text()) | JUNK
    kept = positional_fields(config)
    assert not set(JUNK) & set(kept)
    assert to_link(config) == to_link(kept)  # the same view, the same link


@pytest.mark.parametrize("text", [{}, {"vision_x": 1}])
def test_a_text_config_without_positional_fields_is_kept(text):
    """A text_config holding no positional field (empty, or another tower's fields only): the reader takes the
    language model's fields from it alone, so the link keeps it, empty; the link dropped it, and read the top level
    (bloom-560m's config with "text_config": {} read as 24 layers from its link, as its class's 2 from the file; found
    by test_changed_configs_read_the_same_from_their_link)."""
    config = json.loads((Path(__file__).parent / "configs" / "bloom-560m.json").read_text()) | {"text_config": text}
    assert positional_fields(config)["text_config"] == {}
    back = from_link(to_link(config))
    assert _model_or_refusal(back) == _model_or_refusal(config)
    assert models.check(back) == models.check(config)


def test_text_config_is_kept_where_the_file_has_it():
    config = {"model_type": "qwen2_5_vl", "vocab_size": 3, "text_config": {"rope_theta": 1e6, "vision_x": 1,
                                                                          "num_hidden_layers": 2}}
    assert positional_fields(config) == {"model_type": "qwen2_5_vl",
                                         "text_config": {"rope_theta": 1e6, "num_hidden_layers": 2}}


def _tampered(link: str, index: int, char: str) -> str:
    return link[:index] + char + link[index + 1:]


@pytest.mark.parametrize("link, said", [
    ("", "holds no config"),
    ("hello", "not in posenc's link form"),
    ("2.abc.12345678", "not in posenc's link form"),
    ("1.@@@@.12345678", "cannot be read"),
    ("1." + "A" * (MAX_LINK + 10) + ".12345678", "at most"),
])
def test_not_a_link_is_refused_with_a_sentence(link, said):
    with pytest.raises(ValueError, match=said):
        from_link(link)


def test_a_changed_or_cut_link_is_refused():
    link = to_link(json.loads((Path(__file__).parent / "configs" / "phi-3-mini-128k.json").read_text()))
    version, data, digits = link.split(".")
    with pytest.raises(ValueError, match="check digits"):
        from_link(f"{version}.{data}.{'0' * 8 if digits != '0' * 8 else '1' * 8}")
    with pytest.raises(ValueError, match="cut short|cannot be read"):
        from_link(f"{version}.{data[:len(data) // 2]}.{digits}")
    other = to_link({"model_type": "llama", "rope_theta": 1e6, "num_hidden_layers": 2, "hidden_size": 64,
                     "num_attention_heads": 2})
    with pytest.raises(ValueError, match="check digits"):  # another config's data under these digits
        from_link(f"{version}.{other.split('.')[1]}.{digits}")


def test_a_compression_bomb_inflates_no_further_than_a_config():
    bomb = zlib.compress(b"[" + b"0," * 50_000_000 + b"0]", 9)  # 100 MB of JSON, ~100 kB compressed
    packed = base64.urlsafe_b64encode(bomb).decode().rstrip("=")
    assert len(packed) > MAX_LINK  # too long to be a link at all
    with pytest.raises(ValueError, match="characters long"):
        from_link(f"1.{packed}.00000000")
    small = base64.urlsafe_b64encode(zlib.compress(b" " * (MAX_BYTES + 100), 9)).decode().rstrip("=")
    assert len(small) < MAX_LINK
    with pytest.raises(ValueError, match="inflates past"):
        from_link(f"1.{small}.00000000")


def test_a_config_too_long_for_a_link_says_so():
    config = {"model_type": "llama", "rope_theta": 1e4, "hidden_size": 64, "num_attention_heads": 2,
              "layer_types": [f"type_{i}_{i * 7919 % 10007}" for i in range(4000)]}
    with pytest.raises(ValueError, match="more than the 8,000 a link can carry"):
        to_link(config)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_any_text_is_a_config_or_a_sentence(text):
    try:
        config = from_link(text)
    except ValueError as error:
        assert str(error).endswith(".") and "\n" not in str(error)
    else:
        assert isinstance(config, dict)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.characters(codec="ascii"))
def test_one_character_changed_is_refused_or_the_same(index, char):
    link = to_link(json.loads((Path(__file__).parent / "configs" / "gemma-3-4b.json").read_text()))
    index %= len(link)
    changed = _tampered(link, index, char)
    try:
        back = from_link(changed)
    except ValueError:
        return
    # base64's padding bits, or a character equal to the old one: the same data, so the same config
    assert back == from_link(link)


JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                        st.floats(allow_nan=False, allow_infinity=False, width=32), st.text(max_size=12))
VALUES = st.recursive(JSON_LEAVES, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.text(max_size=8), inner, max_size=4), max_leaves=12)
NAMES = st.sampled_from(sorted(POSITIONAL_FIELDS | set(JUNK) | {"text_config", "thinker_config"}))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CONFIGS), st.dictionaries(NAMES, VALUES, max_size=5))
@example(CONFIGS[0], {"model_type": []})  # (found: a list is no key of the thinkers' types: TypeError)
@example(CONFIGS[0], {"layer_types": [[]]})  # (found: a list in the list is no key: TypeError)
@example(CONFIGS[0], {"model_type": "qwen2_5_omni", "thinker_config": {"text_config": {"rope_theta": 5.0}}})
def test_changed_configs_read_the_same_from_their_link(path, changes):
    """Configs with fields changed, added or mistyped: the link form reads as the file does, or both refuse."""
    config = json.loads(path.read_text()) | changes
    try:
        link = to_link(config)
    except ValueError as error:
        assert "link" in str(error) or "config" in str(error)
        return
    back = from_link(link)
    assert _model_or_refusal(back) == _model_or_refusal(config)
    assert models.check(back) == models.check(config)
