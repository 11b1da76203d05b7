r"""What released models do to attention besides rotating: query temperature, sinks, the softmax's scale (numpy).

- Llama 4's NoPE layers multiply each query by a temperature that grows with its position
  (:func:`attention_temperature`, :func:`query_scale`; Nakanishi, "Scalable-Softmax Is Superior for
  Attention", arXiv:2501.19399, as transformers 5.23's ``Llama4TextAttention``).
- gpt-oss gives every head a learned sink logit: one more softmax column that takes attention and returns
  no value (:func:`attention_with_sinks`; Xiao et al., "Efficient Streaming Language Models with Attention
  Sinks", arXiv:2309.17453; transformers' ``gpt_oss`` ``eager_attention_forward``).
- DeepSeek-V3 multiplies the softmax's 1/√d by YaRN's mscale² (:func:`softmax_scale`; DeepSeek-V2,
  arXiv:2405.04434; transformers' ``deepseek_v3`` ``yarn_apply_mscale``).
"""

from __future__ import annotations

import numpy as np

from posenc.checks import MAX_WHOLE, check_array, check_finite, check_real
from posenc.models.presets import get


def _positions(positions: object) -> np.ndarray:
    """Whole numbers from 0 to 2^53, as float64 (any shape)."""
    values = check_array(positions, "positions").astype(np.float64)
    if values.size and (values.min() < 0 or values.max() > MAX_WHOLE or not np.array_equal(values, np.floor(values))):
        raise ValueError("positions must be whole numbers from 0 to 2^53 (a token's index in the sequence); "
                         f"got values from {float(values.min()):g} to {float(values.max()):g}.")
    return values


def attention_temperature(positions: object, floor_scale: float, attn_scale: float, offset: int = 1) -> np.ndarray:
    """τ(p) = ln(1 + ⌊(p + offset) / floor_scale⌋) · attn_scale + 1 for every position p (same shape, float64).

    The factor Llama 4 multiplies a NoPE layer's query at position p by (offset 1; transformers 5.23,
    ``Llama4TextAttention.forward``: ``log1p(floor((positions + 1) / floor_scale)) * attn_scale + 1``),
    after Scalable-Softmax (arXiv:2501.19399): the logits grow like ln n, so attention over n keys stays
    as sharp as over few. 1 for the first floor_scale − 1 positions, then a step every floor_scale tokens.
    Ministral 3 multiplies every rotated query by it with offset 0, floor_scale its original context and
    attn_scale its ``llama_4_scaling_beta`` (``get_llama_4_attn_scale``: ``1 + beta·log(1 + floor(p / L₀))``).
    """
    p = _positions(positions)
    floor_scale = check_real(floor_scale, "floor_scale", minimum=0.0, strict=True,
                             meaning="tokens per step of the temperature")
    attn_scale = check_real(attn_scale, "attn_scale", minimum=0.0, meaning="the temperature's growth per ln step")
    if offset not in (0, 1):
        raise ValueError(f"offset must be 0 (Ministral 3) or 1 (Llama 4); got {offset!r:.40}.")
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
        temperature = np.asarray(np.log1p(np.floor((p + offset) / floor_scale)) * attn_scale + 1.0)  # 0-d: an array
    return check_finite(temperature, "the temperature ln(1 + ⌊(p + offset) / floor_scale⌋)·attn_scale + 1")


def query_scale(name: str, positions: object) -> np.ndarray:
    """What model ``name`` multiplies a query at each position by (float64): in its layers without positions
    (Llama 4), or in every layer (Ministral 3, Mistral 4: read from a config).

    Llama 4 Scout: τ(p) = ln(1 + ⌊(p + 1) / 8192⌋) · 0.1 + 1 on its NoPE layers
    (:func:`attention_temperature`, config ``floor_scale`` and ``attn_scale``); a Ministral 3 or Mistral 4 config:
    1 + β·ln(1 + ⌊p/L₀⌋) on every rotated query (its RoPE parameters' ``llama_4_scaling_beta`` and original
    context); every other preset: 1.
    """
    model = get(name)
    positions = _positions(positions)
    for positional in model.positionals.values():
        if positional.extra.get("attn_temperature_tuning"):
            return attention_temperature(positions, positional.extra["floor_scale"], positional.extra["attn_scale"])
        if "llama_4_scaling_beta" in positional.extra:  # Ministral 3's, Mistral 4's, on every layer
            return attention_temperature(positions, positional.extra["llama_4_original"],
                                         positional.extra["llama_4_scaling_beta"], offset=0)
    return np.ones_like(positions)


