"""KERPLE, kernelized relative positional embeddings (Chi et al. 2022, arXiv:2205.09921).

A conditionally positive definite kernel of the distance is added to the logits of a decoder:

    log:   e_ij = q_i·k_j − r1·ln(1 + r2·(i − j)),   r1, r2 > 0,
    power: e_ij = q_i·k_j − r1·(i − j)^r2,           r1 > 0, 0 < r2 ≤ 2,

for j ≤ i; keys after the query (j > i) are masked (−inf), as in the paper's GPT-NeoX decoders.
The power kernel with r2 = 1 is ALiBi's linear penalty with slope r1; the log kernel bends it,
so distant keys are penalised far less. In the paper each head learns its own (r1, r2); here one
pair is given, shared by every head (the registry entry draws one head).
"""

from __future__ import annotations

import numpy as np

from posenc.checks import (
    check_array,
    check_choice,
    check_d_model,
    check_finite,
    check_flag,
    check_length,
    check_real,
    check_size,
)
from posenc.schemes.bias import bias_from, curve_from, masked_after_query
from posenc.schemes.offsets import all_offsets
from posenc.schemes.scheme import Option, Scheme, Setting, latex_number

KERPLE_VARIANTS: tuple[str, ...] = ("log", "power")
MAX_POWER = 2.0
"""The power kernel −r1·|i − j|^r2 is conditionally positive definite for 0 < r2 ≤ 2 only."""


def check_kerple_parameters(r1: object, r2: object, variant: object) -> tuple[float, float, str]:
    """(r1, r2, variant) of a KERPLE kernel: r1, r2 finite and > 0, r2 ≤ 2 for "power"."""
    variant = check_choice(variant, "variant", KERPLE_VARIANTS)
    r1 = check_real(r1, "r1", minimum=0.0, strict=True, meaning="the scale of the KERPLE penalty")
    top = MAX_POWER if variant == "power" else np.inf
    meaning = ("the power of the distance; the kernel is a valid one only up to 2" if variant == "power"
               else "how fast the log penalty bends")
    r2 = check_real(r2, "r2", minimum=0.0, strict=True, maximum=top, meaning=meaning)
    return r1, r2, variant


def kerple_kernel(distance: np.ndarray, r1: float, r2: float, variant: str = "log") -> np.ndarray:
    """The KERPLE penalty of distances Δ ≥ 0: −r1·ln(1 + r2·Δ) ("log") or −r1·Δ^r2 ("power"), float64.

    Chi et al. 2022, arXiv:2205.09921. ``distance`` is an array of whole or real distances ≥ 0.
    ln(1 + x) is computed as log1p(x), exact for small x. A ValueError if a value overflows.
    """
    r1, r2, variant = check_kerple_parameters(r1, r2, variant)
    distance = check_array(distance, "distance").astype(np.float64)
    if np.any(distance < 0):
        raise ValueError("distance must hold distances |i − j| ≥ 0.")
    with np.errstate(over="ignore", invalid="ignore"):
        values = -r1 * (np.log1p(r2 * distance) if variant == "log" else distance**r2)
    return check_finite(values, "The KERPLE penalty")


def kerple_bias(length: int, r1: float, r2: float, variant: str = "log", *, causal: bool = True) -> np.ndarray:
    """The (length, length) KERPLE bias, float64 (Chi et al. 2022, arXiv:2205.09921).

        log:   B[i, j] = −r1·ln(1 + r2·|i − j|)
        power: B[i, j] = −r1·|i − j|^r2   (0 < r2 ≤ 2)

    with r1, r2 > 0 finite, one pair shared by every head (the paper learns one pair per head:
    call this once per head). causal=True (the paper: decoders): −inf above the diagonal
    (j > i), as :func:`posenc.alibi_bias` with causal=True; causal=False: |i − j| on both sides.
    """
    length, causal = check_length(length), check_flag(causal, "causal")
    r1, r2, variant = check_kerple_parameters(r1, r2, variant)
    check_size((length, length), "the KERPLE bias")
    positions = np.arange(length)
    offset = positions[None, :] - positions[:, None]  # (length, length), j − i
    bias = kerple_kernel(np.abs(offset), r1, r2, variant)
    return np.where(offset > 0, -np.inf, bias) if causal else bias


def _kerple_offsets(length, d_model, base, *, r1=1.0, r2=1.0, variant="log"):
    """One head: the kernel of the distance −Δ for Δ = j − i ≤ 0, −inf for Δ > 0 (causal)."""
    offsets = all_offsets(length)
    values = kerple_kernel(np.abs(offsets), r1, r2, variant)[None, :]  # (1, 2L − 1)
    return offsets, np.where(offsets > 0, -np.inf, values)


def _kerple_formula(d_model, base, *, r1=1.0, r2=1.0, variant="log"):
    check_d_model(d_model)
    r1, r2, variant = check_kerple_parameters(r1, r2, variant)
    a, b = latex_number(r1), latex_number(r2)
    kernel = (r"-%s\,\ln\!\left(1 + %s\,(i-j)\right)" % (a, b) if variant == "log"
              else r"-%s\,(i-j)^{%s}" % (a, b))
    return (r"e_{ij} = q_i \cdot k_j + \begin{cases} " + kernel + r" & j \le i \\ -\infty & j > i \end{cases}"
            r",\quad r_1 = %s,\ r_2 = %s\ \text{(every head)}" % (a, b))


def _kerple_at(setting: Setting, offsets: np.ndarray) -> np.ndarray:
    """−r1·ln(1 + r2·|Δ|) or −r1·|Δ|^r2 (Chi et al., arXiv:2205.09921); none for Δ > 0 (causal)."""
    check_d_model(setting.d_model)
    options = setting.options
    return masked_after_query(kerple_kernel(np.abs(offsets), options["r1"], options["r2"], options["variant"]),
                              offsets, True)


SCHEMES: tuple[Scheme, ...] = (
    Scheme(
        key="kerple", label="KERPLE", family="bias", paper="Chi et al. 2022, arXiv:2205.09921",
        formula=_kerple_formula, offset_curve=curve_from(_kerple_offsets), bias=bias_from(_kerple_offsets),
        offset_bias=_kerple_offsets,
        offset_curve_at=_kerple_at,
        curve_label="logit bias −r1·ln(1 + r2·|Δ|) or −r1·|Δ|^r2 (causal: none for Δ > 0)",
        options=(
            Option("r1", "r1 (scale)", 1.0, 0.01, 10.0,
                   help="The penalty's scale; the paper learns one per head (here: one for all heads)."),
            Option("r2", "r2 (bend / power)", 1.0, 0.01, 2.0,
                   help="log: how fast ln(1 + r2·Δ) bends; power: the exponent, at most 2 (r2 = 1: ALiBi)."),
            Option("variant", "Kernel", "log", choices=KERPLE_VARIANTS,
                   help="log: −r1·ln(1 + r2·Δ); power: −r1·Δ^r2. Causal, as in the paper: j > i is masked."),
        ),
    ),
)
