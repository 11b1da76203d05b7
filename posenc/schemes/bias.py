"""What the bias schemes share: a logit bias per head that depends only on the offset j − i.

Shaw's and Transformer-XL's terms read the query too (their registry entries' ``reads_query``): they give
theirs for one fixed seeded unit query, which makes it a function of the offset alone.
Each bias scheme (Shaw et al., T5, ALiBi, KERPLE, Transformer-XL) gives its bias per offset, (heads, 2L − 1) values
for Δ = −(L − 1) … L − 1 (the registry's ``offset_bias``); the full (heads, L, L) matrix and
the curve of the Comparison page derive from it here. Every callable has the registry's
signature fn(length, d_model, base, **options); the sinusoidal base is unused.
"""

from __future__ import annotations

import numpy as np

from posenc.checks import (
    check_choice,
    check_count,
    check_length,
    check_size,
)
from posenc.schemes.offsets import toeplitz_view
from posenc.schemes.scheme import Option

DIRECTIONS: tuple[str, ...] = ("bidirectional", "causal")


def check_heads(num_heads: object) -> int:
    """A number of attention heads: a whole number from 1 to 4096."""
    return check_count(num_heads, "num_heads", minimum=1, meaning="the number of attention heads")


def is_causal(direction: str) -> bool:
    """Whether ``direction`` ("bidirectional" or "causal") masks the keys after the query."""
    return check_choice(direction, "direction", DIRECTIONS) == "causal"


def bias_from(offset_bias):
    """The registry's ``bias``: the full (heads, length, length) matrix from the per-offset values."""
    def bias(length, d_model, base, **options):
        _, values = offset_bias(length, d_model, base, **options)  # (heads, 2L − 1)
        length = check_length(length)
        check_size((len(values), length, length), "the bias matrix")
        positions = np.arange(length)
        return toeplitz_view(values, positions, positions)
    return bias


def masked_after_query(values: np.ndarray, offsets: np.ndarray, causal: bool) -> np.ndarray:
    """Head 0's curve at chosen offsets: NaN (a gap in the curve) for a key after the query when ``causal``."""
    return np.where(causal & (offsets > 0), np.nan, values)


def curve_from(offset_bias):
    """The registry's ``offset_curve``: head 0 of the per-offset values (−inf, masked, as a gap)."""
    def curve(length, d_model, base, **options):
        offsets, values = offset_bias(length, d_model, base, **options)
        return offsets, np.where(np.isneginf(values[0]), np.nan, values[0])
    return curve


DIRECTION_OPTION = Option("direction", "Attention", "bidirectional", choices=DIRECTIONS,
                    help="causal: a decoder, each query sees only keys j ≤ i.")
HEADS_OPTION = Option("num_heads", "Heads", 8, 1, 64, help="One slope / one learned table column per head.")
SEED_OPTION = Option("seed", "Random seed", 0, 0, 9999, help="Seed of the untrained (random) table.")
