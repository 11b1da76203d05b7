"""Distances and differences between encodings: the measurements behind the Properties page.

The smallest distance between two encodings (exactly, or through a Gram screen whose
near-minimal pairs are re-measured), every pairwise distance, how far a matrix is from
depending on the offset only, and comparisons of two arrays that tell NaN (no encoding)
and −inf (a causal mask) apart from numbers.
"""

from __future__ import annotations

import numpy as np

from posenc.checks import check_array, check_magnitude, check_size

_MAX_CANDIDATES = 1 << 14  # pairs re-measured directly after the Gram screen
_SWEEP_WIDTH = 64  # up to this many columns, min_distance sweeps sorted rows instead


def _norms(diff: np.ndarray) -> np.ndarray:
    """‖row‖ of every row of a (n, d) array."""
    return np.sqrt(np.einsum("ij,ij->i", diff, diff))


def _gram_min_distance(vectors: np.ndarray) -> float:
    """min ‖v_p − v_q‖ over p < q: a float64 Gram screen ‖v_p‖² + ‖v_q‖² − 2 v_p·v_q, then every pair
    within its rounding bound (4d + 16)·ε·max‖v‖² of the smallest re-measured directly."""
    n = len(vectors)
    gram = vectors @ vectors.T  # (n, n)
    squares = np.diag(gram).copy()
    upper = np.triu_indices(n, 1)
    screened = (squares[:, None] + squares[None, :] - 2.0 * gram)[upper]
    slack = (4 * vectors.shape[1] + 16) * np.finfo(np.float64).eps * squares.max()
    candidates = np.flatnonzero(screened <= screened.min() + 2.0 * slack)
    if candidates.size > _MAX_CANDIDATES:
        candidates = np.argpartition(screened, _MAX_CANDIDATES)[:_MAX_CANDIDATES]
    best = np.inf
    for chunk in np.array_split(candidates, max(1, candidates.size // 2048)):
        best = min(best, float(_norms(vectors[upper[0][chunk]] - vectors[upper[1][chunk]]).min()))
    return best


def _sweep_min_distance(vectors: np.ndarray) -> float:
    """min ‖v_p − v_q‖ over p < q, exactly: sort by the widest column, compare rows k ranks apart
    for k = 1, 2, … until that column alone keeps every remaining pair at least as far apart."""
    key = vectors[:, np.argmax(np.ptp(vectors, axis=0))]
    ordered = vectors[np.argsort(key, kind="stable")]
    key = np.sort(key)
    best = np.inf
    for rank in range(1, len(ordered)):
        if (key[rank:] - key[:-rank]).min() >= best:
            break
        best = min(best, float(_norms(ordered[rank:] - ordered[:-rank]).min()))
    return best


def min_distance(vectors: np.ndarray) -> tuple[float, int, int]:
    """(min ‖v_p − v_q‖ over p ≠ q, rows bit-for-bit equal to another row, rows compared).

    Rows with a non-finite entry (NaN: no encoding; −inf: a masked offset) are left out; a 1-D
    input is a column of scalars. Duplicates are found exactly (np.unique); otherwise narrow rows
    (≤ 64 columns: biases per head) are swept exactly, wide ones (encodings) go through a Gram
    screen whose every near-minimal pair (up to 16384) is re-measured directly. NaN if < 2 rows.
    """
    vectors = check_array(vectors, "vectors", min_ndim=1, finite=False).astype(np.float64)
    vectors = vectors.reshape(len(vectors), -1) + 0.0  # −0.0 becomes 0.0
    vectors = check_magnitude(vectors[np.isfinite(vectors).all(axis=1)], "vectors")
    n = len(vectors)
    if n < 2:
        return float("nan"), 0, n
    rows = np.ascontiguousarray(vectors).view(np.dtype((np.void, 8 * vectors.shape[1]))).ravel()  # a row's bytes
    _, inverse, counts = np.unique(rows, return_inverse=True, return_counts=True)
    sharing = int((counts[inverse] > 1).sum())
    if sharing:
        return 0.0, sharing, n
    if vectors.shape[1] <= _SWEEP_WIDTH:
        return _sweep_min_distance(vectors), 0, n
    return _gram_min_distance(vectors), 0, n


def pair_distances(vectors: np.ndarray) -> np.ndarray:
    """The (n, n) matrix D[p, q] = ‖v_p − v_q‖, each entry computed directly from the difference
    (no Gram matrix, so equal distances stay equal to rounding); NaN where a row is NaN."""
    vectors = check_array(vectors, "vectors", min_ndim=2, max_ndim=2, allow_nan=True).astype(np.float64)
    check_magnitude(vectors, "vectors")
    n = len(vectors)
    check_size((n, n), "the distance matrix")
    out = np.full((n, n), np.nan)
    index = np.arange(n)
    out[index, index] = np.where(np.isfinite(vectors).all(axis=1), 0.0, np.nan)
    for offset in range(1, n):
        with np.errstate(over="ignore"):  # an overflow is refused below
            distance = _norms(vectors[offset:] - vectors[:-offset])
        out[index[:-offset], index[offset:]] = distance
        out[index[offset:], index[:-offset]] = distance
    if np.isinf(out).any():
        raise ValueError("a distance ‖v_p − v_q‖ overflows for these vectors (entries too large); use smaller values.")
    return out


def offset_spread(matrix: np.ndarray) -> float:
    """max over offsets Δ (and leading axes, e.g. heads) of (max − min) of the finite entries
    M[…, i, i+Δ]: 0 when M depends on the offset j − i only."""
    matrix = check_array(matrix, "matrix", min_ndim=2, finite=False).astype(np.float64)
    if matrix.shape[-1] != matrix.shape[-2]:
        raise ValueError(f"matrix must be square in its last two axes; got shape {matrix.shape}.")
    n = matrix.shape[-1]
    spread = 0.0
    for offset in range(-(n - 1), n):
        diagonal = np.diagonal(matrix, offset, axis1=-2, axis2=-1)  # (..., n − |Δ|)
        finite = np.isfinite(diagonal)
        if finite.any():
            high = np.where(finite, diagonal, -np.inf).max(axis=-1)
            low = np.where(finite, diagonal, np.inf).min(axis=-1)
            with np.errstate(over="ignore"):
                spread = max(spread, float((high - low)[finite.any(axis=-1)].max()))
    if not np.isfinite(spread):
        raise ValueError("the spread overflows for this matrix (entries too large); use smaller values.")
    return spread


def largest_change(first: np.ndarray, second: np.ndarray) -> float:
    """max |first − second| over entries finite in both; inf if an entry is finite in only one."""
    first = check_array(first, "first", finite=False).astype(np.float64)
    second = check_array(second, "second", finite=False).astype(np.float64)
    if first.shape != second.shape:
        raise ValueError(f"first and second must have the same shape; got {first.shape} and {second.shape}.")
    finite_first, finite_second = np.isfinite(first), np.isfinite(second)
    if np.any(finite_first != finite_second):
        return float("inf")
    with np.errstate(invalid="ignore", over="ignore"):  # −inf − (−inf): a mask in both, left out below
        return float(np.max(np.abs(first - second), where=finite_first, initial=0.0))


def same_bits(first: np.ndarray, second: np.ndarray) -> bool:
    """Whether two float64 arrays hold the same bits (NaN included)."""
    first = check_array(first, "first", finite=False).astype(np.float64)
    second = check_array(second, "second", finite=False).astype(np.float64)
    return first.shape == second.shape and np.array_equal(first.view(np.uint64), second.view(np.uint64))


def max_abs(values: np.ndarray) -> float:
    """max |value| over the finite entries (0 if none): NaN marks no encoding, −inf a causal mask."""
    values = check_array(values, "values", finite=False)
    if values.dtype.kind in "iu":  # |int64 min| has no int64: in float64 it is exact (2^63)
        values = values.astype(np.float64)
    if values.size and np.isfinite(largest := max(values.max(), -values.min())):
        # all finite: the answer without a temporary array (−min cannot overflow a float)
        return float(largest)
    return float(np.max(np.abs(values), where=np.isfinite(values), initial=0.0))
