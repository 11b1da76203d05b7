"""Low-precision arithmetic and positions: float32, float16 and bfloat16 against float64.

A float with p significant bits (the stored fraction bits plus the implicit leading 1)
holds every integer up to 2^p exactly; 2^p + 1 is the first it cannot hold:

    float32: p = 24 → 16 777 217,   float16: p = 11 → 2049,   bfloat16: p = 8 → 257.

Near 1 its spacing is 2^(1−p), so rounding a value of size ≤ 1 moves it by at most
u = 2^(−p) (the unit roundoff): 6.0e-8, 4.9e-4 and 3.9e-3.

This module is numpy: the facts above, correct rounding to each dtype (bfloat16 too,
which numpy lacks), and the search for repeated encodings. The tables computed *in* a
dtype, the way common torch code computes them, live in :mod:`posenc.precision.tables`;
the relative-position residuals in :mod:`posenc.precision.residuals` (both import torch).
"""

from __future__ import annotations

import numpy as np

from posenc.checks import check_choice

DTYPES: tuple[str, ...] = ("float32", "float16", "bfloat16")
"""The low-precision dtypes compared with float64, widest first."""

FRACTION_BITS: dict[str, int] = {"float64": 52, "float32": 23, "float16": 10, "bfloat16": 7}
"""Stored fraction (mantissa) bits of each dtype; the significand has one more, implicit."""

LARGEST: dict[str, float] = {"float64": float(np.finfo(np.float64).max), "float32": float(np.finfo(np.float32).max),
                             "float16": 65504.0, "bfloat16": 3.3895313892515355e38}
"""The largest finite value of each dtype (bfloat16 keeps float32's 8 exponent bits)."""


def check_dtype(dtype: object) -> str:
    """One of :data:`DTYPES` (or float64), by name."""
    return check_choice(str(dtype).removeprefix("torch."), "dtype", ("float64",) + DTYPES)


def significand_bits(dtype: str) -> int:
    """p: the fraction bits plus the implicit leading bit (24, 11 and 8 for float32, float16, bfloat16)."""
    return FRACTION_BITS[check_dtype(dtype)] + 1


def unit_roundoff(dtype: str) -> float:
    """u = 2^(−p): the largest relative error of rounding to ``dtype`` (round to nearest)."""
    return 2.0 ** -significand_bits(dtype)


def first_inexact_integer(dtype: str) -> int:
    """2^p + 1: the smallest positive integer ``dtype`` cannot hold (2049 in float16, 257 in bfloat16).

    Every integer 0 … 2^p is exact; 2^p + 1 lies halfway between 2^p and 2^p + 2 and rounds
    to the even one, 2^p: in float16 position 2049 *is* position 2048.
    """
    return 2 ** significand_bits(dtype) + 1


def round_to(x: np.ndarray, dtype: str) -> np.ndarray:
    """``x`` correctly rounded (to nearest, ties to even) to ``dtype``, returned as float64 values.

    float32 and float16 by numpy's casts; bfloat16, which numpy lacks, as the float64
    significand rounded to 8 bits (7 stored), on the bits. NaN and ±inf stay. (No value
    here is below bfloat16's smallest normal 1.2e-38 or above its largest.)

    torch's ``Tensor.to`` from float64 to float16 or bfloat16 rounds twice, through float32:
    a value within float32's rounding of a halfway point lands on the halfway point and then
    goes to the even side, which may be the farther one. That is about one value in
    2^(25−p): 17 of the 262 144 entries of a 4096 × 64 sinusoidal table in float16, 2 in
    bfloat16 (tests pin both), each off by one unit in the last place.
    """
    x = np.asarray(x, dtype=np.float64)
    dtype = check_dtype(dtype)
    if dtype != "bfloat16":
        return x.astype(dtype).astype(np.float64)
    # Keep the sign, the exponent and the top 7 of float64's 52 fraction bits; the 45 bits
    # dropped are rounded to nearest, ties to the even kept bit (a carry moves into the exponent).
    bits = np.ascontiguousarray(x).view(np.uint64).copy()
    carry = bits >> np.uint64(45)
    carry &= np.uint64(1)
    carry += np.uint64((1 << 44) - 1)
    bits += carry
    bits &= ~np.uint64((1 << 45) - 1)
    rounded = bits.view(np.float64)
    finite = np.isfinite(x)
    return rounded if finite.all() else np.where(finite, rounded, x)


