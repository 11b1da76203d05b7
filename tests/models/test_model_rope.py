"""posenc.models' frequencies, decoupled RoPE and interleaved M-RoPE against transformers 5.23's own classes.

For every preset and every layer type that rotates, the family's RotaryEmbedding class is built from a config
object constructed here with the preset's numbers (no download): its ``inv_freq`` (``<layer_type>_inv_freq``
for Gemma 3 and ModernBERT) and ``attention_scaling`` must equal posenc.models.rope_inv_freq, to float32
rounding (transformers computes θ in float32). LongRoPE's long factors are read after a forward past
L₀ = 4096 positions, as transformers switches them. Then known values, DeepSeek-V3's decoupled rotation
and softmax scale, and Qwen3-VL's interleaved M-RoPE against its rotary class and apply_rotary_pos_emb.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import posenc
from posenc import models
from posenc.models import MODELS, decoupled_rope, from_config, rope_inv_freq, softmax_scale
from posenc.models.config_link import from_link, to_link
from posenc.models.families import FAMILIES
from posenc.schemes.rope.multimodal import mrope_axes
from posenc.schemes.rope.scalings import scales_whole_head
from reference_precision import float32_rtol

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
transformers.logging.set_verbosity_error()  # Llama 4 Scout's high_freq_factor = low_freq_factor is only warned about

from transformers import (  # noqa: E402  (after importorskip: transformers is for the tests only)
    DeepseekV3Config,
    Gemma3TextConfig,
    GptOssConfig,
    Llama4TextConfig,
    LlamaConfig,
    MistralConfig,
    ModernBertConfig,
    Phi3Config,
    Qwen3Config,
)
from transformers.models.deepseek_v3 import modeling_deepseek_v3 as hf_deepseek  # noqa: E402
from transformers.models.gemma3.modeling_gemma3 import Gemma3RotaryEmbedding  # noqa: E402
from transformers.models.gpt_oss.modeling_gpt_oss import GptOssRotaryEmbedding  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding  # noqa: E402
from transformers.models.llama4.modeling_llama4 import Llama4TextRotaryEmbedding  # noqa: E402
from transformers.models.mistral.modeling_mistral import MistralRotaryEmbedding  # noqa: E402
from transformers.models.modernbert.modeling_modernbert import ModernBertRotaryEmbedding  # noqa: E402
from transformers.models.phi3.modeling_phi3 import Phi3RotaryEmbedding  # noqa: E402
from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLTextConfig  # noqa: E402
from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding  # noqa: E402
from transformers.models.qwen3.modeling_qwen3 import Qwen3RotaryEmbedding  # noqa: E402
from transformers.models.qwen3_vl import modeling_qwen3_vl as hf_qwen3_vl  # noqa: E402
from transformers.models.qwen3_vl.configuration_qwen3_vl import Qwen3VLTextConfig  # noqa: E402

from transformers_attention import SCALED_IN_CODE, caches_as_said, layers_with_sinks, softmax_scale_of  # noqa: E402
from transformers_rotary import hf_model, hf_rotary, hf_rotated_queries  # noqa: E402

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def rope_parameters(name: str, layer_type: str) -> dict:
    """The preset's layer type as transformers' rope_parameters (rope_theta and the scaling's keys)."""
    positional = MODELS[name].positional(layer_type)
    options = {k: (list(v) if isinstance(v, tuple) else v) for k, v in positional.options.items()
               if k not in ("layout", "rotary_fraction", "max_position_embeddings")}
    return {"rope_theta": positional.base, **options}


def single(name: str) -> dict:
    (layer_type,) = {t for t in MODELS[name].layer_types if MODELS[name].positional(t).scheme == "rope"}
    return rope_parameters(name, layer_type)


def common(name: str) -> dict:
    model = MODELS[name]
    head_dim = next(p.head_dim for p in model.positionals.values())
    return dict(head_dim=head_dim, hidden_size=head_dim * 4, num_attention_heads=4, num_key_value_heads=4,
                num_hidden_layers=len(model.layer_types), max_position_embeddings=model.context_length)


def per_type(name: str) -> dict:
    return {t: rope_parameters(name, t) for t in set(MODELS[name].layer_types)}


# name -> a function building (the family's rotary embedding module, layer types it holds)
HF_ROTARY = {
    "llama-2-7b": lambda: LlamaRotaryEmbedding(LlamaConfig(**common("llama-2-7b"), rope_parameters=single("llama-2-7b"))),
    "llama-3.1-8b": lambda: LlamaRotaryEmbedding(LlamaConfig(**common("llama-3.1-8b"),
                                                             rope_parameters=single("llama-3.1-8b"))),
    "llama-4-scout": lambda: Llama4TextRotaryEmbedding(Llama4TextConfig(**common("llama-4-scout"),
                                                                        rope_parameters=single("llama-4-scout"))),
    "mistral-7b-v0.1": lambda: MistralRotaryEmbedding(MistralConfig(**common("mistral-7b-v0.1"), sliding_window=4096,
                                                                    rope_parameters=single("mistral-7b-v0.1"))),
    "qwen3-8b": lambda: Qwen3RotaryEmbedding(Qwen3Config(**common("qwen3-8b"), rope_parameters=single("qwen3-8b"))),
    "qwen2-vl-7b": lambda: Qwen2VLRotaryEmbedding(Qwen2VLTextConfig(
        **common("qwen2-vl-7b"), rope_parameters={**single("qwen2-vl-7b"), "mrope_section": [16, 24, 24]})),
    "qwen3-vl-8b": lambda: hf_qwen3_vl.Qwen3VLTextRotaryEmbedding(Qwen3VLTextConfig(
        **common("qwen3-vl-8b"), rope_parameters={**single("qwen3-vl-8b"), "mrope_section": [24, 20, 20],
                                                  "mrope_interleaved": True})),
    "phi-3-mini-128k": lambda: Phi3RotaryEmbedding(Phi3Config(**common("phi-3-mini-128k"),
                                                              original_max_position_embeddings=4096,
                                                              rope_parameters=single("phi-3-mini-128k"))),
    "gemma-3-4b": lambda: Gemma3RotaryEmbedding(Gemma3TextConfig(**common("gemma-3-4b"), sliding_window=1024,
                                                                 rope_parameters=per_type("gemma-3-4b"))),
    "gpt-oss-20b": lambda: GptOssRotaryEmbedding(GptOssConfig(**common("gpt-oss-20b"),
                                                              rope_parameters=single_yarn("gpt-oss-20b"))),
    "deepseek-v3": lambda: hf_deepseek.DeepseekV3RotaryEmbedding(deepseek_config()),
    "modernbert-base": lambda: ModernBertRotaryEmbedding(ModernBertConfig(
        hidden_size=768, num_attention_heads=12, num_hidden_layers=22, max_position_embeddings=8192,
        local_attention=128, rope_parameters=per_type("modernbert-base"))),
}


def single_yarn(name: str) -> dict:
    """gpt-oss's two layer types share one rope_parameters (the config has one)."""
    parameters = per_type(name)
    assert parameters["sliding_attention"] == parameters["full_attention"]
    return parameters["full_attention"]


def deepseek_config() -> DeepseekV3Config:
    extra = MODELS["deepseek-v3"].positional("full_attention").extra
    return DeepseekV3Config(qk_rope_head_dim=64, qk_nope_head_dim=extra["qk_nope_head_dim"],
                            v_head_dim=extra["v_head_dim"], max_position_embeddings=163_840,
                            rope_parameters=single("deepseek-v3"))


ROTARY_CASES = [(name, layer_type) for name, model in MODELS.items() for layer_type in dict.fromkeys(model.layer_types)
                if model.positional(layer_type).scheme == "rope"]


def test_every_rotary_preset_has_a_reference():
    assert {name for name, _ in ROTARY_CASES} == set(HF_ROTARY)


def hf_frequencies(rotary, layer_type: str, name: str) -> tuple[np.ndarray, float]:
    if isinstance(rotary, (Gemma3RotaryEmbedding, ModernBertRotaryEmbedding)):
        return (getattr(rotary, f"{layer_type}_inv_freq").double().numpy(),
                float(getattr(rotary, f"{layer_type}_attention_scaling")))
    return rotary.inv_freq.double().numpy(), float(rotary.attention_scaling)


@pytest.mark.parametrize(("name", "layer_type"), ROTARY_CASES, ids=[f"{n}.{t}" for n, t in ROTARY_CASES])
def test_rope_inv_freq_equals_the_family_rotary_embedding(name, layer_type):
    rotary = HF_ROTARY[name]()
    expected, expected_scaling = hf_frequencies(rotary, layer_type, name)
    got, scaling = rope_inv_freq(name, layer_type)
    positional = MODELS[name].positional(layer_type)
    assert got.shape == expected.shape == (positional.rotary_dims // 2,)
    np.testing.assert_allclose(got, expected, rtol=float32_rtol(positional.base), atol=0)
    assert scaling == pytest.approx(expected_scaling, rel=1e-12)


@pytest.mark.parametrize(("seq_len", "which"), [(4096, "short"), (4097, "long"), (131_072, "long")])
def test_phi3_switches_to_its_long_factors_past_4096_tokens_as_transformers(seq_len, which):
    rotary = HF_ROTARY["phi-3-mini-128k"]()
    rotary(torch.zeros(1, dtype=torch.float32), torch.tensor([[seq_len - 1]]))  # forward: longrope's switch
    got, scaling = rope_inv_freq("phi-3-mini-128k", seq_len=seq_len)
    np.testing.assert_allclose(got, rotary.inv_freq.double().numpy(), rtol=float32_rtol(10_000.0), atol=0)
    factors = np.array(MODELS["phi-3-mini-128k"].positional("full_attention").options[f"{which}_factor"])
    np.testing.assert_allclose(got, 10_000.0 ** (-np.arange(0, 96, 2) / 96) / factors, rtol=1e-15)
    assert scaling == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-15)


def test_known_values():
    theta = lambda base, d: base ** (-np.arange(0, d, 2) / d)
    # Llama 3.1: fast pairs (wavelength < 8192/4 = 2048) kept, slow ones (> 8192) divided by 8
    llama, _ = rope_inv_freq("llama-3.1-8b")
    wavelength = 2 * math.pi / theta(500_000.0, 128)
    np.testing.assert_allclose(llama[wavelength < 2048], theta(500_000.0, 128)[wavelength < 2048], rtol=1e-15)
    np.testing.assert_allclose(llama[wavelength > 8192], theta(500_000.0, 128)[wavelength > 8192] / 8, rtol=1e-15)
    # Llama 4 Scout: low = high = 1, no band: every pair slower than 8192 positions per turn divided by 16
    scout, _ = rope_inv_freq("llama-4-scout")
    wavelength = 2 * math.pi / theta(500_000.0, 128)
    np.testing.assert_allclose(scout, np.where(wavelength > 8192, theta(500_000.0, 128) / 16, theta(500_000.0, 128)),
                               rtol=1e-15)
    # Gemma 3: local θ_i = 10000^(−2i/256); global 1e6^(−2i/256) / 8
    np.testing.assert_allclose(rope_inv_freq("gemma-3-4b", "sliding_attention")[0], theta(1e4, 256), rtol=1e-15)
    np.testing.assert_allclose(rope_inv_freq("gemma-3-4b", "full_attention")[0], theta(1e6, 256) / 8, rtol=1e-15)
    # YaRN's cos/sin factors: gpt-oss 0.1·ln 32 + 1; DeepSeek-V3's mscale ratio 1 (mscale = mscale_all_dim)
    assert rope_inv_freq("gpt-oss-20b", "sliding_attention")[1] == pytest.approx(1.3465735902799727, rel=1e-15)
    assert rope_inv_freq("deepseek-v3")[1] == 1.0
    assert rope_inv_freq("deepseek-v3")[0].shape == (32,)  # 64 rotated dimensions of a 192-wide head
    # ModernBERT: global θ base 160,000, local 10,000
    np.testing.assert_allclose(rope_inv_freq("modernbert-base", "full_attention")[0], theta(160_000.0, 64), rtol=1e-15)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: rope_inv_freq("llama-5"), r"Unknown model 'llama-5'; known models: gpt2, bert-base, .*modernbert-base"),
    (lambda: rope_inv_freq("gemma-3-4b"), r"name one: layer_type = 'sliding_attention' or 'full_attention'"),
    (lambda: rope_inv_freq("llama-4-scout", "nope"), r"'nope' layers use 'nope', not RoPE"),
    (lambda: rope_inv_freq("mistral-7b-v0.1", "full_attention"),
     r"Mistral 7B v0.1 has no layer type 'full_attention'; its layer types are 'sliding_attention'"),
    (lambda: rope_inv_freq("gpt2"), r"rotates no query or key: its layers use learned"),
    (lambda: rope_inv_freq("phi-3-mini-128k", seq_len=-1), r"seq_len must be at least 0"),
])
def test_refusals_name_what_is_known(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- DeepSeek-V3: decoupled RoPE and the softmax scale ---------------------------------------------------

def test_decoupled_rope_equals_transformers_apply_rotary_pos_emb_interleave():
    rng = np.random.default_rng(2405_04434)
    length = 48
    q, k = rng.normal(size=(2, 3, length, 192)), rng.normal(size=(2, 1, length, 192))
    rotary = hf_deepseek.DeepseekV3RotaryEmbedding(deepseek_config())
    positions = torch.arange(length)[None]
    cos, sin = rotary(torch.zeros(1, dtype=torch.float64), positions)
    q_rot, k_rot = hf_deepseek.apply_rotary_pos_emb_interleave(
        torch.from_numpy(q[..., 128:]), torch.from_numpy(k[..., 128:]), cos.double(), sin.double())
    got_q, got_k = decoupled_rope(q, np.arange(length)), decoupled_rope(k, np.arange(length))
    np.testing.assert_array_equal(got_q[..., :128], q[..., :128])  # the content part is not rotated
    np.testing.assert_allclose(got_q[..., 128:], q_rot.numpy(), atol=2e-5)  # HF's angles are float32
    np.testing.assert_allclose(got_k[..., 128:], k_rot.numpy(), atol=2e-5)


def test_decoupled_rope_scores_depend_on_the_offset_only():
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(1, 192)), rng.normal(size=(1, 192))
    score = lambda m, n: float(decoupled_rope(q, [m])[0] @ decoupled_rope(k, [n])[0])
    assert score(5, 2) == pytest.approx(score(100_005, 100_002), rel=1e-9)
    assert score(5, 2) != pytest.approx(score(5, 3), rel=1e-6)


