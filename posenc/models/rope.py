r"""A preset's rotary frequencies, computed by posenc's own scalings (numpy only).

For a layer type that rotates, the preset's "rope" options name a scaling of
:data:`posenc.ROPE_SCALINGS` and its parameters; :func:`rope_inv_freq` hands them, with the head's
rotated width and θ's base, to :func:`posenc.schemes.rope.frequencies.rope_inv_freq`:

    θ_i = base^(−2i/d_rot),  i = 0, …, d_rot/2 − 1   (RoFormer, arXiv:2104.09864),

then the scaling's θ'_i and the factor cos and sin are multiplied by (YaRN, arXiv:2309.00071; LongRoPE,
arXiv:2402.13753; Llama 3's bands, arXiv:2407.21783; position interpolation, arXiv:2306.15595). The result
equals what the family's RotaryEmbedding class of transformers 5.23 holds in ``inv_freq`` and
``attention_scaling`` (``[layer_type]_inv_freq`` for Gemma 3 and ModernBERT) for the same configuration,
to float32 rounding (transformers computes in float32, posenc in float64): tests/models/test_model_rope.py,
and tests/models/test_model_config.py for models read from a config.json.
"""

from __future__ import annotations

import numpy as np

from posenc.checks import MAX_WHOLE, check_array, check_finite
from posenc.models.presets import Model, Positional, get
from posenc.schemes.rope.frequencies import rope_inv_freq as _scheme_inv_freq
from posenc.schemes.rope.frequencies import rotated_width_keywords
from posenc.schemes.rope.scalings import proportional_pairs, scales_whole_head


def rotary_layer(model: Model, layer_type: str | None) -> tuple[str, Positional]:
    """(layer_type, Positional) of a layer type that rotates: the named one, or the model's only one."""
    rotary = [name for name, positional in model.positionals.items() if positional.rotary_dims]
    if layer_type is None:
        if len(rotary) == 1:
            return rotary[0], model.positionals[rotary[0]]
        if not rotary:
            raise ValueError(f"{model.label} rotates no query or key: its layers use "
                             f"{', '.join(sorted({p.scheme for p in model.positionals.values()}))}, not RoPE.")
        raise ValueError(f"{model.label}'s layer types rotate with different frequencies; name one: "
                         f"layer_type = {' or '.join(map(repr, rotary))}.")
    positional = model.positional(layer_type)
    if not positional.rotary_dims:
        raise ValueError(f"{model.label}'s {layer_type!r} layers use {positional.scheme!r}, not RoPE, so they have "
                         f"no frequencies; its rotary layer types are {', '.join(map(repr, rotary)) or 'none'}.")
    return layer_type, positional


def turning_dims(positional: Positional) -> int:
    """How many dimensions of a head a layer type's rotation turns: its ``rotary_dims``, but under p-RoPE, which
    carries every pair of the head with θ = 0 for those it leaves alone, 2·int(p·d // 2) of them (Gemma 4's
    full-attention layers: 128 of 512)."""
    rope_type = positional.options.get("rope_type")
    if positional.rotary_dims and isinstance(rope_type, str) and scales_whole_head(rope_type):
        return 2 * proportional_pairs(positional.head_dim, float(positional.options["rotary_fraction"]))
    return positional.rotary_dims


def _frequencies(positional: Positional, seq_len: int | None) -> tuple[np.ndarray, float]:
    return _scheme_inv_freq(positional.rotary_dims, positional.base, rope_type=positional.options["rope_type"],
                            seq_len=seq_len, **rotated_width_keywords(positional.options))


