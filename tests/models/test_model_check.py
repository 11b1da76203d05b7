"""posenc.models.check and ``python -m posenc.models check``: one config per finding, and none for the presets.

Each case takes a config of tests/models/configs/, changes what the check looks for, and expects a finding of
that severity on that field whose sentence carries the numbers; the unchanged files of the 16 presets give no
error. The command prints the findings and exits 1 on an error.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from posenc.models import MODELS, check
from posenc.models.__main__ import main
from posenc.models.check import CHECKS, KNOWN_ROPE_TYPES, Fields, Finding, Reading, _scalings, from_config, read_config

CONFIGS = Path(__file__).parent / "configs"


def config(name: str) -> dict:
    return json.loads((CONFIGS / f"{name}.json").read_text())


def changed(name: str, **changes: object) -> dict:
    """The config ``name`` with dotted keys set (None: removed)."""
    result = copy.deepcopy(config(name))
    for dotted, value in changes.items():
        *parents, key = dotted.split("__")
        target = result
        for parent in parents:
            target = target[parent]
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value
    return result


LLAMA31 = "llama-3.1-8b"
_MIMO = {"model_type": "mimo_v2_flash", "hidden_size": 64, "num_attention_heads": 2, "num_hidden_layers": 13,
         "head_dim": 96, "max_position_embeddings": 512}
CASES = {
    "unknown type": (changed(LLAMA31, rope_scaling__rope_type="ntk-by-parts"), "error", "rope_scaling.rope_type",
                     "'ntk-by-parts'"),
    "no type nor rope_type": (changed(LLAMA31, rope_scaling__rope_type=None), "error", "rope_scaling.rope_type",
                              "drops the scaling (factor 8.0)"),
    "Phi-3's su": (config("phi-3-vision-128k-instruct"), "error", "rope_scaling.type", "KeyError"),
    "rope_scaling beside rope_parameters": (
        changed(LLAMA31, rope_parameters={"rope_type": "default", "rope_theta": 500000.0}), "error",
        "rope_parameters", "reads rope_scaling and ignores rope_parameters"),
    "type and rope_type differ": (changed(LLAMA31, rope_scaling__type="linear"), "error", "rope_scaling.type",
                                  "type 'linear' and rope_type 'llama3'"),
    "rope_theta at the top and in rope_parameters": (
        changed(LLAMA31, rope_scaling=None, rope_parameters={"rope_type": "default", "rope_theta": 10000.0}), "error",
        "rope_parameters.rope_theta", "500000 at the top level but 10000 in rope_parameters"),
    "factor × original ≠ context (linear)": (
        changed(LLAMA31, rope_scaling={"rope_type": "linear", "factor": 4.0, "original_max_position_embeddings": 8192}),
        "warning", "rope_scaling.factor", "4 × 8192 = 32768, but max_position_embeddings is 131072"),
    "factor × original ≠ context (yarn)": (
        changed("gpt-oss-20b", rope_scaling__factor=16.0), "warning", "rope_scaling.factor",
        "16 × 4096 = 65536, but max_position_embeddings is 131072"),
    "dynamic NTK given an original context": (
        changed(LLAMA31, rope_scaling={"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 8192}),
        "warning", "rope_scaling.original_max_position_embeddings",
        "up to max_position_embeddings (131072) and raises θ only past it, not past 8192"),
    "dynamic NTK given an original context at the top level": (
        changed(LLAMA31, rope_scaling={"rope_type": "dynamic", "factor": 2.0}, original_max_position_embeddings=8192),
        "warning", "original_max_position_embeddings", "max_position_embeddings should say 8192"),
    "llama3 without an original context": (
        changed(LLAMA31, rope_scaling__original_max_position_embeddings=None), "warning",
        "rope_scaling.original_max_position_embeddings", "takes max_position_embeddings (131072) for the context"),
    "YaRN without an original context": (
        changed("gpt-oss-20b", rope_scaling__original_max_position_embeddings=None), "warning",
        "rope_scaling.original_max_position_embeddings", "sets the ramp"),
    "original ≥ context with factor > 1": (changed(LLAMA31, max_position_embeddings=8192), "warning",
                                           "rope_scaling.original_max_position_embeddings",
                                           "original context of 8192 tokens, but the model's context"),
    "no rope_theta": (changed(LLAMA31, rope_theta=None), "warning", "rope_theta", "falls back to 10,000"),
    "LongRoPE list too short": (changed("phi-3-mini-128k", rope_scaling__long_factor=[1.0] * 47), "error",
                                "rope_scaling.long_factor", "47 entries, but the head rotates 96 dimensions, 48 pairs"),
    "LongRoPE lists for the scaling's own share of a head": (
        changed("phi-3-mini-128k", rope_scaling__partial_rotary_factor=0.5), "error", "rope_scaling.long_factor",
        "48 entries, but the head rotates 48 dimensions, 24 pairs"),
    "mrope_section sum": (changed("qwen2-vl-7b", rope_scaling__mrope_section=[16, 24, 20]), "error",
                          "rope_scaling.mrope_section", "adds up to 60 pairs, but the head rotates 128 dimensions"),
    "odd partial rotary width": (changed("pythia-160m", rotary_pct=0.3), "error", "rotary_pct",
                                 "int(64 × 0.3) = 19 dimensions, an odd number"),
    "odd partial_rotary_factor": (changed("phi-3-mini-128k", partial_rotary_factor=0.1), "error",
                                  "partial_rotary_factor", "int(96 × 0.1) = 9 dimensions"),
    "odd partial_rotary_factor in the scaling": (
        changed("phi-3-mini-128k", rope_scaling={"rope_type": "default", "partial_rotary_factor": 0.1}), "error",
        "rope_scaling.partial_rotary_factor", "partial_rotary_factor 0.1 of a 96-dimensional head rotates int(96 × 0.1)"),
    "a share of a head under a scaling, to a class that rotates whole heads": (
        changed(LLAMA31, partial_rotary_factor=0.5), "error", "partial_rotary_factor",
        "LlamaConfig takes no share of a head to rotate: transformers 5.23 computes this llama3 scaling's frequencies"
        " for 64 of the 128 dimensions it rotates, and the model fails at its first forward pass"),
    "a share of a head under default RoPE, to a class that rotates whole heads": (
        changed("mistral-7b-v0.1", partial_rotary_factor=0.5), "warning", "partial_rotary_factor",
        "ignores it under default RoPE"),
    "a share of a head inside a default scaling, to a class that rotates whole heads": (
        changed("mistral-7b-v0.1", rope_scaling={"rope_type": "default", "partial_rotary_factor": 0.25}), "warning",
        "rope_scaling.partial_rotary_factor", "rope_scaling.partial_rotary_factor is 0.25, but MistralConfig takes no"),
    "head_dim ≠ hidden / heads, no head_dim": (changed(LLAMA31, head_dim=None, num_attention_heads=30), "warning",
                                               "num_attention_heads", "4096 / num_attention_heads 30 = 136.533"),
    "llama3 low > high": (changed(LLAMA31, rope_scaling__low_freq_factor=4.0, rope_scaling__high_freq_factor=1.0),
                          "error", "rope_scaling.low_freq_factor", "low_freq_factor 4 is above high_freq_factor 1"),
    "llama3 low = high": (config("llama-4-scout"), "info", "text_config.rope_scaling.low_freq_factor", "= 1"),
    "YaRN beta_fast < beta_slow": (changed("gpt-oss-20b", rope_scaling__beta_fast=0.5), "error",
                                   "rope_scaling.beta_fast", "beta_fast 0.5 is below beta_slow 1"),
    "YaRN beta_fast = beta_slow": (changed("gpt-oss-20b", rope_scaling__beta_fast=1.0), "warning",
                                   "rope_scaling.beta_fast", "beta_fast = beta_slow = 1"),
    "layer_types length": (changed("gpt-oss-20b", num_hidden_layers=20), "error", "layer_types",
                           "lists 24 layers but num_hidden_layers is 20"),
    "sliding window ≥ context": (changed("mistral-7b-v0.1", sliding_window=32768), "warning", "sliding_window",
                                 "32768, at or past the context of 32768 tokens"),
    "sliding window ≥ context, a use_sliding_window MistralConfig does not read": (
        changed("mistral-7b-v0.1", sliding_window=32768, use_sliding_window=False), "warning", "sliding_window",
        "32768, at or past the context of 32768 tokens"),
    "explicit head_dim": (config("gemma-3-4b"), "info", "text_config.head_dim", "head_dim is 256, not"),
    "sliding layers, null window": (config("gemma-2-9b-it") | {"sliding_window": None}, "error", "sliding_window",
                                    "fails at the model's first forward pass"),
    "v4 type where parameters are kept per layer type": (
        changed("gemma-3-4b", text_config__rope_scaling={"type": "linear", "factor": 8.0}), "error",
        "text_config.rope_scaling.type", "transformers 5.23 drops the linear scaling (factor 8)"),
    "a flat rope_parameters Gemma 3 does not read": (
        changed("gemma-3-4b", text_config__rope_scaling=None,
                text_config__rope_parameters={"rope_type": "linear", "factor": 8.0}), "error",
        "text_config.rope_parameters", "computes default RoPE on every layer type"),
    "a flat rope_parameters ModernBERT refuses": (
        changed("modernbert-base", rope_parameters={"rope_type": "linear", "factor": 8.0}), "error",
        "rope_parameters", "ModernBertConfig keeps its RoPE parameters per layer type, and transformers 5.23 refuses"),
    "YaRN's truncate where parameters are kept per layer type": (
        changed("gemma-3-4b", text_config__rope_scaling={"rope_type": "yarn", "factor": 4.0, "truncate": False}),
        "warning", "text_config.rope_scaling.truncate", "rounds the ramp's ends to whole pairs (truncate true)"),
    "parameters nested by layer type, to a class that reads one flat dict": (
        changed(LLAMA31, rope_scaling=None, rope_parameters={"full_attention": {"rope_type": "linear", "factor": 8.0}}),
        "error", "rope_parameters", "LlamaConfig reads one flat dict of RoPE parameters: transformers 5.23 reads none"),
    "parameters nested by layer type, to a class that fails on them": (
        changed("gpt-oss-20b", rope_scaling=None, rope_parameters={"full_attention": {"rope_type": "default"}}),
        "error", "rope_parameters", "GptOssConfig reads one flat dict of RoPE parameters: transformers 5.23 builds"),
    "a rope_scaling nested by layer type, merged by a class that keeps parameters per layer type": (
        changed("gemma-3-4b", text_config__rope_scaling={"full_attention": {"rope_type": "linear", "factor": 8.0}}),
        "error", "text_config.rope_scaling", "Gemma3TextConfig merges a rope_scaling into its own parameters"),
    "RoBERTa's positions from pad_token_id + 1": (
        {"model_type": "roberta", "max_position_embeddings": 514, "pad_token_id": 1}, "info", "max_position_embeddings",
        "RobertaConfig numbers a token's position from pad_token_id + 1 = 2: its 514-row table holds 512 tokens"),
    "OLMo 3's sliding layers keep the class's θ": (
        {"model_type": "olmo3", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 4,
         "max_position_embeddings": 65536, "rope_theta": 20000.0}, "info", "rope_theta",
        "Olmo3Config gives rope_theta (20,000) to its other layers only: its sliding_attention layers turn at θ 500,000"),
    "a θ of millions written as a reader writes it": (
        {"model_type": "olmo3", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 4,
         "max_position_embeddings": 65536, "rope_theta": 2_000_000.0}, "info", "rope_theta",
        "Olmo3Config gives rope_theta (2,000,000) to its other layers only: its sliding_attention layers turn at "
        "θ 500,000"),  # (it wrote 2e+06)
    "HunYuan's NTK-α": (
        {"model_type": "hunyuan_v1_dense", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128,
         "num_hidden_layers": 32, "max_position_embeddings": 32768, "rope_theta": 10_000.0,
         "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 1.0}}, "info", "rope_scaling.alpha",
        "rope_scaling is 'dynamic' with alpha 1,000, which HunYuanDenseV1Config computes as NTK-α: default RoPE at "
        "θ·α^(d/(d − 2)) = 10,000 × 1,000^(128/126) = 11,158,840 at every length, not dynamic NTK."),
    "MiMo-V2-Flash's θ in its parameters only": (
        _MIMO | {"rope_theta": 20000.0}, "info", "rope_theta",
        "MiMoV2FlashConfig reads no rope_theta (20,000): its layers turn at the θ of its RoPE parameters "
        "(full_attention θ 5,000,000, sliding_attention θ 10,000)"),
    "MiMo-V2-Flash's share in its parameters only": (
        _MIMO | {"partial_rotary_factor": 0.5}, "warning", "partial_rotary_factor",
        "partial_rotary_factor is 0.5, which MiMoV2FlashConfig does not read at the top level"),
    "Laguna's share in its parameters only": (
        {"model_type": "laguna", "num_hidden_layers": 2, "partial_rotary_factor": 0.5}, "warning",
        "partial_rotary_factor", "partial_rotary_factor is 0.5, which LagunaConfig does not read at the top level under "
        "default RoPE: it rotates the share each layer type's RoPE parameters give (else the whole head)"),
    "a window its model does not apply": (
        changed(LLAMA31, sliding_window=4096), "warning", "sliding_window",
        "sliding_window is 4096, but no layer of LlamaConfig's model is sliding_attention, so its forward pass "
        "applies it nowhere: every layer attends to the whole context, as posenc draws it. Its cache does read it: "
        "transformers 5.23's DynamicCache keeps the last 4095 keys of each layer, so text generated token by token "
        "through it attends to the last 4096 only, as a window would"),
    "layer_types its model does not read": (
        {"model_type": "mistral", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 2,
         "layer_types": ["full_attention", "sliding_attention"]},
        "warning", "layer_types", "layer_types lists 1 full_attention, 1 sliding_attention layers, which "
        "MistralConfig's model in transformers 5.23 does not read in its forward pass: its layers are 2 "
        "sliding_attention by its class's own rule, as posenc draws them. Its cache does read the list, keeping the "
        "last 4095 keys on the sliding_attention layers only, and generating through it fails at the first token "
        "past 4096"),
    "layer_types its model does not read, its cache windowing under sdpa": (
        {"model_type": "llama", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 2,
         "sliding_window": 5, "layer_types": ["full_attention", "sliding_attention"]},
        "warning", "layer_types", "layer_types lists 1 full_attention, 1 sliding_attention layers, which "
        "LlamaConfig's model in transformers 5.23 does not read in its forward pass: its layers are 2 full_attention "
        "by its class's own rule, as posenc draws them. Its cache does read the list, keeping the last 4 keys on the "
        "sliding_attention layers only: text generated token by token through it attends to the last 5 keys on "
        "those layers under sdpa attention (the class's default), and fails at the first token past 5 under eager "
        "attention"),
    "a chunk size its model does not apply": (
        changed(LLAMA31, attention_chunk_size=8192), "warning", "attention_chunk_size",
        "attention_chunk_size is 8192, but no layer of LlamaConfig's model is chunked_attention, so its forward pass "
        "applies it nowhere: every layer attends to the whole context, as posenc draws it. Its cache does read it: "
        "transformers 5.23's DynamicCache makes every layer chunked_attention and keeps its last 8191 keys"),
    "layer_types its model does not read, with a kind that is no string": (  # (found: a TypeError)
        {"model_type": "bert", "num_hidden_layers": 2, "layer_types": ["full_attention", []]},
        "warning", "layer_types", "layer_types lists 1 full_attention, 1 [] layers, which BertConfig's model in "
        "transformers 5.23 does not read in its forward pass: its layers are 2 full_attention by its class's own "
        "rule, as posenc draws them."),
    "DBRX's θ where its model does not read it": (
        {"model_type": "dbrx", "d_model": 6144, "n_heads": 48, "n_layers": 40, "max_seq_len": 32768,
         "attn_config": {"kv_n_heads": 8, "rope_theta": 500000, "clip_qkv": 8}}, "warning", "attn_config.rope_theta",
        "attn_config.rope_theta is 500,000, which DbrxConfig in transformers 5.23 does not read: its rotary embedding "
        "rotates at θ 10,000"),
    "MiMo-V2-Flash's window from SGLang's field": (
        _MIMO | {"sliding_window": 8, "sliding_window_size": 600}, "warning", "sliding_window_size",
        "sliding_window_size is 600 (a window of 601 keys, the query's own included), at or past the context of 512"),
    "MiMo-V2-Flash's odd rotated width": (
        _MIMO | {"head_dim": 64}, "error", "", "MiMoV2FlashConfig's default share 0.334 rotates int(64 × 0.334) = 21"),
    "OPT's positions from 2": (
        {"model_type": "opt", "max_position_embeddings": 2048}, "info", "max_position_embeddings",
        "OPTConfig numbers a token's position from its offset = 2: its 2,050-row table holds 2,048 tokens"),
    "M2M100's sinusoids from pad_token_id + 1": (
        {"model_type": "m2m_100", "d_model": 1024, "encoder_attention_heads": 16, "encoder_layers": 12,
         "max_position_embeddings": 1024, "pad_token_id": 1}, "info", "pad_token_id",
        "M2M100Config numbers a token's position from pad_token_id + 1 = 2: token p is encoded as position p + 2"),
    "XGLM's zeroed row, a token's": (
        {"model_type": "xglm", "d_model": 64, "attention_heads": 4, "num_layers": 2, "max_position_embeddings": 128,
         "pad_token_id": 3}, "warning", "pad_token_id",
        "pad_token_id is 3: XGLMConfig zeroes the row of position 3, which the token at position 1 reads"),
    "Gemma told to see both ways, in sdpa only": (
        {"model_type": "gemma", "use_bidirectional_attention": True, "num_hidden_layers": 2, "hidden_size": 512,
         "num_attention_heads": 2}, "warning", "use_bidirectional_attention",
        "use_bidirectional_attention is true, which GemmaConfig's model in transformers 5.23 honours with sdpa "
        "attention only, while eager attention still masks causally"),
    "Gemma 2 told to see both ways, in neither": (
        {"model_type": "gemma2", "use_bidirectional_attention": True, "num_hidden_layers": 2, "hidden_size": 512,
         "num_attention_heads": 2}, "warning", "use_bidirectional_attention",
        "honours in neither eager attention nor sdpa (which it refuses): it masks causally"),
    "an encoder-decoder drawn as its encoder": (
        {"model_type": "marian", "d_model": 512, "encoder_attention_heads": 8, "encoder_layers": 6,
         "decoder_layers": 6, "max_position_embeddings": 512}, "info", "model_type",
        "MarianConfig builds an encoder-decoder: posenc draws its encoder, whose 6 layers attend both ways"),
    "a relative position type BERT no longer reads": (
        {"model_type": "bert", "position_embedding_type": "relative_key"}, "warning", "position_embedding_type",
        "position_embedding_type is 'relative_key', which BertConfig's model no longer reads in transformers 5.23"),
    "BART's positions from 2, its sizes under its own names": (
        {"model_type": "bart", "d_model": 1024, "encoder_attention_heads": 16, "encoder_layers": 12,
         "max_position_embeddings": 1024}, "info", "max_position_embeddings",
        "BartConfig numbers a token's position from its offset = 2: its 1,026-row table holds 1,024 tokens"),
    "MPNet's learned table, besides its buckets": (
        {"model_type": "mpnet", "max_position_embeddings": 514, "relative_attention_num_buckets": 32}, "info",
        "max_position_embeddings", "MPNetConfig numbers a token's position from its offset = 2: its 514-row table "
        "holds 512 tokens (rows 0 and 1 are never a token's). It adds this learned table to its embeddings besides "
        "the T5 relative bias posenc draws"),
    "MPNet's buckets fixed in its code": (
        {"model_type": "mpnet", "relative_attention_num_buckets": 64}, "warning", "relative_attention_num_buckets",
        "relative_attention_num_buckets is 64, but MPNetConfig's model computes 32 buckets out to 128 whatever it "
        "says: rows 32 to 63 of its bias are never read"),
    "MPNet's farthest distance fixed in its code": (
        {"model_type": "mpnet", "relative_attention_max_distance": 256}, "warning", "relative_attention_max_distance",
        "relative_attention_max_distance is 256, which MPNetConfig's model does not read"),
    "MPT's ALiBi turned off where transformers does not read it": (
        {"model_type": "mpt", "attn_config": {"alibi": False}}, "warning", "attn_config.alibi",
        "attn_config.alibi is false, which MptConfig's model in transformers 5.23 does not read: it adds ALiBi "
        "whatever it says"),
    "MPT's bias max, which transformers does not read": (
        {"model_type": "mpt", "attn_config": {"alibi": True, "alibi_bias_max": 16}}, "warning",
        "attn_config.alibi_bias_max", "attn_config.alibi_bias_max is 16, which MptConfig's model in transformers 5.23 "
        "does not read: its slopes are 2^(−8k/n) whatever it says"),
    "a T5-style model_type posenc does not know": (
        {"model_type": "my_t5", "d_model": 512, "num_heads": 6, "d_kv": 64, "num_layers": 8,
         "relative_attention_num_buckets": 32}, "info", "model_type",
        "model_type 'my_t5' is not a family posenc knows: it reads this config as a model with T5 relative bias"),
    "GPT-J's θ in its code": (
        config("gpt-j-6b") | {"rope_theta": 20000.0}, "error", "rope_theta",
        "GPTJConfig does not read rope_theta: its code rotates rotary_dim dimensions of each head at θ 10,000"),
    "a model_type posenc does not know": (
        {"model_type": "glm4v_moe_text", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 2,
         "max_position_embeddings": 2048, "rope_theta": 10000.0}, "info", "model_type",
        "model_type 'glm4v_moe_text' is not a family posenc knows: it reads this config as a Llama-style decoder"),
    "top-level original differs": (changed(LLAMA31, original_max_position_embeddings=4096), "warning",
                                   "rope_scaling.original_max_position_embeddings",
                                   "8192 in rope_scaling but 4096 as the config's own field (the top level's)"),
    "a layer's own window": (changed(LLAMA31, per_layer_config={"03": {"sliding_window": 512}}), "warning",
                             "per_layer_config.03.sliding_window",
                             "per_layer_config gives layer 03 its own sliding_window, which posenc does not read"),
    "Ministral 3's query scale without its β": (
        {"model_type": "ministral3", "rope_parameters": {"rope_type": "yarn", "rope_theta": 1e6, "factor": 16.0,
                                                         "original_max_position_embeddings": 16384}},
        "error", "rope_parameters.llama_4_scaling_beta", "so its model fails at its first forward pass"),
    "a field outside text_config": (config("gemma-3-4b") | {"rope_theta": 500000.0}, "warning", "rope_theta",
                                    "rope_theta is 500000.0 at the top level, outside text_config"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_check_finds_its_mistake(case):
    source, severity, field, words = CASES[case]
    findings = check(source)
    matching = [f for f in findings if f.field == field and f.severity == severity]
    assert matching, findings
    assert any(words in f.message for f in matching), matching


def test_a_theta_beside_alibi_is_not_said_to_be_unread_by_a_rotation():
    """llm-foundry's MPT files write attn_config.rope_theta beside alibi true: MPT has no rotation for it to be
    compared with (the check said "its rotary embedding rotates at θ" and no number)."""
    mpt = {"model_type": "mpt", "d_model": 64, "n_heads": 2, "n_layers": 2, "max_seq_len": 128,
           "attn_config": {"alibi": True, "rope": False, "rope_theta": 10000}}
    assert not [finding for finding in check(mpt) if finding.field == "attn_config.rope_theta"]


def test_every_check_has_a_case():
    found = set()
    for source, *_ in CASES.values():
        raw = read_config(source)
        try:
            model = from_config(raw)
        except ValueError:
            model = None
        reading = Reading(raw, Fields(raw), _scalings(raw, Fields(raw)), model)
        found |= {rule.__name__ for rule in CHECKS if list(rule(reading))}
    assert found == {rule.__name__ for rule in CHECKS}


@pytest.mark.parametrize("name", list(MODELS))
def test_a_presets_config_has_no_error(name):
    findings = check(CONFIGS / f"{name}.json")
    assert all(isinstance(f, Finding) and f.severity in ("error", "warning", "info") for f in findings)
    assert [f for f in findings if f.severity == "error"] == []


def test_findings_come_errors_first_with_the_unreadable_field_named():
    findings = check(changed(LLAMA31, rope_scaling__factor="eight", rope_theta=None))
    assert [f.severity for f in findings] == sorted((f.severity for f in findings),
                                                    key=("error", "warning", "info").index)
    assert findings[0] == Finding("error", "rope_scaling.factor", findings[0].message)
    assert "rope_scaling.factor must be a finite number; the config has 'eight'" in findings[0].message


@pytest.mark.parametrize("bad", ["{", "[1, 2]", '{"a": NaN}', "{" * 40 + "}" * 40, b"\xff\xfe", 3])
def test_unreadable_input_is_a_valueerror(bad):
    with pytest.raises(ValueError):
        check(bad)


def test_the_command_prints_findings_and_exits_1_on_an_error(tmp_path, capsys):
    assert main(["check", str(CONFIGS / "llama-3.1-8b.json")]) == 0
    assert capsys.readouterr().out.strip() == "0 errors, 0 warnings, 0 info."
    broken = tmp_path / "config.json"
    broken.write_text(json.dumps(changed(LLAMA31, rope_scaling__rope_type=None, rope_theta=None)))
    assert main(["check", str(broken)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("error    rope_scaling.rope_type: rope_scaling has no 'rope_type'")
    assert lines[1].startswith("warning  rope_theta: the config gives no rope_theta")
    assert lines[-1] == "1 error, 1 warning, 0 info."
    broken.write_text("{not json")
    assert main(["check", str(broken)]) == 1
    assert capsys.readouterr().out.startswith("error: the config is not valid JSON")


def test_python_dash_m_runs_the_command():
    path = CONFIGS / "phi-3-vision-128k-instruct.json"
    done = subprocess.run([sys.executable, "-m", "posenc.models", "check", str(path)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 1
    assert "rope_scaling.type is 'su'" in done.stdout


def test_dynamic_ntk_is_not_checked_against_a_factor_times_an_original_context():
    """Dynamic NTK stretches nothing by its factor (θ grows with the sequence past max_position_embeddings): the
    check said '2 × 8192 = 16384, but max_position_embeddings is 131072 … one of the three is likely wrong'."""
    source = changed(LLAMA31, rope_scaling={"rope_type": "dynamic", "factor": 2.0,
                                            "original_max_position_embeddings": 8192})
    assert [f.field for f in check(source)] == ["rope_scaling.original_max_position_embeddings"]
    assert check(changed(LLAMA31, rope_scaling={"rope_type": "dynamic", "factor": 2.0})) == []
    # right, but was told it 'extends nothing'; wrong (transformers keeps 131072 unscaled), but was passed
    right, wrong = ({"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": original}
                    for original in (131072, 65536))
    assert check(changed(LLAMA31, rope_scaling=right)) == []
    assert [f.severity for f in check(changed(LLAMA31, rope_scaling=wrong))] == ["warning"]


def test_phi_3_without_an_original_context_takes_its_class_s_4096_and_is_not_warned_about():
    """Phi3Config's own default (4,096) is what transformers then uses, not max_position_embeddings."""
    source = changed("phi-3-mini-128k", original_max_position_embeddings=None)
    assert not [f for f in check(source) if "original_max_position_embeddings" in f.field]