def test_decoupled_rope_is_deepseeks():
    with pytest.raises(ValueError, match=r"only 'deepseek-v3' splits its heads"):
        decoupled_rope(np.ones((2, 128)), [0, 1], "llama-3.1-8b")
    with pytest.raises(ValueError, match=r"128 \+ 64 = 192 dimensions; got shape \(2, 128\)"):
        decoupled_rope(np.ones((2, 128)), [0, 1])


def test_softmax_scale_equals_transformers():
    expected = hf_deepseek.yarn_apply_mscale(deepseek_config().rope_parameters, 192 ** -0.5)
    assert softmax_scale("deepseek-v3") == pytest.approx(expected, rel=1e-15)
    assert softmax_scale("deepseek-v3") == pytest.approx(192 ** -0.5 * (0.1 * math.log(40) + 1) ** 2, rel=1e-15)
    assert softmax_scale("gpt-oss-20b") == 64 ** -0.5  # YaRN without mscale_all_dim: cos/sin carry its factor
    assert softmax_scale("gemma-3-4b") == 256 ** -0.5  # query_pre_attn_scalar 256
    assert softmax_scale("t5-base") == 1.0


# --- Qwen3-VL: interleaved M-RoPE --------------------------------------------------------------------

def test_mrope_axes_interleave_t_h_w():
    axes = mrope_axes(128, (24, 20, 20), interleaved=True)
    np.testing.assert_array_equal(np.flatnonzero(axes == 1), np.arange(1, 60, 3))
    np.testing.assert_array_equal(np.flatnonzero(axes == 2), np.arange(2, 60, 3))
    assert np.bincount(axes).tolist() == [24, 20, 20]
    np.testing.assert_array_equal(mrope_axes(128, (16, 24, 24)), np.repeat([0, 1, 2], [16, 24, 24]))
    with pytest.raises(ValueError, match=r"3·s_h − 2 and 3·s_w − 1 must be below d/2 = 64"):
        mrope_axes(128, (4, 30, 30), interleaved=True)


@pytest.mark.parametrize("section", [(24, 20, 20), (8, 4, 4), (2, 1, 1)])
def test_interleaved_mrope_equals_qwen3_vl(section):
    d = 2 * sum(section)
    rng = np.random.default_rng(sum(section))
    length = 12
    x = rng.normal(size=(2, length, d))
    ids = rng.integers(0, 40, size=(3, length))
    config = Qwen3VLTextConfig(head_dim=d, hidden_size=4 * d, num_attention_heads=4, num_key_value_heads=4,
                               rope_parameters={"rope_type": "default", "rope_theta": 5_000_000.0,
                                                "mrope_section": list(section), "mrope_interleaved": True})
    rotary = hf_qwen3_vl.Qwen3VLTextRotaryEmbedding(config)
    cos, sin = rotary(torch.zeros(1, dtype=torch.float64), torch.from_numpy(ids)[:, None, :])
    expected, _ = hf_qwen3_vl.apply_rotary_pos_emb(torch.from_numpy(x)[None], torch.from_numpy(x)[None],
                                                   cos.double(), sin.double())
    got = posenc.apply_mrope(x, ids, 5_000_000.0, section, interleaved=True)
    np.testing.assert_allclose(got, expected[0].numpy(), atol=3e-5)  # HF's angles are float32


def test_interleaved_mrope_on_text_is_1d_rope():
    x = np.random.default_rng(1).normal(size=(10, 128))
    p = np.arange(10) * 37
    np.testing.assert_allclose(posenc.apply_mrope(x, np.stack([p, p, p]), 5e6, (24, 20, 20), interleaved=True),
                               posenc.apply_rope(x, base=5e6, layout="half", positions=p), atol=1e-12)


# --- every family: the rotation its model applies ------------------------------------------------------------

_ROTATION_SIZES = {"hidden_size": 128, "num_attention_heads": 2, "num_key_value_heads": 2, "num_hidden_layers": 1,
                   "intermediate_size": 64, "vocab_size": 64, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2,
                   "max_position_embeddings": 256, "head_dim": 64}
