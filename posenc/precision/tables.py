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
   - xPos (arXiv:2212.10554): ζ_i^(m̂/γ)·cos/sin of m·θ_i, all in the dtype, and as torchscale's XPOS
     does it: ζ_i^(m̂/γ) in the dtype, m·θ_i in float32 then cast, cos/sin in the dtype;
   - ALiBi (arXiv:2108.12409): −m_h·Δ with the slope and the distance Δ in the dtype;
   - Shaw et al. (arXiv:1803.02155): q·a_r/√d with q and a_r in the dtype;
   - KERPLE (arXiv:2205.09921): −r1·ln(1 + r2·Δ) or −r1·Δ^r2 with r1, r2 and Δ in the dtype;
   - Transformer-XL (arXiv:1901.02860): (q + v)·W_R R_Δ/√d with R_Δ built in the dtype as its
     ``PositionalEmbedding`` does, and q, v, W_R in the dtype.
   T5 (arXiv:1910.10683) computes its buckets in float32 whatever the model's dtype, so its
   bias is its learned values rounded; a learned table is stored in the dtype (rounded); NoPE is 0.

Errors are max over dimensions (heads) of |value − exact|, position by position; for the bias
schemes, distance by distance Δ = i − j (keys before the query, seen by causal models too).
:data:`PRECISION` holds what each scheme's comparison states beyond its family's, keyed by the registry's key.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from posenc.precision.dtypes import check_dtype, first_repeated_row, max_abs_error, round_to
from posenc.schemes.registry import get_scheme
from posenc.schemes.scheme import Scheme, Setting
from posenc.schemes.xpos import (
    DEFAULT_SCALE_BASE,
    xpos_centre,
    xpos_keywords,
    xpos_scales,
    xpos_scores,
    xpos_theta,
)


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


def rope_variants(dtype: str) -> tuple[str, ...]:
    """The ways of :data:`ROPE_VARIANTS` that differ in ``dtype``: in float32, "float32, then cast" is "all in
    dtype", the same numbers (drawn twice, it was labelled "float32, then cast to float32")."""
    return ROPE_VARIANTS[:1] if check_dtype(dtype) == "float32" else ROPE_VARIANTS


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


XPOS_VARIANTS: tuple[str, ...] = ("all in dtype", "torchscale")


def xpos_cos_sin(length: int, d_model: int, base: float, dtype: str, variant: str, *,
                 scale_base: float = DEFAULT_SCALE_BASE, downscale: bool = False):
    """xPos's multipliers s_i(m)·cos mθ_i and s_i(m)·sin mθ_i for m < length, torch tensors (length, d/2).

    s_i(m) = ζ_i^(m̂/γ) (a query; ``downscale``: 1/ζ_i^(m̂/γ), a key), m̂ = m − ⌈length/2⌉ (arXiv:2212.10554):

    - ``"all in dtype"``: ζ_i, the positions, θ_i, m̂/γ, the power, the angles, cos/sin and the
      products in ``dtype``;
    - ``"torchscale"``: as torchscale 0.3.0's XPOS in a model of that dtype, bit for bit: ζ_i (its
      float32 buffer, cast), m̂/γ and the power in ``dtype``; the angles m·θ_i in float32 (its
      fixed_pos_embedding: θ_i = 1/(n^(j/(d/2))) and the positions in float32), then cast to ``dtype``
      before cos/sin (``.to(x)`` comes before ``torch.sin``), and the products in ``dtype``;
    - ``"float64"``: the exact values, for reference (:func:`posenc.schemes.xpos.xpos_scales`).
    A value past the dtype's largest number is ±inf, as torch gives it.
    """
    import torch

    work = torch.float64 if variant == "float64" else torch_dtype(dtype)
    theta, positions = xpos_theta(d_model, base), np.arange(length)
    if variant == "float64":
        scale = torch.as_tensor(xpos_scales(positions, d_model, scale_base, seq_len=length, downscale=downscale))
    elif variant == "torchscale":  # its buffer built in float32 and cast; positions from int64, cast, then /γ
        zeta = ((torch.arange(0, d_model, 2) + 0.4 * d_model) / (1.4 * d_model)).to(work)
        centred = (torch.arange(length) - xpos_centre(length)).to(work)
        scale = zeta ** centred.div(scale_base)[:, None]  # (length, d/2), in the dtype
    else:  # every number in the dtype, as arange(…, dtype=…) rounds them
        zeta = (torch.arange(0, d_model, 2, dtype=work) + 0.4 * d_model) / (1.4 * d_model)
        centred = torch.arange(-xpos_centre(length), length - xpos_centre(length), dtype=work)
        scale = zeta ** (centred / scale_base)[:, None]
    if downscale and variant != "float64":
        scale = 1 / scale  # in the dtype, as torchscale
    if variant == "torchscale":  # fixed_pos_embedding: float32 angles, cast to the dtype before cos/sin
        half = d_model // 2
        inv_freq = 1.0 / (torch.tensor(float(base)) ** (torch.arange(0, half) / half))
        angles = (torch.arange(length, dtype=torch.float32)[:, None] * inv_freq).to(work)  # (length, d/2)
    else:
        angles = torch.arange(length, dtype=work)[:, None] * torch.as_tensor(theta).to(work)
    return torch.cos(angles) * scale, torch.sin(angles) * scale


