"""A decoder's cache against what posenc draws and what its check says, for the decoders that do not rotate: learned
tables (GPT-2, GPT-BigCode, OPT, BioGPT, BERT's kin made decoders), sinusoids (CTRL, XGLM), ALiBi (BLOOM, MPT, Falcon
with ``alibi``), T5's buckets (Pix2Struct's text decoder), and those that take no cache (GPT-1, ESM, XLM, FlauBERT).
The rotary ones are tested family by family in test_model_rope.py
(test_each_family_masks_its_layers_as_its_model_does and the tests after it). The oracle is the model's cached path:
transformers 5.23's DynamicCache, built from the class's configuration as generate builds it, which reads a file's
``sliding_window``, ``attention_chunk_size`` and ``layer_types`` whatever the class's forward pass does with them."""

from __future__ import annotations

import inspect

import pytest

from posenc import models
from posenc.models import from_config
from posenc.models.families import FAMILIES
from posenc.schemes import get_scheme

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
transformers.logging.set_verbosity_error()  # (the small vocabularies' token ids are only warned about)

from transformers_attention import caches_as_said  # noqa: E402
from transformers_rotary import hf_model  # noqa: E402

_GPT = {"n_embd": 32, "n_head": 2, "n_layer": 4, "vocab_size": 16, "n_positions": 64}
_SIZES = {  # four layers of each class, by its own names for its sizes
    "gpt2": _GPT, "openai-gpt": _GPT, "gpt_bigcode": _GPT, "ctrl": _GPT | {"dff": 32},
    "opt": {"hidden_size": 32, "num_attention_heads": 2, "num_hidden_layers": 4, "ffn_dim": 32, "vocab_size": 16,
            "max_position_embeddings": 64, "word_embed_proj_dim": 32},
    "biogpt": {"hidden_size": 32, "num_attention_heads": 2, "num_hidden_layers": 4, "intermediate_size": 32,
               "vocab_size": 16, "max_position_embeddings": 64},
    "xglm": {"d_model": 32, "attention_heads": 2, "num_layers": 4, "ffn_dim": 32, "vocab_size": 16,
             "max_position_embeddings": 64},
    "mpt": {"d_model": 32, "n_heads": 2, "n_layers": 4, "vocab_size": 16, "max_seq_len": 64},
    "bloom": {"hidden_size": 32, "n_head": 2, "n_layer": 4, "vocab_size": 16},
    "falcon": {"hidden_size": 32, "num_attention_heads": 2, "num_hidden_layers": 4, "vocab_size": 16,
               "max_position_embeddings": 64, "alibi": True},
}
_BERT = {"hidden_size": 32, "num_attention_heads": 2, "num_hidden_layers": 4, "intermediate_size": 32,
         "vocab_size": 16, "max_position_embeddings": 64, "is_decoder": True}
_SIZES |= {  # encoders made decoders by a field of their class (is_decoder, XLM's causal)
    "bert": _BERT, "ernie": _BERT, "megatron-bert": _BERT, "bert-generation": _BERT,
    **{key: _BERT | {"pad_token_id": 1} for key in ("roberta", "xlm-roberta", "camembert", "data2vec-text",
                                                      "roberta-prelayernorm", "xlm-roberta-xl", "esm")},
    "xmod": _BERT | {"pad_token_id": 1, "default_language": "en_XX"}, "electra": _BERT | {"embedding_size": 32},
    "rembert": _BERT | {"input_embedding_size": 32, "output_embedding_size": 32},
    **{key: {"emb_dim": 32, "n_heads": 2, "n_layers": 4, "vocab_size": 16, "max_position_embeddings": 64,
             "causal": True} for key in ("xlm", "flaubert")},
}
_PIX2STRUCT = {"model_type": "pix2struct_text_model", "hidden_size": 32, "d_kv": 16, "num_heads": 2, "num_layers": 4,
               "d_ff": 32, "vocab_size": 16, "initializer_range": 0.02}  # (its model fails to build without it)


