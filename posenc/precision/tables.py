"""A scheme's numbers in float32, float16 and bfloat16, two ways, against float64 (imports torch).

1. **Rounded**: the exact float64 numbers rounded once to the dtype
   (:func:`posenc.precision.dtypes.round_to`): what posenc's ``dtype=`` does, the best a dtype can do.
2. **Computed in the dtype**, the way common code computes them, every operation in torch
   in that dtype:
   - sinusoidal: the Annotated Transformer's construction (arXiv:1706.03762),
     ``position = arange(length)``, ``div_term = exp(arange(0, d, 2)·(−ln n/d))``,
     ``sin(position·div_term)``; positions past 2^p are already rounded by ``arange``;
   - RoPE (arXiv:2104.09864): cos/sin of m·θ_i with positions, θ and the product in the
     dtype, and as Hugging Face's Llama does it: m·θ_i and cos/sin in float32, then cast;
   - ALiBi (arXiv:2108.12409): −m_h·Δ with the slope and the distance Δ in the dtype;
   - Shaw et al. (arXiv:1803.02155): q·a_r/√d with q and a_r in the dtype.
   T5 (arXiv:1910.10683) computes its buckets in float32 whatever the model's dtype, so its
   bias is its learned values rounded; a learned table is stored in the dtype (rounded); NoPE is 0.

Errors are max over dimensions (heads) of |value − exact|, position by position; for the bias
schemes, distance by distance Δ = i − j (keys before the query, seen by causal models too).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from posenc.precision.dtypes import check_dtype, first_repeated_row, max_abs_error, round_to
from posenc.schemes.registry import get_scheme


def torch_dtype(name: str):
    """The torch dtype called ``name`` (float64, float32, float16 or bfloat16)."""
    import torch

    return getattr(torch, check_dtype(name))


def as_float64(tensor) -> np.ndarray:
    """A torch tensor's values as a float64 numpy array (exact: every dtype here fits in float64)."""
    import torch

    return tensor.detach().to(torch.float64).numpy()


def annotated_sinusoidal(length: int, d_model: int, base: float, dtype: str, *, layout: str = "interleaved",
                         spacing: str = "vaswani") -> np.ndarray:
    """The sinusoidal table computed in ``dtype`` as the Annotated Transformer writes it (values as float64).

        position = arange(0, length);  div_term = exp(arange(0, d, 2) · (−ln n / d))
        PE[:, 0::2] = sin(position · div_term),  PE[:, 1::2] = cos(position · div_term)

    every tensor in ``dtype``. tensor2tensor spacing: div_term = exp(arange(h) · (−ln n/(h − 1))),
    h = ⌈d/2⌉. Split layout: [sin | cos]. Odd d: the last column is the last sine.
    """
    return as_float64(annotated_sinusoidal_tensor(length, d_model, base, dtype, layout=layout, spacing=spacing))


def annotated_sinusoidal_tensor(length: int, d_model: int, base: float, dtype: str, *,
                                layout: str = "interleaved", spacing: str = "vaswani"):
    """:func:`annotated_sinusoidal` as a torch tensor of ``dtype``, shape (length, d_model)."""
    import torch

    dt = torch_dtype(dtype)
    get_scheme("sinusoidal").table(1, d_model, base, layout=layout, spacing=spacing)  # validates the arguments
    half = (d_model + 1) // 2
    position = torch.arange(0, length, dtype=dt).unsqueeze(1)  # (length, 1)
    if spacing == "vaswani":
        div_term = torch.exp(torch.arange(0, d_model, 2, dtype=dt) * -(math.log(base) / d_model))  # (h,)
    else:
        div_term = torch.exp(torch.arange(half, dtype=dt) * -(math.log(base) / max(half - 1, 1)))
    phase = position * div_term  # (length, h), in dt
    sin, cos = torch.sin(phase), torch.cos(phase)
    if layout == "split":
        return torch.cat([sin, cos], dim=1)
    if d_model % 2:  # the last sine has no cosine
        return torch.cat([torch.stack([sin[:, :-1], cos[:, :-1]], dim=-1).flatten(1), sin[:, -1:]], dim=1)
    return torch.stack([sin, cos], dim=-1).flatten(1)  # sin, cos, sin, cos …


def rope_frequencies(length: int, d_model: int, base: float, options: dict) -> tuple[np.ndarray, float, str]:
    """(θ_i in float64, the attention scaling s of cos and sin, the pair layout) for RoPE's options."""
    from posenc.schemes.rope.entry import rope_keywords
    from posenc.schemes.rope.frequencies import rope_inv_freq

    keywords = rope_keywords(dict(options))
    layout = keywords.pop("layout", "interleaved")
    inv_freq, scale = rope_inv_freq(d_model, base, seq_len=max(length, 1), **keywords)
    return inv_freq, float(scale), layout


ROPE_VARIANTS: tuple[str, ...] = ("all in dtype", "float32, then cast")


def rope_cos_sin(length: int, inv_freq: np.ndarray, scale: float, dtype: str, variant: str):
    """(cos, sin) of m·θ_i for m < length as torch tensors of ``dtype``, shape (length, d_rot/2), times s.

    - ``"all in dtype"``: positions, θ_i, their product, cos/sin and ×s in ``dtype``;
    - ``"float32, then cast"``: the same in float32, cast to ``dtype`` at the end (Hugging Face's
      Llama computes its rotary cos/sin in float32 for this reason; see Wang et al. 2024,
      "When Precision Meets Position: BFloat16 Breaks Down RoPE in Long-Context Training",
      arXiv:2411.13476);
    - ``"float64"``: the exact values, for reference.
    """
    import torch

    work = {"all in dtype": torch_dtype(dtype), "float32, then cast": torch.float32,
            "float64": torch.float64}[variant]
    angles = torch.arange(length, dtype=work)[:, None] * torch.as_tensor(inv_freq).to(work)  # (length, d_rot/2)
    cos, sin = torch.cos(angles), torch.sin(angles)
    if scale != 1.0:
        cos, sin = cos * scale, sin * scale
    out = torch.float64 if variant == "float64" else torch_dtype(dtype)
    return cos.to(out), sin.to(out)


