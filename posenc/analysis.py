"""Measurements on an encoding table that every absolute scheme shares."""

from __future__ import annotations

import numpy as np


def similarity_matrix(table: np.ndarray) -> np.ndarray:
    """S[p, q] = PE[p] · PE[q], the (length, length) Gram matrix of the rows of ``table``.

    For the sinusoidal encoding with even d_model, S[p, q] = Σ_i cos((p − q)·θ_i):
    it depends only on the offset p − q (Vaswani et al. 2017, arXiv:1706.03762, §3.5).
    """
    table = np.asarray(table, dtype=np.float64)
    return table @ table.T


def offset_similarity(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean similarity of two encodings Δ positions apart, for Δ = −(L−1) … L−1.

        s(Δ) = mean over i with rows i and i+Δ both defined of PE[i] · PE[i+Δ]

    Rows holding NaN (a learned table has no row past its size) are left out of the
    mean; an offset with no defined pair gets NaN. Computed for all offsets at once
    as an autocorrelation along positions (FFT, O(L log L · d)).
    """
    table = np.asarray(table, dtype=np.float64)
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
    length = (values.shape[-1] + 1) // 2
    return values[..., np.asarray(cols)[None, :] - np.asarray(rows)[:, None] + length - 1]


def self_attention(x: np.ndarray) -> np.ndarray:
    """One attention head with identity projections: softmax(x·xᵀ/√d)·x, shape (length, d)."""
    logits = x @ x.T / np.sqrt(x.shape[1])
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    return (weights / weights.sum(axis=1, keepdims=True)) @ x


def permutation_gap(length: int, d_model: int, table: np.ndarray | None, *, seed: int = 0) -> float:
    """max |attn(P·x + PE) − P·attn(x + PE)| for random tokens x and a random permutation P.

    With no encoding (``table`` None) attention is permutation-equivariant and the gap is
    rounding (~1e-16): order is lost. An absolute encoding breaks the symmetry.
    """
    rng = np.random.default_rng(seed)
    tokens = rng.normal(size=(length, d_model))
    order = rng.permutation(length)
    encoding = np.zeros((length, d_model)) if table is None else table
    return float(np.abs(self_attention(tokens[order] + encoding) - self_attention(tokens + encoding)[order]).max())