def xpos_shift_residual(q: np.ndarray, length: int, base: float, dtype: str, offset: int, variant: str, *,
                        scale_base: float = DEFAULT_SCALE_BASE) -> tuple[np.ndarray, np.ndarray, float]:
    """(positions p, |score(p, p − Δ) − exact|, the exact score) of xPos for a query at p and a key at p − Δ.

    The query q (also the key) is rounded to ``dtype``; the query's and the key's multipliers come
    from :func:`xpos_cos_sin` (``variant``), the rotation, the products and the sum are in ``dtype``.
    Exactly, the score Σ_i ζ_i^(Δ/γ)·q_iᵀR(−Δθ_i)q_i is the same at every p (the centre cancels);
    in the dtype the query's scale ζ^(p̂/γ) and the key's ζ^(−(p̂−Δ)/γ) are rounded separately, and
    far from the centre they leave the dtype's range (float16 above 65504): then the error is inf or NaN.
    """
    import torch

    check_dtype(dtype)
    if not 0 <= offset < length:
        raise ValueError(f"The offset Δ={offset} leaves no query and key inside length={length}: "
                         f"choose 0 ≤ Δ < {length}.")
    d_model, dt = len(q), torch_dtype(dtype)
    exact = float(xpos_scores(q, q, [offset], [0], base, scale_base=scale_base, seq_len=length)[0, 0])
    cos_q, sin_q = (t[offset:] for t in xpos_cos_sin(length, d_model, base, dtype, variant, scale_base=scale_base))
    cos_k, sin_k = (t[: length - offset] for t in xpos_cos_sin(length, d_model, base, dtype, variant,
                                                                scale_base=scale_base, downscale=True))
    x = torch.as_tensor(np.asarray(q, dtype=np.float64)).to(dt)
    a, b = x[0::2], x[1::2]  # the pairs (2i, 2i+1)
    qa, qb = a * cos_q - b * sin_q, a * sin_q + b * cos_q  # (length − Δ, d/2), in dt
    ka, kb = a * cos_k - b * sin_k, a * sin_k + b * cos_k
    computed = as_float64((qa * ka + qb * kb).sum(-1))
    with np.errstate(invalid="ignore"):
        return np.arange(offset, length), np.abs(computed - exact), exact


@dataclass(frozen=True)
class PrecisionTable:
    """A scheme's numbers in one dtype, compared with float64 row by row.

    ``x`` are positions (tables, RoPE's cos/sin) or distances Δ = i − j (biases);
    ``errors[label]`` is max over the row of |value − exact| (NaN where there is no encoding);
    ``first_repeat[label]`` the first row equal to an earlier one bit for bit (None: none).
    """

    dtype: str
    what: str  # e.g. "table", "cos/sin of m·θᵢ", "bias"
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


# Each scheme's comparison, one signature: (entry, setting, dtype, exact) -> PrecisionTable, the setting's
# options complete (the registry's defaults merged), ``exact`` the absolute scheme's float64 table or None.