def test_every_such_decoder_is_sized_here():
    """Every decoder family that does not rotate and applies no window of its own is tested here, and every encoder
    that a field of its class makes a decoder (GPT-Neo's windows are its own: tested with the rotary ones), Falcon
    with ALiBi besides, and Pix2Struct's by the test below."""
    decoders = sorted(key for key, family in FAMILIES.items() if (family.causal or family.causal_field)
                      and not family.refused and family.windows == "none"
                      and get_scheme(family.scheme).family != "rotary")
    assert sorted({*_SIZES, _PIX2STRUCT["model_type"]} - {"falcon"}) == decoders


def test_every_family_says_whether_its_cache_windows_by_its_scheme():
    """Positions in the keys (rotary, a table, sinusoids) or in ALiBi's bias survive the keys a cache drops; T5's
    buckets do not (Family.cache_windows, a table keyed by the scheme: every family's scheme is in it)."""
    windows = {key: family.cache_windows for key, family in FAMILIES.items()}
    assert windows["gpt2"] and windows["xglm"] and windows["bloom"] and windows["mpt"] and windows["llama"]
    assert not any(windows[key] for key in ("t5", "mt5", "umt5", "pix2struct_text_model", "longt5", "mistral"))


_CASES = {"a window": {"sliding_window": 5}, "a chunk size": {"attention_chunk_size": 5},
          "a list of both kinds": {"sliding_window": 5,
                                   "layer_types": ["sliding_attention", "full_attention"] * 2}}


@pytest.mark.parametrize("case", sorted(_CASES))
@pytest.mark.parametrize("model_type", sorted(_SIZES))
def test_a_decoder_s_cache_does_as_its_check_says(model_type, case):
    """A file gives a window, a chunk size, or a list of sliding and full layers, which the class's forward pass
    ignores (posenc draws every layer whole, and its check says so). Through the cache, the sixth token attends to
    the last five keys on every layer (a window or chunk size alone), or, on a list of both kinds, on the listed
    sliding layers under sdpa and fails under eager attention; Falcon with ALiBi fails at the first token past the
    window (its bias is built for every position), under both. BERT and its kin made decoders (is_decoder) window as
    GPT-2 does. GPT-1 keeps no cache (each token runs the whole text again, as posenc draws it), nor do ESM, XLM and
    FlauBERT made decoders (XLM's own cache reads no window), and the check says nothing of a cache. posenc said the
    cache windows only of rotary classes, and said it of Falcon with ALiBi too, whose generation fails."""
    config = {"model_type": model_type, **_SIZES[model_type], **_CASES[case]}
    model = from_config(config)
    assert set(model.layer_types) == {"full_attention"}
    torch.manual_seed(0)
    built = hf_model(config, attn_implementation="eager").eval()
    if "past_key_values" not in inspect.signature(built.forward).parameters:  # (GPT-1, ESM, XLM, FlauBERT)
        assert FAMILIES[model_type].cacheless
        assert not [f for f in models.check(config) if "cache" in f.message.lower()]
        return
    caches_as_said(built, model, config)