_ROTATION_CHANGES = {  # a family's own size fields
    "falcon": {"head_dim": None}, "qwen2_vl_text": {"head_dim": 128, "hidden_size": 256},  # M-RoPE's sections
    "qwen2_5_vl_text": {"head_dim": 128, "hidden_size": 256},
    "gptj": {"head_dim": None, "rotary_dim": 16, "hidden_size": 256, "num_attention_heads": 4},
    "codegen": {"head_dim": None, "rotary_dim": 16, "hidden_size": 256, "num_attention_heads": 4},
    "flint": {"layer_types": ["sliding_attention"], "sliding_window": 64},  # its first layers have no positions
    "gemma4_text": {"global_head_dim": 64},  # its q·k is unscaled: 512-wide heads' weights underflow to 0
    "gemma3n_text": {"num_kv_shared_layers": 0, "laurel_rank": 4, "hidden_size_per_layer_input": 8,
                     "vocab_size_per_layer_input": 64},  # no layer reusing another's keys in one or four layers
    "mimo_v2_flash": {"head_dim": 96, "n_routed_experts": 2, "moe_intermediate_size": 16,  # int(96 × 0.334) = 32
                      "num_experts_per_tok": 1, "num_key_value_heads": 1},  # twice as many on sliding layers
    "laguna": {"num_experts": 2, "moe_intermediate_size": 16, "shared_expert_intermediate_size": 16,
               "num_experts_per_tok": 1},
    "mellum": {"num_experts": 2, "moe_intermediate_size": 16, "num_experts_per_tok": 1},
    "qwen3_vl_moe_text": {"num_experts": 2, "moe_intermediate_size": 16, "num_experts_per_tok": 1},
    "qwen3_omni_moe_text": {"num_experts": 2, "moe_intermediate_size": 16, "num_experts_per_tok": 1},
    "dots1": {"n_routed_experts": 2, "moe_intermediate_size": 16, "num_experts_per_tok": 1, "n_shared_experts": 1},
    "minimax_m2": {"num_local_experts": 2, "num_experts_per_tok": 1},
    "phimoe": {"num_local_experts": 2, "num_experts_per_tok": 1},
    "flex_olmo": {"num_experts": 2, "num_experts_per_tok": 1},
    "hunyuan_vl_text": {"rope_parameters": {"rope_type": "default", "rope_theta": 10_000.0,  # its model needs
                                            "mrope_section": [8, 8, 8, 8]}},  # sections (text: one position)
    "ernie4_5_vl_moe_text": {"moe_num_experts": 2, "moe_k": 1, "moe_intermediate_size": [16, 16],
                             "rope_parameters": {"rope_type": "default", "rope_theta": 500_000.0,
                                                 "mrope_section": [11, 11, 10]}},  # pairs: a head of 64's 32
    "chameleon": {"vocabulary_map": {"<image>": 63},  # its model needs a map, and a small VQ-VAE builds fast
                  "vq_config": {"embed_dim": 16, "num_embeddings": 16, "latent_channels": 16, "resolution": 32,
                                "base_channels": 32, "channel_multiplier": [1], "num_res_blocks": 1}},
    "falcon_h1": {"mamba_d_ssm": 64, "mamba_n_heads": 4, "mamba_d_state": 16, "mamba_chunk_size": 16,
                  "key_multiplier": 0.390625},  # its Mamba-2 path small; keys scaled as its files scale them
    "csm": {"text_vocab_size": 64, "depth_decoder_config": {  # its default depth decoder: 12 s to build
        "hidden_size": 64, "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
        "num_key_value_heads": 2, "head_dim": 32, "backbone_hidden_size": 128, "vocab_size": 64}},
    "muse_glimmer_text": {"num_hidden_layers": 2},  # layer 1 full attention without positions, layer 0 rotating
    "muse_spark_text": {"num_hidden_layers": 2, "num_local_experts": 2, "num_experts_per_tok": 1,
                        "moe_intermediate_size": 16},
    "dbrx": {"attn_config": {"kv_n_heads": 2, "rope_theta": 10_000, "clip_qkv": 8},  # its attention stores the θ
             "ffn_config": {"ffn_hidden_size": 32, "moe_num_experts": 2, "moe_top_k": 1}, "head_dim": None,
             "d_model": 128, "n_heads": 2, "n_layers": 1, "max_seq_len": 256, "hidden_size": None,  # its own names:
             "num_attention_heads": None, "num_hidden_layers": None, "max_position_embeddings": None},  # its experts
    "phi4_multimodal": {"vision_config": {"hidden_size": 32, "intermediate_size": 32, "num_hidden_layers": 1,  # its
                                          "num_attention_heads": 2, "image_size": 28, "crop_size": 28,  # towers, small
                                          "patch_size": 14},
                        "audio_config": {"hidden_size": 32, "intermediate_size": 32, "num_blocks": 1,
                                         "num_attention_heads": 2, "ext_pw_out_channel": 32,
                                         "depthwise_separable_out_channel": 32, "nemo_conv_channels": 32}},
    "idefics": {"head_dim": None, "vision_config": {"embed_dim": 32, "intermediate_size": 32, "num_hidden_layers": 1,
                                                    "num_attention_heads": 2, "image_size": 28, "patch_size": 14}},
    "qwen2_5_omni_text": {"rope_parameters": {"rope_type": "default", "rope_theta": 1_000_000.0,  # its model needs
                                              "mrope_section": [8, 12, 12]}},  # sections: pairs of a head of 64
    "deepseek_v2": {"head_dim": None, "qk_rope_head_dim": 16, "qk_nope_head_dim": 16, "v_head_dim": 16,
                    "kv_lora_rank": 16, "q_lora_rank": 16, "n_routed_experts": 2, "num_experts_per_tok": 1,
                    "moe_intermediate_size": 16, "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1},
    "deepseek_ocr2_text": {"mlp_layer_types": ["dense"] * 4},  # its model needs each layer's MLP named
    "paddleocr_vl_text": {"rope_parameters": {"rope_type": "default", "mrope_section": [8, 12, 12]}},  # 32 pairs
    "cosmos3_edge_text": {"head_dim": None},  # its class's 128, which its own sections ([24, 20, 20] pairs) fit
    "cohere_compass_text": {"rope_parameters": {  # its rotary embedding reads them nested by layer type only
        "full_attention": {"rope_type": "default", "rope_theta": 10_000.0}}},
}


_NO_WINDOW = ("arcee", "aria_text", "bitnet", "csm", "deepseek_ocr2_text", "diffllama", "emu3_text_model", "falcon_h1",
              "gpt_neox_japanese", "granite4_vision_text", "hunyuan_v1_dense", "hunyuan_v1_moe", "hunyuan_vl_text",
              "flex_olmo", "hy_v3", "idefics", "internlm3", "iquestcoder", "jais2", "jetmoe", "minimax_m2",
              "molmo2_text", "olmo", "olmo2", "olmoe", "seed_oss", "solar_open")
"""Model types whose models apply no window, which posenc drew windowed when the file gave sliding_window (Granite 4
Vision's text model multiplies q·k by its attention_multiplier, where posenc divided it by √head_dim)."""
_M_ROPE_NO_WINDOW = ("cohere_compass_text", "cosmos3_edge_text", "glm_image_text", "paddleocr_vl_text")
"""Vision-language models' text models, M-RoPE (on text, 1-D RoPE) by sections of their own, whose models apply no
window where the file gives sliding_window (Cohere Compass's: on its layer_types' sliding_attention layers only),
which posenc drew on every layer."""
_MISTRAL_STYLE = ("mixtral", "phimoe", "starcoder2", "ministral", "vaultgemma", "minimax_m3_vl_text",
                  "muse_glimmer_text", "muse_spark_text", "voxtral_realtime_text")
"""Model types whose models window their layers as posenc's reading of an unknown model_type did (VaultGemma: every
other layer where its file gives layer_types), and ignore a top-level share it read (MiniMax-M3's reads it)."""
_ONCE_LLAMA_STYLE = ("cohere", "cohere2", "helium", "ernie4_5", "ernie4_5_moe", "glm", "glm4", "glm4_moe", "nemotron",
                     "persimmon", "apertus", "olmo3", "cwm", "higgs_audio_v2", "modernbert-decoder",
                     "mimo_v2_flash", "laguna", "mellum", "deepseek_v2", "dbrx", "moshi", "qwen3_vl_moe_text",
                     "dots1", "ernie4_5_vl_moe_text", "chameleon", "phi4_multimodal", "qwen2_5_omni_text",
                     "qwen3_omni_moe_text", *_NO_WINDOW, *_MISTRAL_STYLE, *_M_ROPE_NO_WINDOW)
"""Model types posenc read as Llama-style decoders before they were families: named, so that the code before fails."""
_ROTATING = sorted({key for key, family in FAMILIES.items() if family.scheme == "rope" and not family.composite
                    and key not in ("deepseek_v3", "mistral4", "longcat_flash", "kyutai_speech_to_text")}
                   | set(_ONCE_LLAMA_STYLE))
"""Every rotary family, but a composite one (its text model's type is here, and its vision tower is slow to build),
DeepSeek-V3, Mistral 4 and LongCat-Flash (their interleave permutes the head: test_decoupled_rope_equals_transformers_
apply_rotary_…, test_mistral_4_rotates_adjacent_pairs_…, test_deepseek_v2_and_longcat_flash_rotate_adjacent_pairs_…),
Kyutai's speech-to-text (its input is a token and its codebooks at each step: test_kyutai_speech_to_text_…)."""


@pytest.mark.parametrize("rope_theta", [None, 20_000.0])
@pytest.mark.parametrize("model_type", _ROTATING)
def test_each_family_rotates_a_head_as_its_model_does(model_type, rope_theta):
    """The oracle is the model: a one-layer model of the family (transformers 5.23, eager) runs 20 tokens, and the
    query its attention rotates, as its own apply_rotary_pos_emb receives and returns it, must equal posenc's
    rotation of the same query by the config's reading (apply_rope with the layer's θ, layout, rotated share and
    scaling), to float32 rounding. This pins which dimensions pair up (halves or adjacent pairs) and how many
    rotate, which the frequencies alone do not: Cohere, Cohere 2, Helium and ERNIE 4.5 rotate adjacent pairs, GLM
    and GLM-4 half of each head in adjacent pairs, GLM-4-MoE, Nemotron and Persimmon half in halves (posenc read
    them as Llama-style decoders, whole heads in halves); Apertus's own llama3 parameters keep their θ over a
    top-level rope_theta, as OLMo 3's sliding-window layers keep theirs."""
    config = {"model_type": model_type, **_ROTATION_SIZES, **_ROTATION_CHANGES.get(model_type, {})}
    if rope_theta is not None:
        config["rope_theta"] = rope_theta
    config = {key: value for key, value in config.items() if value is not None}
    before, after = hf_rotated_queries(config, 20)
    model = from_config(config)
    positional = model.positional(next(t for t in model.layer_types if t != "nope"))
    options = {k: v for k, v in positional.options.items() if k not in ("layout", "rotary_fraction")}
    fraction = (positional.options["rotary_fraction"] if scales_whole_head(options["rope_type"])  # p-RoPE's pairs
                else positional.rotary_dims / before.shape[-1])
    got = posenc.apply_rope(before, np.arange(20), base=positional.base, layout=positional.options["layout"],
                            rotary_fraction=fraction, **options)
    np.testing.assert_allclose(got, after, atol=_float32(after), rtol=0)



def _float32(rotated: np.ndarray) -> float:
    """The float32 rounding a model's rotated query carries against posenc's float64 one: 5e-6 at the size of
    queries whose entries are a few units, in proportion to the largest (Muse's unnormalized ones reach 11)."""
    return 5e-6 * max(1.0, float(np.abs(rotated).max()) / 4)


_WINDOWED = {"sliding_window": 5, "use_sliding_window": True, "max_window_layers": 2, "attention_chunk_size": 5,
             "local_attention": 10, "global_attn_every_n_layers": 2, "sliding_window_pattern": 2,
             "no_rope_layer_interval": 2, "num_hidden_layers": 4}
"""Four layers, every family's window fields small: each class's own rule puts windows, chunks and NoPE layers."""


_LISTED = ["sliding_attention", "full_attention", "sliding_attention", "full_attention"]
"""layer_types a file lists, with _WINDOWED's fields: read by most classes, ignored by those that never window (Llama,
OLMo, ...) and by those whose every layer is windowed by their own rule (Mistral, Phi-3, Qwen3-MoE)."""
_LISTED_FAILS = ("llama4_text", "falcon_h1")
"""Classes whose models cannot run a file that lists sliding_attention layers, and posenc refuses it: Llama 4's model
has no mask for them (a KeyError: test_a_listed_layer_type_its_model_has_no_mask_for_is_refused), Falcon-H1's class
refuses any layer_types (test_model_config's test_a_field_a_class_refuses_is_refused_naming_it)."""
_LISTED_CHANGES = {"cohere_compass_text": {"rope_parameters": {  # its parameters, for each layer type it is given
    kind: {"rope_type": "default", "rope_theta": 10_000.0} for kind in ("full_attention", "sliding_attention")}}}


_SLIDING = ["sliding_attention"] * 4
"""layer_types of sliding layers only, read as _LISTED is, for the classes that never window ("none")."""


@pytest.mark.parametrize(("model_type", "layers"), [(model_type, layers) for layers in ("rule", "windowed", "listed")
                                                    for model_type in _ROTATING
                                                    if not (layers == "listed" and model_type in _LISTED_FAILS)]
                         + [(model_type, "sliding") for model_type in _ROTATING  # (their cache windows every layer)
                            if FAMILIES[model_type].windows == "none" and not FAMILIES[model_type].listed_layers
                            and model_type not in _LISTED_FAILS])
def test_each_family_masks_its_layers_as_its_model_does(model_type, layers):
    """The oracle is the model: a four-layer model of the family (transformers 5.23, eager) attends over 12 tokens,
    and the keys each layer's first head gives weight to must be exactly those posenc's mask of that layer's type
    lets the query see (posenc.models.attention_mask: causal or both ways, the window, Llama 4's chunks, NoPE
    layers). This pins, per family, which layers are windowed and how far, from the class's own rule (Qwen2's
    max_window_layers, Gemma's pattern, ModernBERT's global layer every n, Cohere 2's, SmolLM3's and Llama 4's
    layers without positions), through the model's own masks rather than its configuration. The same model is the
    oracle of the softmax's scale (models.softmax_scale): Gemma 2's and VaultGemma's classes divide q·k by
    √query_pre_attn_scalar, 256 by default, where posenc divided a file without it by √head_dim; and of the layers
    whose softmax has a learned sink (Granite SWA's and Flint's every layer, which posenc did not say). Where the file
    lists layer_types (sliding, full, sliding, full), the classes that ignore the list attend by their own rule: posenc
    windowed the listed layers of Llama, OLMo, Mistral, Phi-3, Qwen3-MoE and some sixty other classes, whose models
    do not (or window every layer); the check now says so."""
    config = _four_layers(model_type, layers != "rule", {"listed": _LISTED, "sliding": _SLIDING}.get(layers))
    torch.manual_seed(0)  # the same weights every run
    built = hf_model(config, attn_implementation="eager").eval()
    with torch.no_grad():
        attentions = built(input_ids=torch.arange(3, 15)[None], output_attentions=True).attentions
    model = from_config(config)
    assert len(attentions) == len(model.layer_types)
    for layer, kind in enumerate(model.layer_types):
        np.testing.assert_array_equal((attentions[layer][0, 0] > 0).numpy(), models.attention_mask(model, kind, 12),
                                      err_msg=f"layer {layer} ({kind})")
    scale = softmax_scale_of(built)
    assert scale is not None or model_type in SCALED_IN_CODE, model_type
    if scale is not None:  # (Gemma 2's and VaultGemma's class default query_pre_attn_scalar 256: posenc said head_dim)
        assert models.softmax_scale(model) == pytest.approx(scale, rel=1e-12)
    assert layers_with_sinks(built) == [layer for layer, kind in enumerate(model.layer_types)
                                        if model.positional(kind).extra.get("attention_sinks")]
    if layers in ("listed", "sliding"):  # the check says where the model attends otherwise than the list
        said = [f for f in models.check(config) if f.field == "layer_types" and "does not read" in f.message]
        assert bool(said) == (not FAMILIES[model_type].reads_layer_types
                              and list(model.layer_types) != config["layer_types"])
    if layers != "rule" and model.causal:
        caches_as_said(built, model, config)


_IGNORING = [model_type for model_type in _ROTATING if model_type not in _LISTED_FAILS
             and not FAMILIES[model_type].reads_layer_types and FAMILIES[model_type].causal]
"""The rotary decoders whose forward pass ignores a file's layer_types, which their cache reads."""


@pytest.mark.parametrize(("kind", "field"), [("sliding_attention", "sliding_window"),
                                             ("chunked_attention", "attention_chunk_size")])
@pytest.mark.parametrize("model_type", _IGNORING)
def test_a_listed_windowed_layer_without_a_window_fails_the_cache_as_said(model_type, kind, field):
    """The oracle is transformers 5.23's DynamicCache, built from the class's configuration as generation builds it:
    a four-layer file listing sliding_attention (or chunked_attention) layers, which the class's forward pass
    ignores, and no sliding_window (attention_chunk_size). The cache reads the list and fails to build (no attribute,
    or a null one: Mistral's class keeps a sliding_window of 4,096 by default and builds it) exactly where the check
    gives an error. posenc said only that the list was not read (of chunked layers, until this test)."""
    config = _four_layers(model_type, False, [kind, "full_attention"] * 2) | {"num_hidden_layers": 4}
    config.pop(field, None)
    oracle = transformers.AutoConfig.for_model(**json.loads(json.dumps(config)))
    try:
        transformers.DynamicCache(config=oracle)
        fails = False
    except (AttributeError, TypeError):
        fails = True
    errors = [f.message for f in models.check(config) if f.field == "layer_types" and f.severity == "error"]
    assert errors == ([f"layer_types lists 2 {kind}, 2 full_attention layers, which {oracle.__class__.__name__}"
                       "'s model in transformers 5.23 does not read in its forward pass: its layers are 4 "
                       "full_attention by its class's own rule, as posenc draws them. Its cache does read the list, "
                       f"and finds no {field} for its {kind} layers: transformers 5.23 fails to "
                       f"build it, so the model cannot generate. Give {field}, or list full_attention layers."]
                      if fails else [])


@pytest.mark.parametrize("model_type", ["llama", "olmo", "mistral", "qwen3_moe", "gptj", "falcon"])
def test_listed_chunked_layers_are_windowed_by_the_cache_as_said(model_type):
    """The oracle is the model's cached path (as in test_each_family_masks_its_layers_as_its_model_does): a file
    lists chunked_attention and full_attention layers, which these classes' forward passes ignore, and gives
    attention_chunk_size 5. transformers 5.23's DynamicCache keeps the last four keys of each chunked layer, as of a
    sliding one: generation under sdpa attends to the last five there (under Llama's and OLMo's rule), and fails
    under eager attention, under Mistral's and Qwen3-MoE's rule and under Falcon's masks. posenc said nothing of the
    cache for chunked layers."""
    config = _four_layers(model_type, True, ["chunked_attention", "full_attention"] * 2)
    torch.manual_seed(0)
    built = hf_model(config, attn_implementation="eager").eval()
    caches_as_said(built, from_config(config), config)


@pytest.mark.parametrize("model_type", [model_type for model_type in _IGNORING if FAMILIES[model_type].cache_windows])
def test_a_chunk_size_alone_windows_the_cache_as_said(model_type):
    """The oracle is the model's cached path (as in test_each_family_masks_its_layers_as_its_model_does): a file
    gives attention_chunk_size 5 to a class that chunks no layer, with no layer_types and no sliding_window.
    transformers 5.23's DynamicCache then makes every layer chunked_attention and keeps its last four keys, so that
    the sixth token attends to the last five on every layer (a class's own sliding_window, Moshi's 3000, is read
    first). posenc said nothing of it."""
    config = {key: value for key, value in _four_layers(model_type, False).items() if key != "sliding_window"}
    config |= {"attention_chunk_size": 5, "num_hidden_layers": 4}
    torch.manual_seed(0)
    built = hf_model(config, attn_implementation="eager").eval()
    caches_as_said(built, from_config(config), config)


@pytest.mark.parametrize("model_type", [model_type for model_type in _ROTATING
                                        if FAMILIES[model_type].windows in ("qwen", "qwen2_moe")])
def test_listed_sliding_layers_under_use_sliding_window_false_are_read_as_the_class_sets_the_window(model_type):
    """The oracle is a four-layer model of the file (transformers 5.23, eager): layer_types lists sliding layers,
    sliding_window is 5 and use_sliding_window false. Qwen2's class (Qwen3's, the Qwen VL and Omni text models')
    then nulls the window, and its model fails at its first forward pass: the check gives the error, naming
    use_sliding_window. Qwen2-MoE's writes 0, and its sliding layers' queries attend to every key, later ones too:
    posenc refuses the file. posenc drew windows of 5 on those layers."""
    config = _four_layers(model_type, True, _LISTED) | {"use_sliding_window": False}
    torch.manual_seed(0)
    built = hf_model(config, attn_implementation="eager").eval()
    if FAMILIES[model_type].windows == "qwen":
        with torch.no_grad(), pytest.raises(ValueError, match="sliding_window"):
            built(input_ids=torch.arange(3, 15)[None], use_cache=False)
        errors = [f.message for f in models.check(config) if f.severity == "error"]
        assert errors == [f"2 layers are sliding_attention but use_sliding_window is not true, so "
                          f"{type(built.config).__name__} sets sliding_window to null: transformers 5.23 fails at "
                          "the model's first forward pass (the mask needs a window). Set use_sliding_window, or make "
                          "those layers full_attention."]
        return
    with torch.no_grad():
        attentions = built(input_ids=torch.arange(3, 15)[None], output_attentions=True, use_cache=False).attentions
    assert int((attentions[0][0, 0, 0] > 0).sum()) == 12  # its first query, on a sliding layer: every key
    with pytest.raises(ValueError, match="use_sliding_window is not true, so Qwen2MoeConfig sets sliding_window to 0"):
        from_config(config)


def _thinker(omni: str, changes: dict, named: bool):
    """A file of ``omni``'s class (its defaults, saved by transformers 5.23) whose thinker's text_config takes
    ``changes`` (and loses its model_type unless ``named``; θ 123,456), the text config transformers builds from it
    (the oracle) and posenc's reading, whose frequencies, those of the oracle's rotary embedding, and context are
    the oracle's."""
    saved = json.loads(transformers.AutoConfig.for_model(omni).to_json_string(use_diff=False))
    text = saved["thinker_config"]["text_config"]
    text |= changes
    if not named:
        del text["model_type"]
    oracle = transformers.AutoConfig.for_model(**json.loads(json.dumps(saved))).thinker_config.text_config
    model = from_config(saved)
    got, _ = rope_inv_freq(model, "full_attention")
    np.testing.assert_allclose(got, hf_rotary(oracle).inv_freq.double().numpy(), rtol=float32_rtol(123_456.0), atol=0)
    assert model.context_length == oracle.max_position_embeddings
    return saved, oracle, model


def _named_where_it_is_and_linked(saved: dict) -> None:
    """The check names the thinker's sliding_window by its path, and a link keeps the thinker's fields where they
    are."""
    assert [f.field for f in models.check(saved) if "sliding_window" in f.field] == [
        "thinker_config.text_config.sliding_window"]
    shared = from_link(to_link(saved))
    assert from_config(shared) == from_config(saved) and models.check(shared) == models.check(saved)


@pytest.mark.parametrize("named", [True, False])
def test_qwen2_5_omni_s_language_model_is_its_thinker_s(named):
    """A Qwen2.5-Omni file keeps its language model's fields in thinker_config.text_config (its talker, another
    transformer, turns the thinker's text into speech). The oracle is the configuration transformers 5.23 builds
    from the file (its class's defaults, saved; the thinker's θ and window fields changed): posenc reads the thinker's
    text model, its frequencies those of that text model's rotary embedding, its context and windows (from layer 2,
    use_sliding_window true) its config's, with or without the text_config's own model_type (its class's). The check
    names a field by its path there. posenc refused the file: no positional field at its top level."""
    saved, oracle, model = _thinker("qwen2_5_omni", {
        "rope_theta": 123_456.0, "use_sliding_window": True, "sliding_window": 64, "max_window_layers": 2,
        "num_hidden_layers": 4, "layer_types": None}, named)
    assert list(model.layer_types) == oracle.layer_types == ["full_attention"] * 2 + ["sliding_attention"] * 2
    assert model.positional("sliding_attention").window == oracle.sliding_window == 64
    saved["thinker_config"]["text_config"]["sliding_window"] = 10**6  # past its context: named where it is
    _named_where_it_is_and_linked(saved)


@pytest.mark.parametrize("named", [True, False])
def test_qwen3_omni_s_language_model_is_its_thinker_s(named):
    """Qwen3-Omni keeps its language model's fields where Qwen2.5-Omni does, in thinker_config.text_config (a
    Qwen3-VL-MoE-style text model: M-RoPE by interleaved sections, on text 1-D RoPE; its attention applies no window
    whatever sliding_window says). The oracle is the configuration transformers 5.23 builds from the file (its
    class's defaults, saved; the thinker's θ, heads and context changed): posenc reads the thinker's text model, its
    frequencies those of that text model's rotary embedding, its context its config's, every layer full attention,
    with or without the text_config's own model_type. The check names a field by its path there (a window applied
    nowhere but in the cache), and a link keeps it. posenc refused the file: no positional field at its top level."""
    saved, _, model = _thinker("qwen3_omni_moe", {
        "rope_parameters": {"rope_type": "default", "rope_theta": 123_456.0, "mrope_section": [24, 20, 20],
                            "mrope_interleaved": True},
        "head_dim": 128, "max_position_embeddings": 65_536, "num_hidden_layers": 2, "sliding_window": 64}, named)
    assert model.context_length == 65_536 and model.positional("full_attention").head_dim == 128
    assert list(model.layer_types) == ["full_attention"] * 2 and model.positional("full_attention").window is None
    _named_where_it_is_and_linked(saved)


@pytest.mark.parametrize("model_type", ["modernbert", "modernbert-decoder"])
@pytest.mark.parametrize("window", [{"sliding_window": 3}, {"local_attention": 10, "sliding_window": 3},
                                    {"local_attention": 6}])
def test_modernbert_s_sliding_window_wins_over_its_local_attention(model_type, window):
    """The oracle is a four-layer model (transformers 5.23, eager; a global layer every second): a file's
    sliding_window is transformers' own, whatever local_attention says (ModernBERT's setter sets local_attention to
    twice it: 3 keys either side; ModernBERT-decoder's mask reads it: 3 keys up to the query), as local_attention 6
    is. posenc read local_attention only (the class's 128 where the file gave none: no window at 12 tokens). A null
    sliding_window: ModernBERT's class fails on it (refused); ModernBERT-decoder's model fails at its first forward
    pass (the check's error), where posenc drew windows of local_attention // 2."""
    config = _four_layers(model_type, False) | {"num_hidden_layers": 4, "global_attn_every_n_layers": 2} | window
    torch.manual_seed(0)
    built = hf_model(config, attn_implementation="eager").eval()
    with torch.no_grad():
        attentions = built(input_ids=torch.arange(3, 15)[None], output_attentions=True).attentions
    model = from_config(config)
    for layer, kind in enumerate(model.layer_types):
        np.testing.assert_array_equal((attentions[layer][0, 0] > 0).numpy(), models.attention_mask(model, kind, 12),
                                      err_msg=f"layer {layer} ({kind})")
    assert model.positional("sliding_attention").window == 3
    unwindowed = config | {"sliding_window": None}
    if model_type == "modernbert":  # its setter doubles it as the config is built
        with pytest.raises(TypeError):
            hf_model(unwindowed)
        with pytest.raises(ValueError, match="sliding_window is null, which ModernBertConfig refuses"):
            from_config(unwindowed)
        return
    with torch.no_grad(), pytest.raises(TypeError):  # the decoder's: built, and fails at its first forward pass
        hf_model(unwindowed).eval()(input_ids=torch.arange(3, 15)[None])
    assert [(f.field, f.message[:71]) for f in models.check(unwindowed) if f.severity == "error"] == [
        ("sliding_window", "2 layers are sliding_attention but sliding_window is null: transformers")]


def _four_layers(model_type: str, windowed: bool, listed: list[str] | None = None) -> dict:
    """A four-layer config of the family, its window fields small (``_WINDOWED``) where ``windowed``, and the file's
    ``layer_types`` where ``listed``."""
    config = {"model_type": model_type, **_ROTATION_SIZES, **_ROTATION_CHANGES.get(model_type, {}),
              **(_WINDOWED if windowed else {}), **({"attention_chunk_size": None}  # Gemma 4 refuses it beside a window
                                                    if windowed and model_type == "gemma4_text" else {}),
              **({"use_sliding_window": None}  # IQuestCoder refuses it (its sliding_window: an attribute only)
                 if windowed and model_type == "iquestcoder" else {})}
    config = {key: value for key, value in config.items()  # four layers by the class's own rule (Flint's too)
              if value is not None and not (windowed and key == "layer_types")}
    if listed:
        config |= {"layer_types": listed, **_LISTED_CHANGES.get(model_type, {})}
    return config


@pytest.mark.parametrize("model_type", [model_type for model_type in _ROTATING
                                        if FAMILIES[model_type].reads_layer_types])
def test_a_listed_layer_type_its_model_has_no_mask_for_is_refused(model_type):
    """The oracle is the model: every class that reads a file's layer_types builds a mask for full_attention and one
    other type by name, sliding_attention (Llama 4's: chunked_attention), and a four-layer model of a file that
    lists the third fails as it is built (Gemma 3's, ModernBERT's, OLMo 3's rotary embeddings, one per type) or at
    its first forward pass (a KeyError). posenc drew those layers (chunked ones under
    Qwen2, Gemma 2, ModernBERT and some forty classes, sliding ones under Llama 4); it now refuses the file, naming
    the layer and the two types the model masks."""
    other = "sliding_attention" if model_type == "llama4_text" else "chunked_attention"
    kept = "chunked_attention" if model_type == "llama4_text" else "sliding_attention"
    config = _four_layers(model_type, True, [other, "full_attention"] * 2)
    if model_type in _LISTED_CHANGES:  # its parameters, for each layer type it is given
        config["rope_parameters"] = {kind: {"rope_type": "default", "rope_theta": 10_000.0}
                                     for kind in (other, "full_attention")}
    with torch.no_grad(), pytest.raises(KeyError, match=other):  # (building it: Gemma 3's rotary embeddings, by type)
        hf_model(config, attn_implementation="eager").eval()(input_ids=torch.arange(3, 15)[None])
    with pytest.raises(ValueError, match=rf"layer_types\[0\] is '{other}', a layer \w+'s model builds no mask for "
                                         rf"\(it masks full_attention and {kept} layers\)"):
        from_config(config)


def _rotates_as_its_model(config: dict) -> models.Model:
    """posenc's reading of ``config`` rotates a query as a one-layer model of it (transformers 5.23, eager) does,
    through its own apply_rotary_pos_emb (the oracle), to float32 rounding; the reading, returned."""
    before, after = hf_rotated_queries(config, 20)
    model = from_config(config)
    positional = model.positional("full_attention")
    options = {k: v for k, v in positional.options.items() if k not in ("layout", "rotary_fraction")}
    got = posenc.apply_rope(before, np.arange(20), base=positional.base, layout=positional.options["layout"],
                            rotary_fraction=positional.rotary_dims / before.shape[-1], **options)
    np.testing.assert_allclose(got, after, atol=_float32(after), rtol=0)
    return model


@pytest.mark.parametrize("model_type", [*_NO_WINDOW, *_MISTRAL_STYLE, "ernie4_5_vl_moe_text", "chameleon",
                                        "paddleocr_vl_text", "cohere_compass_text"])
def test_a_top_level_share_rotates_as_each_model_does(model_type):
    """A top-level partial_rotary_factor of 0.5 under default RoPE, given to each class posenc once read as a
    Llama-style decoder: the query its model rotates (the oracle) is posenc's rotation, half the head where its
    attention rotates a share (MiniMax-M2), the whole where its class reads none (the Llama-style ones); Solar
    Open's frequencies cover half a head and its attention the whole, so its model fails: refused. posenc rotated
    half a head in every one."""
    config = {"model_type": model_type, **_ROTATION_SIZES, **_ROTATION_CHANGES.get(model_type, {}),
              "partial_rotary_factor": 0.5}
    config = {key: value for key, value in config.items() if value is not None}
    family = FAMILIES.get(model_type)
    if family is not None and family.fixed_width:
        with pytest.raises(RuntimeError, match="must match the size"):
            hf_rotated_queries(config, 20)
        with pytest.raises(ValueError, match="its attention rotates the whole head"):
            from_config(config)
        return
    model = _rotates_as_its_model(config)
    shared = family is not None and family.partial_field == "partial_rotary_factor"  # (GPT-NeoX-Japanese: rotary_pct)
    assert model.positional("full_attention").rotary_dims == (32 if shared else 64)


@pytest.mark.parametrize(("model_type", "given"), [
    ("paddleocr_vl_text", {}),  # its own sections, [16, 24, 24] pairs, on a head of 64 (32 pairs)
    ("glm_image_text", {"partial_rotary_factor": 0.5}),  # [8, 12, 12] pairs on half a head of 64 (16 pairs)
    ("cosmos3_edge_text", {}),  # [24, 20, 20] pairs on a head of 64: its class refuses the config
])
def test_a_class_s_own_mrope_section_must_fit_the_head(model_type, given):
    """PaddleOCR-VL's, GLM-Image's and Cosmos3-Edge's text models split their frequencies by M-RoPE sections of
    their own where the file gives no mrope_section, which fit one width of the rotated head only: on another,
    transformers 5.23 cannot build or run the model (the oracle), and posenc's check gives an error on the sections.
    posenc read them as Llama-style decoders and drew them."""
    config = {"model_type": model_type, **_ROTATION_SIZES, "rope_theta": 10_000.0, **given}
    with pytest.raises(Exception):  # noqa: B017, PT011 - a split of the frequencies, or the class's validation
        hf_rotated_queries(config, 20)
    assert ("error", "rope_parameters.mrope_section") in [(f.severity, f.field) for f in models.check(config)]


def test_deepseek_ocr2_s_heads_are_hidden_size_over_heads_whatever_head_dim_says():
    """DeepSeek-OCR 2's text configuration sets head_dim to hidden_size // num_attention_heads whatever the file says:
    its model (the oracle) rotates heads of 64 where the file gives 32, as posenc now draws, and the check says the
    field is not read. posenc rotated 32 dimensions."""
    config = {"model_type": "deepseek_ocr2_text", **_ROTATION_SIZES, **_ROTATION_CHANGES["deepseek_ocr2_text"],
              "head_dim": 32, "rope_theta": 10_000.0}
    assert _rotates_as_its_model(config).positional("full_attention").rotary_dims == 64
    assert [(f.severity, f.field) for f in models.check(config)] == [("warning", "head_dim")]


@pytest.mark.parametrize("null", ["full_attention", "sliding_attention"])
def test_cohere_compass_s_layers_of_null_parameters_attend_without_positions_as_its_model_does(null):
    """Cohere Compass's rotary embedding computes nothing for a layer type whose nested RoPE parameters are null, and
    its layers of that type attend without positions (a sliding one still in its window). The oracle is the model: a
    four-layer one attends over 12 tokens (each layer's mask), and the query its rotating layers turn. posenc said
    that its model fails to build."""
    rotating = {"rope_type": "default", "rope_theta": 10_000.0}
    config = {"model_type": "cohere_compass_text", **_ROTATION_SIZES, "num_hidden_layers": 4, "sliding_window": 5,
              "layer_types": ["full_attention", "sliding_attention"] * 2,
              "rope_parameters": {kind: None if kind == null else rotating
                                  for kind in ("full_attention", "sliding_attention")}}
    torch.manual_seed(0)
    built = hf_model(config, attn_implementation="eager").eval()
    with torch.no_grad():
        attentions = built(input_ids=torch.arange(3, 15)[None], output_attentions=True).attentions
    model = from_config(config)
    assert model.layer_types == tuple("nope" if kind == null else kind for kind in config["layer_types"])
    for layer, kind in enumerate(model.layer_types):
        np.testing.assert_array_equal((attentions[layer][0, 0] > 0).numpy(), models.attention_mask(model, kind, 12),
                                      err_msg=f"layer {layer} ({kind})")
    kept = next(kind for kind in ("full_attention", "sliding_attention") if kind != null)
    before, after = hf_rotated_queries(config, 20)
    positional = model.positional(kept)
    got = posenc.apply_rope(before, np.arange(20), base=positional.base, layout=positional.options["layout"])
    np.testing.assert_allclose(got, after, atol=_float32(after), rtol=0)
    assert models.check(config) == []


@pytest.mark.parametrize(("given", "rotated"), [
    ({"partial_rotary_factor": 0.5, "rope_parameters": {"rope_type": "default", "mrope_section": [4, 6, 6]}}, 32),
    ({"rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.25, "mrope_section": [2, 3, 3]}}, 16),
])
def test_glm_image_rotates_its_share_of_a_head_as_its_model_does(given, rotated):
    """GlmImageTextRotaryEmbedding computes its frequencies for head_dim × the share in its RoPE parameters (a
    top-level partial_rotary_factor copied in), split by its M-RoPE sections, and its attention rotates that many
    dimensions of each head in halves, the rest passed through (the oracle: the query a one-layer model rotates)."""
    config = {"model_type": "glm_image_text", **_ROTATION_SIZES, "rope_theta": 10_000.0, **given}
    assert _rotates_as_its_model(config).positional("full_attention").rotary_dims == rotated


@pytest.mark.parametrize(("given", "rotated"), [
    ({"rotary_dim": 32}, 32),  # as its released files write it: 64 of 128
    ({"rotary_dim": 32, "partial_rotary_factor": 0.25}, 16),  # a share given wins
    ({"rotary_dim": 32, "rope_parameters": {"rope_type": "default", "rope_theta": 10_000.0,
                                            "partial_rotary_factor": 0.75}}, 48),  # and the parameters' own
    ({}, 64),
])
def test_minimax_m2_rotates_rotary_dim_of_a_head_as_its_model_does(given, rotated):
    """MiniMaxM2Config turns a file's rotary_dim into partial_rotary_factor = rotary_dim / head_dim where no share
    is given (MiniMax-M2's files: rotary_dim 64 of 128-wide heads). posenc read it as a Llama-style decoder and
    rotated whole heads (the oracle: the query a one-layer model rotates)."""
    config = {"model_type": "minimax_m2", **_ROTATION_SIZES, **_ROTATION_CHANGES["minimax_m2"],
              "rope_theta": 10_000.0, **given}
    assert _rotates_as_its_model(config).positional("full_attention").rotary_dims == rotated


@pytest.mark.parametrize("model_type", ["hunyuan_v1_dense", "hunyuan_v1_moe", "hunyuan_vl_text"])
@pytest.mark.parametrize("alpha", [1000.0, 7.5, 0.0])
def test_hunyuan_s_dynamic_scaling_with_an_alpha_rotates_as_its_model_does(model_type, alpha):
    """HunYuan's released files write rope_scaling {"type": "dynamic", "alpha": 1000, "factor": 1}: its rotary
    embedding reads a nonzero alpha as NTK-α, default RoPE at θ·α^(d/(d − 2)) at every length (θ 10,000 becomes
    11,158,840 on 128-wide heads); alpha 0 is dynamic NTK, default RoPE within the context. posenc read a dynamic
    scaling, and drew θ 10,000 (the oracle: the query a one-layer model rotates)."""
    config = {"model_type": model_type, **_ROTATION_SIZES, **_ROTATION_CHANGES.get(model_type, {}),
              "rope_scaling": {"type": "dynamic", "alpha": alpha, "factor": 1.0}}
    if model_type == "hunyuan_vl_text":  # its sections, in the same parameters
        config["rope_scaling"] |= {"mrope_section": [8, 8, 8, 8]}
        config.pop("rope_parameters")
    positional = _rotates_as_its_model(config).positional("full_attention")
    expected = 10_000.0 * alpha ** (64 / 62) if alpha else 10_000.0
    assert positional.base == pytest.approx(expected, rel=1e-12)
    assert dict(positional.extra).get("ntk_alpha") == ((10_000.0, alpha, 64) if alpha else None)


@pytest.mark.parametrize("model_type", ["hunyuan_v1_dense", "hunyuan_v1_moe", "hunyuan_vl_text"])
@pytest.mark.parametrize("scaling", [None, {"type": "dynamic", "alpha": 1000.0, "factor": 1.0},
                                     {"rope_type": "linear", "factor": 2.0}])
def test_hunyuan_without_head_dim_is_refused_as_its_model_cannot_be_built(model_type, scaling):
    """HunYuan's configuration classes keep head_dim None when the file gives none, and their attention computes
    head_dim^−0.5: transformers 5.23 fails building the model (the oracle), whatever the scaling. posenc drew it."""
    config = {"model_type": model_type, **_ROTATION_SIZES, **_ROTATION_CHANGES.get(model_type, {}),
              "head_dim": None, "rope_theta": 10_000.0, "rope_scaling": scaling}
    config = {key: value for key, value in config.items() if value is not None}
    with pytest.raises(TypeError):
        hf_rotated_queries(config, 20)
    with pytest.raises(ValueError, match="gives no head_dim, which HunYuan"):
        from_config(config)


@pytest.mark.parametrize("scaling", [{"rope_type": "dynamic", "factor": 2.0}, {"rope_type": "yarn", "factor": 4.0},
                                     {"rope_type": "longrope", "short_factor": [1.0] * 32, "long_factor": [2.0] * 32,
                                      "original_max_position_embeddings": 128},
                                     {"rope_type": "linear", "factor": 2.0}, None])
def test_mixtral_without_head_dim_refuses_the_scalings_its_model_cannot_build(scaling):
    """MixtralConfig keeps head_dim None when the file gives none; its attention falls back to hidden_size /
    num_attention_heads, but transformers 5.23's dynamic, YaRN and LongRoPE functions read config.head_dim and fail
    building the model (the oracle), while linear and default RoPE compute. posenc drew them all."""
    config = {"model_type": "mixtral", **_ROTATION_SIZES, "num_local_experts": 2, "num_experts_per_tok": 1,
              "head_dim": None, "rope_theta": 10_000.0, "rope_scaling": scaling}
    config = {key: value for key, value in config.items() if value is not None}
    try:
        hf_rotated_queries(config, 20)
    except Exception:  # noqa: BLE001 - None * float; LongRoPE's in the config's own validation
        with pytest.raises(ValueError, match="reads head_dim, and the config gives none"):
            from_config(config)
        assert scaling is not None and scaling["rope_type"] in ("dynamic", "yarn", "longrope")
    else:
        _rotates_as_its_model(config)
        assert scaling is None or scaling["rope_type"] == "linear"


@pytest.mark.parametrize("given", [{"sparse_attention_config": {"sparse_attention_freq": [0, 1, 0, 1]}},
                                   {"layer_types": ["full_attention", "minimax_m3_sparse"] * 2}])
def test_minimax_m3_s_sparse_layers_are_refused(given):
    """MiniMax-M3's text model makes the layers its sparse_attention_config's sparse_attention_freq marks (or its
    layer_types name) minimax_m3_sparse, whose queries attend to the key blocks a lightning indexer picks (the
    oracle: its class's layer_types and a built model's indexers). posenc drew a file without layer_types as every
    layer full attention."""
    config = {"model_type": "minimax_m3_vl_text", **_ROTATION_SIZES, "num_hidden_layers": 4, "num_local_experts": 2,
              "num_experts_per_tok": 1, "index_head_dim": 16, "index_block_size": 4, **given}
    oracle = transformers.AutoConfig.for_model(**json.loads(json.dumps(config)))
    assert oracle.layer_types == ["full_attention", "minimax_m3_sparse"] * 2
    built = transformers.AutoModel.from_config(oracle)
    assert [layer.self_attn.indexer is not None for layer in built.layers] == [False, True] * 2
    with pytest.raises(ValueError, match="minimax_m3_sparse|sparse_attention_freq makes some of its layers sparse"):
        from_config(config)


@pytest.mark.parametrize("model_type", ["muse_glimmer_text", "muse_spark_text"])
@pytest.mark.parametrize("marks", [None, [7.0, 0, 7.0, 7.0, 7.0, 0], [7.0, 7.0, 7.0, 7.0, 7.0, 0]])
def test_muse_s_layers_are_read_as_its_model_builds_them(model_type, marks):
    """Muse Glimmer's and Spark's text models (transformers 5.23; the oracle: a six-layer model's masks over 12
    tokens, and which layers its layer_rope_theta leaves without positions) attend fully on every fourth layer
    counted back from the last (layers 1 and 5 of 6, where posenc's reading of a model_type it did not know windowed
    every one), those without positions where layer_rope_theta is 0 (by default the same layers); a layer it marks
    rotates at the RoPE parameters' θ whatever the number (7 here)."""
    config = {"model_type": model_type, **_ROTATION_SIZES, **_ROTATION_CHANGES[model_type], "num_hidden_layers": 6,
              "sliding_window": 3, "rope_parameters": {"rope_type": "default", "rope_theta": 20_000.0},
              **({"layer_rope_theta": marks} if marks else {})}
    oracle = transformers.AutoConfig.for_model(**json.loads(json.dumps(config)))
    torch.manual_seed(0)
    built = transformers.AutoModel.from_config(oracle, attn_implementation="eager").eval()
    with torch.no_grad():
        attentions = built(input_ids=torch.arange(3, 15)[None], output_attentions=True).attentions
    model = from_config(config)
    assert oracle.layer_types == ["sliding_attention", "full_attention"] + ["sliding_attention"] * 3 + ["full_attention"]
    assert [kind == "nope" for kind in model.layer_types] == [theta == 0 for theta in oracle.layer_rope_theta]
    for layer, kind in enumerate(model.layer_types):
        np.testing.assert_array_equal((attentions[layer][0, 0] > 0).numpy(), models.attention_mask(model, kind, 12),
                                      err_msg=f"layer {layer} ({kind})")
    assert model.positional("sliding_attention").base == 20_000.0


def test_muse_s_sliding_layer_without_positions_is_refused():
    """A Muse file whose layer_rope_theta leaves a sliding-window layer without positions: its model masks that
    layer's window; posenc draws layers without positions over the whole context, so it refuses, naming the layer."""
    config = {"model_type": "muse_glimmer_text", **_ROTATION_SIZES, "num_hidden_layers": 4, "sliding_window": 3,
              "layer_rope_theta": [0, 10_000.0, 10_000.0, 0]}
    with pytest.raises(ValueError, match="layer 0 is sliding_attention without positions"):
        from_config(config)


_PHIMOE_LISTS = {"short_factor": [1.0 + i / 16 for i in range(32)], "long_factor": [4.0] * 32,
                 "original_max_position_embeddings": 8}


@pytest.mark.parametrize(("scaling", "refused"), [
    ({"type": "longrope", **_PHIMOE_LISTS, "short_mscale": 1.5, "long_mscale": 1.5}, None),
    ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64, "short_mscale": 1.3,
      "long_mscale": 1.3}, None),
    ({"rope_type": "linear", "factor": 2.0, "short_mscale": 1.0, "long_mscale": 1.0,
      "original_max_position_embeddings": 8}, None),
    ({"rope_type": "linear", "factor": 2.0, "short_mscale": 1.0, "long_mscale": 1.0}, "which PhimoeConfig's model"),
    ({"type": "longrope", **_PHIMOE_LISTS, "short_mscale": 1.5, "long_mscale": 2.0}, "differ"),
    ({"rope_type": "linear", "factor": 2.0, "short_mscale": 1.2, "long_mscale": 1.2,
      "original_max_position_embeddings": 8}, "does not"),
    ({"rope_type": "dynamic", "factor": 2.0, "short_mscale": 1.0, "long_mscale": 1.0,
      "original_max_position_embeddings": 8}, None),  # default RoPE: its model recomputes it for no length
    ({"rope_type": "dynamic", "factor": 2.0, "short_mscale": 1.2, "long_mscale": 1.2,
      "original_max_position_embeddings": 8}, "does not"),
    ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}, "gives no short_mscale"),
])
def test_phimoe_s_scalings_rotate_as_its_model_does(scaling, refused):
    """PhimoeRotaryEmbedding (transformers 5.23; the oracle: the query a one-layer model rotates over 20 tokens)
    multiplies cos and sin by short_mscale (long_mscale past original_max_position_embeddings, here 8) in place of the
    scaling's own factor, and computes LongRoPE's frequencies from its short_factor at every length; its class
    refuses a scaling without both. posenc read PhiMoE as a Llama-style decoder: LongRoPE's long factors past 8
    tokens and its own cos/sin factor. Its dynamic NTK is default RoPE at every length (its rotary embedding
    recomputes the frequencies without the input's length). Where posenc would draw otherwise (two factors, one on a
    scaling that has none in posenc), it refuses."""
    config = {"model_type": "phimoe", **_ROTATION_SIZES, **_ROTATION_CHANGES["phimoe"], "rope_theta": 10_000.0,
              "rope_scaling": scaling}
    if scaling.get("rope_type") == "dynamic":  # 20 tokens past its context: posenc's dynamic NTK would stretch θ
        config["max_position_embeddings"] = 16
    if refused is None:
        _rotates_as_its_model(config)
        return
    with pytest.raises(ValueError, match=refused):
        from_config(config)
    if refused in ("gives no short_mscale", "which PhimoeConfig's model"):  # its class or its model fails
        with pytest.raises(Exception, match="short_mscale|original_max_position_embeddings"):  # noqa: PT011
            hf_rotated_queries(config, 20)


