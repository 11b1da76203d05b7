"""Transformer-XL's relative attention score (Dai et al. 2019, arXiv:1901.02860, section 3.3).

The absolute encodings of the keys are replaced by a sinusoid of the distance i − j, and the
query's position by two learned vectors u and v:

    A_ij = q_i·k_j + q_i·W_R R_{i−j} + u·k_j + v·W_R R_{i−j}
            (a)         (b)            (c)       (d)

(a) content (query and key), (b) a content-dependent positional bias (query and distance),
(c) a global content bias (key only), (d) a global positional bias (distance only).
R_Δ = [sin(Δθ_0), …, sin(Δθ_{d/2−1}), cos(Δθ_0), …, cos(Δθ_{d/2−1})], θ_s = n^(−2s/d) over d = d_model
(all sines, then all cosines, as kimiyoung/transformer-xl's ``PositionalEmbedding``). The model is a
decoder: keys after the query (j > i) are masked, and the logit is A_ij/√d_head.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from posenc.checks import (
    MAX_WHOLE,
    MAX_WIDTH,
    check_array,
    check_base,
    check_d_model,
    check_flag,
    check_int,
    check_length,
    check_magnitude,
    check_seed,
    check_size,
    check_std,
)
from posenc.schemes.absolute import DEFAULT_STD
from posenc.schemes.bias import bias_from, curve_from, masked_after_query
from posenc.schemes.offsets import all_offsets
from posenc.schemes.scheme import Option, Scheme, Setting, latex_number
from posenc.schemes.shaw import shaw_query
from posenc.schemes.sinusoidal import frequencies

SPLIT = 64  # distances are split as Δ = 64·a + c for the angle-addition sum of transformer_xl_position_bias


class TransformerXLTerms(NamedTuple):
    """The four (length, length) terms of Transformer-XL's score A_ij, float64 (arXiv:1901.02860)."""

    content: np.ndarray  # (a) q_i·k_j
    content_position: np.ndarray  # (b) q_i·W_R R_{i−j}
    global_content: np.ndarray  # (c) u·k_j
    global_position: np.ndarray  # (d) v·W_R R_{i−j}


def _check_even_d_model(d_model: object) -> int:
    d_model = check_d_model(d_model)
    if d_model % 2:
        raise ValueError(f"d_model must be even for Transformer-XL: R_Δ holds d_model/2 sines then d_model/2 "
                         f"cosines; got {d_model}.")
    return d_model


def _check_d_head(d_head: object) -> int:
    return check_int(d_head, "d_head", minimum=1, maximum=MAX_WIDTH, meaning="the size of one attention head")