@pytest.mark.parametrize("case", ["a window", "a chunk size"])
def test_t5_s_buckets_through_a_windowed_cache_read_each_key_farther_back_by_what_it_dropped(case):
    """Pix2Struct's text decoder (T5's buckets, one way): through a cache that keeps the last four keys, the ninth
    token attends to five keys (the text's tokens 4 to 8), and its bias is computed for keys numbered from the first
    one kept (0 to 4) against the query's place in the text (8): each key gets the bias one forward pass gives the
    key four tokens before it, four being the keys the cache dropped. That is no window's attention; the check says
    so (``Family.cache_drops_keys`` and not ``cache_windows``), besides that one forward pass applies the window
    nowhere. posenc said nothing of the cache."""
    config = _PIX2STRUCT | _CASES[case]
    built = transformers.Pix2StructTextModel(transformers.AutoConfig.for_model(
        **config, output_attentions=True, attn_implementation="eager")).eval()
    attention = built.layer[0].self_attention.attention
    biases = []
    compute_bias = attention.compute_bias
    attention.compute_bias = lambda *args, **kwargs: biases.append(compute_bias(*args, **kwargs)) or biases[-1]
    ids = torch.arange(3, 12)[None]
    with torch.no_grad():
        full = compute_bias(9, 9)[0, :, 8]  # (heads, keys): the ninth token's row, one forward pass
        cache = transformers.DynamicCache(config=built.config)
        for step in range(9):
            out = built(input_ids=ids[:, step:step + 1], past_key_values=cache, use_cache=True,
                        output_attentions=True)
    cached = biases[-1][0, :, 0]
    assert cached.shape[-1] == out.attentions[0].shape[-1] == 5  # the last five tokens: 4 to 8
    assert torch.equal(cached, full[:, 0:5]) and not torch.equal(cached, full[:, 4:9])
    assert not FAMILIES["pix2struct_text_model"].cache_windows and FAMILIES["pix2struct_text_model"].cache_drops_keys
    said = [f.message for f in models.check(config) if "cache" in f.message]
    assert len(said) == 1 and ("keeps the last 4 keys" in said[0] or "keeps its last 4 keys" in said[0]), said
    assert ("attends to the last 5 only, and biases each as farther back than it is by as many tokens as the cache "
            "has dropped") in said[0], said[0]


_LISTS = {"sliding and full, no window": {"layer_types": ["sliding_attention", "full_attention"] * 2},
          "sliding and full": {"layer_types": ["sliding_attention", "full_attention"] * 2, "sliding_window": 5},
          "chunked and full": {"layer_types": ["chunked_attention", "full_attention"] * 2, "attention_chunk_size": 5},
          "sliding only": {"layer_types": ["sliding_attention"] * 4, "sliding_window": 5}}


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("case", sorted(_LISTS))
def test_t5_s_buckets_through_a_cache_that_reads_a_list_do_as_the_check_says(case, attention):
    """Pix2Struct's text decoder given a ``layer_types`` its forward pass ignores: its cache reads the list. Without a
    window it cannot be built; layers keeping different numbers of keys fail at the first token past the window,
    under sdpa too (one position bias, shared by every layer, sized to one kind's keys); one kind only windows every
    layer, biased as the window alone is. posenc's check said nothing of the cache."""
    config = _PIX2STRUCT | _LISTS[case]
    built = transformers.Pix2StructTextModel(transformers.AutoConfig.for_model(
        **config, attn_implementation=attention)).eval()
    said = " ".join(f.message for f in models.check(config) if f.field == "layer_types")
    ids, failed = torch.arange(3, 12)[None], None
    try:
        cache = transformers.DynamicCache(config=built.config)
    except AttributeError:  # (no sliding_window)
        assert "fails to build it, so the model cannot generate" in said, said
        return
    with torch.no_grad():
        for step in range(9):
            try:
                built(input_ids=ids[:, step:step + 1], past_key_values=cache, use_cache=True)
            except RuntimeError:
                failed = step + 1
                break
    if failed:
        assert failed == 6 and ("fails at the first token past 5 (a size mismatch between the position bias its "
                                "layers share") in said, said
    else:
        assert [layer.keys.shape[-2] for layer in cache.layers] == [4] * 4
        assert "attends to the last 5 keys only on every layer, and biases each as farther back" in said, said


_CONTEXT_FIELD = {"gpt2": "n_positions", "opt": "max_position_embeddings", "xglm": "max_position_embeddings",
                  "falcon": "max_position_embeddings", "llama": "max_position_embeddings"}
_LLAMA = {"hidden_size": 32, "num_attention_heads": 2, "num_hidden_layers": 2, "intermediate_size": 32,
          "vocab_size": 16}  # (a rotary class, as the rest of them: test_model_rope.py)