@pytest.mark.parametrize("rope_theta", [None, 20_000.0])
def test_kyutai_speech_to_text_applies_no_window_and_rotates_as_its_model_does(rope_theta):
    """Kyutai's speech-to-text model (transformers 5.23, eager; the oracle: a four-layer model over 12 steps of a
    text token and two codebooks) stores its sliding_window (375 by default) and masks causally over every key; its
    queries turn at its rotary embedding's frequencies, whole heads in halves. posenc windowed every layer 375 keys
    wide, as a model_type it did not know. Its cache (transformers 5.23's DynamicCache, which generation uses) does
    read the window: a sixth step through it attends to the last five keys only; the check says so, of its class's
    375 too (it said the window applied nowhere, and nothing where the file gave none)."""
    config = {"model_type": "kyutai_speech_to_text", **_ROTATION_SIZES, "num_hidden_layers": 4, "sliding_window": 5,
              "codebook_vocab_size": 8, "num_codebooks": 2, "audio_pad_token_id": 80, "audio_bos_token_id": 7,
              **({"rope_theta": rope_theta} if rope_theta else {})}
    oracle = transformers.AutoConfig.for_model(**json.loads(json.dumps(config)))
    torch.manual_seed(0)
    built = transformers.AutoModel.from_config(oracle, attn_implementation="eager").eval()
    with torch.no_grad():
        attentions = built(input_ids=torch.arange(36).reshape(1, 12, 3) % 8, output_attentions=True).attentions
    model = from_config(config)
    assert len(attentions) == len(model.layer_types) == 4
    for layer, kind in enumerate(model.layer_types):
        np.testing.assert_array_equal((attentions[layer][0, 0] > 0).numpy(), models.attention_mask(model, kind, 12))
    expected = hf_rotary(oracle).inv_freq.double().numpy()
    got, _ = rope_inv_freq(model, "full_attention")
    np.testing.assert_allclose(got, expected, rtol=float32_rtol(20_000.0), atol=0)
    steps = torch.arange(36).reshape(1, 12, 3) % 8  # its other path: through its cache, five steps, then a sixth
    with torch.no_grad():
        cache = transformers.DynamicCache(config=oracle)
        built(input_ids=steps[:, :5], past_key_values=cache, use_cache=True)
        step = built(input_ids=steps[:, 5:6], past_key_values=cache, use_cache=True, output_attentions=True)
    assert [int((weights[0, 0, -1] > 0).sum()) for weights in step.attentions] == [5] * 4  # not 6: its window
    said = [f.message for f in models.check(config) if f.field == "sliding_window"]
    assert len(said) == 1 and "through it attends to the last 5 only, as a window would" in said[0]
    unsaid = {k: v for k, v in config.items() if k != "sliding_window"}  # 375 keys of a context of 256: all of it
    assert not [f for f in models.check(unsaid) if f.field == "sliding_window"]
    default = [f.message for f in models.check({k: v for k, v in unsaid.items() if k != "max_position_embeddings"})
               if f.field == "sliding_window"]  # its class's context, 750
    assert len(default) == 1 and "sliding_window is 375 (its class's default)" in default[0]


