"""The relative-position property in low precision, and seed 003's log-space θ (imports torch).

- Sinusoidal (Vaswani et al., arXiv:1706.03762): PE[p + k] = M_k·PE[p] holds exactly; in a
  dtype the residual max_d |M_k·PE[p] − PE[p + k]|, with the table, M_k and the product in
  the dtype, is what is left of it.
- RoPE (Su et al., arXiv:2104.09864): ⟨R_m q, R_n k⟩ depends on m − n only. In a dtype the
  score of a query at p and a key at p − Δ drifts from the exact score as p grows, a lot when
  the positions and angles themselves are in bfloat16 and little when cos/sin come from
  float32 (Wang et al. 2024, "When Precision Meets Position: BFloat16 Breaks Down RoPE in
  Long-Context Training", arXiv:2411.13476; Hugging Face's Llama computes cos/sin in float32).
- θ_i = n^(−2i/d) computed as exp(−2i·ln n/d) ("log space", seed 003 and the Annotated
  Transformer) or as the power itself, each in the dtype, against float64.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from posenc.precision.dtypes import check_dtype, verdict
from posenc.precision.tables import as_float64, rope_cos_sin, rope_frequencies, torch_dtype
from posenc.schemes.sinusoidal import frequencies


def rotation_residual(table, k: int, d_model: int, base: float, dtype: str, *,
                      layout: str = "interleaved", spacing: str = "vaswani") -> np.ndarray:
    """max over pairs of |M_k·T[p] − T[p + k]| for p = 0 … length − 1 − k, with M_k·T[p] computed in ``dtype``.

    ``table`` holds values of ``dtype`` (a torch tensor, or a numpy array of such values);
    pair i is columns (2i, 2i + 1) (interleaved) or (i, h + i) (split); an odd d_model's last
    column has no partner and is left out. The blocks cos kθ_i, sin kθ_i are rounded to
    ``dtype``. The residual of the dtype's results is taken in float32: exact for float16 and
    bfloat16 values of similar size, within a relative 6e-8 of itself otherwise.
    """
    import torch

    if not 0 <= k < len(table):
        raise ValueError(f"The offset k={k} leaves no pair of positions inside length={len(table)}: "
                         f"choose 0 ≤ k < {len(table)}.")
    dt = torch_dtype(dtype)
    pairs, rows = d_model // 2, len(table) - k
    if not pairs:
        return np.zeros(rows)
    angle = k * frequencies(d_model, base, spacing=spacing)[:pairs]  # (pairs,)
    c, s = torch.as_tensor(np.cos(angle)).to(dt), torch.as_tensor(np.sin(angle)).to(dt)
    t = torch.as_tensor(table).to(dt)
    if layout == "split":
        first, second = t[:, :pairs], t[:, pairs : 2 * pairs]
    else:
        first, second = t[:, 0 : 2 * pairs : 2], t[:, 1 : 2 * pairs : 2]  # sin, cos of each pair
    first, second = first.contiguous(), second.contiguous()  # (length, pairs)
    predicted_first = c * first[:rows] + s * second[:rows]  # (length − k, pairs), in dt
    predicted_second = -s * first[:rows] + c * second[:rows]
    gap = torch.maximum((predicted_first.float() - first[k:].float()).abs(),
                        (predicted_second.float() - second[k:].float()).abs())
    return gap.amax(dim=1).double().numpy()


def sinusoidal_rotation_residuals(length: int, d_model: int, base: float, dtype: str, k: int = 1, *,
                                  layout: str = "interleaved", spacing: str = "vaswani",
                                  exact: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The rotation residual at p = 0 … length − 1 − k, for the table rounded to ``dtype`` and for
    the table computed in ``dtype`` (:func:`posenc.precision.tables.annotated_sinusoidal`).

    ``exact``: the float64 table :func:`posenc.sinusoidal` gives, when the caller has it already.
    """
    from posenc.precision.dtypes import round_to
    from posenc.precision.tables import annotated_sinusoidal_tensor
    from posenc.schemes.sinusoidal import sinusoidal

    if exact is None:
        exact = sinusoidal(length, d_model, base, layout=layout, spacing=spacing)
    tables = {f"rounded to {dtype}": round_to(exact, dtype),
              f"computed in {dtype} (Annotated Transformer)": annotated_sinusoidal_tensor(
                  length, d_model, base, dtype, layout=layout, spacing=spacing)}
    return {label: rotation_residual(table, k, d_model, base, dtype, layout=layout, spacing=spacing)
            for label, table in tables.items()}


def unit_query_key(d_model: int) -> tuple[np.ndarray, np.ndarray]:
    """The query and the key: one fixed random vector of norm 1 (seed 0), used as both.

    With q = k the score at offset Δ is Σ_i ‖q_i‖²·cos(Δθ_i) (+ the unrotated part): 1 at
    Δ = 0 and close to 1 for small Δ, so an error reads as a share of the score.
    """
    q = np.random.default_rng(0).normal(size=d_model)
    q /= np.linalg.norm(q)
    return q, q.copy()