def table_precision(entry: Scheme, setting: Setting, dtype: str, exact: np.ndarray | None, *,
                    computed: Callable[[Setting, str], dict[str, np.ndarray]] | None = None,
                    notes: tuple[str, ...] = ()) -> PrecisionTable:
    """An absolute scheme's table by position (the family's default): rounded to ``dtype`` and, when given,
    ``computed(setting, dtype)``'s ways of building it in the dtype."""
    length = setting.length
    if exact is None:
        exact = entry.table(length, setting.d_model, setting.base, **setting.options)  # (length, d_model), float64
    variants = {f"rounded to {dtype}": round_to(exact, dtype)}
    if computed is not None:
        variants |= computed(setting, dtype)
    return _compare(dtype, "table", np.arange(length), "position", exact, variants, notes)


def _annotated_transformer(setting: Setting, dtype: str) -> dict[str, np.ndarray]:
    """The sinusoidal table built in ``dtype`` as the Annotated Transformer does (:func:`annotated_sinusoidal`)."""
    table = annotated_sinusoidal(setting.length, setting.d_model, setting.base, dtype, **setting.options)
    return {f"computed in {dtype} (Annotated Transformer)": table}


def _rope_precision(entry: Scheme, setting: Setting, dtype: str, exact: np.ndarray | None) -> PrecisionTable:
    """RoPE's cos/sin of m·θ_i by position (:func:`rope_cos_sin`): rounded, all in the dtype, float32 then cast
    (:func:`rope_variants`: not in float32, where it is all in the dtype)."""
    length = setting.length
    inv_freq, scale, _ = rope_frequencies(length, setting.d_model, setting.base, dict(setting.options))
    exact = np.concatenate(rope_cos_sin(length, inv_freq, scale, dtype, "float64"), axis=1)
    variants = {f"rounded to {dtype}": round_to(exact, dtype)}
    for variant in rope_variants(dtype):
        cos, sin = rope_cos_sin(length, inv_freq, scale, dtype, variant)
        variants[f"{variant} ({dtype})" if variant == "all in dtype" else f"{variant} to {dtype}"] = (
            np.concatenate([as_float64(cos), as_float64(sin)], axis=1))
    return _compare(dtype, "cos/sin of m·θᵢ", np.arange(length), "position m", exact, variants)


def _xpos_precision(entry: Scheme, setting: Setting, dtype: str, exact: np.ndarray | None) -> PrecisionTable:
    """xPos's query multipliers ζ_i^(m̂/γ)·(cos mθ_i, sin mθ_i) in ``dtype`` (:func:`xpos_cos_sin`) vs float64."""
    length, d_model, base = setting.length, setting.d_model, setting.base
    keywords = xpos_keywords(dict(setting.options))
    exact = np.concatenate([as_float64(t) for t in xpos_cos_sin(length, d_model, base, dtype, "float64",
                                                                **keywords)], axis=1)  # (length, d)
    with np.errstate(over="ignore"):  # past the dtype's largest number: ±inf, as in torch
        variants = {f"rounded to {dtype}": round_to(exact, dtype)}
    labels = {"all in dtype": f"all in dtype ({dtype})",
              "torchscale": f"torchscale: m·θ in float32, cos/sin and ζ^(m̂/γ) in {dtype}"}
    for variant in XPOS_VARIANTS:
        variants[labels[variant]] = np.concatenate(
            [as_float64(t) for t in xpos_cos_sin(length, d_model, base, dtype, variant, **keywords)], axis=1)
    notes = ("The query's multipliers: cos and sin of m·θᵢ times its scale ζᵢ^(m̂/γ), m̂ = m − ⌈L/2⌉ "
             "(the key's are divided by the scale instead).",)
    if not all(np.isfinite(v).all() for v in variants.values()):
        notes += (f"Some scales ζ_i^(m̂/γ) are past {dtype}'s largest number, far from the centre ⌈L/2⌉: "
                  "the error is infinite there (a smaller length or a larger γ stays inside).",)
    return _compare(dtype, "scaled cos/sin of m·θᵢ", np.arange(length), "position m", exact, variants, notes)


def bias_precision(entry: Scheme, setting: Setting, dtype: str, exact: np.ndarray | None, *,
                   computed: Callable[[Setting, object], object] | None = None,
                   notes: tuple[str, ...] = ()) -> PrecisionTable:
    """A bias scheme's bias by distance Δ = i − j (the family's default): rounded to ``dtype`` and, when given,
    computed in it by ``computed(setting, torch_dtype)``, a (length, heads) tensor. ``exact`` is unused (a bias
    scheme has no table)."""
    length = setting.length
    exact = _bias_by_distance(entry, setting)
    rounded = f"rounded to {dtype}"
    with np.errstate(over="ignore"):  # a bias past the dtype's range (KERPLE's power kernel) becomes −inf
        variants = {rounded: round_to(exact, dtype)}
    notes += _overflow_note(exact, variants[rounded], dtype)
    if computed is not None:
        variants[f"computed in {dtype}"] = as_float64(computed(setting, torch_dtype(dtype)))
    return _compare(dtype, "bias", np.arange(length), "distance Δ = i − j (key before the query)", exact,
                    variants, notes)