@pytest.mark.parametrize("model_type", ["axk1", "cohere2_moe", "glm4_moe_lite", "glm4v_text", "glm_ocr_text", "nanochat",
                                        "openai_privacy_filter", "youtu"])
def test_a_class_that_rotates_otherwise_than_a_llama_style_decoder_is_refused(model_type):
    """Model types posenc has no record of are read as Llama-style decoders. For these, the oracle (a one-layer model
    of transformers 5.23, the query its own apply_rotary_pos_emb receives and returns, the saved config of its class's
    defaults) rotates otherwise than that reading: refused, naming the class, rather than drawn wrong."""
    config = json.loads(transformers.AutoConfig.for_model(model_type, **_ROTATION_SIZES).to_json_string())
    before, after = hf_rotated_queries(config, 20)
    llama_style = from_config(config | {"model_type": f"unknown_{model_type}"})
    positional = llama_style.positional(next(t for t in llama_style.layer_types if t != "nope"))
    options = {k: v for k, v in positional.options.items() if k not in ("layout", "rotary_fraction")}
    got = posenc.apply_rope(before, np.arange(20), base=positional.base, layout=positional.options["layout"],
                            rotary_fraction=positional.rotary_dims / before.shape[-1], **options)
    assert np.abs(got - after).max() > 1e-3
    with pytest.raises(ValueError, match="rotates a query otherwise than a Llama-style decoder"):
        from_config(config)


