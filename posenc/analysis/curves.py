"""The offset curve every scheme shares, computed at chosen offsets without building a table.

The registry's ``offset_curve`` builds what it measures (the sinusoidal table and its
autocorrelation by FFT: about 1 s at 4096 × 1024). For the schemes with a closed form the
same numbers come from the frequencies alone; the tests pin them to the registry's curves.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from posenc.checks import check_d_model, check_finite, check_length
from posenc.schemes.offsets import offset_similarity
from posenc.schemes.registry import get_scheme
from posenc.schemes.rope.entry import rope_keywords
from posenc.schemes.rope.frequencies import rope_inv_freq
from posenc.schemes.sinusoidal import frequencies
from posenc.schemes.xpos import xpos_keywords, xpos_theta, xpos_zeta


def _offsets(length: int) -> np.ndarray:
    return np.arange(-(length - 1), length)


_SPLIT = 64  # offsets are split as Δ = 64·a + b for the angle-addition sum below


def _cosine_sum(offsets: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Σ_i cos(Δ·θ_i) for every whole Δ in ``offsets`` (cos is even: |Δ| is used).

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


def sinusoidal_similarity(length: int, d_model: int, base: float = 10000.0, *, layout: str = "interleaved",
                          spacing: str = "vaswani") -> tuple[np.ndarray, np.ndarray]:
    """(offsets Δ, mean over i of PE[i]·PE[i+Δ]) of the sinusoidal table, from its frequencies.

    Each (sin, cos) pair contributes sin(iθ)sin((i+Δ)θ) + cos(iθ)cos((i+Δ)θ) = cos(Δθ), the
    same for every i, so s(Δ) = Σ_i cos(Δθ_i) (Vaswani et al. 2017, arXiv:1706.03762, §3.5).
    With an odd d_model the last column (a sine without its cosine) is averaged directly.
    """
    length, d_model = check_length(length), check_d_model(d_model)
    if layout == "split" and d_model % 2:
        raise ValueError(f"The split layout needs an even d_model; got {d_model}.")
    offsets = _offsets(length)
    theta = frequencies(d_model, base, spacing=spacing)
    values = _cosine_sum(offsets, theta[: d_model // 2])
    if d_model % 2:
        last = np.sin(np.arange(length) * theta[-1])[:, None]  # the unpaired sine column
        values = values + offset_similarity(last)[1]
    return offsets, values


def rope_scores_at(offsets: object, length: int, d_model: int, base: float = 10000.0,
                   **options: object) -> np.ndarray:
    """RoPE's score q·k / d for q = k = (1, …, 1) at each offset Δ = n − m (RoFormer, arXiv:2104.09864).

    A rotated pair of ones is s·(cos mθ − sin mθ, sin mθ + cos mθ); two of them multiply to
    2s²·cos((n − m)θ), and the d − d_rot dimensions left unrotated add 1 each:
    score(Δ) = (2s²·Σ_i cos(Δθ_i) + d − d_rot) / d, with θ and s the scaling's (seq_len = length)
    and d_rot = 2·len(θ) (p-RoPE's pairs at θ = 0 are in the sum, adding 2s² each).
    """
    length, d_model = check_length(length), check_d_model(d_model)
    keywords = rope_keywords(dict(options))
    keywords.pop("layout", None)
    fraction = keywords.pop("rotary_fraction", 1.0)
    theta, scale = rope_inv_freq(d_model, base, seq_len=max(length, 1), rotary_fraction=fraction, **keywords)
    d_rot = 2 * len(theta)  # under "proportional", every pair of the head (θ = 0 for those it leaves)
    offsets = np.asarray(offsets, dtype=np.int64)
    return (2.0 * scale**2 * _cosine_sum(offsets, theta) + (d_model - d_rot)) / d_model


def xpos_scores_at(offsets: object, length: int, d_model: int, base: float = 10000.0,
                   **options: object) -> np.ndarray:
    """xPos's score q'·k' / d for q = k = (1, …, 1) at each offset Δ = n − m (Sun et al., arXiv:2212.10554).

    Pair i of the ones gives RoPE's 2·cos(Δθ_i) times ζ_i^(−Δ/γ): score(Δ) = Σ_i 2·w_i(Δ)/d with
    w_i(Δ) = ζ_i^(−Δ/γ)·cos(Δθ_i) = Re(z_i^Δ), z_i = ζ_i^(−1/γ)·e^(iθ_i). With Δ = 64a + b (a = ⌊Δ/64⌋,
    0 ≤ b < 64), z^Δ = z^(64a)·z^b: as in :func:`_cosine_sum`, two matrix products instead of one
    power and cosine per offset and pair. ``length`` is only checked: the centre of the scales cancels.
    """
    check_length(length)
    d_model = check_d_model(d_model)
    gamma = xpos_keywords(dict(options))["scale_base"]
    theta = xpos_theta(d_model, base)
    with np.errstate(over="ignore"):  # a tiny γ overflows the decay rate: the score is refused below
        log_decay = -np.log(xpos_zeta(d_model)) / gamma  # (d/2,), |z_i| = e^log_decay
    offsets = np.asarray(offsets, dtype=np.int64)
    if offsets.size == 0:
        return np.zeros(0)
    high, low = np.divmod(offsets, _SPLIT)
    big = (np.arange(high.min(), high.max() + 1, dtype=np.float64) * _SPLIT)[:, None]  # (A, 1)
    small = np.arange(_SPLIT, dtype=np.float64)[:, None]  # (64, 1)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
        big_size, small_size = np.exp(big * log_decay), np.exp(small * log_decay)  # |z|^(64a), |z|^b
        grid = (np.einsum("ah,bh->ab", big_size * np.cos(big * theta), small_size * np.cos(small * theta),
                          optimize=False)
                - np.einsum("ah,bh->ab", big_size * np.sin(big * theta), small_size * np.sin(small * theta),
                            optimize=False))  # (A, 64)
    values = check_finite(grid[high - high.min(), low], "the xPos score") * 2.0 / d_model
    return values


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
    return _offsets(length), values


def _rope_curve(length: int, d_model: int, base: float, **options: object) -> tuple[np.ndarray, np.ndarray]:
    """RoPE's curve at every offset −(L − 1) … L − 1, from :func:`rope_scores_at`."""
    offsets = _offsets(check_length(length))
    return offsets, rope_scores_at(offsets, length, d_model, base, **options)


def _xpos_curve(length: int, d_model: int, base: float, **options: object) -> tuple[np.ndarray, np.ndarray]:
    """xPos's curve at every offset −(L − 1) … L − 1, from :func:`xpos_scores_at`."""
    offsets = _offsets(check_length(length))
    return offsets, xpos_scores_at(offsets, length, d_model, base, **options)


OFFSET_CURVES: dict[str, Callable[..., tuple[np.ndarray, np.ndarray]]] = {
    "sinusoidal": sinusoidal_similarity,
    "learned": learned_similarity,
    "nope": get_scheme("nope").offset_curve,
    "rope": _rope_curve,
    "xpos": _xpos_curve,
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
    """The scheme's ``offset_curve`` (the registry's numbers), by the route :data:`OFFSET_CURVES` names:
    without the full table where a closed form exists or without the rows a table does not have."""
    get_scheme(scheme)  # an unknown key: the registry's sentence
    return OFFSET_CURVES[scheme](length, d_model, base, **options)