def softmax_scale(name: str) -> float:
    """The factor model ``name`` multiplies q·k by before the softmax.

    1/√d with d = the query-key head width (Gemma 3: ``query_pre_attn_scalar`` 256); T5: 1 (no scaling);
    Granite's, Granite-Docling's and HyperCLOVA X's configs: their ``attention_multiplier`` (granite-3's 1/128 over
    heads of 128);
    DeepSeek-V3: (1/√192)·mscale², mscale = 0.1·mscale_all_dim·ln(factor) + 1 = 0.1·ln 40 + 1, because YaRN's
    longer context sharpens attention and its rotary part is too small a share of the head to carry the
    factor in cos and sin (transformers 5.23 ``yarn_apply_mscale``; arXiv:2309.00071, arXiv:2405.04434): DeepSeek's
    kin only (DeepSeek-V2, MiniCPM3, LongCat-Flash, Mistral 4), where any other class's 1/√d stays under the same
    parameters; Falcon-H1's configs: 1/√d times their ``key_multiplier``, by which its attention multiplies every
    key before q·k (q and k here: what the projections give).
    """
    model = get(name)
    if model.softmax_multiplier is not None:  # the class's own (DeepSeek's mscale², Granite's, Falcon-H1's keys)
        return model.softmax_multiplier
    return 1.0 if model.softmax_dim is None else model.softmax_dim ** -0.5


def _heads_array(values: object, name: str, ndim: int) -> np.ndarray:
    array = check_array(values, name, min_ndim=ndim, max_ndim=ndim).astype(np.float64)
    return check_finite(array, name)


def attention_with_sinks(query: np.ndarray, key: np.ndarray, value: np.ndarray, sinks: np.ndarray,
                         scale: float, visible: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(output, weights) of attention with one sink logit per head, as gpt-oss.

    s_ij = scale·q_i·k_j (−∞ where ``visible`` is False), then
    w_ij = exp(s_ij) / (exp(sink_h) + Σ_j' exp(s_ij')), output_i = Σ_j w_ij·v_j: the sink takes the
    share exp(sink_h)/(…) and gives nothing, so a row's weights sum to less than 1 (transformers 5.23
    ``models/gpt_oss/modeling_gpt_oss.py``, ``eager_attention_forward``; arXiv:2309.17453).
    query (heads, Lq, d), key (heads, Lk, d), value (heads, Lk, dv), sinks (heads,), visible (Lq, Lk)
    booleans or None; output (heads, Lq, dv), weights (heads, Lq, Lk), float64.
    """
    q, k, v = (_heads_array(a, n, 3) for a, n in ((query, "query"), (key, "key"), (value, "value")))
    sinks = _heads_array(sinks, "sinks", 1)
    heads, length_q, width = q.shape
    if k.shape[0] != heads or k.shape[2] != width or v.shape[:2] != k.shape[:2] or sinks.shape != (heads,):
        raise ValueError(f"query (heads, Lq, d), key (heads, Lk, d), value (heads, Lk, dv) and sinks (heads,) must "
                         f"agree; got {q.shape}, {k.shape}, {v.shape} and {sinks.shape}.")
    scale = check_real(scale, "scale", minimum=0.0, meaning="the factor of q·k, usually 1/√d")
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
        logits = check_finite(scale * q @ k.transpose(0, 2, 1), "q·k")  # (heads, Lq, Lk)
    if visible is not None:
        mask = np.asarray(visible)
        if mask.dtype != bool or mask.shape != (length_q, k.shape[1]):
            raise ValueError(f"visible must be booleans of shape (Lq, Lk) = {(length_q, k.shape[1])}; "
                             f"got {mask.dtype} of shape {mask.shape}.")
        logits = np.where(mask, logits, -np.inf)
    combined = np.concatenate([logits, np.broadcast_to(sinks[:, None, None], (heads, length_q, 1))], axis=-1)
    combined = combined - combined.max(axis=-1, keepdims=True)  # the sink is finite: so is every row's max
    probabilities = np.exp(combined)
    probabilities /= probabilities.sum(axis=-1, keepdims=True)
    weights = probabilities[..., :-1]  # the sink's column is dropped
    with np.errstate(over="ignore", invalid="ignore"):
        return check_finite(weights @ v, "the attention output"), weights