@pytest.mark.parametrize("given", [
    {"rope_scaling": {"type": "longrope", "short_factor": [1.5] * 32, "long_factor": [2.0] * 32}},  # L₀: 4,096
    {"rope_scaling": {"type": "yarn", "short_factor": [1.5] * 32, "long_factor": [2.0] * 32}},  # read as LongRoPE
    {"sliding_window": 5, "use_sliding_window": False, "num_hidden_layers": 2},  # windows whatever this says
])
def test_phi4_multimodal_reads_phi_3_s_rules_as_its_model_does(given):
    """Phi-4-multimodal's language model is Phi-3's (Phi4MultimodalConfig: the same fields, 131,072 positions): a
    LongRoPE scaling computed from its class's original_max_position_embeddings of 4,096, "yarn" read as LongRoPE,
    and a window on every layer when sliding_window is set, whatever use_sliding_window says. The oracle is the
    model: the query a one-layer model rotates, and each layer's mask. posenc read it as a Llama-style decoder: the
    scalings otherwise, and no window where use_sliding_window is false."""
    config = {"model_type": "phi4_multimodal", **_ROTATION_SIZES, **_ROTATION_CHANGES["phi4_multimodal"],
              "max_position_embeddings": 16_384, "rope_theta": 10_000.0, **given}
    model = from_config(config)
    kind = model.layer_types[0]
    before, after = hf_rotated_queries(config, 20)
    positional = model.positional(kind)
    options = {k: v for k, v in positional.options.items() if k not in ("layout", "rotary_fraction")}
    got = posenc.apply_rope(before, np.arange(20), base=positional.base, layout=positional.options["layout"],
                            rotary_fraction=positional.rotary_dims / before.shape[-1], **options)
    np.testing.assert_allclose(got, after, atol=_float32(after), rtol=0)
    built = hf_model(config, attn_implementation="eager").eval()
    with torch.no_grad():
        attentions = built(input_ids=torch.arange(3, 15)[None], output_attentions=True).attentions
    assert len(attentions) == len(model.layer_types)
    for layer, kind in enumerate(model.layer_types):
        np.testing.assert_array_equal((attentions[layer][0, 0] > 0).numpy(), models.attention_mask(model, kind, 12),
                                      err_msg=f"layer {layer} ({kind})")


