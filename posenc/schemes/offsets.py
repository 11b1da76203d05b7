"""Quantities that depend only on the offset Δ = j − i between two positions.

Every scheme's registry entry gives one curve over offsets (``Scheme.offset_curve``); the
absolute schemes measure it from their table (:func:`offset_similarity`), the bias schemes give
their bias per offset and expand it to a matrix (:func:`toeplitz_view`).
"""

from __future__ import annotations

import numpy as np

from posenc.checks import check_array, check_magnitude, check_size


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
