"""What attention sees of an encoding table: the similarity of its rows, and whether order survives.

- :func:`similarity_matrix`: S[p, q] = PE[p]·PE[q] (Vaswani et al. 2017, arXiv:1706.03762, §3.5);
- :func:`permutation_gap`: attention without an encoding is permutation-equivariant, so it
  cannot tell token orders apart (Kazemnejad et al. 2023, arXiv:2305.19466).
"""

from __future__ import annotations

import numpy as np

from posenc.checks import check_array, check_finite, check_int, check_magnitude, check_seed, check_size


def similarity_matrix(table: np.ndarray) -> np.ndarray:
    """S[p, q] = PE[p] · PE[q], the (length, length) Gram matrix of the rows of ``table``.

    For the sinusoidal encoding with even d_model, S[p, q] = Σ_i cos((p − q)·θ_i):
    it depends only on the offset p − q (Vaswani et al. 2017, arXiv:1706.03762, §3.5).
    """
    table = check_array(table, "table", min_ndim=2, max_ndim=2, allow_nan=True).astype(np.float64)
    check_size((len(table), len(table)), "the similarity matrix")
    check_magnitude(table, "table")
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
        gram = table @ table.T  # NaN where a row is NaN (no encoding)
    if np.isinf(gram).any():
        raise ValueError("PE[p]·PE[q] overflows for this table (its entries are too large); use smaller values.")
    return gram


def self_attention(x: np.ndarray) -> np.ndarray:
    """One attention head with identity projections: softmax(x·xᵀ/√d)·x, shape (length, d)."""
    x = check_array(x, "x", min_ndim=2, max_ndim=2).astype(np.float64)
    if x.shape[1] == 0:
        raise ValueError("x must have at least one column (d ≥ 1); got shape " + str(x.shape) + ".")
    check_size((len(x), len(x)), "the attention weights")
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
        logits = check_finite(x @ x.T / np.sqrt(x.shape[1]), "the logit x_i·x_j/√d")
        weights = np.exp(logits - logits.max(axis=1, keepdims=True))
        return check_finite((weights / weights.sum(axis=1, keepdims=True)) @ x, "the attention output")


def permutation_gap(length: int, d_model: int, table: np.ndarray | None, *, seed: int = 0) -> float:
    """max |attn(P·x + PE) − P·attn(x + PE)| for random tokens x and a random permutation P.

    With no encoding (``table`` None) attention is permutation-equivariant and the gap is
    rounding (~1e-16): order is lost. An absolute encoding breaks the symmetry.
    """
    length = check_int(length, "length", minimum=1, maximum=1 << 14, meaning="the number of tokens attended")
    d_model = check_int(d_model, "d_model", minimum=1, maximum=1 << 14, meaning="the width of a token")
    check_size((length, max(length, d_model)), "the attention weights")
    rng = np.random.default_rng(check_seed(seed))
    tokens = rng.normal(size=(length, d_model))
    order = rng.permutation(length)
    encoding = np.zeros((length, d_model)) if table is None else check_array(table, "table").astype(np.float64)
    if encoding.shape != (length, d_model):
        raise ValueError(f"table must have shape (length, d_model) = {(length, d_model)}; got {encoding.shape}.")
    return float(np.abs(self_attention(tokens[order] + encoding) - self_attention(tokens + encoding)[order]).max())
