"""Configs of the kinds of model posenc reads besides the real configs of tests/models/configs: one of each kind of
absolute table and of the families read both ways, written with transformers 5.23's own field names (no copy of a
released file could be read offline, so none is claimed: each names its model_type's class fields only)."""

ABSOLUTE_CONFIGS = {
    "gpt-neo (local layers)": {"model_type": "gpt_neo", "hidden_size": 768, "num_heads": 12, "num_layers": 12,
                               "attention_types": [[["global", "local"], 6]], "window_size": 256,
                               "max_position_embeddings": 2048},
    "ctrl (split sinusoids)": {"model_type": "ctrl", "n_embd": 1280, "n_head": 16, "n_layer": 48, "n_positions": 256},
    "distilbert (the paper's sinusoids)": {"model_type": "distilbert", "sinusoidal_pos_embds": True},
    "albert (a narrow table)": {"model_type": "albert", "hidden_size": 768, "embedding_size": 128,
                                "num_attention_heads": 12},
    "bart (from row 2)": {"model_type": "bart", "d_model": 1024, "encoder_attention_heads": 16,
                          "encoder_layers": 12, "max_position_embeddings": 1024},
    "m2m_100 (from pad_token_id + 1)": {"model_type": "m2m_100", "d_model": 1024, "encoder_attention_heads": 16,
                                        "encoder_layers": 12, "max_position_embeddings": 1024, "pad_token_id": 1},
    "whisper (an encoder of fixed length)": {"model_type": "whisper", "d_model": 384, "encoder_attention_heads": 6,
                                             "encoder_layers": 4, "max_source_positions": 1500},
    "mpnet (a table besides T5's buckets)": {"model_type": "mpnet", "hidden_size": 768, "num_attention_heads": 12,
                                             "num_hidden_layers": 12, "max_position_embeddings": 514,
                                             "relative_attention_num_buckets": 32, "pad_token_id": 1},
}
"""One config of each kind of absolute table posenc reads (refused before 2026-12-05; MPNet's, read as T5's buckets
alone until later that day)."""

BOTH_WAYS_CONFIGS = {
    "esm-2 (rotary, both ways)": {"model_type": "esm", "hidden_size": 1280, "num_attention_heads": 20,
                                  "num_hidden_layers": 33, "max_position_embeddings": 1026,
                                  "position_embedding_type": "rotary", "pad_token_id": 1},
    "embeddinggemma (gemma 3 both ways)": {"model_type": "gemma3_text", "use_bidirectional_attention": True,
                                           "sliding_window": 512, "max_position_embeddings": 2048,
                                           "num_hidden_layers": 24, "hidden_size": 768, "num_attention_heads": 3,
                                           "head_dim": 256, "rope_theta": 1_000_000.0},
    "long-t5-local (T5's buckets in local windows)": {"model_type": "longt5", "d_model": 768, "d_kv": 64,
                                                      "num_heads": 12, "num_layers": 12, "local_radius": 127,
                                                      "encoder_attention_type": "local"},
}
"""Models that see both ways: rotary ones (ESM-2; Gemma 3 told to, as EmbeddingGemma is), LongT5's local windows."""

_GEMMA_4_LAYERS = ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(30)]

