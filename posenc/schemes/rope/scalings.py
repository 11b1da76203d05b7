r"""RoPE's frequencies θ_i and each context-extension scaling of them (numpy only).

A model trained on sequences of L₀ tokens ("original_max_position_embeddings") has never
seen the slow pairs turn further than L₀·θ_i. Each scaling changes the θ_i (and YaRN and
LongRoPE also the size of cos/sin) so that a longer context looks familiar. Names and
parameters follow Hugging Face transformers' ``modeling_rope_utils.py``; like its
``ROPE_INIT_FUNCTIONS``, every entry of :data:`ROPE_SCALINGS` has one signature::

    fn(dim, base, *, seq_len=None, **params) -> (inv_freq, attention_scaling)

where ``dim`` is the number of rotated dimensions (even), ``inv_freq`` the (dim/2,) array
of θ_i and ``attention_scaling`` the factor HF multiplies cos and sin by (1.0 except for
YaRN and LongRoPE): the default θ_i = base^(−2i/d) (RoFormer, arXiv:2104.09864), position
interpolation, NTK-aware and dynamic NTK, YaRN, LongRoPE and Llama 3. One scaling rotates
only part of the head its own way: ``proportional`` (p-RoPE) takes ``rotary_fraction`` as a
parameter, gets the whole head width as ``dim`` and returns θ for all dim // 2 pairs, 0 for
the pairs it leaves unrotated (:func:`scales_whole_head`). ``dynamic`` and ``longrope``
depend on ``seq_len`` (:data:`LENGTH_DEPENDENT`). Call them through
:func:`posenc.schemes.rope.frequencies.rope_inv_freq`, which checks the parameters and the
frequencies they give.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable, Sequence

import numpy as np

from posenc.checks import (
    MAX_BASE,
    MAX_WHOLE,
    MAX_WIDTH,
    check_array,
    check_base,
    check_choice,
    check_flag,
    check_int,
    check_real,
    check_seq_len,
)

MAX_FACTOR = 1e6
"""The largest context extension (HF has no bound; beyond it, factor·L/L₀ − (factor − 1) loses its digits)."""


def _check_factor(factor: object) -> float:
    # HF's validators want factor >= 1: a factor below 1 would shrink the context.
    return check_real(factor, "factor", minimum=1.0, maximum=MAX_FACTOR,
                      meaning="how many times longer the new context is")


def _check_original_length(value: object) -> int:
    return check_int(value, "original_max_position_embeddings", minimum=1, maximum=MAX_WHOLE,
                     meaning="the context length the model was trained on")


def _check_dim(dim: object) -> int:
    """The number of rotated dimensions: an even whole number from 0 to MAX_WIDTH, as a Python int."""
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or not 0 <= dim <= MAX_WIDTH or dim % 2:
        raise ValueError(f"the number of rotated dimensions must be an even whole number from 0 to "
                         f"{MAX_WIDTH}; got {dim!r}.")
    return int(dim)


def _exponents(dim: int) -> np.ndarray:
    """2i/dim for i = 0, …, dim/2 − 1: the exponents of base in 1/θ_i."""
    dim = _check_dim(dim)
    return np.arange(0, dim, 2, dtype=np.float64) / max(dim, 1)  # (dim/2,)


def _ntk_exponent(dim: int) -> float:
    dim = _check_dim(dim)  # before any arithmetic (NTK reads it first: a float16 dim overflowed the base)
    if dim == 2:
        raise ValueError("NTK scaling raises the factor to the power d/(d−2), so it needs at least 4 "
                         "rotated dimensions; got 2.")
    return dim / (dim - 2)


def _scaled_base(base: float, ratio: float, dim: int, why: str) -> float:
    """base·ratio^(dim/(dim−2)) (NTK), refused when it would pass MAX_BASE (or overflow)."""
    exponent = _ntk_exponent(dim)
    grows = exponent * math.log(ratio)  # ln of the factor base is multiplied by
    if math.log(base) + grows > math.log(MAX_BASE) or grows > math.log(MAX_BASE):
        raise ValueError(f"{why} makes the NTK base b' = base·{ratio:g}^({dim}/{dim - 2}) larger than "
                         f"{MAX_BASE:g}, where its frequencies stop being finite numbers; use a smaller factor.")
    return base * ratio**exponent


def default_inv_freq(dim: int, base: float, *, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    """θ_i = base^(−2i/dim) (RoFormer, arXiv:2104.09864); attention scaling 1."""
    return 1.0 / check_base(base) ** _exponents(dim), 1.0


def linear_inv_freq(dim: int, base: float, *, seq_len: int | None = None,
                    factor: float) -> tuple[np.ndarray, float]:
    """Position interpolation: θ'_i = θ_i / factor, i.e. position m is read as m/factor.

    Chen et al., "Extending Context Window of Large Language Models via
    Positional Interpolation", arXiv:2306.15595 (and /u/kaiokendev).
    """
    inv_freq, _ = default_inv_freq(dim, base)
    return inv_freq / _check_factor(factor), 1.0


def ntk_inv_freq(dim: int, base: float, *, seq_len: int | None = None,
                 factor: float) -> tuple[np.ndarray, float]:
    """NTK-aware (static) scaling: base' = base·factor^(dim/(dim−2)), θ'_i = base'^(−2i/dim).

    The formula of /u/bloc97's reddit post "NTK-Aware Scaled RoPE" (June 2023):
    the fastest pair (i = 0) keeps θ_0 = 1, the slowest pair (i = dim/2 − 1) is
    slowed down by exactly ``factor``, as in position interpolation; the pairs
    in between are stretched geometrically. Not in current transformers
    (``dynamic`` applies it with a factor that grows with the sequence).
    """
    factor, base = _check_factor(factor), check_base(base)
    return default_inv_freq(dim, _scaled_base(base, factor, dim, f"factor={factor:g}"))[0], 1.0


def dynamic_inv_freq(dim: int, base: float, *, seq_len: int | None = None, factor: float,
                     original_max_position_embeddings: int) -> tuple[np.ndarray, float]:
    """Dynamic NTK scaling (/u/bloc97, /u/emozilla; HF ``"dynamic"``).

    With L = max(seq_len, L₀) and L₀ = original_max_position_embeddings:
    base' = base·((factor·L/L₀) − (factor − 1))^(dim/(dim−2)), θ'_i = base'^(−2i/dim).
    Up to L₀ tokens nothing changes; beyond, the base grows with the length.
    (HF reads L₀ from ``config.max_position_embeddings``.)
    """
    factor, base = _check_factor(factor), check_base(base)
    original = _check_original_length(original_max_position_embeddings)
    seq_len = check_seq_len(seq_len)
    _ntk_exponent(dim)  # 2 rotated dimensions are refused at every length, as the scaling is one setting
    if seq_len is None or seq_len <= original:
        # nothing changes: the ratio below is 1 exactly, but factor·L₀/L₀ − (factor − 1) computed in floats can be
        # 1 − 2⁻⁴⁷ (factor 34.69618050899116, L₀ 951), which took a base of 1 below 1 and was refused
        return default_inv_freq(dim, base)[0], 1.0
    ratio = (factor * seq_len / original) - (factor - 1)
    scaled_base = _scaled_base(base, ratio, dim, f"factor={factor:g} at length {seq_len}")
    return default_inv_freq(dim, scaled_base)[0], 1.0


def yarn_mscale(factor: float, m: float = 1.0) -> float:
    """YaRN's 0.1·m·ln(factor) + 1, 1 when factor <= 1 (transformers 5.23's ``get_mscale``; DeepSeek's
    ``yarn_get_mscale``, whose classes also multiply the softmax's 1/√d by its square at ``mscale_all_dim``)."""
    return 1.0 if factor <= 1 else 0.1 * m * math.log(factor) + 1.0


