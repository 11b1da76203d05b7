r"""RoPE's frequencies, checked: the entry point to every scaling, and how many dimensions rotate.

Rotary embeddings (RoFormer, Su et al., arXiv:2104.09864) rotate pair i of the first d
rotated dimensions by the angle m·θ_i at position m, with

    θ_i = base^(-2i/d),   i = 0, …, d/2 − 1,

or a scaling's θ'_i (:mod:`posenc.schemes.rope.scalings`). :func:`rope_inv_freq` checks the
parameters, calls the scaling and checks the frequencies it gives.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping

import numpy as np

from posenc.checks import check_base, check_choice, check_d_model, check_real, check_seq_len
from posenc.schemes.rope.scalings import (
    ROPE_SCALINGS,
    rope_scaling_parameters,
    scales_whole_head,
)


def rotary_dims(d: int, rotary_fraction: float = 1.0) -> int:
    """d_rot = int(d·rotary_fraction), as HF's ``int(head_dim * partial_rotary_factor)``
    (GPT-NeoX's rotary_pct, arXiv:2204.06745); must be even, since pairs are rotated."""
    d = check_d_model(d)
    fraction = check_real(rotary_fraction, "rotary_fraction", minimum=0.0,
                           meaning="the share of rotated dimensions")
    if fraction > 1:
        raise ValueError(f"rotary_fraction must be between 0 and 1; got {fraction}.")
    d_rot = int(d * fraction)
    if d_rot % 2:
        raise ValueError(f"RoPE rotates pairs of dimensions, so int(d·rotary_fraction) must be even; "
                         f"d = {d} and rotary_fraction = {fraction:g} give {d_rot}.")
    return d_rot


def rotated_width_keywords(options: Mapping[str, object]) -> dict[str, object]:
    """A rotary layer's options (a model's: layout, rope_type, rotary_fraction and its scaling's parameters) as the
    keywords :func:`rope_inv_freq` takes when ``d`` is the width it rotates: the scaling's parameters, and the share
    of pairs for a scaling that reads it over the whole head (p-RoPE), whose rotated width is the head's."""
    keywords = {key: value for key, value in options.items() if key not in ("layout", "rope_type", "rotary_fraction")}
    if scales_whole_head(str(options["rope_type"])):
        keywords["rotary_fraction"] = options["rotary_fraction"]
    return keywords


def rope_inv_freq(d: int, base: float = 10000.0, *, rope_type: str = "default",
                  seq_len: int | None = None, rotary_fraction: float = 1.0,
                  **params: object) -> tuple[np.ndarray, float]:
    """(θ_i, attention_scaling) for a head of d dimensions, the first int(d·rotary_fraction) rotated.

    ``rope_type`` names an entry of :data:`ROPE_SCALINGS`; ``params`` are its
    parameters (HF's ``rope_scaling`` keys, e.g. ``factor``); ``seq_len`` is the
    current sequence length (used by ``"dynamic"`` and ``"longrope"``). The array
    holds d_rot/2 frequencies, except under ``"proportional"`` (p-RoPE), which reads
    ``rotary_fraction`` its own way and returns d // 2, θ = 0 for the pairs it does not
    rotate: rotating all of them is then the same computation.
    """
    check_choice(rope_type, "rope_type", tuple(ROPE_SCALINGS))
    base, seq_len = check_base(base), check_seq_len(seq_len)
    whole_head = scales_whole_head(rope_type)
    dim = check_d_model(d) if whole_head else rotary_dims(d, rotary_fraction)
    accepted = rope_scaling_parameters(rope_type)
    required = [name for name, default in accepted.items() if default is inspect.Parameter.empty]
    missing = [name for name in required if name not in params]
    unknown = sorted(set(params) - set(accepted))
    if missing or unknown:
        takes = ", ".join(accepted) or "no parameters"
        raise ValueError(f"the {rope_type!r} scaling takes {takes}; "
                         f"missing {missing or 'nothing'}, unexpected {unknown or 'nothing'}.")
    if whole_head:
        params = {**params, "rotary_fraction": rotary_fraction}
    inv_freq, attention_scaling = ROPE_SCALINGS[rope_type](dim, base, seq_len=seq_len, **params)
    _check_frequencies(inv_freq[inv_freq != 0] if whole_head else inv_freq)  # 0: a pair p-RoPE leaves alone
    return inv_freq, float(attention_scaling)


def _check_frequencies(inv_freq: np.ndarray) -> None:
    """Every θ'_i finite and so far from 0 that its wavelength 2π/θ'_i is finite too."""
    with np.errstate(divide="ignore", over="ignore"):
        usable = np.isfinite(inv_freq).all() and np.isfinite(2 * math.pi / inv_freq).all()
    if not usable:
        raise ValueError(f"these settings give a frequency θ' of {float(inv_freq.min()):g}, too slow for its "
                         f"wavelength 2π/θ' to be a finite number; use a smaller base or factor.")


def rope_wavelengths(d: int, base: float = 10000.0, rope_type: str = "default",
                     **params: object) -> np.ndarray:
    """λ_i = 2π/θ_i, the number of positions pair i needs for one full turn; shape (d_rot/2,).

    Under ``"proportional"``: shape (d // 2,), and λ_i = inf for the pairs it does not rotate (θ_i = 0).
    """
    inv_freq, _ = rope_inv_freq(d, base, rope_type=rope_type, **params)
    with np.errstate(divide="ignore"):
        return 2 * math.pi / inv_freq  # finite where θ ≠ 0: rope_inv_freq checked it