ROTARY_CONFIGS = {
    "gemma-4 (p-RoPE on wider global heads)": {"model_type": "gemma4", "text_config": {
        "model_type": "gemma4_text", "hidden_size": 2304, "num_attention_heads": 8, "num_key_value_heads": 4,
        "head_dim": 256, "num_hidden_layers": 30, "layer_types": _GEMMA_4_LAYERS, "max_position_embeddings": 131_072,
        "sliding_window": 512,
        "per_layer_config": {f"{i:02d}": {"head_dim": 512} for i, kind in enumerate(_GEMMA_4_LAYERS)
                             if kind == "full_attention"},
        "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
                            "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25,
                                               "rope_theta": 1_000_000.0}}}},
    "exaone-4 (full-attention layers without positions)": {
        "model_type": "exaone4", "hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 8,
        "head_dim": 128, "num_hidden_layers": 8, "max_position_embeddings": 131_072, "sliding_window": 4096,
        "layer_types": ["sliding_attention"] * 3 + ["full_attention"] + ["sliding_attention"] * 3 + ["full_attention"],
        "rope_theta": 1_000_000.0, "rope_scaling": {"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0,
                                                    "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}},
    "mistral-4 (decoupled RoPE in adjacent pairs, a query scale)": {
        "model_type": "mistral4", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 32,
        "num_hidden_layers": 36, "kv_lora_rank": 256, "q_lora_rank": 1024, "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 64, "v_head_dim": 128, "max_position_embeddings": 1_048_576,
        "rope_parameters": {"rope_type": "yarn", "rope_theta": 10_000.0, "factor": 128.0,
                            "original_max_position_embeddings": 8192, "beta_fast": 32.0, "beta_slow": 1.0,
                            "mscale_all_dim": 1.0, "mscale": 1.0, "llama_4_scaling_beta": 0.1,
                            "partial_rotary_factor": 0.5}},
    "ministral-3 (YaRN and a query scale, in text_config)": {"model_type": "mistral3", "text_config": {
        "model_type": "ministral3", "hidden_size": 3072, "num_attention_heads": 32, "num_key_value_heads": 8,
        "head_dim": 128, "num_hidden_layers": 26, "max_position_embeddings": 262_144,
        "rope_parameters": {"rope_type": "yarn", "rope_theta": 1_000_000.0, "factor": 16.0,
                            "original_max_position_embeddings": 16_384, "beta_fast": 32.0, "beta_slow": 1.0,
                            "mscale_all_dim": 1.0, "mscale": 1.0, "llama_4_scaling_beta": 0.1}}},
    "hunyuan-a13b (NTK-α: a 'dynamic' scaling with an alpha)": {
        "model_type": "hunyuan_v1_moe", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
        "head_dim": 128, "num_hidden_layers": 32, "max_position_embeddings": 32_768, "rope_theta": 10_000.0,
        "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 1.0, "beta_fast": 32, "beta_slow": 1,
                         "mscale": 1.0, "mscale_all_dim": 1.0}},
    "falcon-h1 (a Mamba-2 path beside every attention)": {
        "model_type": "falcon_h1", "hidden_size": 3072, "num_attention_heads": 12, "num_key_value_heads": 2,
        "head_dim": 128, "num_hidden_layers": 44, "max_position_embeddings": 262_144, "rope_theta": 1e11,
        "key_multiplier": 0.1803, "attention_in_multiplier": 1.0, "mamba_d_ssm": 6144, "mamba_n_heads": 96,
        "mamba_d_state": 256, "mamba_d_conv": 4, "mamba_chunk_size": 128},
    "minimax-m2 (rotary_dim: half of each head)": {
        "model_type": "minimax_m2", "hidden_size": 3072, "num_attention_heads": 48, "num_key_value_heads": 8,
        "head_dim": 128, "rotary_dim": 64, "num_hidden_layers": 62, "max_position_embeddings": 196_608,
        "rope_theta": 5_000_000.0},
    "mimo-v2-flash (a third of each head rotating, SGLang's window)": {
        "model_type": "mimo_v2_flash", "hidden_size": 4096, "num_attention_heads": 64, "num_key_value_heads": 4,
        "head_dim": 192, "v_head_dim": 128, "num_hidden_layers": 48, "max_position_embeddings": 131_072,
        "sliding_window_size": 128,
        "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 5_000_000.0,
                                               "partial_rotary_factor": 0.334},
                            "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0,
                                                  "partial_rotary_factor": 0.334}}},
}
"""Rotary models read this session (2026-12-06) whose layer types differ in more than θ: Gemma 4's p-RoPE on heads
of global_head_dim (per_layer_config, as transformers writes it), EXAONE 4's full-attention layers without positions
(EXAONE-4.0-32B's fields, eight of its 64 layers); and, read since, Mistral 4's decoupled RoPE in adjacent pairs with
its query scale, Ministral 3's YaRN and query scale in a composite config's text_config (their classes' fields and
defaults, sizes of the released shapes), and MiMo-V2-Flash's 64 of 192 dimensions at two θ, its windows from SGLang's
sliding_window_size (its class's defaults, the released model's sizes)."""
