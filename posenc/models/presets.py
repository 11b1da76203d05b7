r"""Released models and the positional settings of their published configurations (numpy only).

Each :class:`Model` carries the numbers of one checkpoint's ``config.json`` (or model card), named after
the source that fixes them, as transformers' configuration classes name the checkpoint they reproduce.
A model's layers can differ: Gemma 3 alternates five sliding-window layers (θ base 10,000) with one
global layer (θ base 1,000,000, linear ×8); Llama 4 drops RoPE in every fourth layer; gpt-oss alternates
a 128-token window with full attention; ModernBERT has one global layer in three. ``layer_types`` names
each layer with transformers' names ("full_attention", "sliding_attention", "chunked_attention") and
"nope" for a layer without positions; :meth:`Model.positional` gives what one layer type uses as a
:class:`Positional`, whose first two fields are a key of the scheme registry
(:data:`posenc.SCHEMES`) and that scheme's options under the registry's option names.

Windows follow transformers 5.23's masks (``masking_utils.py``): a causal layer with window w lets
query i see key j when 0 ≤ i − j < w (``sliding_window_overlay``: kv_idx > q_idx − w); a bidirectional
one (ModernBERT) when |i − j| ≤ w (``sliding_window_bidirectional_overlay``, w = local_attention // 2);
a chunked one (Llama 4) when ⌊i / c⌋ = ⌊j / c⌋ and j ≤ i (``chunked_overlay``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import NamedTuple

from posenc.schemes.rope.scalings import yarn_mscale

LAYER_TYPES = ("full_attention", "sliding_attention", "chunked_attention", "nope")
"""The layer types a preset may have: transformers' names, and "nope" for a layer without positions."""


class Positional(NamedTuple):
    """What one layer type of a model uses for positions.

    ``scheme``: a key of :data:`posenc.SCHEMES`; ``options``: that scheme's options, under the registry's
    names (for "rope": layout, rope_type, rotary_fraction and the scaling's parameters, LongRoPE's lists as
    ``short_factor`` and ``long_factor``); ``base``: θ's base (transformers' ``rope_theta``), None without
    rotation; ``rotary_dims``: the dimensions of a head that rotate (0 without rotation); ``window``: the
    sliding window as transformers' ``config.sliding_window`` (see the module docstring), None for none;
    ``head_dim``: the width of a query-key head; ``chunk``: Llama 4's ``attention_chunk_size``, None for
    none; ``extra``: settings outside the registry's options (M-RoPE's sections, Llama 4's temperature
    tuning, gpt-oss's sinks, DeepSeek's split of a head, an absolute table's ``model_width``: the width of the
    embeddings it is added to; sinusoids' ``first_position``: the position a model's first token is encoded as
    (M2M100's pad_token_id + 1), and ``table_rows``: the rows of a table computed once (Marian's; none: any length)).
    """

    scheme: str
    options: Mapping[str, object]
    base: float | None
    rotary_dims: int
    window: int | None
    head_dim: int
    chunk: int | None = None
    extra: Mapping[str, object] = MappingProxyType({})


@dataclass(frozen=True)
class Model:
    """One released model: its layers, what each layer type uses for positions, its context and its source.

    ``context_length``: the longest context of the published configuration (``max_position_embeddings``,
    or the model card's training length where the config has none); ``causal``: whether a query sees only
    the keys before it (a decoder) or all of them (an encoder); ``softmax_dim``: the d of the softmax's
    1/√d (None: no scaling, as T5); ``source``: where every number comes from (URL and field names);
    ``softmax_multiplier``: the number q·k is multiplied by where it is not 1/√softmax_dim alone (Granite's
    attention_multiplier or MPT's softmax_scale in its place; DeepSeek's 1/√d times YaRN's mscale²; Falcon-H1's
    times its key_multiplier), else None.
    """

    key: str
    label: str
    layer_types: tuple[str, ...]
    positionals: Mapping[str, Positional]
    context_length: int
    causal: bool
    softmax_dim: int | None
    source: str
    notes: str = ""
    softmax_multiplier: float | None = None

    def positional(self, layer_type: str) -> Positional:
        """The :class:`Positional` of ``layer_type``, or a ValueError naming this model's layer types."""
        if not isinstance(layer_type, str) or layer_type not in self.positionals:
            raise ValueError(f"{self.label} has no layer type {layer_type!r:.60}; its layer types are "
                             f"{', '.join(map(repr, self.positionals))}.")
        return self.positionals[layer_type]