def yarn_attention_factor(factor: float, mscale: float | None = None,
                          mscale_all_dim: float | None = None) -> float:
    """YaRN's scale of cos and sin: 0.1·ln(factor) + 1 (1 when factor <= 1), arXiv:2309.00071.

    As in HF, DeepSeek's ``mscale``/``mscale_all_dim`` give the ratio
    (0.1·mscale·ln s + 1) / (0.1·mscale_all_dim·ln s + 1) when both are set.
    """
    factor = check_real(factor, "factor", minimum=0.0, strict=True, meaning="how many times longer the context is")
    if mscale is not None:
        mscale = check_real(mscale, "mscale", minimum=0.0, meaning="DeepSeek's scale of cos and sin")
    if mscale_all_dim is not None:
        mscale_all_dim = check_real(mscale_all_dim, "mscale_all_dim", minimum=0.0,
                                    meaning="DeepSeek's scale of cos and sin over all dimensions")

    if mscale and mscale_all_dim:
        return float(yarn_mscale(factor, mscale) / yarn_mscale(factor, mscale_all_dim))
    return yarn_mscale(factor)


def yarn_correction_range(dim: int, base: float, original_max_position_embeddings: int,
                          beta_fast: float = 32.0, beta_slow: float = 1.0,
                          truncate: bool = True) -> tuple[float, float]:
    """The pair indices (low, high) between which YaRN blends θ_i and θ_i/factor.

    Pair i turns L₀·θ_i/(2π) times over the original context; it turns r times for
    i(r) = dim·ln(L₀/(2π·r)) / (2·ln base). low = ⌊i(beta_fast)⌋, high = ⌈i(beta_slow)⌉
    (no rounding when ``truncate`` is False), clipped to [0, dim − 1] (HF's
    ``find_correction_range``). ln base divides, so base must be greater than 1.
    """
    dim = check_int(dim, "dim", minimum=0, maximum=MAX_WIDTH, meaning="the number of rotated dimensions")
    base = check_base(base)
    if base <= 1.0:
        raise ValueError(f"YaRN divides by ln(base), so base must be greater than 1; got {base:g}.")
    original_max_position_embeddings = _check_original_length(original_max_position_embeddings)
    beta_fast = check_real(beta_fast, "beta_fast", minimum=0.0, strict=True,
                           meaning="turns in L₀ above which pairs are kept")
    beta_slow = check_real(beta_slow, "beta_slow", minimum=0.0, strict=True,
                           meaning="turns in L₀ below which pairs are interpolated")
    truncate = check_flag(truncate, "truncate")

    def correction_dim(rotations: float) -> float:
        turns_ratio = original_max_position_embeddings / (rotations * 2 * math.pi)
        return dim * math.log(turns_ratio) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def yarn_inv_freq(dim: int, base: float, *, seq_len: int | None = None, factor: float,
                  original_max_position_embeddings: int, beta_fast: float | None = 32.0,
                  beta_slow: float | None = 1.0, attention_factor: float | None = None,
                  mscale: float | None = None, mscale_all_dim: float | None = None,
                  truncate: bool = True) -> tuple[np.ndarray, float]:
    """YaRN (Peng et al., arXiv:2309.00071), exactly as HF's ``_compute_yarn_parameters``.

    ramp_i = clamp((i − low)/(high − low), 0, 1) over pairs i = 0, …, dim/2 − 1,
    θ'_i = ramp_i·θ_i/factor + (1 − ramp_i)·θ_i: fast pairs (i < low, many turns
    in L₀) keep θ_i, slow pairs (i > high) are interpolated like position
    interpolation. cos and sin are multiplied by ``attention_factor``
    (default 0.1·ln(factor) + 1).
    """
    factor = _check_factor(factor)
    original = _check_original_length(original_max_position_embeddings)
    beta_fast = 32.0 if beta_fast is None else beta_fast  # HF: `get("beta_fast") or 32`
    beta_slow = 1.0 if beta_slow is None else beta_slow
    beta_slow = check_real(beta_slow, "beta_slow", minimum=0.0, strict=True,
                            meaning="turns in L₀ below which pairs are interpolated")
    beta_fast = check_real(beta_fast, "beta_fast", minimum=0.0, strict=True,
                            meaning="turns in L₀ above which pairs are kept")
    if beta_fast < beta_slow:
        raise ValueError(f"beta_fast ({beta_fast}) must be at least beta_slow ({beta_slow}).")
    if attention_factor is None:
        attention_factor = yarn_attention_factor(factor, mscale, mscale_all_dim)
    attention_factor = check_real(attention_factor, "attention_factor", minimum=0.0,
                                   meaning="the scale of cos and sin")
    inv_freq, _ = default_inv_freq(dim, base)  # (dim/2,), the extrapolation frequencies
    low, high = yarn_correction_range(dim, base, original, beta_fast, beta_slow, truncate)
    if low == high:
        high += 0.001  # HF: prevent singularity
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
    return inv_freq / factor * ramp + inv_freq * (1.0 - ramp), float(attention_factor)