@dataclass(frozen=True)
class PrecisionTable:
    """A scheme's numbers in one dtype, compared with float64 row by row.

    ``x`` are positions (tables, RoPE's cos/sin) or distances Δ = i − j (biases);
    ``errors[label]`` is max over the row of |value − exact| (NaN where there is no encoding);
    ``first_repeat[label]`` the first row equal to an earlier one bit for bit (None: none).
    """

    dtype: str
    what: str  # e.g. "table", "cos/sin of m·θ_i", "bias"
    x: np.ndarray
    x_label: str
    errors: dict[str, np.ndarray]
    first_repeat: dict[str, int | None]
    notes: tuple[str, ...] = field(default=())


def _compare(dtype: str, what: str, x: np.ndarray, x_label: str, exact: np.ndarray,
             variants: dict[str, np.ndarray], notes: tuple[str, ...] = ()) -> PrecisionTable:
    errors = {label: max_abs_error(values, exact) for label, values in variants.items()}
    repeats = {"float64": first_repeated_row(exact)} | {label: first_repeated_row(v) for label, v in variants.items()}
    return PrecisionTable(dtype, what, x, x_label, errors, repeats, notes)


def _bias_by_distance(scheme: str, length: int, d_model: int, base: float, options: dict) -> np.ndarray:
    """(length, heads): the exact bias of every head at offset j − i = −Δ, for Δ = 0 … length − 1."""
    _, values = get_scheme(scheme).offset_bias(length, d_model, base, **options)  # (heads, 2L − 1)
    return values[:, length - 1 :: -1].T if length else np.zeros((0, len(values)))


def _bias_in_dtype(scheme: str, length: int, d_model: int, options: dict, dtype: str) -> np.ndarray | None:
    """The bias by distance computed in ``dtype`` (ALiBi, Shaw), or None when it is only rounded (T5)."""
    import torch

    dt = torch_dtype(dtype)
    if scheme == "alibi":
        from posenc.schemes.alibi import alibi_slopes

        slopes = torch.as_tensor(alibi_slopes(options.get("num_heads", 8))).to(dt)  # (heads,)
        distance = torch.arange(length, dtype=dt)[:, None]  # (length, 1), Δ = i − j ≥ 0
        return as_float64(-(slopes[None, :] * distance))  # causal or not: keys before the query are seen
    if scheme == "shaw":
        from posenc.schemes.shaw import shaw_embeddings, shaw_query

        k, seed = options.get("max_relative_position", 16), options.get("seed", 0)
        a = torch.as_tensor(shaw_embeddings(k, d_model, seed=seed)).to(dt)  # (2k+1, d)
        q = torch.as_tensor(shaw_query(d_model, seed=seed)).to(dt)  # (d,)
        per_offset = (a @ q) / torch.tensor(math.sqrt(d_model), dtype=dt)  # (2k+1,) row r + k is offset r
        index = torch.clamp(-torch.arange(length), -k, k) + k
        return as_float64(per_offset[index][:, None])
    return None


def precision_table(scheme: str, length: int, d_model: int, base: float, dtype: str, *,
                    exact: np.ndarray | None = None, **options: object) -> PrecisionTable:
    """The scheme's table (RoPE: its cos/sin; bias schemes: the bias by distance) in ``dtype`` vs float64.

    ``exact``: the absolute scheme's float64 table when the caller has it already (else built here).
    """
    dtype = check_dtype(dtype)
    entry = get_scheme(scheme)
    rounded = f"rounded to {dtype}"
    if entry.family == "absolute":
        if exact is None:
            exact = entry.table(length, d_model, base, **options)  # (length, d_model), float64
        variants = {rounded: round_to(exact, dtype)}
        notes = ()
        if scheme == "sinusoidal":
            variants[f"computed in {dtype} (Annotated Transformer)"] = annotated_sinusoidal(
                length, d_model, base, dtype, **options)
        elif scheme == "learned":
            notes = ("A learned table is stored in the dtype: its error is the rounding of each weight.",)
        return _compare(dtype, "table", np.arange(length), "position", exact, variants, notes)
    if entry.family == "rotary":
        inv_freq, scale, _ = rope_frequencies(length, d_model, base, options)
        exact = np.concatenate(rope_cos_sin(length, inv_freq, scale, dtype, "float64"), axis=1)
        variants = {rounded: round_to(exact, dtype)}
        for variant in ROPE_VARIANTS:
            cos, sin = rope_cos_sin(length, inv_freq, scale, dtype, variant)
            variants[f"{variant} ({dtype})" if variant == "all in dtype" else f"{variant} to {dtype}"] = (
                np.concatenate([as_float64(cos), as_float64(sin)], axis=1))
        return _compare(dtype, "cos/sin of m·θ_i", np.arange(length), "position m", exact, variants)
    exact = _bias_by_distance(scheme, length, d_model, base, options)
    variants = {rounded: round_to(exact, dtype)}
    computed = _bias_in_dtype(scheme, length, d_model, options, dtype)
    notes = ("T5 computes its buckets in float32 whatever the model's dtype: its bias is its learned "
             "values, rounded.",) if computed is None else ()
    if computed is not None:
        variants[f"computed in {dtype}"] = computed
    return _compare(dtype, "bias", np.arange(length), "distance Δ = i − j (key before the query)", exact,
                    variants, notes)