def test_what_the_original_context_warnings_say_transformers_does():
    """transformers 5.23 (the oracle): dynamic NTK's frequencies at 16,384 tokens are the unscaled ones although
    the config says 8,192 (it scales only past max_position_embeddings), and llama3 and YaRN without an original
    context take max_position_embeddings for it."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    common = dict(hidden_size=256, num_attention_heads=4, max_position_embeddings=131072, rope_theta=500000.0)
    dynamic = transformers.LlamaConfig(**common, rope_scaling={"rope_type": "dynamic", "factor": 2.0,
                                                               "original_max_position_embeddings": 8192})
    unscaled = 1.0 / (500000.0 ** (torch.arange(0, 64, 2, dtype=torch.int64).float() / 64))
    torch.testing.assert_close(ROPE_INIT_FUNCTIONS["dynamic"](dynamic, None, seq_len=16384)[0], unscaled,
                               rtol=0, atol=0)
    assert not torch.equal(ROPE_INIT_FUNCTIONS["dynamic"](dynamic, None, seq_len=262144)[0], unscaled)
    for scaling in ({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0},
                    {"rope_type": "yarn", "factor": 8.0}):
        config = transformers.LlamaConfig(**common, rope_scaling=scaling)
        assert config.rope_parameters["original_max_position_embeddings"] == 131072, scaling
    phi3 = transformers.Phi3Config(**common, rope_scaling={"rope_type": "longrope", "short_factor": [1.0] * 32,
                                                         "long_factor": [2.0] * 32})
    assert phi3.rope_parameters["original_max_position_embeddings"] == 4096  # its class's default


def test_an_original_context_transformers_does_not_compute_with_is_named_with_the_one_it_does():
    """transformers 5.23 computes with the config's own original_max_position_embeddings over the scaling's (the top
    level's, or Phi3Config's default 4,096), except where it keeps the parameters per layer type (Gemma 3,
    ModernBERT), which read the scaling's (the oracle: tests/models/test_model_config.py's
    test_the_trained_context_is_the_one_transformers_computes_with). The check said nothing of a Phi-3 scaling's
    own L₀ that its class's default overrides, nor of a Gemma 3 top-level L₀ that is never read."""
    def found(source):
        return [(f.field, f.message) for f in check(source) if "original_max_position_embeddings" in f.field]

    both = found(changed(LLAMA31, original_max_position_embeddings=4096))
    assert [field for field, _ in both] == ["rope_scaling.original_max_position_embeddings"]
    assert "computes with 4096" in both[0][1] and "config.rope_parameters shows 8192" in both[0][1]
    assert found(changed(LLAMA31, original_max_position_embeddings=4096,  # read, and no other value: nothing to say
                         rope_scaling__original_max_position_embeddings=None)) == []
    assert found(changed(LLAMA31, original_max_position_embeddings=8192)) == []  # the same value: harmless
    phi3 = "phi-3-mini-128k"
    own = found(changed(phi3, original_max_position_embeddings=None, rope_scaling__original_max_position_embeddings=8192))
    assert [field for field, _ in own] == ["rope_scaling.original_max_position_embeddings"]
    assert "4096 as the config's own field (Phi3Config's default)" in own[0][1] and "shows" not in own[0][1]
    top = found(changed(phi3, original_max_position_embeddings=4000, rope_scaling__original_max_position_embeddings=8192))
    assert len(top) == 1 and "computes with 4000" in top[0][1]
    assert found(changed(phi3, original_max_position_embeddings=4000)) == []  # Phi-3's own field, read
    gemma = found(changed("gemma-3-4b", text_config__original_max_position_embeddings=4096,
                          text_config__rope_scaling={"rope_type": "yarn", "factor": 8.0,
                                                     "original_max_position_embeddings": 16384}))
    assert [field for field, _ in gemma] == ["text_config.original_max_position_embeddings"]
    assert "keeps its RoPE parameters per layer type" in gemma[0][1]
    assert "reads text_config.rope_scaling's 16384" in gemma[0][1]
    outside = found(changed("qwen3-vl-8b", original_max_position_embeddings=4096,
                            text_config__rope_scaling={"rope_type": "yarn", "factor": 2.0,
                                                       "original_max_position_embeddings": 2048}))
    assert [field for field, _ in outside] == ["original_max_position_embeddings"]
    assert "4096 at the top level, outside text_config" in outside[0][1]