def llama3_inv_freq(dim: int, base: float, *, seq_len: int | None = None, factor: float,
                    original_max_position_embeddings: int, low_freq_factor: float = 1.0,
                    high_freq_factor: float = 4.0) -> tuple[np.ndarray, float]:
    """Llama 3.1's scaling (Llama 3 herd, arXiv:2407.21783; HF ``_compute_llama3_parameters``).

    With wavelength λ_i = 2π/θ_i: λ_i < L₀/high_freq_factor keeps θ_i;
    λ_i > L₀/low_freq_factor gives θ_i/factor; in between
    θ'_i = (1 − σ_i)·θ_i/factor + σ_i·θ_i with σ_i = (L₀/λ_i − low)/(high − low).
    Llama 3.1 uses factor 8, low 1, high 4, L₀ 8192; Llama 4 Scout factor 16 with low = high = 1,
    which leaves no band in between (HF only warns when high <= low).
    """
    factor = _check_factor(factor)
    original = _check_original_length(original_max_position_embeddings)
    low = check_real(low_freq_factor, "low_freq_factor", minimum=0.0, strict=True,
                      meaning="L₀ over the wavelength above which θ is divided by factor")
    high = check_real(high_freq_factor, "high_freq_factor", minimum=0.0, strict=True,
                       meaning="L₀ over the wavelength below which θ is kept")
    if high < low:
        raise ValueError(f"high_freq_factor ({high}) must be at least low_freq_factor ({low}).")
    inv_freq, _ = default_inv_freq(dim, base)
    wavelength = 2 * math.pi / inv_freq
    scaled = np.where(wavelength > original / low, inv_freq / factor, inv_freq)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # used only where it is finite
        smooth = (original / wavelength - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    is_medium = ~(wavelength < original / high) & ~(wavelength > original / low)
    return np.where(is_medium, smoothed, scaled), 1.0


LONGROPE_RULES: tuple[str, ...] = ("ones", "geometric")
"""Named factor lists for LongRoPE, for callers (the app) that cannot pass a list: with n = dim/2
pairs and s = factor, ``"ones"`` is f_i = 1 for every pair and ``"geometric"`` is f_i = s^(i/(n − 1)),
rising geometrically from 1 on the fastest pair (i = 0) to s on the slowest (f_0 = 1 when n = 1):
the shape LongRoPE's search finds (fast pairs kept, slow pairs interpolated). Not Hugging Face's,
which reads the lists a model was trained with from its config."""


def longrope_factors(rule: str, pairs: int, factor: float) -> np.ndarray:
    """The (pairs,) factor list a :data:`LONGROPE_RULES` name stands for (see there)."""
    rule = check_choice(rule, "the factor list rule", LONGROPE_RULES)
    pairs = check_int(pairs, "pairs", minimum=0, maximum=MAX_WIDTH, meaning="the number of rotated pairs")
    factor = check_real(factor, "factor", minimum=0.0, strict=True, maximum=MAX_FACTOR,
                        meaning="how many times longer the new context is")
    if rule == "ones":
        return np.ones(pairs)
    return factor ** (np.arange(pairs, dtype=np.float64) / max(pairs - 1, 1))


def _check_factor_list(values: object, name: str, pairs: int, factor: float) -> np.ndarray:
    """One factor per rotated pair, each finite and > 0 (a rule name from LONGROPE_RULES is expanded)."""
    if isinstance(values, str):
        if values not in LONGROPE_RULES:
            raise ValueError(f"{name} must be a list of {pairs} numbers (one per rotated pair) or one of "
                             f"{', '.join(map(repr, LONGROPE_RULES))}; got {values[:40]!r}.")
        return longrope_factors(values, pairs, factor)
    listed = check_array(values, name, min_ndim=1, max_ndim=1).astype(np.float64)
    if len(listed) != pairs:
        raise ValueError(f"{name} must have d_rot/2 = {pairs} entries, one per rotated pair; got {len(listed)}.")
    if listed.size and listed.min() <= 0:
        raise ValueError(f"{name} must hold numbers greater than 0 (θ_i is divided by each); "
                         f"got {float(listed.min()):g}.")
    return listed


def longrope_attention_factor(factor: float, original_max_position_embeddings: int) -> float:
    """LongRoPE's scale of cos and sin: √(1 + ln s / ln L₀), 1 when s <= 1 (HF, as in Phi-3)."""
    factor = check_real(factor, "factor", minimum=0.0, strict=True, meaning="how many times longer the context is")
    original = _check_original_length(original_max_position_embeddings)
    if factor <= 1.0:
        return 1.0
    if original < 2:
        raise ValueError("LongRoPE's attention factor √(1 + ln s / ln L₀) divides by ln L₀, so "
                         "original_max_position_embeddings must be at least 2 (or give attention_factor).")
    return math.sqrt(1 + math.log(factor) / math.log(original))


def longrope_scaling_factor(factor: float | None, original_max_position_embeddings: int,
                            max_position_embeddings: int | None = None) -> float:
    """LongRoPE's s: ``factor`` when given (>= 1), else max_position_embeddings / L₀ (HF, for Phi-3's configs)."""
    original = _check_original_length(original_max_position_embeddings)
    if factor is not None:
        return _check_factor(factor)
    if max_position_embeddings is None:
        raise ValueError("LongRoPE needs factor, or max_position_embeddings to derive it as "
                         "max_position_embeddings / original_max_position_embeddings (as Hugging Face does).")
    longest = check_int(max_position_embeddings, "max_position_embeddings", minimum=1, maximum=MAX_WHOLE,
                        meaning="the context length the model is extended to")
    return longest / original


def longrope_factor_lists(dim: int, short_factor: Sequence[float] | str, long_factor: Sequence[float] | str,
                          factor: float) -> tuple[np.ndarray, np.ndarray]:
    """(short, long): the two (dim/2,) lists of per-pair factors, checked (rule names expanded with s = factor)."""
    pairs = _exponents(dim).size
    return (_check_factor_list(short_factor, "short_factor", pairs, factor),
            _check_factor_list(long_factor, "long_factor", pairs, factor))


def longrope_inv_freq(dim: int, base: float, *, seq_len: int | None = None,
                      short_factor: Sequence[float] | str, long_factor: Sequence[float] | str,
                      factor: float | None = None, original_max_position_embeddings: int,
                      attention_factor: float | None = None,
                      max_position_embeddings: int | None = None) -> tuple[np.ndarray, float]:
    """LongRoPE (Ding et al., arXiv:2402.13753; Phi-3), exactly as HF's ``_compute_longrope_parameters``.

    θ'_i = 1 / (f_i · base^(2i/dim)), one factor f_i per pair: ``long_factor`` when
    seq_len > L₀ = original_max_position_embeddings, else (seq_len ≤ L₀, 0 or None)
    ``short_factor``. Both lists need dim/2 entries, each finite and > 0 (or a name of
    :data:`LONGROPE_RULES`). cos and sin are multiplied by ``attention_factor``, by default
    √(1 + ln s / ln L₀), or 1 when s ≤ 1. When ``factor`` is None, s =
    max_position_embeddings / L₀ (HF reads max_position_embeddings from the config, as Phi-3
    sets it); an explicit ``factor`` wins.
    """
    original = _check_original_length(original_max_position_embeddings)
    factor = longrope_scaling_factor(factor, original, max_position_embeddings)
    short, long = longrope_factor_lists(dim, short_factor, long_factor, factor)
    if attention_factor is None:
        attention_factor = longrope_attention_factor(factor, original)
    attention_factor = check_real(attention_factor, "attention_factor", minimum=0.0,
                                  meaning="the scale of cos and sin")
    seq_len = check_seq_len(seq_len)
    chosen = long if seq_len and seq_len > original else short  # HF: `if seq_len and seq_len > L₀`
    with np.errstate(over="ignore", divide="ignore"):  # an infinite or zero θ' is refused by the caller
        return 1.0 / (chosen * check_base(base) ** _exponents(dim)), float(attention_factor)


def proportional_pairs(dim: int, rotary_fraction: float) -> int:
    """How many pairs p-RoPE rotates: int(p·d // 2), HF's ``int(partial_rotary_factor * head_dim // 2)``."""
    dim = check_int(dim, "dim", minimum=0, maximum=MAX_WIDTH, meaning="the head width")
    fraction = check_real(rotary_fraction, "rotary_fraction", minimum=0.0, maximum=1.0,
                          meaning="the share of pairs that are rotated")
    return int(fraction * dim // 2)


def proportional_inv_freq(dim: int, base: float, *, seq_len: int | None = None, rotary_fraction: float = 1.0,
                          factor: float = 1.0) -> tuple[np.ndarray, float]:
    """p-RoPE (Barbero et al., arXiv:2410.06205; Gemma), as HF's ``_compute_proportional_rope_parameters``.

    ``dim`` is the whole head width d here, and k = int(p·d // 2) with p = ``rotary_fraction``:
    θ'_i = base^(−2i/d) / factor for i < k, θ'_i = 0 (the pair is not rotated) for k ≤ i < d // 2.
    The exponent's denominator is the whole head d, unlike partial rotary, whose θ_i =
    base^(−2i/d_rot) spreads the same range over the rotated pairs only: p-RoPE keeps the fast
    pairs of full RoPE and drops its slowest ones. Frequencies for all d // 2 pairs.
    """
    rotated = proportional_pairs(dim, rotary_fraction)
    factor, base = _check_factor(factor), check_base(base)
    exponents = np.arange(0, 2 * rotated, 2, dtype=np.float64) / max(dim, 1)  # (k,), 2i/d
    inv_freq = np.concatenate([1.0 / base**exponents, np.zeros(dim // 2 - rotated)])  # (d // 2,)
    return inv_freq / factor, 1.0


ScalingFunction = Callable[..., tuple[np.ndarray, float]]


ROPE_SCALINGS: dict[str, ScalingFunction] = {
    "default": default_inv_freq,
    "linear": linear_inv_freq,
    "dynamic": dynamic_inv_freq,
    "ntk": ntk_inv_freq,
    "yarn": yarn_inv_freq,
    "llama3": llama3_inv_freq,
    "longrope": longrope_inv_freq,
    "proportional": proportional_inv_freq,
}
"""rope_type → function, like HF's ``ROPE_INIT_FUNCTIONS`` (plus the static ``ntk``)."""

LENGTH_DEPENDENT: tuple[str, ...] = ("dynamic", "longrope")
"""The scalings whose θ' depend on the current length seq_len (HF recomputes them in forward)."""


def scales_whole_head(rope_type: str) -> bool:
    """Whether the scaling takes ``rotary_fraction`` itself and returns θ for every pair of the head
    (``proportional``: 0 for the pairs it does not rotate), instead of θ for int(d·fraction) dimensions."""
    function = ROPE_SCALINGS[check_choice(rope_type, "rope_type", tuple(ROPE_SCALINGS))]
    return "rotary_fraction" in inspect.signature(function).parameters


def rope_scaling_parameters(rope_type: str) -> dict[str, object]:
    """The parameters a scaling takes, with their defaults (``inspect.Parameter.empty`` if required)."""
    function = ROPE_SCALINGS[check_choice(rope_type, "rope_type", tuple(ROPE_SCALINGS))]
    return {p.name: p.default for p in inspect.signature(function).parameters.values()
            if p.kind is p.KEYWORD_ONLY and p.name not in ("seq_len", "rotary_fraction")}