def first_repeated_row(table: np.ndarray) -> int | None:
    """The first row index whose values equal an earlier row's bit for bit, or None.

    Rows holding NaN (no encoding, e.g. past a learned table) are skipped: "no encoding"
    is not an encoding that repeats. −0.0 and 0.0 count as different bits. Rows are grouped
    by a hash of their bits (equal rows hash equally); only rows of one group are compared.
    """
    bits = np.ascontiguousarray(table, dtype=np.float64).view(np.uint64)  # (rows, columns)
    if bits.ndim != 2 or not len(bits):
        return None
    missing = np.isnan(table).any(axis=1) if bits.shape[1] else np.zeros(len(bits), dtype=bool)
    weights = np.random.default_rng(0).integers(1, 2**63, size=bits.shape[1], dtype=np.uint64) | np.uint64(1)
    hashes = (bits * weights).sum(axis=1, dtype=np.uint64)  # wraps modulo 2^64
    valid = np.flatnonzero(~missing)
    order = np.argsort(hashes[valid], kind="stable")  # equal hashes: earlier rows first
    sorted_hashes = hashes[valid][order]
    candidates = np.sort(valid[order[1:][sorted_hashes[1:] == sorted_hashes[:-1]]])  # an earlier row hashes alike
    for index in candidates:
        earlier = valid[(hashes[valid] == hashes[index]) & (valid < index)]
        if any(np.array_equal(bits[index], bits[row]) for row in earlier):
            return int(index)
    return None


def max_abs_error(approx: np.ndarray, exact: np.ndarray, axis: int = -1) -> np.ndarray:
    """max over ``axis`` of |approx − exact|; entries where both are the same ±inf or NaN count as 0.

    A row with no encoding (all NaN) gets NaN: there is nothing to compare.
    """
    approx, exact = np.asarray(approx, dtype=np.float64), np.asarray(exact, dtype=np.float64)
    if not diff_shape_ok(approx, axis):
        return np.zeros(np.delete(approx.shape, axis))
    with np.errstate(invalid="ignore"):
        diff = np.subtract(approx, exact)  # NaN where either is NaN or both are the same infinity
        np.abs(diff, out=diff)
    out = diff.max(axis=axis)
    if np.isfinite(out).all():
        return out
    same = (approx == exact) | (np.isnan(approx) & np.isnan(exact))
    out = np.where(same, 0.0, np.where(np.isnan(diff), np.inf, diff)).max(axis=axis)
    return np.where(np.isnan(exact).all(axis=axis), np.nan, out)


def diff_shape_ok(array: np.ndarray, axis: int) -> bool:
    """Whether ``axis`` has any entries to take a maximum over."""
    return array.ndim > 0 and array.shape[axis] > 0


def dtype_facts() -> list[dict[str, object]]:
    """One row per dtype: significand bits, unit roundoff, first inexact integer, largest value."""
    return [{"dtype": name, "significand bits p": significand_bits(name), "unit roundoff 2^−p": unit_roundoff(name),
             "first inexact integer 2^p + 1": first_inexact_integer(name), "largest value": LARGEST[name]}
            for name in ("float64",) + DTYPES]


def verdict(log_error: float, power_error: float, dtype: str, base: float | None = None) -> str:
    """A sentence comparing the largest relative θ errors of the two forms in ``dtype``.

    An error ≥ 1/2 means a θ_i is lost (rounded to 0 below the dtype's smallest value, or
    overflowed): said as such, not as a ratio. ``base`` n, when given, is named if it does
    not fit in the dtype (torch rounds the n of ``n ** tensor`` to the tensor's dtype).
    """
    lost = [name for name, error in (("the log-space form", log_error), ("the power form", power_error))
            if not error < 0.5]
    if lost:
        both = len(lost) == 2
        if base is not None and base > LARGEST[check_dtype(dtype)] and lost == ["the power form"]:
            return (f"In {dtype}, the power form loses θ_i: n = {base:g} does not fit in {dtype} (largest "
                    f"{LARGEST[dtype]:g}), so n^(−2i/d) is inf^(−2i/d) = 0. The log-space form keeps them: "
                    "the seed's claim holds here, for the range of n, not for rounding.")
        return (f"In {dtype}, {' and '.join(lost)} lose{'' if both else 's'} some θ_i entirely (below the "
                f"smallest {dtype} value or overflowed): " + ("neither form helps; the dtype cannot hold these θ_i."
                                                              if both else "the other form is the stable one here."))
    low, high = sorted((log_error, power_error))
    if high <= 1.25 * low or high <= unit_roundoff(dtype):
        return (f"In {dtype}, both forms are as accurate as {dtype} allows (largest relative errors "
                f"{log_error:.2e} and {power_error:.2e}): neither is more stable.")
    if log_error < power_error:
        return (f"In {dtype}, the log-space form exp(−2i·ln n/d) is more accurate: largest relative error "
                f"{low:.2e} against {high:.2e} ({high / low:.1f}×); the seed's claim holds here.")
    return (f"In {dtype}, the direct power n^(−2i/d) is more accurate: largest relative error {low:.2e} "
            f"against {high:.2e} for the log-space form ({high / low:.1f}×); the seed's claim does not hold here.")