def _steps_as_one_pass(config: dict, attention: str) -> None:
    """The model of ``config`` (its context 8 tokens) takes a text of 8 tokens token by token through the cache as
    generation builds it, and the last token's hidden state is one forward pass's."""
    assert from_config(config).context_length == 8
    torch.manual_seed(0)
    built = hf_model(config, attn_implementation=attention).eval()
    ids = torch.arange(3, 11)[None]
    with torch.no_grad():
        whole = built(input_ids=ids).last_hidden_state[0, -1]
        cache = transformers.DynamicCache(config=built.config)
        for step in range(8):
            stepped = built(input_ids=ids[:, step:step + 1], past_key_values=cache, use_cache=True).last_hidden_state[0, -1]
    torch.testing.assert_close(stepped, whole, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", [{"sliding_window": 8}, {"attention_chunk_size": 9}], ids=["a window", "a chunk"])
@pytest.mark.parametrize("model_type", sorted(_CONTEXT_FIELD))
def test_a_window_as_long_as_the_context_drops_no_key_within_it(model_type, case):
    """A window or chunk size at least the model's context of 8 tokens: its cache keeps 7 or more keys, so it drops
    none of a text the model takes. Token by token through it, the eighth token's last hidden state is one forward pass's
    (Falcon's ALiBi too: it fails only past the window). posenc's check said the model's paths disagree past the
    window (of Falcon: that generation fails there), and of a window also that "these layers" attend like full
    attention, of a model with no windowed layer; one sentence now, that within the context they agree."""
    config = {"model_type": model_type, **_SIZES.get(model_type, _LLAMA), _CONTEXT_FIELD[model_type]: 8, **case}
    _steps_as_one_pass(config, "eager")
    said = [f.message for f in models.check(config) if f.field in ("sliding_window", "attention_chunk_size")]
    assert len(said) == 1 and "so it drops no key of a text of up to" in said[0], said
    assert "within the model's context of 8 tokens, generating token by token through it attends as one forward " \
           "pass does" in said[0] and "disagree" not in said[0] and "fails" not in said[0], said[0]


@pytest.mark.parametrize("kind", ["sliding_attention", "chunked_attention"])
@pytest.mark.parametrize(("model_type", "attention"), [(model_type, attention) for model_type in sorted(_CONTEXT_FIELD)
                                                       for attention in ("eager", "sdpa")
                                                       if (model_type, attention) != ("xglm", "sdpa")])  # (eager only)
@pytest.mark.parametrize("listed", ["and full", "only"])
def test_a_listed_window_as_long_as_the_context_drops_no_key_within_it(model_type, kind, attention, listed):
    """A ``layer_types`` the forward pass ignores, of windowed layers, with full ones or alone, whose window is at
    least the model's context of 8 tokens: its cache keeps 7 or more keys of every layer, so no layer's keys differ in
    number within a text the model takes and nothing fails there; the eighth token's last hidden state through it is
    one forward pass's, eager and sdpa. posenc's check said of windowed and full layers that it fails at the first
    token past the window (true, past the context), of windowed ones alone that it attends to the last window only."""
    window = {"sliding_attention": {"sliding_window": 8}, "chunked_attention": {"attention_chunk_size": 9}}[kind]
    config = {"model_type": model_type, **_SIZES.get(model_type, _LLAMA), _CONTEXT_FIELD[model_type]: 8, **window}
    pair = [kind, "full_attention"] if listed == "and full" else [kind, kind]
    config["layer_types"] = pair * (len(from_config(config).layer_types) // 2)
    _steps_as_one_pass(config, attention)
    said = " ".join(f.message for f in models.check(config) if f.field == "layer_types")
    assert "so it drops no key of a text of up to" in said and "within the model's context of 8 tokens, generating " \
           "token by token through it attends as one forward pass does" in said, said
    assert "fails" not in said and "disagree" not in said, said
