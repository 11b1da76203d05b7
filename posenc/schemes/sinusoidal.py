"""The sinusoidal encoding of "Attention Is All You Need" (Vaswani et al. 2017, arXiv:1706.03762).

    PE[pos, 2i]   = sin(pos · θ_i)
    PE[pos, 2i+1] = cos(pos · θ_i),      θ_i = n^(−2i/d_model)

and the rotation that links positions a fixed offset k apart:

    PE[pos + k] = M_k · PE[pos],   M_k = diag(R(kθ_0), R(kθ_1), …),
    R(φ) = [[cos φ, sin φ], [−sin φ, cos φ]].
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from posenc.checks import (
    MAX_WHOLE,
    check_array,
    check_base,
    check_choice,
    check_d_model,
    check_finite,
    check_float_dtype,
    check_indices,
    check_int,
    check_length,
    check_size,
)
from posenc.schemes.offsets import all_offsets, cosine_sums, cosine_sums_every_offset, offset_similarity
from posenc.schemes.scheme import Option, Scheme, Setting, latex_number

Layout = Literal["interleaved", "split"]
Spacing = Literal["vaswani", "tensor2tensor"]
LAYOUTS: tuple[str, ...] = ("interleaved", "split")
SPACINGS: tuple[str, ...] = ("vaswani", "tensor2tensor")

PHASE_BLOCK = 128
"""Rows per block of the angle-addition fill (see _sin_cos_table): a position is split as p = a + b, a a
multiple of PHASE_BLOCK, b below it (the table's cells, posenc.analysis, use the same split to equal it bit for bit)."""
_CHECK_ROWS = 512  # positions rotated at a time by rotation_check (2 MiB of float64 at d_model 1024)


def frequencies(d_model: int, base: float = 10000.0, *, spacing: Spacing = "vaswani") -> np.ndarray:
    """Angular frequencies θ_i, i = 0 … ⌈d_model/2⌉ − 1, in float64.

    - ``"vaswani"`` (arXiv:1706.03762): θ_i = base^(−2i/d_model), computed in log space
      as θ_i = exp(−(2i/d_model) · ln base).
    - ``"tensor2tensor"`` (``get_timing_signal_1d``): log-timescales spread evenly from
      1 to ``base`` over h − 1 steps (h = ⌈d_model/2⌉): θ_i = exp(−i · ln(base) / max(h − 1, 1)).
      The longest wavelength is exactly 2π·base, where Vaswani's is 2π·base^(1 − 2/d_model).
    """
    d_model = check_d_model(d_model)
    base = check_base(base)
    check_choice(spacing, "spacing", SPACINGS)
    i = np.arange((d_model + 1) // 2, dtype=np.float64)
    if spacing == "vaswani":
        return np.exp(-(2.0 * i / d_model) * np.log(base))
    return np.exp(-i * (np.log(base) / max(len(i) - 1, 1)))


def wavelengths(d_model: int, base: float = 10000.0, *, spacing: Spacing = "vaswani") -> np.ndarray:
    """Wavelength of every sin/cos pair, λ_i = 2π / θ_i: a geometric progression from 2π."""
    return 2.0 * np.pi / frequencies(d_model, base, spacing=spacing)


def _sin_cos_table(length: int, theta: np.ndarray, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """sin(p·θ_i) and cos(p·θ_i) for p < length, as two (length, h) arrays of ``dtype``.

    Phases are float64. Each position is split as p = a + b (a a multiple of PHASE_BLOCK,
    b < PHASE_BLOCK) and the angle-addition formulas
        sin(pθ) = sin(aθ)cos(bθ) + cos(aθ)sin(bθ),  cos(pθ) = cos(aθ)cos(bθ) − sin(aθ)sin(bθ)
    are evaluated in float64 and rounded to ``dtype`` once, at the end. This needs
    (length/PHASE_BLOCK + PHASE_BLOCK)·h transcendental calls instead of 2·length·h; its error
    (≈ 2e-13 at length 4096, dominated by rounding the phase itself) matches direct evaluation.
    """
    h = len(theta)
    sin_out = np.empty((length, h), dtype=dtype)
    cos_out = np.empty((length, h), dtype=dtype)
    small = np.arange(min(PHASE_BLOCK, length), dtype=np.float64)[:, None] * theta  # (b, h)
    sin_b, cos_b = np.sin(small), np.cos(small)
    starts = np.arange(0, length, PHASE_BLOCK, dtype=np.float64)[:, None] * theta  # (a, h)
    sin_a, cos_a = np.sin(starts), np.cos(starts)
    left = np.empty_like(small)
    right = np.empty_like(small)
    for j, start in enumerate(range(0, length, PHASE_BLOCK)):
        n = min(PHASE_BLOCK, length - start)
        rows = slice(start, start + n)
        np.multiply(sin_a[j], cos_b[:n], out=left[:n])
        np.multiply(cos_a[j], sin_b[:n], out=right[:n])
        np.add(left[:n], right[:n], out=sin_out[rows])
        np.multiply(cos_a[j], cos_b[:n], out=left[:n])
        np.multiply(sin_a[j], sin_b[:n], out=right[:n])
        np.subtract(left[:n], right[:n], out=cos_out[rows])
    return sin_out, cos_out


def sinusoidal(
    length: int,
    d_model: int,
    base: float = 10000.0,
    *,
    layout: Layout = "interleaved",
    dtype: type | np.dtype = np.float64,
    spacing: Spacing = "vaswani",
) -> np.ndarray:
    """The (length, d_model) sinusoidal encoding matrix (Vaswani et al. 2017, arXiv:1706.03762).

    - ``"interleaved"``: PE[p, 2i] = sin(p·θ_i), PE[p, 2i+1] = cos(p·θ_i). With an odd
      d_model the last column is the sine of the last frequency.
    - ``"split"``: PE[p, i] = sin(p·θ_i), PE[p, d/2 + i] = cos(p·θ_i) ([sin | cos], the
      tensor2tensor / fairseq ordering); d_model must be even.

    θ_i comes from :func:`frequencies`. Phases are computed in float64 and rounded to
    ``dtype`` at the end, so a float32 table is the float64 table correctly rounded.
    """
    length = check_length(length)
    d_model = _check_layout(d_model, layout)
    out_dtype = check_float_dtype(dtype)
    check_size((length, d_model), "the sinusoidal table")
    theta = frequencies(d_model, base, spacing=spacing)
    sin, cos = _sin_cos_table(length, theta, out_dtype)  # (length, ⌈d/2⌉) each
    if layout == "split":
        return np.concatenate([sin, cos], axis=1)
    table = np.empty((length, d_model), dtype=out_dtype)
    table[:, 0::2] = sin
    table[:, 1::2] = cos[:, : d_model // 2]
    return table


def _check_layout(d_model: object, layout: object) -> int:
    """d_model for ``layout``: any width interleaved, an even one split."""
    d_model = check_d_model(d_model)
    check_choice(layout, "layout", LAYOUTS)
    if layout == "split" and d_model % 2:
        raise ValueError(
            f"The split layout puts d_model/2 sines before d_model/2 cosines, so d_model "
            f"must be even; got {d_model}. Use layout='interleaved' for an odd d_model."
        )
    return d_model


def _check_offset(k: object) -> int:
    return check_int(k, "k", minimum=-MAX_WHOLE, maximum=MAX_WHOLE, meaning="the offset between positions")


def _check_even(d_model: int) -> int:
    d_model = check_d_model(d_model)
    if d_model % 2:
        raise ValueError(
            f"The rotation M_k acts on (sin, cos) pairs, but with an odd d_model={d_model} "
            "the last column (a sine) has no cosine partner. Use an even d_model."
        )
    return d_model


def rotation_blocks(k: int, d_model: int, base: float = 10000.0, *, spacing: Spacing = "vaswani") -> np.ndarray:
    """The d_model/2 diagonal blocks of M_k, shape (d_model/2, 2, 2):

        B_i = [[ cos kθ_i, sin kθ_i],
               [−sin kθ_i, cos kθ_i]]
    """
    k = _check_offset(k)
    d_model = _check_even(d_model)
    with np.errstate(over="ignore"):  # an overflow is refused just below
        angle = check_finite(k * frequencies(d_model, base, spacing=spacing), "the angle k·θ_i")  # (d/2,)
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([c, s, -s, c], axis=-1).reshape(-1, 2, 2)


def rotation_matrix(k: int, d_model: int, base: float = 10000.0, *, spacing: Spacing = "vaswani") -> np.ndarray:
    """The (d_model, d_model) block-diagonal M_k with PE[p+k] = M_k · PE[p] (interleaved layout).

        M_k = diag(B_0, …, B_{d/2−1}),   B_i = [[cos kθ_i,  sin kθ_i],
                                                [−sin kθ_i, cos kθ_i]]

    k may be negative: M_{−k} = M_kᵀ (a rotation by −kθ_i is the transpose).
    """
    d_model = _check_even(d_model)
    check_size((d_model, d_model), "the rotation matrix M_k")
    blocks = rotation_blocks(k, d_model, base, spacing=spacing)  # (d/2, 2, 2)
    matrix = np.zeros((d_model, d_model))
    for row in range(2):
        for col in range(2):
            idx = np.arange(0, d_model, 2)
            matrix[idx + row, idx + col] = blocks[:, row, col]
    return matrix


def apply_rotation(k: int, table: np.ndarray, base: float = 10000.0, *, spacing: Spacing = "vaswani") -> np.ndarray:
    """M_k · PE[p] for every row p of an interleaved ``table`` (length, d_model), in the table's dtype.

    The product is taken block by block, (PE[p,2i], PE[p,2i+1]) ↦
    (cos kθ_i·PE[p,2i] + sin kθ_i·PE[p,2i+1], −sin kθ_i·PE[p,2i] + cos kθ_i·PE[p,2i+1]):
    the same products as the dense M_k @ PE[p] without its exact zero terms, in O(length·d).
    An integer table is converted to float64 first (rounding the rotation to integers would
    give zeros); NaN and ±inf entries are refused.
    """
    table = check_array(table, "table", min_ndim=2, max_ndim=2)
    if table.dtype.kind != "f":
        table = table.astype(np.float64)
    blocks = rotation_blocks(k, table.shape[1], base, spacing=spacing).astype(table.dtype)
    even, odd = table[:, 0::2], table[:, 1::2]
    out = np.empty_like(table)
    out[:, 0::2] = blocks[:, 0, 0] * even + blocks[:, 0, 1] * odd
    out[:, 1::2] = blocks[:, 1, 0] * even + blocks[:, 1, 1] * odd
    return check_finite(out, "M_k·PE[p]")


@dataclass(frozen=True)
class RotationCheck:
    """Residuals of PE[p+k] = M_k · PE[p] at every valid position p."""

    k: int
    positions: np.ndarray  # (m,) the p with 0 ≤ p + k < length
    errors: np.ndarray  # (m,) max_d |M_k·PE[p] − PE[p+k]|
    max_abs_error: float
    dtype: str


def rotation_check(
    length: int,
    d_model: int,
    base: float = 10000.0,
    k: int = 1,
    *,
    dtype: type | np.dtype = np.float64,
    spacing: Spacing = "vaswani",
) -> RotationCheck:
    """Check PE[p+k] = M_k · PE[p] for every p with 0 ≤ p+k < length, computed in ``dtype``.

    errors[p] = max over dimensions of |M_k·PE[p] − PE[p+k]|; both the table and M_k are
    rounded to ``dtype`` first, so float32 shows float32's own rounding (≈ 1e-7).
    """
    length = check_length(length)
    k = _check_offset(k)
    if abs(k) >= length:
        raise ValueError(
            f"The offset k={k} leaves no pair of positions inside length={length}: "
            f"choose |k| < {length}."
        )
    _check_even(d_model)
    table = sinusoidal(length, d_model, base, dtype=dtype, spacing=spacing)
    positions = np.arange(max(0, -k), min(length, length - k))
    errors = np.empty(len(positions), dtype=table.dtype)  # d_model ≥ 2 and |k| < length: never empty
    for start in range(0, len(positions), _CHECK_ROWS):  # bounded memory: one block at a time
        rows = positions[start:start + _CHECK_ROWS]
        residual = apply_rotation(k, table[rows], base, spacing=spacing) - table[rows + k]
        errors[start:start + len(rows)] = np.abs(residual).max(axis=1)
    return RotationCheck(k, positions, errors, float(errors.max()), np.dtype(dtype).name)


def sinusoidal_formula(d_model: int, base: float, *, layout: Layout = "interleaved", spacing: Spacing = "vaswani") -> str:
    """LaTeX of exactly what :func:`sinusoidal` computes for these arguments (which it checks alike)."""
    d_model, base = _check_layout(d_model, layout), check_base(base)
    check_choice(spacing, "spacing", SPACINGS)
    h = (d_model + 1) // 2
    if spacing == "vaswani":
        theta = rf"\theta_i = {latex_number(base)}^{{-2i/{d_model}}}"
    else:
        theta = rf"\theta_i = \exp\!\left(-i\,\frac{{\ln {latex_number(base)}}}{{{max(h - 1, 1)}}}\right)"
    if layout == "split":
        cols = (rf"PE_{{(pos,\,i)}} = \sin(pos\,\theta_i),\quad "
                rf"PE_{{(pos,\,{d_model // 2}+i)}} = \cos(pos\,\theta_i)")
    else:
        cols = r"PE_{(pos,\,2i)} = \sin(pos\,\theta_i),\quad PE_{(pos,\,2i+1)} = \cos(pos\,\theta_i)"
    return rf"{cols},\qquad {theta},\quad i = 0,\dots,{h - 1}"


def _table(length: int, d_model: int, base: float, *, layout: Layout = "interleaved", spacing: Spacing = "vaswani") -> np.ndarray:
    return sinusoidal(length, d_model, base, layout=layout, spacing=spacing)


def _offset_curve(length: int, d_model: int, base: float, **options: str) -> tuple[np.ndarray, np.ndarray]:
    return offset_similarity(_table(length, d_model, base, **options))


def _pair_of_columns(dims: np.ndarray, d_model: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """(pair i, is cosine) of each column: interleaved 2i → sin θ_i, 2i+1 → cos θ_i; split i → sin, d/2+i → cos."""
    if layout == "split":
        if d_model % 2:
            raise ValueError(f"The split layout needs an even d_model; got {d_model}.")
        half = d_model // 2
        return dims % half, dims >= half
    if layout != "interleaved":
        raise ValueError(f"layout must be 'interleaved' or 'split'; got {layout!r}.")
    return dims // 2, dims % 2 == 1


def sinusoidal_cells(positions: object, dims: object, d_model: int, base: float = 10000.0, *,
                     layout: str = "interleaved", spacing: str = "vaswani") -> np.ndarray:
    """PE[positions][:, dims] of :func:`posenc.sinusoidal` (arXiv:1706.03762) without the full table.

        PE[p, 2i] = sin(p·θ_i),  PE[p, 2i+1] = cos(p·θ_i)   (split: PE[p, i], PE[p, d/2+i])

    With the table's own arithmetic: p = a + b (a a multiple of the block, b below it) and
    sin(pθ) = sin(aθ)cos(bθ) + cos(aθ)sin(bθ), cos(pθ) = cos(aθ)cos(bθ) − sin(aθ)sin(bθ)
    in float64, so every cell equals the table's bit for bit. Shape (len(positions), len(dims)).
    """
    d_model = check_d_model(d_model)
    positions, dims = check_indices(positions, None, "positions"), check_indices(dims, d_model, "dims")
    pair, is_cos = _pair_of_columns(dims, d_model, layout)
    theta = frequencies(d_model, check_base(base), spacing=spacing)[pair]  # (c,)
    starts, a = np.unique(positions // PHASE_BLOCK * PHASE_BLOCK, return_inverse=True)  # each distinct a and b once:
    offsets, b = np.unique(positions % PHASE_BLOCK, return_inverse=True)  # few of them for nearby positions
    phase_a, phase_b = starts.astype(np.float64)[:, None] * theta, offsets.astype(np.float64)[:, None] * theta
    sin_a, cos_a, sin_b, cos_b = np.sin(phase_a)[a], np.cos(phase_a)[a], np.sin(phase_b)[b], np.cos(phase_b)[b]
    return np.where(is_cos, cos_a * cos_b - sin_a * sin_b, sin_a * cos_b + cos_a * sin_b)


def _cells(setting: Setting, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    return sinusoidal_cells(rows, cols, setting.d_model, setting.base, **setting.options)


def _column_wavelengths(setting: Setting) -> np.ndarray:
    """2π/θ_i of the pair i of every column (interleaved 2i, 2i+1 → i; split i, d/2 + i → i)."""
    d_model = check_d_model(setting.d_model)
    pair, _ = _pair_of_columns(np.arange(d_model), d_model, str(setting.options.get("layout", "interleaved")))
    return 2.0 * np.pi / frequencies(d_model, setting.base, spacing=str(setting.options.get("spacing", "vaswani")))[pair]


def _unpaired_sine(offsets: np.ndarray, length: int, theta: float) -> np.ndarray:
    """The mean over i < n = L − |Δ| of sin(iθ)·sin((i + |Δ|)θ) (an odd d_model's last column, a sine alone):
    sin a·sin b = ½(cos(a − b) − cos(a + b)) and Σ_{i<n} cos((2i + |Δ|)θ) = sin(nθ)·cos((n − 1 + |Δ|)θ)/sin θ
    (a Dirichlet sum) give ½cos(Δθ) − sin(nθ)·cos((n − 1 + |Δ|)θ) / (2n·sin θ)."""
    distance = np.abs(offsets).astype(np.float64)
    n = length - distance  # ≥ 1: the offsets are checked below the length
    sine = math.sin(theta)
    if sine == 0.0:  # θ = 0 (an underflowed frequency): the column is all zeros
        return np.zeros(len(offsets))
    return 0.5 * np.cos(distance * theta) - np.sin(n * theta) * np.cos((n - 1 + distance) * theta) / (2.0 * n * sine)


def sinusoidal_similarity_at(offsets: np.ndarray, length: int, d_model: int, base: float = 10000.0, *,
                             layout: str = "interleaved", spacing: str = "vaswani",
                             every: bool = False) -> np.ndarray:
    """Mean over i of PE[i]·PE[i+Δ] of the sinusoidal table at each offset, from its frequencies.

    Each (sin, cos) pair contributes sin(iθ)sin((i+Δ)θ) + cos(iθ)cos((i+Δ)θ) = cos(Δθ), the same for every
    i, so s(Δ) = Σ_i cos(Δθ_i) (Vaswani et al. 2017, arXiv:1706.03762, §3.5). With an odd d_model the last
    column (a sine without its cosine) is added: averaged directly (``every``: the offsets are every offset
    of the length) or by :func:`_unpaired_sine`'s closed form.
    """
    d_model = check_d_model(d_model)
    if layout not in ("interleaved", "split"):
        raise ValueError(f"layout must be 'interleaved' or 'split'; got {layout!r}.")
    if layout == "split" and d_model % 2:
        raise ValueError(f"The split layout needs an even d_model; got {d_model}.")
    theta = frequencies(d_model, base, spacing=spacing)
    sums = cosine_sums_every_offset if every else cosine_sums
    values = sums(offsets, theta[: d_model // 2])
    if d_model % 2 == 0:
        return values
    if every:
        last = np.sin(np.arange(length) * theta[-1])[:, None]  # the unpaired sine column
        return values + offset_similarity(last)[1]
    return values + _unpaired_sine(offsets, length, float(theta[-1]))


def sinusoidal_similarity(length: int, d_model: int, base: float = 10000.0, **options: object,
                          ) -> tuple[np.ndarray, np.ndarray]:
    """(offsets Δ, mean over i of PE[i]·PE[i+Δ]) of the sinusoidal table at every offset of ``length``."""
    length, d_model = check_length(length), check_d_model(d_model)
    offsets = all_offsets(length)
    return offsets, sinusoidal_similarity_at(offsets, length, d_model, base, every=True, **options)


def _similarity_every_offset(setting: Setting) -> tuple[np.ndarray, np.ndarray]:
    return sinusoidal_similarity(setting.length, setting.d_model, setting.base, **setting.options)


def _similarity_at(setting: Setting, offsets: np.ndarray) -> np.ndarray:
    options = setting.options
    return sinusoidal_similarity_at(offsets, setting.length, setting.d_model, setting.base,
                                    layout=options["layout"], spacing=options["spacing"])


SCHEMES: tuple[Scheme, ...] = (
    Scheme(
        key="sinusoidal",
        label="Sinusoidal (Vaswani et al.)",
        short_label="Sinusoidal",
        family="absolute",
        paper="Vaswani et al. 2017, arXiv:1706.03762",
        formula=lambda d_model, base, **o: sinusoidal_formula(d_model, base, **o),
        offset_curve=_offset_curve,
        offset_curve_fast=_similarity_every_offset,
        offset_curve_at=_similarity_at,
        curve_label="mean similarity PE[i]·PE[i+Δ]",
        table=_table,
        cells=_cells,
        column_wavelengths=_column_wavelengths,
        value_range=(-1.0, 1.0),
        options=(
            Option("layout", "layout", "interleaved", choices=LAYOUTS,
                   help="interleaved: sin, cos, sin, cos … (the paper); split: all sines then all cosines (tensor2tensor, fairseq)."),
            Option("spacing", "frequency spacing", "vaswani", choices=SPACINGS,
                   help="vaswani: θ_i = n^(−2i/d); tensor2tensor: timescales from 1 to n over d/2 − 1 steps."),
        ),
    ),
)
