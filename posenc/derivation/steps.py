"""The numbers of the derivation, step by step (Vaswani et al. 2017, arXiv:1706.03762, §3.5).

Why the sinusoidal encoding lets attention use relative position, in the order of the
seeds: the formula, θ_i, the angle-addition identities, the rotation M_k, its residual,
M₋ₖ = M_kᵀ, the offset-only dot product, adding vs concatenating, and the torch module.
Each ``*_step`` function computes every number its step shows, from posenc's own
functions (pure numpy). Step 9, the torch module run live, is :mod:`posenc.derivation.torch_module`
(it imports torch, lazily); LaTeX of the formulas, with these numbers substituted, is
:mod:`posenc.derivation.latex`.

``i`` always names a (sin, cos) pair: columns 2i and 2i + 1, 0 ≤ i < ⌊d_model/2⌋.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from posenc.analysis.distances import offset_spread
from posenc.analysis.similarity import similarity_matrix
from posenc.checks import check_int
from posenc.schemes.sinusoidal import (
    apply_rotation,
    frequencies,
    rotation_blocks,
    rotation_matrix,
    sinusoidal,
    sinusoidal_cells,
)

STEPS: tuple[str, ...] = (
    "The formula, and the first rows of PE",
    "θᵢ two ways: a power, or exp in log space",
    "Angle addition, both sides evaluated",
    "The rotation M_k: one 2×2 block per pair",
    "M_k·PE[pos] next to PE[pos+k]",
    "Looking back: M₋ₖ = M_kᵀ",
    "Why attention can use relative position",
    "Adding, not concatenating",
    "The module: a buffer, and dropout after the sum",
)
QUIET_RANGE = 0.05  # a dimension "barely changes" when its values span less than 2.5% of [−1, 1]
SPREAD_POSITIONS = 512  # the all-diagonals measurement of step 7 uses the first 512 positions at most


def pair_count(d_model: int) -> int:
    """Number of complete (sin, cos) pairs, ⌊d_model/2⌋ (an odd d_model ends with a lone sine)."""
    return d_model // 2


def _check_pair(i: int, d_model: int) -> int:
    i = check_int(i, "i", minimum=0, meaning="the index of a (sin, cos) pair")
    if i >= pair_count(d_model):
        raise ValueError(f"d_model={d_model} has {pair_count(d_model)} (sin, cos) pairs, so i must be "
                         f"below {pair_count(d_model)}; got {i}.")
    return i


@dataclass(frozen=True)
class FormulaStep:
    """Step 1: PE[pos, 2i] = sin(pos·θ_i), PE[pos, 2i+1] = cos(pos·θ_i), and the first rows."""

    d_model: int
    base: float
    pos: int
    i: int
    theta: float  # θ_i
    phase: float  # pos·θ_i
    sin_value: float  # PE[pos, 2i]
    cos_value: float  # PE[pos, 2i+1]
    rows: np.ndarray  # (rows, columns shown) first rows of PE


def formula_step(d_model: int, base: float, pos: int, i: int, *, rows: int = 4, columns: int = 8) -> FormulaStep:
    """The formula evaluated at (pos, i), and PE[:rows, :columns] (seed 000: d=4, n=10000; seed 001: n=100)."""
    i = _check_pair(i, d_model)
    pos = check_int(pos, "pos", minimum=0, meaning="a position")
    theta = float(frequencies(d_model, base)[i])
    phase = pos * theta
    table = sinusoidal(rows, d_model, base)[:, :columns]
    return FormulaStep(d_model, float(base), pos, i, theta, phase, float(np.sin(phase)), float(np.cos(phase)), table)


@dataclass(frozen=True)
class ThetaStep:
    """Step 2: θ_i = 1/n^(2i/d) (seeds 000–002) and θ_i = exp(2i·(−ln n/d)) (seed 003)."""

    i: int
    values: dict[str, np.ndarray]  # "power float64", "exp float64", "power float32", "exp float32": all pairs
    reference: np.ndarray  # θ_i of every pair in extended precision (float64 where none is available)
    errors: dict[str, np.ndarray]  # relative error of each way against the reference, every pair
    max_errors: dict[str, float]
    gap64: float  # max_i |power − exp| in float64
    gap32: float  # max_i |power − exp| in float32
    extended: bool  # whether the reference has more precision than float64
    verdict: str


def theta_ways(d_model: int, base: float, dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """θ_i of every pair computed the two ways, every operation in ``dtype``:
    ``1 / base ** (2i / d_model)`` and ``exp(2i · (−ln base / d_model))``."""
    f = np.dtype(dtype).type
    two_i = np.arange(0, 2 * pair_count(d_model), 2).astype(dtype)  # 2i, i = 0 … d/2 − 1
    power = f(1) / f(base) ** (two_i / f(d_model))
    log_space = np.exp(two_i * (-np.log(f(base)) / f(d_model)))
    return power.astype(dtype), log_space.astype(dtype)


def _verdict(max_errors: dict[str, float]) -> str:
    """What the measured errors say about 'the log-space form is more stable'."""
    parts = []
    for bits in ("float64", "float32"):
        power, exp = max_errors[f"power {bits}"], max_errors[f"exp {bits}"]
        ratio = exp / power if power > 0 else np.inf if exp > 0 else 1.0
        if ratio > 1.5:
            parts.append(f"in {bits} the exp form is the less accurate ({exp:.1e} against {power:.1e}, "
                         f"{ratio:.1f}× larger)")
        elif ratio < 1 / 1.5:
            parts.append(f"in {bits} the exp form is the more accurate ({exp:.1e} against {power:.1e})")
        else:
            parts.append(f"in {bits} the two agree in accuracy ({exp:.1e} and {power:.1e})")
    eps32 = float(np.finfo(np.float32).eps)
    worst32 = max(max_errors["power float32"], max_errors["exp float32"])
    why = (" A rounding error in ln n/d is multiplied by 2i in the exponent, so the exp form does not "
           "win on accuracy; its merit is one vectorised exp over a tensor of 2i, not stability."
           if max_errors["exp float32"] > max_errors["power float32"] else "")
    return ("Measured, not assumed: " + "; ".join(parts) + f". Both ways stay within {worst32 / eps32:.1f} "
            f"float32 machine epsilons (ε = {eps32:.1e}) of the exact θᵢ." + why)


def theta_step(d_model: int, base: float, i: int) -> ThetaStep:
    """Both ways in float64 and float32, against θ_i in extended precision (np.longdouble)."""
    i = _check_pair(i, d_model)
    extended = np.finfo(np.longdouble).eps < np.finfo(np.float64).eps
    wide = np.longdouble if extended else np.float64
    two_i = np.arange(0, 2 * pair_count(d_model), 2).astype(wide)
    reference = np.exp(-(two_i / wide(d_model)) * np.log(wide(base)))
    values = {}
    for dtype in (np.float64, np.float32):
        power, log_space = theta_ways(d_model, base, dtype)
        values[f"power {np.dtype(dtype).name}"] = power
        values[f"exp {np.dtype(dtype).name}"] = log_space
    errors = {name: np.abs((v.astype(wide) - reference) / reference).astype(np.float64) for name, v in values.items()}
    max_errors = {name: float(e.max()) for name, e in errors.items()}
    gap64 = float(np.abs(values["power float64"] - values["exp float64"]).max())
    gap32 = float(np.abs(values["power float32"] - values["exp float32"]).max())
    return ThetaStep(i, values, reference.astype(np.float64), errors, max_errors, gap64, gap32, bool(extended),
                     _verdict(max_errors))


@dataclass(frozen=True)
class AngleStep:
    """Step 3: sin((pos+k)θ) = sin(posθ)cos(kθ) + cos(posθ)sin(kθ), cos((pos+k)θ) = cos cos − sin sin."""

    pos: int
    k: int
    i: int
    theta: float
    sin_pos: float
    cos_pos: float
    sin_k: float
    cos_k: float
    sin_sum: float  # sin((pos+k)θ_i), evaluated directly
    cos_sum: float  # cos((pos+k)θ_i), evaluated directly
    sin_rhs: float  # sin(posθ)cos(kθ) + cos(posθ)sin(kθ)
    cos_rhs: float  # cos(posθ)cos(kθ) − sin(posθ)sin(kθ)

    @property
    def gap(self) -> float:
        return max(abs(self.sin_sum - self.sin_rhs), abs(self.cos_sum - self.cos_rhs))


def angle_step(d_model: int, base: float, pos: int, k: int, i: int) -> AngleStep:
    """Both sides of the two angle-addition identities for pair i (seed 000)."""
    i = _check_pair(i, d_model)
    theta = float(frequencies(d_model, base)[i])
    sin_pos, cos_pos = np.sin(pos * theta), np.cos(pos * theta)
    sin_k, cos_k = np.sin(k * theta), np.cos(k * theta)
    return AngleStep(pos, k, i, theta, float(sin_pos), float(cos_pos), float(sin_k), float(cos_k),
                     float(np.sin((pos + k) * theta)), float(np.cos((pos + k) * theta)),
                     float(sin_pos * cos_k + cos_pos * sin_k), float(cos_pos * cos_k - sin_pos * sin_k))


@dataclass(frozen=True)
class BlockStep:
    """Step 4: B_i = [[cos kθ_i, sin kθ_i], [−sin kθ_i, cos kθ_i]] and M_k = diag(B_0, …)."""

    k: int
    i: int
    angle: float  # k·θ_i in radians
    block: np.ndarray  # (2, 2)
    determinant: float
    corner: np.ndarray  # (m, m): M_k itself when d_model ≤ m, else its top-left m × m
    d_model: int


def block_step(d_model: int, base: float, k: int, i: int, *, corner: int = 64) -> BlockStep:
    """The block of pair i and (the top-left ``corner`` × ``corner`` of) M_k; d_model must be even."""
    i = _check_pair(i, d_model)
    block = rotation_blocks(k, d_model, base)[i]
    size = min(d_model, corner)
    matrix = rotation_matrix(k, d_model, base)[:size, :size]
    angle = float(k * frequencies(d_model, base)[i])
    return BlockStep(k, i, angle, block, float(np.linalg.det(block)), matrix, d_model)


@dataclass(frozen=True)
class ResidualStep:
    """Step 5: M_k·PE[pos] against PE[pos+k], every dimension."""

    pos: int
    k: int
    pe_pos: np.ndarray  # (d,)
    rotated: np.ndarray  # (d,) M_k·PE[pos]
    target: np.ndarray  # (d,) PE[pos+k]
    residual: np.ndarray  # (d,) rotated − target
    max_abs: float


def residual_step(d_model: int, base: float, pos: int, k: int) -> ResidualStep:
    """M_k·PE[pos] − PE[pos+k] in float64 (d_model even, pos + k ≥ 0)."""
    if pos + k < 0:
        raise ValueError(f"pos + k must be a position (≥ 0); got pos={pos}, k={k}.")
    pe_pos, target = sinusoidal_cells([pos, pos + k], np.arange(d_model), d_model, base)  # the table's two rows
    rotated = apply_rotation(k, pe_pos[None, :], base)[0]
    residual = rotated - target
    return ResidualStep(pos, k, pe_pos, rotated, target, residual, float(np.abs(residual).max()))


@dataclass(frozen=True)
class TransposeStep:
    """Step 6: M₋ₖ = M_kᵀ block by block, and M_kᵀ·PE[pos+k] = PE[pos]."""

    k: int
    i: int
    block_minus: np.ndarray  # (2, 2) B_i of M₋ₖ
    block_transposed: np.ndarray  # (2, 2) B_iᵀ of M_k
    gap: float  # max |M₋ₖ − M_kᵀ| over every block
    back_residual: float  # max |M₋ₖ·PE[pos+k] − PE[pos]|


def transpose_step(d_model: int, base: float, pos: int, k: int, i: int) -> TransposeStep:
    i = _check_pair(i, d_model)
    minus, plus = rotation_blocks(-k, d_model, base), rotation_blocks(k, d_model, base)
    transposed = plus.transpose(0, 2, 1)
    back = residual_step(d_model, base, pos + k, -k).max_abs
    return TransposeStep(k, i, minus[i], transposed[i], float(np.abs(minus - transposed).max()), back)


@dataclass(frozen=True)
class SimilarityStep:
    """Step 7: PE[p]·PE[p+k] = Σ_i cos(kθ_i) for every p (even d_model): the same along a diagonal."""

    pos: int
    k: int
    length: int
    dot: float  # PE[pos]·PE[pos+k]
    cos_sum: float  # Σ_i cos(kθ_i) over the complete pairs
    lone_sine: float  # sin(pos·θ)·sin((pos+k)·θ) of an odd d_model's last column, else 0
    positions: np.ndarray  # p with 0 ≤ p, p + k < length
    diagonal: np.ndarray  # PE[p]·PE[p+k] at those p
    spread: float  # max − min along that diagonal
    spread_all: float  # max over every offset of the spread, first ``spread_positions`` positions
    spread_positions: int


def similarity_step(length: int, d_model: int, base: float, pos: int, k: int) -> SimilarityStep:
    """The dot product of two encodings k apart, measured along the whole diagonal."""
    if not 0 <= pos < length or not 0 <= pos + k < length:
        raise ValueError(f"pos={pos} and pos + k={pos + k} must both be positions below length={length}.")
    table = sinusoidal(length, d_model, base)
    theta = frequencies(d_model, base)
    positions = np.arange(max(0, -k), length - max(0, k))
    diagonal = np.einsum("pd,pd->p", table[positions], table[positions + k])
    lone = float(table[pos, -1] * table[pos + k, -1]) if d_model % 2 else 0.0
    m = min(length, SPREAD_POSITIONS)
    return SimilarityStep(pos, k, length, float(table[pos] @ table[pos + k]),
                          float(np.cos(k * theta[:pair_count(d_model)]).sum()), lone, positions, diagonal,
                          float(diagonal.max() - diagonal.min()), offset_spread(similarity_matrix(table[:m])), m)


@dataclass(frozen=True)
class VariationStep:
    """Step 8 (seed 002): how much each dimension moves over the positions in use."""

    length: int
    i: int
    ranges: np.ndarray  # (d,) max − min of PE[:, j] over p < length
    quiet: int  # dimensions whose range is below QUIET_RANGE
    first_quiet: int | None  # the first such dimension
    phase_span: float  # (length − 1)·θ_i: the angle pair i turns through
    pair_ranges: tuple[float, float]  # ranges of columns 2i and 2i + 1


def variation_step(length: int, d_model: int, base: float, i: int) -> VariationStep:
    i = _check_pair(i, d_model)
    table = sinusoidal(length, d_model, base)
    ranges = table.max(axis=0) - table.min(axis=0)
    quiet = np.flatnonzero(ranges < QUIET_RANGE)
    span = float((length - 1) * frequencies(d_model, base)[i])
    return VariationStep(length, i, ranges, int(len(quiet)), int(quiet[0]) if len(quiet) else None, span,
                         (float(ranges[2 * i]), float(ranges[2 * i + 1])))