def relative_sinusoid(distances: np.ndarray, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The (n, d_model) float64 rows R_Δ of Transformer-XL (Dai et al. 2019, arXiv:1901.02860).

        R_Δ = [sin(Δθ_0), …, sin(Δθ_{d/2−1}), cos(Δθ_0), …, cos(Δθ_{d/2−1})],  θ_s = base^(−2s/d)

    for every distance Δ in the 1-D array ``distances`` (Δ = i − j; negative ones are allowed);
    d = d_model must be even. kimiyoung/transformer-xl's ``PositionalEmbedding`` with base 10000.
    """
    d_model, base = _check_even_d_model(d_model), check_base(base)
    distances = check_array(distances, "distances", min_ndim=1, max_ndim=1).astype(np.float64)
    if distances.size and np.abs(distances).max() > MAX_WHOLE:
        raise ValueError("distances must lie within ±2^53 (a distance between positions).")
    check_size((len(distances), d_model), "the sinusoids R_Δ")
    phase = distances[:, None] * frequencies(d_model, base)  # (n, d/2)
    return np.concatenate([np.sin(phase), np.cos(phase)], axis=1)


def transformer_xl_parameters(d_head: int, d_model: int, *, seed: int = 0,
                              std: float = DEFAULT_STD) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(u, v, W_R) at initialisation: u, v ∈ R^d_head and W_R of shape (d_head, d_model), float64.

    Drawn in that order from ``np.random.default_rng(seed)``, each N(0, std²): Transformer-XL
    initialises r_w_bias (u), r_r_bias (v) and r_net (W_R) from N(0, 0.02²) (its init_std).
    """
    d_head, d_model = _check_d_head(d_head), _check_even_d_model(d_model)
    check_size((d_head, d_model), "W_R")
    rng, std = np.random.default_rng(check_seed(seed)), check_std(std)
    u, v = rng.normal(0.0, std, size=d_head), rng.normal(0.0, std, size=d_head)
    return u, v, rng.normal(0.0, std, size=(d_head, d_model))


def _check_inputs(q, k, u, v, w_r) -> tuple[np.ndarray, ...]:
    """q, k (length, d_head); u, v (d_head,); w_r (d_head, d_model) with d_model even: float64 arrays."""
    arrays = [check_magnitude(check_array(x, name, min_ndim=n, max_ndim=n), name, 1e100).astype(np.float64)
              for x, name, n in ((q, "q", 2), (k, "k", 2), (u, "u", 1), (v, "v", 1), (w_r, "w_r", 2))]
    q, k, u, v, w_r = arrays
    if k.shape != q.shape:
        raise ValueError(f"q and k must have the same shape (length, d_head); got {q.shape} and {k.shape}.")
    d_head = q.shape[1]
    if d_head == 0 or u.shape != (d_head,) or v.shape != (d_head,) or w_r.shape[0] != d_head:
        raise ValueError(f"u and v must have shape (d_head,) and w_r (d_head, d_model), with d_head = {d_head} "
                         f"the width of q; got u {u.shape}, v {v.shape}, w_r {w_r.shape}.")
    _check_even_d_model(w_r.shape[1])
    check_size((len(q), 2 * len(q) - 1), "the query-by-distance products")
    return q, k, u, v, w_r


def transformer_xl_terms(q: np.ndarray, k: np.ndarray, u: np.ndarray, v: np.ndarray, w_r: np.ndarray,
                         base: float = 10000.0) -> TransformerXLTerms:
    """The four terms of Transformer-XL's score (Dai et al. 2019, arXiv:1901.02860, eq. in section 3.3):

        (a) q_i·k_j    (b) q_i·W_R R_{i−j}    (c) u·k_j    (d) v·W_R R_{i−j}

    q, k: (length, d_head) queries and keys (W_q E_x, W_k,E E_x); u, v: (d_head,); w_r: (d_head,
    d_model), d_model even; R_Δ from :func:`relative_sinusoid` with ``base``. Each term is
    (length, length), float64, given at every (i, j): for j > i, R_{i−j} is the sinusoid of a
    negative distance; Transformer-XL masks those keys (:func:`transformer_xl_scores`).
    """
    q, k, u, v, w_r = _check_inputs(q, k, u, v, w_r)
    length = len(q)
    distances = np.arange(2 * length - 1) - (length - 1)  # i − j = −(L − 1) … L − 1
    projected = relative_sinusoid(distances, w_r.shape[1], base) @ w_r.T  # (2L − 1, d_head): W_R R_{i−j}
    positions = np.arange(length)
    index = positions[:, None] - positions[None, :] + length - 1  # (L, L): row of i − j in ``projected``
    by_distance = q @ projected.T  # (L, 2L − 1): q_i·W_R R_Δ
    return TransformerXLTerms(
        content=q @ k.T,
        content_position=np.take_along_axis(by_distance, index, axis=1),
        global_content=np.broadcast_to(k @ u, (length, length)).copy(),
        global_position=(projected @ v)[index],
    )


def transformer_xl_scores(q: np.ndarray, k: np.ndarray, u: np.ndarray, v: np.ndarray, w_r: np.ndarray,
                          base: float = 10000.0, *, causal: bool = True) -> np.ndarray:
    """Transformer-XL's (length, length) attention score, float64 (Dai et al. 2019, arXiv:1901.02860):

        A_ij = q_i·k_j + q_i·W_R R_{i−j} + u·k_j + v·W_R R_{i−j}

    (the four :func:`transformer_xl_terms`), before the 1/√d_head scaling and the softmax.
    causal=True (Transformer-XL, a decoder): −inf for j > i; for j ≤ i it equals AC + BD of
    kimiyoung/transformer-xl's RelPartialLearnableMultiHeadAttn (r_w_bias = u, r_r_bias = v,
    r_net.weight = W_R, no memory). causal=False: the formula at every (i, j).
    """
    causal = check_flag(causal, "causal")
    terms = transformer_xl_terms(q, k, u, v, w_r, base)
    scores = terms.content + terms.content_position + terms.global_content + terms.global_position
    if causal:
        positions = np.arange(len(scores))
        scores[positions[None, :] > positions[:, None]] = -np.inf
    return scores


def transformer_xl_position_bias(length: int, d_model: int, base: float = 10000.0, *,
                                 seed: int = 0) -> np.ndarray:
    """The positional share of the logit for one fixed query, by distance Δ = i − j = 0 … length − 1:

        b(Δ) = (q·W_R R_Δ + v·W_R R_Δ) / √d = (W_Rᵀ(q + v))·R_Δ / √d,   terms (b) + (d) over √d,

    one head with d_head = d = d_model (even); q the seeded unit query of :func:`shaw_query`,
    (u, v, W_R) from :func:`transformer_xl_parameters` (seed); float64, shape (length,).
    With w = W_Rᵀ(q + v), w·R_Δ = Σ_s w_s sin(Δθ_s) + w_{s+d/2} cos(Δθ_s) = Σ_s ρ_s sin(Δθ_s + φ_s),
    ρ_s = |(w_s, w_{s+d/2})|, φ_s = atan2(w_{s+d/2}, w_s). Each distance is split as Δ = SPLIT·a + c
    and sin(Δθ + φ) = sin(SPLIT·aθ + φ)·cos(cθ) + cos(SPLIT·aθ + φ)·sin(cθ): two matrix products over
    the pairs, (length/SPLIT + SPLIT)·d/2 sines and cosines instead of length·d/2. The split does not
    depend on the length, so a distance's value does not either (the same bits at every length).
    """
    length, d_model = check_length(length), _check_even_d_model(d_model)
    amplitude, shift = relative_sinusoid_weights(d_model, check_seed(seed))  # (d/2,) each; checked before the cache
    theta = frequencies(d_model, check_base(base))
    high = np.arange((length + SPLIT - 1) // SPLIT, dtype=np.float64)[:, None] * (SPLIT * theta) + shift  # (A, d/2)
    low = np.arange(SPLIT, dtype=np.float64)[:, None] * theta  # (SPLIT, d/2)
    # einsum's own loop, as posenc.analysis.offset_curves: products this small gain nothing from BLAS threads
    grid = (np.einsum("as,bs->ab", amplitude * np.sin(high), np.cos(low), optimize=False)
            + np.einsum("as,bs->ab", amplitude * np.cos(high), np.sin(low), optimize=False))  # (A, SPLIT)
    return grid.reshape(-1)[:length] / np.sqrt(d_model)


@functools.lru_cache(maxsize=8)
def relative_sinusoid_weights(d_model: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(ρ_s, φ_s) of w = W_Rᵀ(q + v) for one (d_model, seed), read-only: drawing W_R (d × d normals) is
    most of the cost of a call, and the draw never changes (cached, bounded: 8 settings)."""
    _, v, w_r = transformer_xl_parameters(d_model, d_model, seed=seed)
    weights = w_r.T @ (shaw_query(d_model, seed=seed) + v)  # (d_model,): w = W_Rᵀ(q + v)
    sines, cosines = weights[: d_model // 2], weights[d_model // 2 :]
    amplitude, shift = np.hypot(sines, cosines), np.arctan2(cosines, sines)
    amplitude.setflags(write=False)
    shift.setflags(write=False)
    return amplitude, shift


def _transformer_xl_offsets(length, d_model, base, *, seed=0):
    """One head: b(−Δ) for Δ = j − i ≤ 0, −inf for Δ > 0 (a decoder)."""
    offsets, length = all_offsets(length), check_length(length)
    values = np.full(len(offsets), -np.inf)
    values[:length] = transformer_xl_position_bias(length, d_model, base, seed=seed)[::-1]
    return offsets, values[None, :]


def _transformer_xl_formula(d_model, base, *, seed=0):
    d, n = _check_even_d_model(d_model), latex_number(check_base(base))
    check_seed(seed)
    return (
        r"e_{ij} = \begin{cases} \dfrac{q_i \cdot k_j + q_i \cdot W_R R_{i-j} + u \cdot k_j + v \cdot W_R R_{i-j}}"
        r"{\sqrt{%d}} & j \le i \\ -\infty & j > i \end{cases},\quad"
        r" R_\Delta = [\sin(\Delta\theta_0), \dots, \sin(\Delta\theta_{%d}), \cos(\Delta\theta_0), \dots,"
        r" \cos(\Delta\theta_{%d})],\; \theta_s = %s^{-2s/%d},\; u, v \in \mathbb{R}^{%d},\;"
        r" W_R \in \mathbb{R}^{%d \times %d}" % (d, d // 2 - 1, d // 2 - 1, n, d, d, d, d)
    )


def _transformer_xl_at(setting: Setting, offsets: np.ndarray) -> np.ndarray:
    """b(−Δ) = Σ_s ρ_s·sin(−Δθ_s + φ_s)/√d for Δ ≤ 0 (Dai et al., arXiv:1901.02860, terms (b) + (d) of one
    query; as :func:`transformer_xl_position_bias`, one term per offset and pair); none for Δ > 0."""
    d_model = check_d_model(setting.d_model)
    if d_model % 2:
        raise ValueError(f"Transformer-XL's relative sinusoid needs an even d_model; got {d_model}.")
    amplitude, shift = relative_sinusoid_weights(d_model, setting.options["seed"])
    distance = np.maximum(-offsets, 0).astype(np.float64)[:, None]
    values = (amplitude * np.sin(distance * frequencies(d_model, setting.base) + shift)).sum(axis=1) / np.sqrt(d_model)
    return masked_after_query(values, offsets, True)


SCHEMES: tuple[Scheme, ...] = (
    Scheme(
        key="transformer_xl", label="Transformer-XL", family="bias", paper="Dai et al. 2019, arXiv:1901.02860",
        formula=_transformer_xl_formula, offset_curve=curve_from(_transformer_xl_offsets),
        bias=bias_from(_transformer_xl_offsets), offset_bias=_transformer_xl_offsets,
        offset_curve_at=_transformer_xl_at, reads_query=True,
        curve_label="(q + v)·W_R R_{−Δ}/√d for one fixed unit query (untrained v, W_R; causal: none for Δ > 0)",
        options=(Option("seed", "Random seed", 0, 0, 9999,
                        help="Seed of the untrained u, v, W_R (N(0, 0.02²), Transformer-XL's init) and of "
                             "the fixed unit query q."),),
    ),
)