def _frozen(mapping: Mapping[str, object]) -> Mapping[str, object]:
    """A read-only copy, lists as tuples: a preset's numbers cannot be changed by a caller."""
    return MappingProxyType({k: tuple(v) if isinstance(v, list) else v for k, v in mapping.items()})


def _rope(base: float, head_dim: int, *, layout: str = "half", rope_type: str = "default", window: int | None = None,
          chunk: int | None = None, rotary_dims: int | None = None, extra: Mapping[str, object] | None = None,
          **scaling: object) -> Positional:
    """A rotary layer type: the registry's "rope" options (rotary_fraction = rotary_dims / head_dim)."""
    rotary_dims = head_dim if rotary_dims is None else rotary_dims
    options = {"layout": layout, "rope_type": rope_type, "rotary_fraction": rotary_dims / head_dim, **scaling}
    return Positional("rope", _frozen(options), float(base), rotary_dims, window, head_dim, chunk,
                      _frozen(extra or {}))


def _model(key: str, label: str, layers: list[str], positionals: dict[str, Positional], *, context_length: int,
           causal: bool = True, softmax_dim: int | None, source: str, notes: str = "",
           softmax_multiplier: float | None = None) -> Model:
    assert set(layers) == set(positionals) and set(layers) <= set(LAYER_TYPES), key  # a table error, not a user's
    return Model(key, label, tuple(layers), MappingProxyType(positionals), context_length, causal, softmax_dim,
                 source, notes, softmax_multiplier)


def _every(n: int, layer_type: str) -> list[str]:
    return [layer_type] * n


# Phi-3-mini-128k-instruct's LongRoPE factors, config.json "rope_scaling" (rope "type": "longrope"; the June
# 2024 update of the checkpoint), one per rotated pair (head_dim 96: 48 pairs), float32 values as published.
PHI3_MINI_128K_LONG_FACTOR = (
    1.0700000524520874, 1.1200000047683716, 1.149999976158142, 1.4199999570846558, 1.5699999332427979,
    1.7999999523162842, 2.129999876022339, 2.129999876022339, 3.009999990463257, 5.910000324249268,
    6.950000286102295, 9.070000648498535, 9.930000305175781, 10.710000038146973, 11.130000114440918,
    14.609999656677246, 15.409998893737793, 19.809999465942383, 37.279998779296875, 38.279998779296875,
    38.599998474121094, 40.12000274658203, 46.20000457763672, 50.940006256103516, 53.66000747680664,
    54.9373893737793, 56.89738845825195, 57.28738784790039, 59.98738479614258, 60.86738586425781,
    60.887386322021484, 61.71739196777344, 62.91739273071289, 62.957393646240234, 63.41739273071289,
    63.8173942565918, 63.83739471435547, 63.897396087646484, 63.93739700317383, 64.06739807128906,
    64.11434936523438, 64.12435150146484, 64.15435028076172, 64.19435119628906, 64.24435424804688,
    64.57435607910156, 64.69000244140625, 64.76000213623047,
)
PHI3_MINI_128K_SHORT_FACTOR = (
    1.1, 1.1, 1.1, 1.3000000000000003, 1.3500000000000003, 1.3500000000000003, 1.4000000000000004,
    1.5500000000000005, *(2.000000000000001,) * 17, *(2.0500000000000007,) * 6, 2.1000000000000005,
    2.1000000000000005, 2.1500000000000004, *(2.25,) * 5, 2.3999999999999995, 2.4499999999999993,
    2.499999999999999, 2.6999999999999984, 2.6999999999999984, 2.7499999999999982, 2.799999999999998,
    2.8999999999999977, 3.049999999999997,
)

HF = "https://huggingface.co/{}/blob/main/config.json"

# Where each preset's numbers were checked (issue 35): published copies of the hub's config.json vendored in public
# repositories, read at these commits; tests/models/configs/ holds the copies (or, where none could be read, a file
# written from the citation, saying so). Each source names the revision of the file it holds and what a value rests
# on where no copy of the file was read.
AIC = "ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/model_configs/{}_config.json (commit 095f58a51c4c)"
KQI = "Girafboy/pytorchKQI example/evaluate.py, dict {} (commit 963269026663)"
MLC = "mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py, preset {} (commit 79d603f085f5)"

