"""ALiBi, attention with linear biases (Press et al. 2021, arXiv:2108.12409).

A fixed penalty, linear in the distance, is added to the logits of head h:

    e_ij = q_i·k_j − m_h·|i − j|,

with a geometric sequence of slopes m_h (8 heads: 1/2, 1/4, …, 1/256).
"""

from __future__ import annotations

import math

import numpy as np

from posenc.checks import (
    check_d_model,
    check_flag,
    check_length,
    check_size,
)
from posenc.schemes.bias import (
    DIRECTIONS,
    HEADS_OPTION,
    bias_from,
    check_heads,
    curve_from,
    is_causal,
    masked_after_query,
)
from posenc.schemes.offsets import all_offsets
from posenc.schemes.scheme import Option, Scheme, Setting


def alibi_slopes(num_heads: int) -> np.ndarray:
    """The ALiBi slope m_h of every head (Press et al. 2021, arXiv:2108.12409), float64.

    As ``get_slopes`` of ofirpress/attention_with_linear_biases: for H a power of two,
    m_h = s^h, h = 1 … H, s = 2^(−8/H) (8 heads: 1/2, 1/4, …, 1/256). Otherwise, with
    P = 2^⌊log2 H⌋: the P slopes for P heads, then every other slope for 2P heads, first
    H − P of them, i.e. 2^(−4(2h'−1)/P) for h' = 1 … H − P.
    """
    num_heads = check_heads(num_heads)

    def power_of_2(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))  # the reference's expression, kept verbatim
        return [start * start**i for i in range(n)]

    def slopes(n: int) -> list[float]:
        if math.log2(n).is_integer():
            return power_of_2(n)
        closest = 2 ** math.floor(math.log2(n))
        return power_of_2(closest) + slopes(2 * closest)[0::2][: n - closest]

    return np.array(slopes(num_heads))


def alibi_bias(length: int, num_heads: int, *, causal: bool = False) -> np.ndarray:
    """The (num_heads, length, length) ALiBi bias B[h, i, j] = −m_h·|i − j| (Press et al., arXiv:2108.12409).

    Added to the logits: e_ij = q_i·k_j + B[h, i, j], slopes m_h from :func:`alibi_slopes`.
    causal=True: the same on and below the diagonal (j ≤ i) and −inf above it (j > i, the
    keys a causal decoder may not see). Press et al. add m_h·(j − i) only for j ≤ i; it is the
    same bias because softmax ignores a constant per row.
    """
    length, causal = check_length(length), check_flag(causal, "causal")
    check_size((check_heads(num_heads), length, length), "the ALiBi bias")
    positions = np.arange(length)
    offset = positions[None, :] - positions[:, None]  # (length, length), j − i
    bias = -alibi_slopes(num_heads)[:, None, None] * np.abs(offset)
    if causal:
        bias = np.where(offset > 0, -np.inf, bias)
    return bias


def _alibi_offsets(length, d_model, base, *, num_heads=8, direction="causal"):
    offsets = all_offsets(length)
    values = -alibi_slopes(num_heads)[:, None] * np.abs(offsets).astype(np.float64)  # (heads, 2L−1)
    return offsets, np.where(is_causal(direction) & (offsets > 0), -np.inf, values)


def _alibi_formula(d_model, base, *, num_heads=8, direction="causal"):
    h, _ = check_heads(num_heads), check_d_model(d_model)
    p = 2 ** math.floor(math.log2(h))
    slopes = r"m_h = 2^{-8h/%d},\ h = 1, \dots, %d" % (p, p)
    if h > p:
        slopes += r",\quad m_{%d+h'} = 2^{-4(2h'-1)/%d},\ h' = 1, \dots, %d" % (p, p, h - p)
    penalty = r"- m_h\,|i-j|"
    if is_causal(direction):
        penalty = r"+ \begin{cases} -m_h\,(i-j) & j \le i \\ -\infty & j > i \end{cases}"
    return r"e_{ij} = q_i \cdot k_j " + penalty + r",\quad " + slopes


# ALiBi opens causal, as Press et al. train and evaluate it and every model that uses it runs it;
# the bidirectional penalty −m_h·|i − j| stays an option (encoders, e.g. MosaicBERT).
CAUSAL_FIRST = Option("direction", "Attention", "causal", choices=DIRECTIONS,
                      help="causal: a decoder, each query sees only keys j ≤ i (the paper); "
                           "bidirectional: −m·|i − j| on both sides (encoders).")

def _alibi_at(setting: Setting, offsets: np.ndarray) -> np.ndarray:
    """−m_0·|Δ| (Press et al., arXiv:2108.12409), head 0's slope; causal: none for Δ > 0."""
    check_d_model(setting.d_model)
    values = -alibi_slopes(setting.options["num_heads"])[0] * np.abs(offsets).astype(np.float64)
    return masked_after_query(values, offsets, is_causal(setting.options["direction"]))


SCHEMES: tuple[Scheme, ...] = (
    Scheme(
        key="alibi", label="ALiBi", family="bias", paper="Press et al. 2021, arXiv:2108.12409",
        formula=_alibi_formula, offset_curve=curve_from(_alibi_offsets), bias=bias_from(_alibi_offsets),
        offset_bias=_alibi_offsets,
        offset_curve_at=_alibi_at,
        curve_label="logit bias of head 0 (steepest slope m_1)",
        options=(HEADS_OPTION, CAUSAL_FIRST),
    ),
)