def _bias_by_distance(entry: Scheme, setting: Setting) -> np.ndarray:
    """(length, heads): the exact bias of every head at offset j − i = −Δ, for Δ = 0 … length − 1."""
    length = setting.length
    _, values = entry.offset_bias(length, setting.d_model, setting.base, **setting.options)  # (heads, 2L − 1)
    return values[:, length - 1 :: -1].T if length else np.zeros((0, len(values)))


def _overflow_note(exact: np.ndarray, rounded: np.ndarray, dtype: str) -> tuple[str, ...]:
    """A sentence when the bias is past the dtype's largest finite number at some distance (it is ±inf there)."""
    past = (np.isfinite(exact) & np.isinf(rounded)).any(axis=1)  # (length,), by distance
    if not past.any():
        return ()
    import torch

    first = int(np.argmax(past))
    value, largest = exact[first][np.isinf(rounded[first])][0], torch.finfo(torch_dtype(dtype)).max
    return (f"From distance {first} on the bias (there {value:.4g}) is past the largest finite {dtype}, "
            f"{largest:g}: in {dtype} it is −inf, so those keys get no attention at all.",)


# A bias computed in the dtype, one signature: (setting, dt) -> (length, heads) tensor in dt.

def _alibi_in_dtype(setting: Setting, dt):
    """ALiBi (arXiv:2108.12409): −m_h·Δ with the slopes m_h and the distance Δ in ``dt``; causal or not, the keys
    before the query are seen."""
    import torch

    from posenc.schemes.alibi import alibi_slopes

    length, options = setting.length, setting.options
    slopes = torch.as_tensor(alibi_slopes(options["num_heads"])).to(dt)  # (heads,)
    distance = torch.arange(length, dtype=dt)[:, None]  # (length, 1), Δ = i − j ≥ 0
    return -(slopes[None, :] * distance)


def _shaw_in_dtype(setting: Setting, dt):
    """Shaw et al. (arXiv:1803.02155): q·a_clip(−Δ)/√d with q and the vectors a_r in ``dt``, (length, 1)."""
    import torch

    from posenc.schemes.shaw import shaw_embeddings, shaw_query

    length, d_model, options = setting.length, setting.d_model, setting.options
    k, seed = options["max_relative_position"], options["seed"]
    a = torch.as_tensor(shaw_embeddings(k, d_model, seed=seed)).to(dt)  # (2k+1, d)
    q = torch.as_tensor(shaw_query(d_model, seed=seed)).to(dt)  # (d,)
    per_offset = (a @ q) / torch.tensor(math.sqrt(d_model), dtype=dt)  # (2k+1,) row r + k is offset r
    index = torch.clamp(-torch.arange(length), -k, k) + k
    return per_offset[index][:, None]


def _kerple_in_dtype(setting: Setting, dt):
    """KERPLE (arXiv:2205.09921): −r1·ln(1 + r2·Δ) or −r1·Δ^r2 with r1, r2 and Δ in ``dt``, (length, 1)."""
    import torch

    from posenc.schemes.kerple import check_kerple_parameters

    length, options = setting.length, setting.options
    r1, r2, variant = check_kerple_parameters(options["r1"], options["r2"], options["variant"])
    distance = torch.arange(length, dtype=dt)[:, None]  # Δ = i − j ≥ 0
    r1, r2 = torch.tensor(r1, dtype=dt), torch.tensor(r2, dtype=dt)
    return -r1 * (torch.log1p(r2 * distance) if variant == "log" else distance.pow(r2))


