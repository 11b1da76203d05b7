"""Relative position representations of Shaw et al. 2018 (arXiv:1803.02155).

A learned vector a_{clip(j−i, k)} is added to the key,

    e_ij = q_i·(k_j + a_{clip(j−i, k)}) / √d,   clip(x, k) = max(−k, min(k, x)),

with 2k + 1 vectors a_{−k} … a_k. They are shown at initialisation: seeded normal draws.
"""

from __future__ import annotations

import numpy as np

from posenc.checks import (
    MAX_WIDTH,
    check_d_model,
    check_int,
    check_length,
    check_max_relative_position,
    check_seed,
    check_size,
    check_std,
)
from posenc.schemes.bias import (
    SEED_OPTION,
    bias_from,
    curve_from,
)
from posenc.schemes.offsets import all_offsets
from posenc.schemes.scheme import Option, Scheme, Setting


def _check_d_head(d_head: object) -> int:
    return check_int(d_head, "d_head", minimum=1, maximum=MAX_WIDTH, meaning="the size of one attention head")


def shaw_relative_positions(length: int, max_relative_position: int) -> np.ndarray:
    """The (length, length) int64 matrix R[i, j] = clip(j − i, k) = max(−k, min(k, j − i)).

    i is the query (row), j the key (column), k = max_relative_position (Shaw et al. 2018,
    arXiv:1803.02155, eq. 6): beyond k positions all offsets share one learned vector.
    """
    length = check_length(length)
    k = check_max_relative_position(max_relative_position)
    check_size((length, length), "the matrix of clipped offsets")
    positions = np.arange(length)
    return np.clip(positions[None, :] - positions[:, None], -k, k)


def shaw_embeddings(max_relative_position: int, d_head: int, *, seed: int = 0, std: float = 0.02) -> np.ndarray:
    """The (2k+1, d_head) vectors a_{−k} … a_k of Shaw et al. 2018 (arXiv:1803.02155); row r+k is a_r.

    At initialisation: a_r[d] ~ N(0, std²), drawn from ``np.random.default_rng(seed)``.
    """
    k = check_max_relative_position(max_relative_position)
    d_head = _check_d_head(d_head)
    check_size((2 * k + 1, d_head), "Shaw's table of vectors")
    return np.random.default_rng(check_seed(seed)).normal(0.0, check_std(std), size=(2 * k + 1, d_head))


def shaw_lookup(
    length: int, max_relative_position: int, d_head: int, *, seed: int = 0, std: float = 0.02
) -> np.ndarray:
    """The (length, length, d_head) tensor a^K_ij = a_{clip(j − i, k)} added to key j for query i.

    Shaw et al. 2018 (arXiv:1803.02155): e_ij = q_i·(k_j + a^K_ij) / √d_head.
    """
    k = check_max_relative_position(max_relative_position)
    check_size((check_length(length), check_length(length), _check_d_head(d_head)), "Shaw's lookup a^K")
    table = shaw_embeddings(k, d_head, seed=seed, std=std)  # (2k+1, d_head)
    return table[shaw_relative_positions(length, k) + k]


def shaw_query(d_head: int, *, seed: int = 0) -> np.ndarray:
    """A fixed unit query q ∈ R^d_head (‖q‖ = 1), drawn from ``np.random.default_rng([seed, 1])``."""
    d_head = _check_d_head(d_head)
    q = np.random.default_rng([check_seed(seed), 1]).normal(size=d_head)
    return q / np.linalg.norm(q)


def shaw_bias(
    length: int, max_relative_position: int, d_head: int, *, seed: int = 0, std: float = 0.02
) -> np.ndarray:
    """Shaw's key term seen by one query, a (1, length, length) matrix: B[0, i, j] = q·a_{clip(j−i, k)}.

    Shaw et al. 2018 (arXiv:1803.02155) add a *vector* a_{clip(j−i, k)} to the key, so the
    logit change depends on the query. To draw it as a matrix we fix one seeded unit query q
    (:func:`shaw_query`, independent of the table) and take q·a (no 1/√d scaling).
    """
    k = check_max_relative_position(max_relative_position)
    scores = shaw_embeddings(k, d_head, seed=seed, std=std) @ shaw_query(d_head, seed=seed)  # (2k+1,)
    return scores[shaw_relative_positions(length, k) + k][None]


def _shaw_offsets(length, d_model, base, *, max_relative_position=16, seed=0):
    """The term a_clip(j−i) adds to e_ij: q·a_clip(j−i)/√d, for one fixed unit query."""
    offsets, k = all_offsets(length), check_max_relative_position(max_relative_position)
    scores = shaw_embeddings(k, d_model, seed=seed) @ shaw_query(d_model, seed=seed)  # (2k+1,)
    return offsets, scores[np.clip(offsets, -k, k) + k][None, :] / np.sqrt(d_model)  # one head: d_head = d_model


def _shaw_formula(d_model, base, *, max_relative_position=16, seed=0):
    k, d_model = check_max_relative_position(max_relative_position), check_d_model(d_model)
    check_seed(seed)
    return (
        r"e_{ij} = \frac{q_i \cdot \left(k_j + a_{\operatorname{clip}(j-i,\,k)}\right)}{\sqrt{d}},\quad"
        r" \operatorname{clip}(x, k) = \max(-k, \min(k, x)),\; k = %d,\;"
        r" a_{-k}, \dots, a_{k} \in \mathbb{R}^{%d}\ (%d\text{ vectors})" % (k, d_model, 2 * k + 1)
    )


def _shaw_at(setting: Setting, offsets: np.ndarray) -> np.ndarray:
    """q·a_clip(Δ, k)/√d for the seeded unit query (Shaw et al., arXiv:1803.02155)."""
    d_model, options = check_d_model(setting.d_model), setting.options
    scores = (shaw_embeddings(options["max_relative_position"], d_model, seed=options["seed"])
              @ shaw_query(d_model, seed=options["seed"]))  # (2k+1,)
    k = len(scores) // 2  # max_relative_position, checked by shaw_embeddings
    return scores[np.clip(offsets, -k, k) + k] / np.sqrt(d_model)


SCHEMES: tuple[Scheme, ...] = (
    Scheme(
        key="shaw", label="Relative, Shaw et al.", family="bias", paper="Shaw et al. 2018, arXiv:1803.02155",
        formula=_shaw_formula, offset_curve=curve_from(_shaw_offsets), bias=bias_from(_shaw_offsets),
        offset_bias=_shaw_offsets, short_label="Shaw", reads_query=True,
        offset_curve_at=_shaw_at,
        curve_label="q·a_clip(Δ)/√d for one fixed unit query (untrained vectors)",
        options=(Option("max_relative_position", "Clipping distance k", 16, 0, 256,
                        help="Offsets beyond ±k share the vectors a_−k and a_k."), SEED_OPTION),
    ),
)