def rope_inv_freq(model: str | Model, layer_type: str | None = None,
                  seq_len: int | None = None) -> tuple[np.ndarray, float]:
    """(θ'_i, attention_scaling) of ``model``'s ``layer_type`` layers, as transformers 5.23 computes them.

    ``model``: a preset's name or a :class:`Model` (e.g. :func:`posenc.models.from_config`'s). θ'_i for
    the d_rot/2 rotated pairs (d_rot = the layer type's ``rotary_dims``): θ_i = base^(−2i/d_rot), then
    the layer type's scaling (``rope_type``: default, linear, dynamic, llama3, yarn, longrope), whose
    ``attention_scaling`` multiplies cos and sin (1 except YaRN's 0.1·ln s + 1 and LongRoPE's
    √(1 + ln s / ln L₀)). ``layer_type`` may be omitted when the model has one rotary layer type, or when
    all of them rotate alike (the same θ'_i and factor, as gpt-oss's sliding and full layers);
    ``seq_len``, the current sequence length, matters to dynamic NTK and LongRoPE only (Phi-3: its short
    factors up to L₀ = 4096 tokens, its long factors beyond). A ValueError names the known models or
    layer types.
    """
    model = get(model)
    if layer_type is None:
        alike = _alike(model, seq_len)
        if alike is not None:
            return alike
    _, positional = rotary_layer(model, layer_type)
    return _frequencies(positional, seq_len)


def _alike(model: Model, seq_len: int | None) -> tuple[np.ndarray, float] | None:
    """The one (θ'_i, factor) every rotary layer type of ``model`` has, or None when they differ (or none rotate)."""
    rotary = [positional for positional in model.positionals.values() if positional.rotary_dims]
    if len(rotary) < 2:
        return None
    results = [_frequencies(positional, seq_len) for positional in rotary]
    first, factor = results[0]
    if all(f == factor and inv.shape == first.shape and np.array_equal(inv, first) for inv, f in results[1:]):
        return first, factor
    return None


def decoupled_rope(x: np.ndarray, positions: np.ndarray, name: str | Model = "deepseek-v3") -> np.ndarray:
    """Rotate the rotary part of each head as DeepSeek-V3's decoupled RoPE; x (..., length, d_nope + d_rope).

    A head of d_nope + d_rope = 128 + 64 dimensions keeps its first d_nope dimensions unrotated (they carry
    content only) and rotates its last d_rope in adjacent pairs (x_{2i}, x_{2i+1}) by the angle p·θ'_i,
    θ'_i and the factor a of cos and sin from :func:`rope_inv_freq` (YaRN ×40 from 4096, a = 1 for
    DeepSeek-V3): y = [x_nope, a·(x_even·cos − x_odd·sin), a·(x_odd·cos + x_even·sin)], the rotated pairs
    written as two halves exactly as transformers 5.23's ``apply_rotary_pos_emb_interleave`` (DeepSeek-V2,
    arXiv:2405.04434, §2.1.3). positions: (length,) whole numbers; float64 out, x's shape. ``name``: a
    preset's name or a :class:`Model` whose heads split so (DeepSeek's config, :func:`from_config`).
    """
    model = get(name)
    _, positional = rotary_layer(model, None)
    nope = positional.extra.get("qk_nope_head_dim")
    if nope is None:
        raise ValueError(f"{model.label} rotates whole heads, not a decoupled part; of the presets, only "
                         "'deepseek-v3' splits its heads (decoupled RoPE).")
    x = check_array(x, "x", min_ndim=2).astype(np.float64)
    width = nope + positional.rotary_dims
    if x.shape[-1] != width:
        raise ValueError(f"x must end with one {model.label} query-key head of {nope} + {positional.rotary_dims} = "
                         f"{width} dimensions; got shape {x.shape}.")
    inv_freq, scaling = rope_inv_freq(model)
    angles = _whole(positions, x.shape[-2])[:, None] * inv_freq  # (length, d_rope/2)
    cos, sin = scaling * np.cos(angles), scaling * np.sin(angles)
    even, odd = x[..., nope::2], x[..., nope + 1::2]
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
        rotated = np.concatenate([x[..., :nope], even * cos - odd * sin, odd * cos + even * sin], axis=-1)
    return check_finite(rotated, "the rotated x")


def _whole(positions: object, length: int) -> np.ndarray:
    """positions as float64 of shape (length,), whole numbers from 0 to 2^53."""
    values = check_array(positions, "positions", min_ndim=1, max_ndim=1).astype(np.float64)
    if values.shape != (length,):
        raise ValueError(f"positions must hold one position per token, shape ({length},); got {values.shape}.")
    if values.size and (values.min() < 0 or values.max() > MAX_WHOLE or not np.array_equal(values, np.floor(values))):
        raise ValueError("positions must be whole numbers from 0 to 2^53 (a token's index in the sequence).")
    return values