def _transformer_xl_in_dtype(setting: Setting, dt):
    """Transformer-XL (arXiv:1901.02860) as its PositionalEmbedding and r_net compute it, every tensor in ``dt``:
    inv_freq = 1/(n^(arange(0, d, 2)/d)), R = [sin | cos](Δ·inv_freq), then (q + v)·W_R R/√d; (length, 1)."""
    import torch

    from posenc.schemes.shaw import shaw_query
    from posenc.schemes.transformer_xl import transformer_xl_parameters

    length, d_model, base, options = setting.length, setting.d_model, setting.base, setting.options
    seed = options["seed"]
    _, v, w_r = transformer_xl_parameters(d_model, d_model, seed=seed)
    query = torch.as_tensor(shaw_query(d_model, seed=seed)).to(dt) + torch.as_tensor(v).to(dt)  # q + v, (d,)
    inv_freq = 1 / (torch.tensor(base, dtype=dt) ** (torch.arange(0.0, d_model, 2.0, dtype=dt) / d_model))
    phase = torch.outer(torch.arange(length, dtype=dt), inv_freq)  # (length, d/2), Δ = i − j ≥ 0
    projected = torch.cat([phase.sin(), phase.cos()], dim=1) @ torch.as_tensor(w_r).to(dt).T  # (length, d): W_R R_Δ
    return (projected @ query / torch.tensor(math.sqrt(d_model), dtype=dt))[:, None]


@dataclass(frozen=True)
class Precision:
    """A scheme's precision study: ``table(entry, setting, dtype, exact)`` → its :class:`PrecisionTable`, and the
    names of the Precision page's sections under "The relative-position property" (posenc.ui.precision_views
    draws each by name). Either left out: the family's default (absolute: :func:`table_precision` and the
    "no_relative" section; bias: :func:`bias_precision` and the "bias" section; a rotation has none)."""

    table: Callable[[Scheme, Setting, str, np.ndarray | None], PrecisionTable] | None = None
    sections: tuple[str, ...] = ()


_FAMILY_PRECISION = {"absolute": Precision(table_precision, ("no_relative",)),
                     "bias": Precision(bias_precision, ("bias",))}

PRECISION: dict[str, Precision] = {
    "sinusoidal": Precision(partial(table_precision, computed=_annotated_transformer), ("rotation", "theta")),
    "learned": Precision(partial(table_precision, notes=(
        "A learned table is stored in the dtype: its error is the rounding of each weight.",))),
    "rope": Precision(_rope_precision, ("rope_shift", "theta")),
    "xpos": Precision(_xpos_precision, ("xpos_shift", "theta")),
    "shaw": Precision(partial(bias_precision, computed=_shaw_in_dtype)),
    "t5": Precision(partial(bias_precision, notes=(
        "T5 computes its buckets in float32 whatever the model's dtype: its bias is its learned values, rounded.",))),
    "alibi": Precision(partial(bias_precision, computed=_alibi_in_dtype)),
    "kerple": Precision(partial(bias_precision, computed=_kerple_in_dtype)),
    "transformer_xl": Precision(partial(bias_precision, computed=_transformer_xl_in_dtype)),
}
"""Each scheme's precision record, by registry key (posenc.SCHEMES), stating what differs from its family's
(NoPE states nothing). A new absolute or bias scheme adds an entry only to compute its numbers in the dtype as
common code does, or to add a note or a section; a rotation states its own. tests/precision checks it."""


def precision_of(scheme: str) -> Precision:
    """The scheme's precision record with its family's defaults filled in, or a ValueError naming what is missing."""
    entry = get_scheme(scheme)
    own, family = PRECISION.get(entry.key, Precision()), _FAMILY_PRECISION.get(entry.family, Precision())
    record = Precision(own.table or family.table, own.sections or family.sections)
    if record.table is None or not record.sections:
        raise ValueError(f"The scheme {entry.key!r} has no precision record (posenc.precision.tables.PRECISION): "
                         f"a {entry.family} scheme states its own table and sections.")
    return record


def precision_table(scheme: str, length: int, d_model: int, base: float, dtype: str, *,
                    exact: np.ndarray | None = None, **options: object) -> PrecisionTable:
    """The scheme's table (RoPE: its cos/sin; xPos: its scaled cos/sin; bias schemes: the bias by distance) in
    ``dtype`` vs float64 (its :func:`precision_of` record); options default as in the app.

    ``exact``: the absolute scheme's float64 table when the caller has it already (else built here).
    """
    dtype = check_dtype(dtype)
    entry = get_scheme(scheme)
    options = entry.defaults() | dict(options)
    return precision_of(scheme).table(entry, Setting(length, d_model, base, options), dtype, exact)