@pytest.mark.parametrize("rope_type", ["linear", "dynamic", "llama3", "yarn", "longrope"])
def test_a_scaling_phi_3_s_class_refuses_is_an_error(rope_type):
    """Phi3Config accepts only default RoPE and LongRoPE ('su' and 'yarn' read as it); transformers 5.23 (the
    oracle) refuses the rest. The check said nothing of a Phi-3 config with a linear scaling."""
    transformers = pytest.importorskip("transformers")
    scaling = {"rope_type": rope_type, "factor": 2.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
               "short_factor": [1.0] * 48, "long_factor": [2.0] * 48, "original_max_position_embeddings": 4096}
    source = changed("phi-3-mini-128k", rope_scaling=scaling)
    refused = [f for f in check(source) if f.field == "rope_scaling.rope_type" and f.severity == "error"]
    try:
        transformers.Phi3Config.from_dict(json.loads(json.dumps(source)))
    except Exception as error:  # huggingface_hub's StrictDataclassClassValidationError
        assert "type field must be one of" in str(error)
        assert len(refused) == 1 and "Phi3Config accepts only 'default' and 'longrope'" in refused[0].message
    else:
        assert rope_type in ("yarn", "longrope") and not refused


def test_sliding_layers_without_a_window_are_an_error():
    """Gemma 2's alternate layers with "sliding_window": null: transformers 5.23 (the oracle: a two-layer model)
    builds the config and fails at the first forward pass. The check said nothing; Mistral, whose layers are
    windowed only when a window is given, reads a null as no window and stays clean."""
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    tiny = transformers.Gemma2Config(hidden_size=64, num_attention_heads=2, num_key_value_heads=2, num_hidden_layers=2,
                                     intermediate_size=64, vocab_size=10, head_dim=32, sliding_window=None)
    with pytest.raises(TypeError):
        transformers.Gemma2Model(tiny).eval()(torch.tensor([[1, 2, 3]]))
    errors = [f for f in check(config("gemma-2-9b-it") | {"sliding_window": None}) if f.severity == "error"]
    assert [f.field for f in errors] == ["sliding_window"]
    assert "21 layers are sliding_attention but sliding_window is null" in errors[0].message
    assert not [f for f in check(config("mistral-7b-v0.1") | {"sliding_window": None}) if f.severity == "error"]
    listed = {"model_type": "mystery", "rope_theta": 10000.0, "hidden_size": 256, "num_attention_heads": 4,
              "num_hidden_layers": 2, "max_position_embeddings": 4096, "layer_types": ["sliding_attention",
                                                                                       "full_attention"]}
    (error,) = [f for f in check(listed) if f.severity == "error"]  # it said "1 layers … sliding_window is null"
    assert "1 layer is sliding_attention but the config gives no sliding_window" in error.message