_LLAMA3_SCALING = dict(factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_max_position_embeddings=8192)
_GPT_OSS_YARN = dict(factor=32.0, beta_fast=32.0, beta_slow=1.0, truncate=False, original_max_position_embeddings=4096)
_DEEPSEEK_YARN = dict(factor=40.0, beta_fast=32.0, beta_slow=1.0, mscale=1.0, mscale_all_dim=1.0,
                      original_max_position_embeddings=4096)


def _presets() -> dict[str, Model]:
    learned = lambda size, head_dim, width: Positional("learned", _frozen({"table_size": size}), None, 0, None, head_dim,
                                                       extra=_frozen({"model_width": width}))
    gemma_window, gemma_full = _rope(10_000.0, 256, window=1024), _rope(1_000_000.0, 256, rope_type="linear", factor=8.0)
    sinks = {"attention_sinks": True}
    gpt_oss_window = _rope(150_000.0, 64, rope_type="yarn", window=128, extra=sinks, **_GPT_OSS_YARN)
    gpt_oss_full = _rope(150_000.0, 64, rope_type="yarn", extra=sinks, **_GPT_OSS_YARN)
    scout_rope = _rope(500_000.0, 128, layout="interleaved", rope_type="llama3", chunk=8192, factor=16.0,
                       low_freq_factor=1.0, high_freq_factor=1.0, original_max_position_embeddings=8192)
    scout_nope = Positional("nope", _frozen({}), None, 0, None, 128, None, _frozen(
        {"attn_temperature_tuning": True, "floor_scale": 8192, "attn_scale": 0.1}))
    models = [
        _model("gpt2", "GPT-2 (124M)", _every(12, "full_attention"), {"full_attention": learned(1024, 64, 768)},
               context_length=1024, softmax_dim=64,
               source=f"{HF.format('openai-community/gpt2')}: n_positions 1024 (the learned table), n_ctx 1024, "
                      "n_layer 12, n_head 12, n_embd 768 (the file's revision without transformers_version), as "
                      f"read in {KQI.format('gpt2')} and in {MLC.format('gpt2')}"),
        _model("bert-base", "BERT base (uncased)", _every(12, "full_attention"), {"full_attention": learned(512, 64, 768)},
               context_length=512, causal=False, softmax_dim=64,
               source=f"{HF.format('google-bert/bert-base-uncased')}: max_position_embeddings 512, "
                      "position_embedding_type absolute, num_hidden_layers 12, num_attention_heads 12, hidden_size 768 "
                      "(the revision written by transformers 4.6.0.dev0), as read in "
                      f"{KQI.format('bert_base_uncased')}"),
        _model("t5-base", "T5 base (encoder)", _every(12, "full_attention"),
               {"full_attention": Positional("t5", _frozen({"num_heads": 12, "num_buckets": 32, "max_distance": 128,
                                                           "direction": "bidirectional"}), None, 0, None, 64)},
               context_length=512, causal=False, softmax_dim=None,
               source=f"{HF.format('google-t5/t5-base')}: relative_attention_num_buckets 32, num_heads 12, d_kv 64, "
                      "num_layers 12, n_positions 512 (the revision without transformers_version), as read in "
                      f"{KQI.format('t5_base')}; relative_attention_max_distance 128 is T5Config's default (the "
                      "file has no such field: it predates it)",
               notes="The encoder's 12 layers (bidirectional buckets, 16 per direction); the decoder's self-attention "
                     "uses causal buckets (all 32 on one side). T5 does not scale its logits by 1/√d."),
        _model("bloom-560m", "BLOOM 560M", _every(24, "full_attention"),
               {"full_attention": Positional("alibi", _frozen({"num_heads": 16, "direction": "causal"}), None, 0,
                                             None, 64)},
               context_length=2048, softmax_dim=64,
               source=f"{HF.format('bigscience/bloom-560m')}: n_head 16, n_layer 24, hidden_size 1024 (ALiBi, no "
                      "position table; the revision cited, not read here): no copy of the file could be read here, "
                      "so these rest on this citation; the context, 2048 tokens, is the model card's training "
                      "sequence length (the file has no length; "
                      "https://huggingface.co/bigscience/bloom-560m)"),
        _model("llama-2-7b", "Llama 2 7B", _every(32, "full_attention"), {"full_attention": _rope(10_000.0, 128)},
               context_length=4096, softmax_dim=128,
               source=f"{HF.format('meta-llama/Llama-2-7b-hf')}: max_position_embeddings 4096, rope_theta 10000 "
                      "(the file has no rope_theta: LlamaConfig's default; rope_scaling null), hidden_size 4096, "
                      "num_attention_heads 32, num_hidden_layers 32; the revision written by transformers "
                      f"4.31.0.dev0 as corrected on 21 July 2023 (4096 positions), as read in "
                      f"{KQI.format('Llama_2_7b_hf')}; the first upload said 2048 (meta-llama/llama issue 359, "
                      f"transformers issue 24986), as {MLC.format('llama2_7b')} still does"),
        _model("llama-3.1-8b", "Llama 3.1 8B", _every(32, "full_attention"),
               {"full_attention": _rope(500_000.0, 128, rope_type="llama3", **_LLAMA3_SCALING)},
               context_length=131_072, softmax_dim=128,
               source=f"{HF.format('meta-llama/Llama-3.1-8B')}: rope_theta 500000, rope_scaling {{rope_type llama3, "
                      "factor 8.0, low_freq_factor 1.0, high_freq_factor 4.0, original_max_position_embeddings "
                      "8192}, max_position_embeddings 131072, num_hidden_layers 32, head_dim 128 (hidden_size 4096 / "
                      "num_attention_heads 32: the file has no head_dim); the revision written by transformers "
                      f"4.43.0.dev0, as read in {AIC.format('meta-llama--Meta-Llama-3.1-8B')}"),
        _model("llama-4-scout", "Llama 4 Scout (17B-16E Instruct)",
               ["nope" if (i + 1) % 4 == 0 else "chunked_attention" for i in range(48)],
               {"chunked_attention": scout_rope, "nope": scout_nope},
               context_length=10_485_760, softmax_dim=128,
               source=f"{HF.format('meta-llama/Llama-4-Scout-17B-16E-Instruct')}, text_config: rope_theta 500000, "
                      "rope_scaling {rope_type llama3, factor 16.0, low_freq_factor 1.0, high_freq_factor 1.0, "
                      "original_max_position_embeddings 8192}, max_position_embeddings 10485760, "
                      "attention_chunk_size 8192, head_dim 128, num_hidden_layers 48, use_qk_norm true (the revision "
                      f"written by transformers 4.51.0.dev0), as read in "
                      f"{AIC.format('meta-llama--Llama-4-Scout-17B-16E-Instruct')}, a copy that keeps these fields "
                      "only; no copy with the rest could be read here, so no_rope_layers (every fourth layer 0: NoPE, "
                      "as Llama4TextConfig's no_rope_layer_interval 4 fills it), attn_temperature_tuning (on), "
                      "floor_scale 8192 and attn_scale 0.1 rest on this citation and Llama4TextConfig's defaults",
               notes="RoPE layers rotate adjacent pairs (complex multiplication: the interleaved layout), L2-normalize "
                     "queries and keys (use_qk_norm) and attend within chunks of 8192 tokens; NoPE layers attend to "
                     "the whole prefix and scale their queries (query_scale). The base checkpoint "
                     "Llama-4-Scout-17B-16E ships factor 8, high_freq_factor 4 and 262,144 positions instead."),
        _model("mistral-7b-v0.1", "Mistral 7B v0.1", _every(32, "sliding_attention"),
               {"sliding_attention": _rope(10_000.0, 128, window=4096)},
               context_length=32_768, softmax_dim=128,
               source=f"{HF.format('mistralai/Mistral-7B-v0.1')}: sliding_window 4096, rope_theta 10000.0, "
                      "max_position_embeddings 32768, hidden_size 4096, num_attention_heads 32, num_hidden_layers 32 "
                      "(the revision written by transformers 4.34.0.dev0); no unchanged copy of the file could be "
                      f"read here: {MLC.format('mistral_7b')} gives these values, its window renamed "
                      "sliding_window_size"),
        _model("qwen3-8b", "Qwen3 8B", _every(36, "full_attention"), {"full_attention": _rope(1_000_000.0, 128)},
               context_length=40_960, softmax_dim=128,
               source=f"{HF.format('Qwen/Qwen3-8B')}: rope_theta 1000000, max_position_embeddings 40960, head_dim "
                      "128, num_hidden_layers 36, use_sliding_window false, sliding_window null, rope_scaling null "
                      f"(the revision written by transformers 4.51.0), as read in {AIC.format('Qwen--Qwen3-8B')}",
               notes="The model card allows YaRN (factor 4, original 32,768) for longer texts; the config does not set it."),
        _model("qwen2-vl-7b", "Qwen2-VL 7B Instruct", _every(28, "full_attention"),
               {"full_attention": _rope(1_000_000.0, 128, extra={"mrope_section": (16, 24, 24)})},
               context_length=32_768, softmax_dim=128,
               source=f"{HF.format('Qwen/Qwen2-VL-7B-Instruct')}: rope_theta 1000000.0, rope_scaling {{type mrope, "
                      "mrope_section [16, 24, 24]}, max_position_embeddings 32768, hidden_size 3584, "
                      "num_attention_heads 28, num_hidden_layers 28, use_sliding_window false (the v4 layout written "
                      "by transformers 4.41.2, text fields at the top level); no copy of the file could be read here "
                      "at a known commit, so these rest on this citation (an earlier version of mindspore-lab/mindone's "
                      "mindone/transformers/models/qwen2_vl/modeling_qwen2_vl.py restates the same values)",
               notes="M-RoPE: pairs 0-15 turn with the frame, 16-39 with the row, 40-63 with the column "
                     "(posenc.apply_mrope); on text all three ids are the position."),
        _model("qwen3-vl-8b", "Qwen3-VL 8B Instruct", _every(36, "full_attention"),
               {"full_attention": _rope(5_000_000.0, 128, extra={"mrope_section": (24, 20, 20),
                                                                 "mrope_interleaved": True})},
               context_length=262_144, softmax_dim=128,
               source=f"{HF.format('Qwen/Qwen3-VL-8B-Instruct')}, text_config: rope_theta 5000000, rope_scaling "
                      "{rope_type default, mrope_section [24, 20, 20], mrope_interleaved true}, "
                      "max_position_embeddings 262144, head_dim 128, num_hidden_layers 36 (the v4 layout, "
                      "rope_scaling beside rope_theta); rope_theta, the length, head_dim and the layers as read in "
                      f"{AIC.format('Qwen--Qwen3-VL-8B-Instruct')}, a copy without rope_scaling: mrope_section and "
                      "mrope_interleaved rest on this citation",
               notes="Interleaved M-RoPE: pair i turns with the row when i mod 3 = 1, the column when i mod 3 = 2 "
                     "(i < 60), the frame otherwise (posenc.apply_mrope(..., interleaved=True))."),
        _model("phi-3-mini-128k", "Phi-3 mini 128k Instruct", _every(32, "full_attention"),
               {"full_attention": _rope(10_000.0, 96, rope_type="longrope", short_factor=PHI3_MINI_128K_SHORT_FACTOR,
                                        long_factor=PHI3_MINI_128K_LONG_FACTOR, original_max_position_embeddings=4096,
                                        max_position_embeddings=131_072)},
               context_length=131_072, softmax_dim=96,
               source=f"{HF.format('microsoft/Phi-3-mini-128k-instruct')}: rope_scaling {{type longrope, "
                      "long_factor [48 numbers], short_factor [48 numbers]}, rope_theta 10000.0, "
                      "max_position_embeddings 131072, original_max_position_embeddings 4096, hidden_size 3072, "
                      "num_attention_heads 32, num_hidden_layers 32; the June 2024 revision (type longrope and its "
                      "lists), not April's (type su, other lists). The 96 factors equal, digit for digit, "
                      "LONGROPE_PARAMS in a Microsoft script vendored in t-pranavv/local-rollouts "
                      "scripts/eval/long_context/eval_long_context.py (commit 6c1d7eadd7a4); no copy of the whole "
                      "file could be read here, so the other fields rest on this citation",
               notes="No factor in the config: transformers takes s = 131072 / 4096 = 32 and scales cos and sin by "
                     "√(1 + ln 32 / ln 4096) ≈ 1.19024. The config's sliding_window (262,144) is twice the context, so "
                     "it never masks: shown as full attention."),
        _model("gemma-3-4b", "Gemma 3 4B", ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention"
                                             for i in range(34)],
               {"sliding_attention": gemma_window, "full_attention": gemma_full},
               context_length=131_072, softmax_dim=256,
               source=f"{HF.format('google/gemma-3-4b-it')}, text_config: rope_scaling {{rope_type linear, factor "
                      "8.0}, rope_theta 1000000 (global layers), rope_local_base_freq 10000 (sliding layers), "
                      "sliding_window 1024, sliding_window_pattern 6, head_dim 256, query_pre_attn_scalar 256, "
                      "num_hidden_layers 34, max_position_embeddings 131072 (a field the file leaves out takes "
                      "Gemma3TextConfig's default, as transformers reads it; the revision cited, not read here); no "
                      "copy of the file could be read here, so these rest on this citation and on Gemma3TextConfig's "
                      "defaults"),
        _model("gpt-oss-20b", "gpt-oss 20B", ["sliding_attention" if i % 2 == 0 else "full_attention"
                                              for i in range(24)],
               {"sliding_attention": gpt_oss_window, "full_attention": gpt_oss_full},
               context_length=131_072, softmax_dim=64,
               source=f"{HF.format('openai/gpt-oss-20b')}: rope_theta 150000, rope_scaling {{rope_type yarn, factor "
                      "32.0, beta_fast 32.0, beta_slow 1.0, truncate false, original_max_position_embeddings 4096}, "
                      "sliding_window 128, layer_types (sliding and full, alternating), head_dim 64, "
                      "num_hidden_layers 24, max_position_embeddings 131072 (the revision written by transformers "
                      f"4.55.0.dev0), as read in {AIC.format('openai--gpt-oss-20b')}",
               notes="Every head has a learned sink logit (self_attn.sinks): a softmax column that takes attention "
                     "and gives no value (attention_with_sinks)."),
        _model("deepseek-v3", "DeepSeek-V3", _every(61, "full_attention"),
               {"full_attention": _rope(10_000.0, 192, layout="interleaved", rope_type="yarn", rotary_dims=64,
                                        extra={"qk_nope_head_dim": 128, "v_head_dim": 128}, **_DEEPSEEK_YARN)},
               context_length=163_840, softmax_dim=192,
               softmax_multiplier=192 ** -0.5 * yarn_mscale(_DEEPSEEK_YARN["factor"],
                                                            _DEEPSEEK_YARN["mscale_all_dim"]) ** 2,
               source=f"{HF.format('deepseek-ai/DeepSeek-V3')}: qk_rope_head_dim 64, qk_nope_head_dim 128, "
                      "v_head_dim 128, rope_theta 10000, rope_scaling {type yarn, factor 40, beta_fast 32, beta_slow 1, "
                      "mscale 1.0, mscale_all_dim 1.0, original_max_position_embeddings 4096}, "
                      "max_position_embeddings 163840, num_hidden_layers 61 (the FP8 release's revision, written by "
                      f"transformers 4.33.1), as read in {AIC.format('deepseek-ai--DeepSeek-V3')}",
               notes="Decoupled RoPE: each 192-dimensional query-key head rotates only its last 64 dimensions "
                     "(adjacent pairs, rope_interleave), shared by all heads on the key side (decoupled_rope); the "
                     "registry's rotary_fraction 1/3 rotates the first 64 instead, which gives the same scores. The "
                     "softmax scale 1/√192 is multiplied by mscale² = (0.1·ln 40 + 1)² (softmax_scale)."),
        _model("modernbert-base", "ModernBERT base", ["full_attention" if i % 3 == 0 else "sliding_attention"
                                                      for i in range(22)],
               {"full_attention": _rope(160_000.0, 64), "sliding_attention": _rope(10_000.0, 64, window=64)},
               context_length=8192, causal=False, softmax_dim=64,
               source=f"{HF.format('answerdotai/ModernBERT-base')}: global_rope_theta 160000.0, local_rope_theta "
                      "10000.0, local_attention 128 (transformers' sliding_window = 64 on each side), "
                      "global_attn_every_n_layers 3, max_position_embeddings 8192, hidden_size 768, "
                      "num_attention_heads 12, num_hidden_layers 22 (the v4 layout, before rope_parameters); no copy "
                      "of the file could be read here, so these rest on this citation"),
    ]
    return {model.key: model for model in models}


MODELS: Mapping[str, Model] = MappingProxyType(_presets())
"""key -> Model, every preset."""


def names() -> tuple[str, ...]:
    """The keys of every preset, in the table's order (encoders and ALiBi first, then the RoPE families)."""
    return tuple(MODELS)


def get(name: str | Model) -> Model:
    """The preset called ``name``, or a ValueError listing the known names; a :class:`Model` itself (one of
    :func:`posenc.models.from_config`'s) is returned as it is, so every function taking a preset's name takes
    a model read from a config too."""
    if isinstance(name, Model):
        return name
    if not isinstance(name, str) or name not in MODELS:
        raise ValueError(f"Unknown model {name!r:.60}; known models: {', '.join(MODELS)}.")
    return MODELS[name]
