"""Every scheme's offset curve, at every offset of a length or at chosen offsets only.

The curve every scheme shares (the Comparison page's, the registry's ``offset_curve``): how the attention
logit bias, or the similarity of two encodings, depends on the offset Δ = j − i. The registry builds what
it measures (the sinusoidal table and its autocorrelation by FFT: about 1 s at 4096 × 1024); here each
formula is written once, from the frequencies alone where a closed form exists, and evaluated two ways:

- :func:`offset_curve`: every offset −(L − 1) … L − 1 of a length L (the Comparison page), the sums over
  pairs by angle addition (:func:`cosine_sums_every_offset`: a few hundred transcendental calls per pair
  instead of one per offset);
- :func:`offset_curve_at`: only the offsets drawn (:func:`log_offsets`: a few hundred, log-spaced), as far
  as a released model's real context (Llama 4 Scout's 10,485,760), one term per offset and pair
  (:func:`cosine_sums`): O(offsets × d), never a length × length matrix nor a table of the whole length.

Both equal the registry's ``offset_curve`` (tests/analysis/test_offset_curves.py, test_tables.py).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable

import numpy as np

from posenc.checks import check_d_model, check_finite, check_int, check_length
from posenc.schemes.alibi import alibi_slopes
from posenc.schemes.bias import is_causal
from posenc.schemes.kerple import kerple_kernel
from posenc.schemes.offsets import offset_similarity
from posenc.schemes.registry import get_scheme
from posenc.schemes.rope.entry import rope_keywords
from posenc.schemes.rope.frequencies import rope_inv_freq
from posenc.schemes.shaw import shaw_embeddings, shaw_query
from posenc.schemes.sinusoidal import frequencies
from posenc.schemes.t5 import t5_bucket_values, t5_relative_bucket
from posenc.schemes.transformer_xl import relative_sinusoid_weights
from posenc.schemes.xpos import xpos_keywords, xpos_theta, xpos_zeta

MAX_CONTEXT = 1 << 24
"""The longest context a curve reaches (16,777,216 positions; Llama 4 Scout's is 10,485,760)."""
MAX_OFFSETS = 1 << 16
"""The most offsets one call of :func:`offset_curve_at` evaluates (65,536): a chart draws a few hundred."""


def check_context(length: object) -> int:
    """A context length: a whole number from 1 to MAX_CONTEXT."""
    return check_int(length, "length", minimum=1, maximum=MAX_CONTEXT,
                     meaning="the context, in positions, the offsets lie in")


def every_offset(length: int) -> np.ndarray:
    """Every offset Δ = j − i of a length-L sequence: −(L − 1) … L − 1."""
    return np.arange(-(length - 1), length)


def log_offsets(length: int, count: int = 256) -> np.ndarray:
    """0, 1 and about ``count`` whole distances up to length − 1, spaced evenly on a log axis (int64, sorted,
    no repeats: below ~count/ln(length) every whole distance is kept, since rounding merges them)."""
    length = check_context(length)
    count = check_int(count, "count", minimum=2, maximum=MAX_OFFSETS, meaning="how many offsets to draw")
    if length == 1:
        return np.zeros(1, dtype=np.int64)
    spaced = np.rint(np.geomspace(1.0, length - 1, count)).astype(np.int64)
    return np.unique(np.concatenate([[0, 1], spaced, [length - 1]]))


def _checked_offsets(offsets: object, length: int) -> np.ndarray:
    """Whole offsets Δ = j − i with |Δ| < length, as int64."""
    offsets = np.asarray(offsets)
    if offsets.ndim != 1 or (offsets.size and offsets.dtype.kind not in "iu"):
        raise ValueError("offsets must be a 1-D array of whole offsets j − i.")
    if offsets.size > MAX_OFFSETS:
        raise ValueError(f"offsets must hold at most {MAX_OFFSETS:,} values (a chart's points); got {offsets.size:,}.")
    offsets = offsets.astype(np.int64)
    if offsets.size and np.abs(offsets).max() >= length:
        raise ValueError(f"offsets must lie between −{length - 1:,} and {length - 1:,} (length = {length:,}); "
                         f"got {offsets.min():,} … {offsets.max():,}.")
    return offsets


# --- the sums over pairs: Σ_i cos(Δθ_i), and xPos's Σ_i ζ_i^(−Δ/γ)·cos(Δθ_i) -------------------------
# Each sum is evaluated two ways, one per route above; the two agree to rounding (not bit for bit), and each
# route keeps its own so that every number the app draws stays as it was.

_SPLIT = 64  # offsets are split as Δ = 64·a + b for the angle-addition sums


def cosine_sums(offsets: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Σ_i cos(Δ·θ_i) for each offset, one cosine per (offset, frequency): (offsets,)."""
    return np.cos(np.abs(offsets).astype(np.float64)[:, None] * theta).sum(axis=1)


def cosine_sums_every_offset(offsets: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Σ_i cos(Δ·θ_i) for every whole Δ in ``offsets`` (cos is even: |Δ| is used), by angle addition.

    With |Δ| = 64a + b and cos((A + B)θ) = cos Aθ cos Bθ − sin Aθ sin Bθ, the sums for every
    (a, b) are two matrix products, C_A·C_Bᵀ − S_A·S_Bᵀ: (max|Δ|/64 + 64)·len(θ) cosines and sines
    instead of one per offset and frequency.
    """
    magnitude = np.abs(np.asarray(offsets, dtype=np.int64))
    if magnitude.size == 0:
        return np.zeros(0)
    high, low = np.divmod(magnitude, _SPLIT)
    big = (np.arange(high.max() + 1, dtype=np.float64) * _SPLIT)[:, None] * theta  # (A, h)
    small = np.arange(_SPLIT, dtype=np.float64)[:, None] * theta  # (64, h)
    # einsum's own loop: a 64 × 512 × 64 product is too small for BLAS threads, which only wait
    # for each other on a busy machine (2–40 ms instead of 3)
    grid = (np.einsum("ah,bh->ab", np.cos(big), np.cos(small), optimize=False)
            - np.einsum("ah,bh->ab", np.sin(big), np.sin(small), optimize=False))  # (A, 64)
    return grid[high, low]


def decaying_cosine_sums(offsets: np.ndarray, theta: np.ndarray, log_zeta: np.ndarray, gamma: float) -> np.ndarray:
    """Σ_i ζ_i^(−Δ/γ)·cos(Δθ_i) for each offset, one term per (offset, pair): (offsets,)."""
    delta = offsets.astype(np.float64)[:, None]
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused by the caller
        return (np.exp(-delta * log_zeta / gamma) * np.cos(delta * theta)).sum(axis=1)


def decaying_cosine_sums_every_offset(offsets: np.ndarray, theta: np.ndarray, log_zeta: np.ndarray,
                                      gamma: float) -> np.ndarray:
    """Σ_i ζ_i^(−Δ/γ)·cos(Δθ_i) = Σ_i Re(z_i^Δ), z_i = ζ_i^(−1/γ)·e^(iθ_i), for every whole Δ in ``offsets``.

    With Δ = 64a + b (a = ⌊Δ/64⌋, 0 ≤ b < 64), z^Δ = z^(64a)·z^b: as in :func:`cosine_sums_every_offset`,
    two matrix products instead of one power and cosine per offset and pair.
    """
    with np.errstate(over="ignore"):  # a tiny γ overflows the decay rate: the score is refused by the caller
        log_decay = -log_zeta / gamma  # (d/2,), |z_i| = e^log_decay
    offsets = np.asarray(offsets, dtype=np.int64)
    if offsets.size == 0:
        return np.zeros(0)
    high, low = np.divmod(offsets, _SPLIT)
    big = (np.arange(high.min(), high.max() + 1, dtype=np.float64) * _SPLIT)[:, None]  # (A, 1)
    small = np.arange(_SPLIT, dtype=np.float64)[:, None]  # (64, 1)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused by the caller
        big_size, small_size = np.exp(big * log_decay), np.exp(small * log_decay)  # |z|^(64a), |z|^b
        grid = (np.einsum("ah,bh->ab", big_size * np.cos(big * theta), small_size * np.cos(small * theta),
                          optimize=False)
                - np.einsum("ah,bh->ab", big_size * np.sin(big * theta), small_size * np.sin(small * theta),
                            optimize=False))  # (A, 64)
    return grid[high - high.min(), low]


# --- absolute schemes: the mean similarity PE[i]·PE[i+Δ] -----------------------------------------


def _unpaired_sine(offsets: np.ndarray, length: int, theta: float) -> np.ndarray:
    """The mean over i < n = L − |Δ| of sin(iθ)·sin((i + |Δ|)θ) (an odd d_model's last column, a sine alone):
    sin a·sin b = ½(cos(a − b) − cos(a + b)) and Σ_{i<n} cos((2i + |Δ|)θ) = sin(nθ)·cos((n − 1 + |Δ|)θ)/sin θ
    (a Dirichlet sum) give ½cos(Δθ) − sin(nθ)·cos((n − 1 + |Δ|)θ) / (2n·sin θ)."""
    distance = np.abs(offsets).astype(np.float64)
    n = length - distance  # ≥ 1: the offsets are checked below the length
    sine = math.sin(theta)
    if sine == 0.0:  # θ = 0 (an underflowed frequency): the column is all zeros
        return np.zeros(len(offsets))
    return 0.5 * np.cos(distance * theta) - np.sin(n * theta) * np.cos((n - 1 + distance) * theta) / (2.0 * n * sine)


def sinusoidal_similarity_at(offsets: np.ndarray, length: int, d_model: int, base: float = 10000.0, *,
                             layout: str = "interleaved", spacing: str = "vaswani",
                             every: bool = False) -> np.ndarray:
    """Mean over i of PE[i]·PE[i+Δ] of the sinusoidal table at each offset, from its frequencies.

    Each (sin, cos) pair contributes sin(iθ)sin((i+Δ)θ) + cos(iθ)cos((i+Δ)θ) = cos(Δθ), the same for every
    i, so s(Δ) = Σ_i cos(Δθ_i) (Vaswani et al. 2017, arXiv:1706.03762, §3.5). With an odd d_model the last
    column (a sine without its cosine) is added: averaged directly (``every``: the offsets are every offset
    of the length) or by :func:`_unpaired_sine`'s closed form.
    """
    d_model = check_d_model(d_model)
    if layout not in ("interleaved", "split"):
        raise ValueError(f"layout must be 'interleaved' or 'split'; got {layout!r}.")
    if layout == "split" and d_model % 2:
        raise ValueError(f"The split layout needs an even d_model; got {d_model}.")
    theta = frequencies(d_model, base, spacing=spacing)
    sums = cosine_sums_every_offset if every else cosine_sums
    values = sums(offsets, theta[: d_model // 2])
    if d_model % 2 == 0:
        return values
    if every:
        last = np.sin(np.arange(length) * theta[-1])[:, None]  # the unpaired sine column
        return values + offset_similarity(last)[1]
    return values + _unpaired_sine(offsets, length, float(theta[-1]))


def sinusoidal_similarity(length: int, d_model: int, base: float = 10000.0, **options: object,
                          ) -> tuple[np.ndarray, np.ndarray]:
    """(offsets Δ, mean over i of PE[i]·PE[i+Δ]) of the sinusoidal table at every offset of ``length``."""
    length, d_model = check_length(length), check_d_model(d_model)
    offsets = every_offset(length)
    return offsets, sinusoidal_similarity_at(offsets, length, d_model, base, every=True, **options)


def learned_similarity(length: int, d_model: int, base: float = 10000.0, **options: object,
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The learned table's mean PE[i]·PE[i+Δ] over defined rows: only the rows the table has
    (NaN for offsets no pair of them reaches), instead of the full length, 64 columns at a time."""
    length = check_length(length)
    rows = min(length, int((get_scheme("learned").defaults() | options)["table_size"]))
    table = get_scheme("learned").table(rows, d_model, base, **options)
    # the sums over dimensions add up block by block, and the counts of defined pairs are the same
    # in every block: the mean over all columns is the sum of the blocks' means (FFT memory bounded)
    inside = sum(offset_similarity(table[:, start:start + 64])[1] for start in range(0, table.shape[1], 64))
    values = np.full(2 * length - 1, np.nan) if length else np.zeros(0)
    values[length - rows: length + rows - 1] = inside
    return every_offset(length), values


def _sinusoidal(offsets, length, d_model, base, *, layout="interleaved", spacing="vaswani"):
    return sinusoidal_similarity_at(offsets, length, d_model, base, layout=layout, spacing=spacing)


def _learned(offsets, length, d_model, base, *, table_size, seed):
    """The rows the table has (at most table_size ≤ 4096, by the registry's own route); NaN past them."""
    table_size = check_int(table_size, "table_size", minimum=1, meaning="the number of learned positions")
    rows = min(length, table_size)
    _, values = learned_similarity(rows, d_model, base, table_size=table_size, seed=seed)  # offsets −(rows−1)…
    result = np.full(len(offsets), np.nan)
    hit = np.abs(offsets) < rows
    result[hit] = values[offsets[hit] + rows - 1]
    return result


def _nope(offsets, length, d_model, base):
    check_d_model(d_model)
    return np.zeros(len(offsets))


# --- rotary schemes: the score of q = k = (1, …, 1) --------------------------------------------------


def rope_scores_at(offsets: object, length: int, d_model: int, base: float = 10000.0, *, every: bool = False,
                   **options: object) -> np.ndarray:
    """RoPE's score q·k / d for q = k = (1, …, 1) at each offset Δ = n − m (RoFormer, arXiv:2104.09864).

    A rotated pair of ones is s·(cos mθ − sin mθ, sin mθ + cos mθ); two of them multiply to
    2s²·cos((n − m)θ), and the d − d_rot dimensions left unrotated add 1 each:
    score(Δ) = (2s²·Σ_i cos(Δθ_i) + d − d_rot) / d, with θ and s the scaling's (seq_len = length)
    and d_rot = 2·len(θ) (p-RoPE's pairs at θ = 0 are in the sum, adding 2s² each). ``every``: the
    offsets are every offset of a length (the sum by angle addition).
    """
    d_model = check_d_model(d_model)
    keywords = rope_keywords(dict(options))
    keywords.pop("layout", None)
    fraction = keywords.pop("rotary_fraction", 1.0)
    theta, scale = rope_inv_freq(d_model, base, seq_len=max(length, 1), rotary_fraction=fraction, **keywords)
    d_rot = 2 * len(theta)  # under "proportional", every pair of the head (θ = 0 for those it leaves)
    sums = (cosine_sums_every_offset if every else cosine_sums)(np.asarray(offsets, dtype=np.int64), theta)
    return (2.0 * scale**2 * sums + (d_model - d_rot)) / d_model


def xpos_scores_at(offsets: object, length: int, d_model: int, base: float = 10000.0, *, every: bool = False,
                   **options: object) -> np.ndarray:
    """xPos's score q'·k' / d for q = k = (1, …, 1) at each offset Δ = n − m (Sun et al., arXiv:2212.10554).

    Pair i of the ones gives RoPE's 2·cos(Δθ_i) times ζ_i^(−Δ/γ): score(Δ) = Σ_i 2·ζ_i^(−Δ/γ)·cos(Δθ_i) / d.
    The key after the query grows as ζ_i^(−Δ/γ), so far positive offsets overflow and are refused.
    ``length`` is not used: the centre of the scales cancels. ``every``: the offsets are every offset
    of a length (the sum by angle addition).
    """
    d_model = check_d_model(d_model)
    gamma = xpos_keywords(dict(options))["scale_base"]
    theta, log_zeta = xpos_theta(d_model, base), np.log(xpos_zeta(d_model))
    sums = decaying_cosine_sums_every_offset if every else decaying_cosine_sums
    return check_finite(sums(np.asarray(offsets, dtype=np.int64), theta, log_zeta, gamma) * 2.0 / d_model,
                        "the xPos score")


# --- bias schemes: head 0's logit bias (−inf, a masked offset, as NaN) ------------------------------


def _masked(values: np.ndarray, offsets: np.ndarray, causal: bool) -> np.ndarray:
    return np.where(causal & (offsets > 0), np.nan, values)


def _shaw(offsets, length, d_model, base, *, max_relative_position, seed):
    """q·a_clip(Δ, k)/√d for the seeded unit query (Shaw et al., arXiv:1803.02155)."""
    d_model = check_d_model(d_model)
    scores = shaw_embeddings(max_relative_position, d_model, seed=seed) @ shaw_query(d_model, seed=seed)  # (2k+1,)
    k = len(scores) // 2  # max_relative_position, checked by shaw_embeddings
    return scores[np.clip(offsets, -k, k) + k] / np.sqrt(d_model)


def _t5(offsets, length, d_model, base, *, num_heads, num_buckets, max_distance, direction, seed):
    """b[bucket(Δ), 0]: head 0's learned scalar of the offset's bucket (Raffel et al., arXiv:1910.10683)."""
    check_d_model(d_model)
    index = t5_relative_bucket(offsets, bidirectional=not is_causal(direction), num_buckets=num_buckets,
                               max_distance=max_distance)
    return t5_bucket_values(num_buckets, num_heads, seed=seed)[index, 0]


def _alibi(offsets, length, d_model, base, *, num_heads, direction):
    """−m_0·|Δ| (Press et al., arXiv:2108.12409), head 0's slope; causal: none for Δ > 0."""
    check_d_model(d_model)
    values = -alibi_slopes(num_heads)[0] * np.abs(offsets).astype(np.float64)
    return _masked(values, offsets, is_causal(direction))


def _kerple(offsets, length, d_model, base, *, r1, r2, variant):
    """−r1·ln(1 + r2·|Δ|) or −r1·|Δ|^r2 (Chi et al., arXiv:2205.09921); none for Δ > 0 (causal)."""
    check_d_model(d_model)
    return _masked(kerple_kernel(np.abs(offsets), r1, r2, variant), offsets, True)


def _transformer_xl(offsets, length, d_model, base, *, seed):
    """b(−Δ) = Σ_s ρ_s·sin(−Δθ_s + φ_s)/√d for Δ ≤ 0 (Dai et al., arXiv:1901.02860, terms (b) + (d) of one
    query; as :func:`posenc.schemes.transformer_xl.transformer_xl_position_bias`); none for Δ > 0."""
    d_model = check_d_model(d_model)
    if d_model % 2:
        raise ValueError(f"Transformer-XL's relative sinusoid needs an even d_model; got {d_model}.")
    amplitude, shift = relative_sinusoid_weights(d_model, seed)
    distance = np.maximum(-offsets, 0).astype(np.float64)[:, None]
    values = (amplitude * np.sin(distance * frequencies(d_model, base) + shift)).sum(axis=1) / np.sqrt(d_model)
    return _masked(values, offsets, True)


def _every(scores_at: Callable[..., np.ndarray]) -> Callable[..., tuple[np.ndarray, np.ndarray]]:
    """A rotary curve at every offset −(L − 1) … L − 1 of a length, from its scores at chosen offsets."""
    def curve(length: int, d_model: int, base: float, **options: object) -> tuple[np.ndarray, np.ndarray]:
        offsets = every_offset(check_length(length))
        return offsets, scores_at(offsets, length, d_model, base, every=True, **options)
    return curve


OFFSET_CURVES: dict[str, Callable[..., tuple[np.ndarray, np.ndarray]]] = {
    "sinusoidal": sinusoidal_similarity,
    "learned": learned_similarity,
    "nope": get_scheme("nope").offset_curve,
    "rope": _every(rope_scores_at),
    "xpos": _every(xpos_scores_at),
    "shaw": get_scheme("shaw").offset_curve,
    "t5": get_scheme("t5").offset_curve,
    "alibi": get_scheme("alibi").offset_curve,
    "kerple": get_scheme("kerple").offset_curve,
    "transformer_xl": get_scheme("transformer_xl").offset_curve,
}
"""The fast route to each scheme's offset curve, by registry key: fn(length, d_model, base, **options) ->
(offsets −(L − 1) … L − 1, values), the same numbers as the registry's ``offset_curve``. A closed form where
one exists (sinusoidal, RoPE, xPos), the rows a learned table has, otherwise the registry's own curve (already
per offset, no table). A new scheme adds its key here: its registry ``offset_curve`` or a faster equal route."""


def offset_curve(scheme: str, length: int, d_model: int, base: float, **options: object,
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The scheme's ``offset_curve`` (the registry's numbers) at every offset −(L − 1) … L − 1, by the route
    :data:`OFFSET_CURVES` names: without the full table where a closed form exists or without the rows a
    table does not have."""
    get_scheme(scheme)  # an unknown key: the registry's sentence
    return OFFSET_CURVES[scheme](length, d_model, base, **options)


OFFSET_CURVES_AT: dict[str, Callable[..., np.ndarray]] = {
    "sinusoidal": _sinusoidal,
    "learned": _learned,
    "nope": _nope,
    "rope": rope_scores_at,
    "xpos": xpos_scores_at,
    "shaw": _shaw,
    "t5": _t5,
    "alibi": _alibi,
    "kerple": _kerple,
    "transformer_xl": _transformer_xl,
}
"""Each scheme's offset curve at chosen offsets, by registry key: fn(offsets, length, d_model, base,
**options) -> (len(offsets),) float64, with the offsets checked (|Δ| < length) and every option given
(the registry's defaults merged with the caller's). Equal to the registry's ``offset_curve`` at those
offsets. A new scheme adds its key here: its curve's formula for one offset at a time."""


def offset_curve_at(scheme: str, offsets: object, length: int, d_model: int, base: float,
                    **options: object) -> np.ndarray:
    """The registry's ``offset_curve(length, …)`` of ``scheme`` at ``offsets`` only (|Δ| < length ≤ 2^24),
    from :data:`OFFSET_CURVES_AT`: O(len(offsets) × d_model), no table, no length × length matrix."""
    entry = get_scheme(scheme)
    length = check_context(length)
    offsets = _checked_offsets(offsets, length)
    function = OFFSET_CURVES_AT[scheme]
    if not any(p.kind is p.VAR_KEYWORD for p in inspect.signature(function).parameters.values()):
        unknown = sorted(set(options) - set(entry.defaults()))  # a **options route checks its own
        if unknown:
            raise ValueError(f"{entry.label} has no option {', '.join(unknown)}; its options are "
                             f"{', '.join(entry.defaults()) or 'none'}.")
    return function(offsets, length, d_model, base, **(entry.defaults() | options))
