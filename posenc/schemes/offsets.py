"""Quantities that depend only on the offset Δ = j − i between two positions.

Every scheme's registry entry gives one curve over offsets (``Scheme.offset_curve``); the
absolute schemes measure it from their table (:func:`offset_similarity`), the bias schemes give
their bias per offset and expand it to a matrix (:func:`toeplitz_view`). The sinusoidal and rotary
curves' closed forms share the sum Σ_i cos(Δθ_i) (:func:`cosine_sums`, :func:`cosine_sums_every_offset`).
"""

from __future__ import annotations

import numpy as np

from posenc.checks import check_array, check_length, check_magnitude, check_size


def offset_similarity(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean similarity of two encodings Δ positions apart, for Δ = −(L−1) … L−1.

        s(Δ) = mean over i with rows i and i+Δ both defined of PE[i] · PE[i+Δ]

    Rows holding NaN (a learned table has no row past its size) are left out of the
    mean; an offset with no defined pair gets NaN. Computed for all offsets at once
    as an autocorrelation along positions (FFT, O(L log L · d)).
    """
    table = check_array(table, "table", min_ndim=2, max_ndim=2, allow_nan=True).astype(np.float64)
    check_magnitude(table, "table")
    length = table.shape[0]
    offsets = np.arange(-(length - 1), length)
    if length == 0:
        return offsets, np.zeros(0)
    defined = ~np.isnan(table).any(axis=1)
    rows = np.where(defined[:, None], table, 0.0)
    size = 2 * length
    spectrum = np.fft.rfft(rows, n=size, axis=0)  # (size/2+1, d)
    sums = np.fft.irfft((spectrum * spectrum.conj()).real.sum(axis=1), n=size)
    mask = np.fft.rfft(defined.astype(np.float64), n=size)
    counts = np.rint(np.fft.irfft(mask * mask.conj(), n=size))
    index = offsets % size  # Δ ≥ 0 at Δ, Δ < 0 wraps to size + Δ
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(counts[index] > 0, sums[index] / counts[index], np.nan)
    return offsets, mean


def all_offsets(length: int) -> np.ndarray:
    """Every offset Δ = j − i of a length-L sequence: −(L − 1) … L − 1."""
    length = check_length(length)
    return np.arange(-(length - 1), length)


# --- Σ_i cos(Δθ_i), the sum every sinusoidal and rotary curve holds, two ways: one term per offset and
# frequency (chosen offsets, as far as 10M), or by angle addition (every offset of a length); they agree to
# rounding, and each route keeps its own so that the numbers drawn stay as they were.

ANGLE_SPLIT = 64
"""Offsets are split as Δ = 64·a + b for the angle-addition sums (one cosine per a and per b)."""


def cosine_sums(offsets: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Σ_i cos(Δ·θ_i) for each offset, one cosine per (offset, frequency): (offsets,)."""
    return np.cos(np.abs(offsets).astype(np.float64)[:, None] * theta).sum(axis=1)


def cosine_sums_every_offset(offsets: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Σ_i cos(Δ·θ_i) for every whole Δ in ``offsets`` (cos is even: |Δ| is used), by angle addition.

    With |Δ| = 64a + b and cos((A + B)θ) = cos Aθ cos Bθ − sin Aθ sin Bθ, the sums for every
    (a, b) are two matrix products, C_A·C_Bᵀ − S_A·S_Bᵀ: (max|Δ|/64 + 64)·len(θ) cosines and sines
    instead of one per offset and frequency.
    """
    magnitude = np.abs(np.asarray(offsets, dtype=np.int64))
    if magnitude.size == 0:
        return np.zeros(0)
    high, low = np.divmod(magnitude, ANGLE_SPLIT)
    big = (np.arange(high.max() + 1, dtype=np.float64) * ANGLE_SPLIT)[:, None] * theta  # (A, h)
    small = np.arange(ANGLE_SPLIT, dtype=np.float64)[:, None] * theta  # (64, h)
    # einsum's own loop: a 64 × 512 × 64 product is too small for BLAS threads, which only wait
    # for each other on a busy machine (2–40 ms instead of 3)
    grid = (np.einsum("ah,bh->ab", np.cos(big), np.cos(small), optimize=False)
            - np.einsum("ah,bh->ab", np.sin(big), np.sin(small), optimize=False))  # (A, 64)
    return grid[high, low]


def toeplitz_view(values: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """B[..., r, c] = values[..., cols[c] − rows[r] + L − 1] for a bias that depends only on j − i.

    ``values`` (..., 2L − 1) holds the bias at offsets −(L−1) … L−1; the result is the
    bias matrix at the chosen query rows and key columns, (..., len(rows), len(cols)).
    """
    values = check_array(values, "values", min_ndim=1, finite=False)
    if values.shape[-1] % 2 == 0:
        raise ValueError(f"values must hold 2L − 1 offsets on its last axis (an odd number); got {values.shape[-1]}.")
    length = (values.shape[-1] + 1) // 2
    rows, cols = (_indices(index, name, length) for index, name in ((rows, "rows"), (cols, "cols")))
    check_size((*values.shape[:-1], len(rows), len(cols)), "the bias matrix")
    return values[..., cols[None, :] - rows[:, None] + length - 1]


def _indices(index: object, name: str, length: int) -> np.ndarray:
    """Whole positions 0 … length − 1, as a 1-D int64 array."""
    index = check_array(index, name, min_ndim=1, max_ndim=1)
    if index.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold whole positions; got dtype {index.dtype}.")
    if index.size and (index.min() < 0 or index.max() >= length):
        raise ValueError(f"{name} must lie in 0 … {length - 1}; got {int(index.min())} … {int(index.max())}.")
    return index.astype(np.int64)