def test_a_class_that_fails_on_nested_parameters_gets_no_finding_about_what_it_would_read():
    """Gemma 2 given rope_parameters nested by layer type: transformers 5.23 fails building its rotary embedding, and
    from_config says so; the check also warned that YaRN's truncate false in them is not read, of parameters that are
    never read at all."""
    source = changed("gemma-2-9b-it", rope_parameters={"full_attention": {"rope_type": "yarn", "factor": 4.0,
                                                                          "truncate": False}})
    findings = check(source)
    assert any(f.severity == "error" and "fails building the rotary embedding" in f.message for f in findings)
    assert not [f for f in findings if f.field.endswith("truncate")], findings


@pytest.mark.parametrize(("config", "field"), [
    ({"model_type": "gemma3_text", "use_bidirectional_attention": True, "max_position_embeddings": 64,
      "num_hidden_layers": 6, "hidden_size": 64, "num_attention_heads": 2, "head_dim": 32}, "sliding_window"),
    ({"model_type": "gemma3_text", "max_position_embeddings": 64, "num_hidden_layers": 6, "hidden_size": 64,
      "num_attention_heads": 2, "head_dim": 32}, "sliding_window"),
    ({"model_type": "modernbert", "max_position_embeddings": 64, "num_hidden_layers": 3, "hidden_size": 64,
      "num_attention_heads": 2}, "local_attention"),
])
@pytest.mark.parametrize("window", [62, 63, 64, 65, 100, 126, 127, 128])
def test_a_window_is_said_never_to_mask_exactly_where_its_mask_sees_every_key(config, field, window):
    """A window that masks no key of the context is warned about, and only then: the oracle is the layers' mask
    (models.attention_mask, itself checked against transformers 5.23's models in test_model_config.py). A causal window
    of w keys masks nothing from w = context on; one of w keys either side of the query (ModernBERT's local_attention
    // 2, Gemma 3's sliding_window // 2 when told to see both ways) from w = context − 1. The check compared Gemma 3's
    whole sliding_window with the context when it sees both ways, and every window with the context."""
    from posenc import models

    given = config | {field: window}
    model = from_config(given)
    layer = "sliding_attention" if "sliding_attention" in model.layer_types else "full_attention"
    whole = np.tril(np.ones((64, 64), dtype=bool)) if model.causal else np.ones((64, 64), dtype=bool)
    sees_all = np.array_equal(models.attention_mask(model, layer, 64), whole)  # as full attention would
    warned = [f for f in check(given) if f.field == field and "never masks" in f.message]
    assert bool(warned) == sees_all, (warned, model.positional(layer).window)