def test_mllama_s_cross_attention_layers_are_refused():
    """Llama 3.2 Vision's language model (transformers 5.23's MllamaTextModel, the oracle) runs the layers its
    cross_attention_layers lists (3, 8, … by default) as cross-attention to the image's tiles, without positions,
    and skips them on text: four layers give three attentions. posenc read it as a Llama-style decoder of four
    self-attention layers; refused, naming the field, from its own type and from an mllama file's text_config."""
    from transformers.models.mllama.modeling_mllama import MllamaTextModel

    text = {"model_type": "mllama_text_model", **_ROTATION_SIZES, "num_hidden_layers": 4, "rope_theta": 500_000.0}
    built = MllamaTextModel._from_config(transformers.AutoConfig.for_model(**text), attn_implementation="eager").eval()
    assert [type(layer).__name__ for layer in built.layers][3] == "MllamaCrossAttentionDecoderLayer"
    with torch.no_grad():
        assert len(built(input_ids=torch.arange(3, 15)[None], output_attentions=True).attentions) == 3
    for config in (text, {"model_type": "mllama", "text_config": {k: v for k, v in text.items() if k != "model_type"}}):
        with pytest.raises(ValueError, match="posenc does not draw MllamaTextConfig's positions: the layers its "
                                             "cross_attention_layers lists"):
            from_config(config)