def _rotated_pairs(x, cos, sin, layout: str):
    """(a', b', rest) of x rotated by (cos, sin): a' = a·cos − b·sin, b' = a·sin + b·cos, in x's dtype."""
    d_rot = 2 * cos.shape[-1]
    if layout == "interleaved":
        a, b = x[..., 0:d_rot:2], x[..., 1:d_rot:2]
    else:
        a, b = x[..., : d_rot // 2], x[..., d_rot // 2 : d_rot]
    return a * cos - b * sin, a * sin + b * cos, x[..., d_rot:]


def rope_shift_residual(length: int, d_model: int, base: float, dtype: str, offset: int, variant: str,
                        **options: object) -> tuple[np.ndarray, np.ndarray, float]:
    """(positions p, |score(p, p − Δ) − exact|, the exact score) for a query at p and a key at p − Δ.

    q and k are :func:`unit_query_key`, rounded to ``dtype``; cos/sin come from
    :func:`posenc.precision.tables.rope_cos_sin` (``variant``: "all in dtype" or
    "float32, then cast"); the rotation, the products and the sum are in ``dtype``. The exact
    score ⟨R_p q, R_{p−Δ} k⟩ (float64) is the same for every p: any drift breaks RoPE's
    relative property. ``offset`` Δ must lie in 0 … length − 1.
    """
    import torch

    check_dtype(dtype)
    if not 0 <= offset < length:
        raise ValueError(f"The offset Δ={offset} leaves no query and key inside length={length}: "
                         f"choose 0 ≤ Δ < {length}.")
    inv_freq, scale, layout = rope_frequencies(length, d_model, base, options)
    q, k = unit_query_key(d_model)
    exact_cos, exact_sin = (as_float64(t) for t in rope_cos_sin(offset + 1, inv_freq, scale, dtype, "float64"))
    exact = _score(torch.as_tensor(q), torch.as_tensor(k), torch.as_tensor(exact_cos[offset:]),
                   torch.as_tensor(exact_sin[offset:]), torch.as_tensor(exact_cos[:1]),
                   torch.as_tensor(exact_sin[:1]), layout)
    dt = torch_dtype(dtype)
    cos, sin = rope_cos_sin(length, inv_freq, scale, dtype, variant)
    scores = _score(torch.as_tensor(q).to(dt), torch.as_tensor(k).to(dt), cos[offset:], sin[offset:],
                    cos[: length - offset], sin[: length - offset], layout)
    exact_score = float(as_float64(exact)[0])
    return np.arange(offset, length), np.abs(as_float64(scores) - exact_score), exact_score


def _score(q, k, cos_q, sin_q, cos_k, sin_k, layout: str):
    """⟨R q, R k⟩ for each row of the cos/sin tables (query and key rows paired), in q's dtype."""
    qa, qb, q_rest = _rotated_pairs(q[None, :], cos_q, sin_q, layout)
    ka, kb, k_rest = _rotated_pairs(k[None, :], cos_k, sin_k, layout)
    return (qa * ka).sum(-1) + (qb * kb).sum(-1) + (q_rest * k_rest).sum(-1)


@dataclass(frozen=True)
class ThetaForms:
    """θ_i = n^(−2i/d) computed two ways in one dtype, against float64 (seed 003's claim)."""

    dtype: str
    index: np.ndarray  # i = 0 … ⌈d/2⌉ − 1
    exact: np.ndarray  # float64
    log_space: np.ndarray  # exp(arange(0, d, 2) · (−ln n / d)) in dtype
    power: np.ndarray  # n ** (−arange(0, d, 2) / d) in dtype
    log_error: np.ndarray  # |θ − exact| / exact
    power_error: np.ndarray
    verdict: str

    @property
    def max_log_error(self) -> float:
        return float(self.log_error.max()) if self.log_error.size else 0.0

    @property
    def max_power_error(self) -> float:
        return float(self.power_error.max()) if self.power_error.size else 0.0


def theta_forms(d_model: int, base: float, dtype: str) -> ThetaForms:
    """Seed 003's log-space θ against the direct power, each computed in ``dtype`` with torch.

        log space:  θ_i = exp(2i · (−ln n / d))        (torch.exp(torch.arange(0, d, 2) * (-math.log(n) / d)))
        power:      θ_i = n^(−2i / d)                   (n ** (-torch.arange(0, d, 2) / d))

    Relative errors |θ_i − θ_i^exact| / θ_i^exact with θ^exact in float64 (Vaswani et al.,
    arXiv:1706.03762); an overflow or a θ rounded to 0 shows as an error of inf or 1.
    """
    import torch

    dtype = check_dtype(dtype)
    exact = frequencies(d_model, base)  # (⌈d/2⌉,), float64, validates d_model and base
    dt = torch_dtype(dtype)
    two_i = torch.arange(0, d_model, 2, dtype=dt)
    log_space = as_float64(torch.exp(two_i * (-math.log(base) / d_model)))
    power = as_float64(base ** (-two_i / d_model))
    with np.errstate(invalid="ignore", over="ignore"):
        log_error, power_error = (np.abs(values - exact) / exact for values in (log_space, power))
    log_error, power_error = np.nan_to_num(log_error, nan=np.inf), np.nan_to_num(power_error, nan=np.inf)
    sentence = verdict(float(log_error.max()), float(power_error.max()), dtype, base)
    return ThetaForms(dtype, np.arange(len(exact)), exact, log_space, power, log_error, power_error, sentence)