def test_a_theta_for_every_layer_is_a_stated_theta():
    """Granite SWA's layer_rope_theta gives every layer its θ (0: none), which its model turns each layer at whatever
    rope_theta says: the check said "the config gives no rope_theta, so transformers falls back to 10,000" of a
    config that states them all. Without the list, it still says so."""
    config = {"model_type": "granite_swa", "hidden_size": 128, "num_attention_heads": 2, "num_hidden_layers": 4,
              "max_position_embeddings": 8192, "sliding_window": 512}
    assert "rope_theta" not in [f.field for f in check({**config, "layer_rope_theta": [0, 10_000, 10_000, 10_000]})]
    assert [f.severity for f in check(config) if f.field == "rope_theta"] == ["warning"]


def test_gemma_4_s_p_rope_is_a_scaling_transformers_knows():
    """transformers 5.23 computes p-RoPE ("proportional", Gemma 4's full-attention layers) with the share of pairs
    its partial_rotary_factor gives: the check called it a type transformers does not know, and the share one
    Gemma4TextConfig ignores. On a Llama config, whose class posenc reads no p-RoPE for, the reader's refusal
    is the error."""
    gemma = {"model_type": "gemma4_text", "hidden_size": 64, "num_attention_heads": 2, "head_dim": 16,
             "global_head_dim": 32, "num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"],
             "max_position_embeddings": 128, "sliding_window": 6}
    assert [(f.severity, f.field) for f in check(gemma) if f.severity != "info"] == []
    llama = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 2, "num_hidden_layers": 2,
             "rope_scaling": {"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 10_000.0}}
    errors = [f.message for f in check(llama) if f.severity == "error"]
    assert errors and not any("does not know" in message for message in errors), errors


def test_the_rope_types_the_check_knows_are_the_ones_transformers_validates():
    """KNOWN_ROPE_TYPES is written out by hand (``import posenc`` loads no transformers); the oracle is
    transformers 5.23's own list: a rope type its configs validate has a ``_validate_<type>_rope_parameters``
    (an unknown one is only logged, and the model then fails to compute it), and Qwen2-VL's and Qwen2.5-VL's
    configs read a v4 ``"mrope"`` as ``"default"``. A type transformers adds or drops fails here."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS, RotaryEmbeddingConfigMixin

    prefix, suffix = "_validate_", "_rope_parameters"
    validated = {name.removeprefix(prefix).removesuffix(suffix) for name in dir(RotaryEmbeddingConfigMixin)
                 if name.startswith(prefix) and name.endswith(suffix)}
    assert set(ROPE_INIT_FUNCTIONS) <= validated  # every type with its own frequencies is validated
    assert set(KNOWN_ROPE_TYPES) == validated | {"mrope"}
    assert len(KNOWN_ROPE_TYPES) == len(set(KNOWN_ROPE_TYPES))


@pytest.mark.parametrize(("config", "said"), [
    ({"model_type": "llama", "per_layer_config": {"01": {"sliding_window": 8}}}, "per_layer_config.01.sliding_window"),
    ({"model_type": "gemma4_text", "global_head_dim": 32, "layer_types": ["sliding_attention", "full_attention"],
      "per_layer_config": {"01": {"head_dim": 32, "sliding_window": 4}}}, "per_layer_config.01.sliding_window"),
    ({"model_type": "gemma4_text", "layer_types": ["sliding_attention", "full_attention"],
      "per_layer_config": {"01": {"head_dim": 32, "num_key_value_heads": 1}}}, None),
])
def test_a_layer_s_own_positional_fields_that_posenc_does_not_read_are_named(config, said):
    """transformers 5.23's per_layer_config gives layers fields of their own (Gemma 4's wider global heads). posenc
    reads its head_dim for Gemma 4 only and draws every other field at the top level's value: a positional field
    set there (a window, θ, a scaling) is named, so that a view is not taken for the layer's; head_dim and the
    number of key-value heads (no position depends on it) are not."""
    config = {"hidden_size": 64, "num_attention_heads": 2, "head_dim": 16, "num_hidden_layers": 2,
              "max_position_embeddings": 128, "sliding_window": 6, **config}
    named = [f.field for f in check(config) if f.field.startswith("per_layer_config")]
    assert named == ([said] if said else []), [f.message for f in check(config)]


@pytest.mark.parametrize("pad", [None, 1, 0, 3])
def test_mpnet_s_padding_index_is_fixed_in_its_code(pad):
    """MPNet's model (transformers 5.23, MPNetEmbeddings: padding_idx = 1) numbers positions around token id 1
    whatever pad_token_id says: a config with another pad_token_id has its padding tokens counted as words and a
    token of id 1 as padding. The check said nothing of it."""
    config = {"model_type": "mpnet", "hidden_size": 64, "num_attention_heads": 2, "num_hidden_layers": 2,
              "max_position_embeddings": 514} | ({} if pad is None else {"pad_token_id": pad})
    warned = [f for f in check(config) if f.field == "pad_token_id" and f.severity == "warning"]
    assert len(warned) == (pad not in (None, 1))
    if warned:
        assert f"pad_token_id is {pad}, but MPNetConfig's model numbers positions around token id 1" in \
            warned[0].message


def test_the_check_reads_the_context_from_the_fields_the_reader_does():
    """A config whose context is its max_sequence_length alone: the reader drew its 8,192-token window as reaching
    past the 4,096-token context (full attention), but the check, which listed the context's fields again without
    max_sequence_length, read no context and said nothing of it. One list now serves both (CONTEXT_FIELDS)."""
    config = {"model_type": "mistral", "hidden_size": 64, "num_attention_heads": 2, "num_hidden_layers": 2,
              "max_sequence_length": 4096, "sliding_window": 8192, "rope_theta": 10_000.0}
    config["max_position_embeddings"] = None  # MistralConfig's default (131,072) is the file's null
    assert from_config(config).context_length == 4096
    warned = [f.message for f in check(config) if f.field == "sliding_window"]
    assert any("never masks a key" in message for message in warned), check(config)


def test_a_composite_config_s_own_padding_token_is_not_called_misplaced():
    """LLaVA's and many composite configs give their own pad_token_id at the top level: a token id, which positions
    of a rotary language model never read, so the check does not say it lies outside text_config."""
    source = config("gemma-3-4b") | {"pad_token_id": 0, "max_position_embeddings": 4096}
    outside = [f.field for f in check(source) if "outside text_config" in f.message]
    assert outside == ["max_position_embeddings"]


@pytest.mark.parametrize("scaling", [
    {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 49_152, "beta_fast": 200.0,
     "beta_slow": 100.0},
    {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8192, "low_freq_factor": 1.0,
     "high_freq_factor": 4.0},
    {"rope_type": "longrope", "short_factor": [1.0] * 32, "long_factor": [2.0] * 32,
     "original_max_position_embeddings": 4096},
])
def test_minimax_m2_s_rotary_dim_checks_as_the_share_it_is(scaling):
    """MiniMax-M2's files give the rotated width as rotary_dim (64 of 128), which its class reads as
    partial_rotary_factor 0.5 (the reader: test_minimax_m2_rotates_rotary_dim_of_a_head_as_its_model_does): the check
    counts the same 32 pairs (LongRoPE's lists, YaRN's and llama3's bands) for either. It counted 64 for rotary_dim,
    and called LongRoPE's 32-entry lists, which the model reads, too short."""
    base = {"model_type": "minimax_m2", "hidden_size": 3072, "num_hidden_layers": 62, "num_attention_heads": 48,
            "head_dim": 128, "max_position_embeddings": 196_608, "rope_theta": 5_000_000.0, "rope_scaling": scaling}
    assert check(base | {"rotary_dim": 64}) == check(base | {"partial_rotary_factor": 0.5})
    assert not [f for f in check(base | {"rotary_dim": 64}) if f.severity == "error"]


@pytest.mark.parametrize("parameters", [None, {"rope_type": "default", "rope_theta": 500_000.0},
                                        {"rope_type": "default", "rope_theta": 500_000.0, "mrope_section": [11, 11, 10]}])
@pytest.mark.parametrize("hidden", [256, 512])
def test_ernie_4_5_vl_s_own_section_is_held_to_the_head_where_the_file_gives_none(hidden, parameters):
    """ERNIE 4.5 VL's rotary embedding splits the frequencies by [22, 22, 20] pairs where the parameters give no
    mrope_section: transformers 5.23 (the oracle: its text model, one layer) builds heads of 128 and fails to build
    heads of 64 (32 pairs). The check said nothing of a file without a section; it now gives the error exactly where
    the model cannot be built, naming the section and the pairs, as it does for a section the file gives."""
    pytest.importorskip("transformers")
    from transformers_rotary import hf_model

    source = {"model_type": "ernie4_5_vl_moe_text", "hidden_size": hidden, "num_attention_heads": 4,
              "num_key_value_heads": 4, "num_hidden_layers": 1, "intermediate_size": 32, "vocab_size": 16,
              "moe_num_experts": 2, "moe_k": 1, "moe_intermediate_size": [16, 16], "max_position_embeddings": 1024}
    if parameters is not None:
        source["rope_parameters"] = parameters
    errors = [f for f in check(source) if f.severity == "error"]
    try:
        hf_model(source)
    except RuntimeError:
        pairs = hidden // 4 // 2
        (error,) = errors
        assert error.field == "rope_parameters.mrope_section" and f"{pairs} pairs" in error.message
        section = (parameters or {}).get("mrope_section")
        assert (f"mrope_section {section} adds up to {sum(section)}" if section else
                "gives no mrope_section, so Ernie4_5_VLMoeTextConfig's model splits the frequencies by its own, "
                "[22, 22, 20]: 64 pairs") in error.message
    else:
        assert not errors and (hidden == 512) == ((parameters or {}).get("mrope_section") is None)


def test_a_composite_without_theta_is_told_where_it_would_be():
    """A LLaVA file whose language model gives no θ: the check said "the config gives no rope_theta" of a file whose
    top level gives one (which LlavaConfig does not read); it names text_config, where the θ would be read, or the
    text_config the file does not give."""
    top = {"model_type": "llava", "rope_theta": 500_000.0}
    nested = [f for f in check({**top, "text_config": {"max_position_embeddings": 4096}})
              if "gives no rope_theta" in f.message]
    assert [(f.severity, f.field) for f in nested] == [("warning", "text_config.rope_theta")]
    assert nested[0].message.startswith("text_config gives no rope_theta, so transformers falls back to 10,000")
    bare = [f for f in check(top) if "rope_theta)" in f.message]
    assert [(f.severity, f.field) for f in bare] == [("warning", "text_config")]
    assert bare[0].message.startswith("the file gives no text_config (so no rope_theta), so transformers falls back")
    flat = [f for f in check({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 2,
                              "num_hidden_layers": 1}) if f.field == "rope_theta"]
    assert flat[0].message.startswith("the config gives no rope_theta, so transformers falls back to 10,000")
