r"""Where a RoPE context extension acts: each pair's wavelength before and after, and what happens to it.

Pair i turns at θ_i = base^(−2i/d) (RoFormer, arXiv:2104.09864); its wavelength λ_i = 2π/θ_i is the number
of positions one turn takes. A scaling replaces θ_i by θ'_i (:data:`posenc.schemes.rope.scalings.ROPE_SCALINGS`)
so that a context L longer than the trained one L₀ stays usable. With the ratio r_i = θ_i/θ'_i = λ'_i/λ_i and
the scaling's factor s, each pair is

- **extrapolated** (r_i = 1): it turns as trained, so past L₀ it reaches angles it never saw (harmless for a
  pair whose wavelength is far below L₀: it has seen every angle many times);
- **interpolated** (r_i ≥ s): positions are squeezed by s or more, so the angles up to s·L₀ stay within those
  of L₀ (position interpolation, arXiv:2306.15595; a model may be run past s·L₀: Llama 3.1 has s = 8 and
  L₀ = 8,192 but 131,072 positions);
- **in between** (1 < r_i < s): partly slowed, e.g. YaRN's ramp (arXiv:2309.00071) between the pairs that turn
  beta_fast and beta_slow times in L₀, or Llama 3's band between L₀/high_freq_factor and L₀/low_freq_factor
  (arXiv:2407.21783).

The regions are read from θ and θ' themselves (the scaling's own numbers); :data:`SCALING_BOUNDS` gives, for
the scalings that have them, the wavelengths where their rule switches, which the tests check against the
regions and transformers' formulas.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from posenc.checks import check_choice, check_int
from posenc.schemes.rope.entry import rope_keywords
from posenc.schemes.rope.frequencies import rope_inv_freq
from posenc.schemes.rope.scalings import longrope_scaling_factor, rope_scaling_parameters

EXTRAPOLATED, IN_BETWEEN, INTERPOLATED = "extrapolated", "in between", "interpolated"
REGIONS = (EXTRAPOLATED, IN_BETWEEN, INTERPOLATED)
_TOLERANCE = 1e-9  # relative: θ'/θ equal to 1 or to 1/s up to float64 rounding


def _yarn_bounds(params: dict) -> tuple[float, float]:
    """L₀/beta_fast and L₀/beta_slow: the pairs turning more than beta_fast times in L₀ keep θ, fewer than
    beta_slow are interpolated (before the correction range is rounded to whole pairs)."""
    original = params["original_max_position_embeddings"]
    return original / (params["beta_fast"] or 32.0), original / (params["beta_slow"] or 1.0)  # None: HF's `or`


def _llama3_bounds(params: dict) -> tuple[float, float]:
    """L₀/high_freq_factor (shorter wavelengths keep θ) and L₀/low_freq_factor (longer ones: θ/s)."""
    original = params["original_max_position_embeddings"]
    return original / params["high_freq_factor"], original / params["low_freq_factor"]


def _no_bounds(params: dict) -> None:
    """Linear, NTK and LongRoPE scale pairs by a rule, not by a band of wavelengths."""
    return None


def takes_trained_context(rope_type: str) -> bool:
    """Whether the scaling reads L₀ (original_max_position_embeddings): dynamic NTK, YaRN, Llama 3 and LongRoPE
    do; linear and NTK divide θ by a rule of s alone, so a config of theirs (Gemma 3's linear ×8) need state none."""
    check_choice(rope_type, "rope_type", tuple(SCALING_BOUNDS))
    return "original_max_position_embeddings" in rope_scaling_parameters(rope_type)


SCALING_BOUNDS: dict[str, Callable[[dict], tuple[float, float] | None]] = {
    "linear": _no_bounds,
    "ntk": _no_bounds,
    "dynamic": _no_bounds,
    "yarn": _yarn_bounds,
    "llama3": _llama3_bounds,
    "longrope": _no_bounds,
}
"""The context extensions, by posenc's rope_type: fn(parameters, the scaling's defaults filled in) -> (the
wavelength below which its rule keeps θ, the one above which it divides θ by s), or None when the rule is not a
band of wavelengths. A new scaling adds its rope_type here."""


@dataclass(frozen=True)
class ScalingRegions:
    """One scaling of a head's d_rot/2 pairs: wavelengths in positions before (λ_i = 2π/θ_i) and after
    (λ'_i = 2π/θ'_i), r_i = λ'_i/λ_i, the region of each pair, the factor s, L₀ and the extended context."""

    rope_type: str
    before: np.ndarray  # (pairs,)
    after: np.ndarray  # (pairs,)
    ratio: np.ndarray  # (pairs,) θ_i/θ'_i
    region: np.ndarray  # (pairs,) one of REGIONS
    factor: float
    original: int | None  # None: a scaling that takes no L₀ (linear, NTK), given none, at a given context
    context: int
    bounds: tuple[float, float] | None

    def count(self, region: str) -> int:
        """How many pairs are in ``region``."""
        return int((self.region == check_choice(region, "region", REGIONS)).sum())


def classify(ratio: np.ndarray, factor: float) -> np.ndarray:
    """The region of each pair from r_i = θ_i/θ'_i: 1 → extrapolated, ≥ s → interpolated, else in between."""
    ratio = np.asarray(ratio, dtype=np.float64)
    region = np.full(ratio.shape, IN_BETWEEN, dtype=object)
    region[np.abs(ratio - 1.0) <= _TOLERANCE] = EXTRAPOLATED
    region[(ratio >= factor * (1.0 - _TOLERANCE)) & (factor > 1.0)] = INTERPOLATED
    return region.astype(str)


def scaling_regions(d_rot: int, base: float, rope_type: str, *, context: int | None = None,
                    **params: object) -> ScalingRegions:
    """Where the scaling ``rope_type`` (linear, ntk, dynamic, yarn, llama3, longrope) acts on the d_rot/2
    pairs of a head at θ's ``base``, with the scaling's parameters (factor, original_max_position_embeddings,
    beta_fast, …: those of :func:`posenc.schemes.rope.frequencies.rope_inv_freq`, which computes θ and θ').
    ``context``: the extended context (default s·L₀), also the seq_len of dynamic NTK and LongRoPE. L₀ may be
    left out for a scaling that takes none (:func:`takes_trained_context`) at a given ``context``: then
    ``original`` is None."""
    rope_type = check_choice(rope_type, "rope_type", tuple(SCALING_BOUNDS))
    original = params.get("original_max_position_embeddings")
    if original is not None or context is None or takes_trained_context(rope_type):
        original = check_int(0 if original is None else original, "original_max_position_embeddings", minimum=1,
                             maximum=1 << 40, meaning="the context length the model was trained on")
        # s: the factor given, else (LongRoPE as transformers) max_position_embeddings / L₀; checked ≥ 1
        factor = longrope_scaling_factor(params.get("factor"), original, params.get("max_position_embeddings"))
    else:  # linear or NTK: s is their one parameter, read below once rope_inv_freq has checked it
        factor = None
    context = round(factor * original) if context is None else check_int(
        context, "context", minimum=1, maximum=1 << 40, meaning="the extended context, in positions")
    scaling = rope_keywords({**params, "rope_type": rope_type})  # LongRoPE without lists: the app's rules
    before, _ = rope_inv_freq(d_rot, base)
    after, _ = rope_inv_freq(d_rot, base, seq_len=context, **scaling)
    if factor is None:
        factor = float(scaling["factor"])  # checked ≥ 1 by rope_inv_freq
    ratio = before / after
    defaults = {name: value for name, value in rope_scaling_parameters(rope_type).items()
                if value is not inspect.Parameter.empty}
    bounds = SCALING_BOUNDS[rope_type](defaults | params | {"factor": factor})
    return ScalingRegions(rope_type, 2 * math.pi / before, 2 * math.pi / after, ratio, classify(ratio, factor),
                          factor, original, context, bounds)