def test_step3p5_s_layers_of_their_own_theta_and_share_are_refused():
    """Step 3.5's and Step 3.7's language model (Step3p7TextConfig, transformers 5.23) reads rope_theta and
    partial_rotary_factors as lists of every layer's, as its released files give them: its rotary embedding (the
    oracle) turns each layer type at its first layer's θ over its first layer's share, which one θ and one share
    cannot draw. posenc read it as a Llama-style decoder (a file without layer_types windowed, where every layer of
    its model is full attention); refused, naming the class."""
    from transformers.models.step3p7.modeling_step3p7 import Step3p7RotaryEmbedding

    text = {**_ROTATION_SIZES, "num_hidden_layers": 2, "layer_types": ["full_attention", "sliding_attention"],
            "sliding_window": 5, "rope_theta": [10_000.0, 500_000.0], "partial_rotary_factors": [0.5, 1.0]}
    rotary = Step3p7RotaryEmbedding(transformers.AutoConfig.for_model("step3p5", **text))
    assert rotary.full_attention_inv_freq.shape == (16,) and rotary.sliding_attention_inv_freq.shape == (32,)
    assert rotary.sliding_attention_inv_freq[1].item() == pytest.approx(500_000.0 ** (-2 / 64), rel=1e-6)
    for config in ({"model_type": "step3p5", **text}, {"model_type": "step3p5", **_ROTATION_SIZES, "sliding_window": 5},
                   {"model_type": "step3p7", "text_config": text}):
        with pytest.raises(ValueError, match="posenc does not draw Step3p7TextConfig's positions: it reads rope_theta"):
            from_config(config)


def test_chameleon_s_heads_are_hidden_size_over_heads_whatever_head_dim_says():
    """Chameleon's attention takes heads of hidden_size / num_attention_heads; its rotary embedding reads head_dim.
    Where the file's head_dim is that width, its model rotates as posenc does (the oracle); any other fails at the
    model's first forward pass, where posenc drew heads of head_dim: refused, naming both widths."""
    config = {"model_type": "chameleon", **_ROTATION_SIZES, **_ROTATION_CHANGES["chameleon"], "rope_theta": 10_000.0}
    assert _rotates_as_its_model(config).positional("full_attention").head_dim == 64
    narrower = config | {"head_dim": 32}
    with pytest.raises(RuntimeError, match="must match the size"):
        hf_rotated_queries(narrower, 20)
    with pytest.raises(ValueError, match="head_dim is 32, but ChameleonConfig's attention takes heads of "
                                         "hidden_size / num_attention_heads = 64 dimensions"):
        from_config(narrower)
    assert [(f.severity, f.field) for f in models.check(narrower)] == [("error", "head_dim")]  # (no "news" beside)
