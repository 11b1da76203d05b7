r"""xPos: RoPE with an exponential decay per pair (Sun et al. 2022, "A Length-Extrapolatable
Transformer", arXiv:2212.10554), numpy only, with torchscale's conventions.

A query at position m is rotated as RoPE (interleaved pairs (2i, 2i+1), θ_i = n^(−2i/d)) and
its pair i is scaled by ζ_i^(m̂/γ); a key at n is rotated the same way and scaled by ζ_i^(−n̂/γ):

    q'_pair = ζ_i^( m̂/γ)·R(m·θ_i)·q_pair,     k'_pair = ζ_i^(−n̂/γ)·R(n·θ_i)·k_pair,
    ζ_i = (2i/d + 0.4)/1.4 < 1,   γ = scale_base (512),   p̂ = p − ⌈L/2⌉,

with L the sequence length (torchscale's ``XPOS`` centres the scale's positions on
min_pos = −(length + offset)//2; the rotation uses the uncentred p). A scale on a pair commutes
with the pair's rotation, so the score is RoPE's with every pair damped by its own factor:

    q'·k' = Σ_i ζ_i^((m − n)/γ) · q_pairᵀ R((n − m)·θ_i) k_pair,

which depends on the offset only (the centre cancels) and decays as the key moves back from the
query (m − n grows): the fast pairs (small i, ζ_i near 0.29) fade first, the slow ones (ζ_i
near 1) last. A key after the query (n > m, masked in the paper's causal language models) would
be scaled up instead. The rotated vectors are not rotations of the inputs: their length changes
with the position (ζ_i^(±p̂/γ)).
"""

from __future__ import annotations

import math

import numpy as np

from posenc.checks import (
    check_array,
    check_base,
    check_d_model,
    check_finite,
    check_flag,
    check_length,
    check_real,
    check_seq_len,
    check_size,
)
from posenc.schemes.offsets import ANGLE_SPLIT, all_offsets
from posenc.schemes.rope.rotation import broadcast_positions, query_key_pairs, rotate_pairs
from posenc.schemes.scheme import Option, Scheme, Setting, latex_number

DEFAULT_SCALE_BASE = 512.0
"""γ of torchscale's XPOS and of its configs (xpos_scale_base)."""
ZETA_OFFSET = 0.4
"""The 0.4 in ζ_i = (2i/d + 0.4)/1.4: the fastest pair's ζ_0 = 0.4/1.4 (torchscale hard-codes it)."""


def check_scale_base(scale_base: object) -> float:
    """γ, the number of positions over which pair i's scale changes by the factor ζ_i: finite and > 0."""
    return check_real(scale_base, "scale_base", minimum=0.0, strict=True,
                      meaning="γ, the number of positions per power of ζ_i; 512 in xPos")


def _check_pairs(d: object) -> int:
    d = check_d_model(d)
    if d % 2:
        raise ValueError(f"xPos rotates and scales pairs of dimensions, so the width must be even; got d = {d}.")
    return d


def xpos_zeta(d: int) -> np.ndarray:
    """ζ_i = (2i/d + 0.4)/1.4 for the d/2 pairs i = 0 … d/2 − 1 (arXiv:2212.10554; torchscale's
    ``(arange(0, d, 2) + 0.4·d)/(1.4·d)``): from 0.4/1.4 ≈ 0.286 up to just under 1, float64."""
    d = _check_pairs(d)
    return (np.arange(0, d, 2, dtype=np.float64) + ZETA_OFFSET * d) / ((1 + ZETA_OFFSET) * d)


def xpos_theta(d: int, base: float = 10000.0) -> np.ndarray:
    """θ_i = base^(−2i/d) for the d/2 pairs: RoPE's frequencies (torchscale fixes base = 10000)."""
    d, base = _check_pairs(d), check_base(base)
    return base ** (-np.arange(0, d, 2, dtype=np.float64) / d)


def xpos_centre(seq_len: int) -> int:
    """⌈L/2⌉: the position whose scale is 1 (torchscale: −min_pos = (L + offset)//2 rounded up)."""
    seq_len = check_seq_len(seq_len)
    return -(-seq_len // 2)


def _default_seq_len(positions: np.ndarray) -> int:
    """max(positions) + 1 (at least 1): torchscale's length + offset when positions are offset … offset + L − 1."""
    return max(int(math.floor(positions.max())) + 1, 1) if positions.size else 1


def xpos_scales(positions: object, d: int, scale_base: float = DEFAULT_SCALE_BASE, *,
                seq_len: int | None = None, downscale: bool = False) -> np.ndarray:
    """ζ_i^(p̂/γ) (a query) or ζ_i^(−p̂/γ) (a key, ``downscale=True``) with p̂ = p − ⌈seq_len/2⌉; shape (…, d/2).

    ``seq_len`` defaults to max(positions) + 1. A ValueError if a scale overflows float64.
    """
    positions = check_array(positions, "positions").astype(np.float64)
    zeta, scale_base = xpos_zeta(d), check_scale_base(scale_base)
    downscale = check_flag(downscale, "downscale")
    seq_len = _default_seq_len(positions) if seq_len is None else check_seq_len(seq_len)
    centred = positions - xpos_centre(seq_len)
    with np.errstate(over="ignore", invalid="ignore"):  # a tiny γ overflows p̂/γ: refused just below if it matters
        exponent = (-centred if downscale else centred)[..., None] / scale_base  # (…, 1)
        return check_finite(zeta**exponent, "the xPos scale ζ_i^(±p̂/γ)")


def xpos_decay(distances: object, d: int, scale_base: float = DEFAULT_SCALE_BASE) -> np.ndarray:
    """ζ_i^(Δ/γ) for each distance Δ = m − n (query minus key) and pair i; shape (…, d/2), float64.

    What xPos multiplies pair i of RoPE's score by (arXiv:2212.10554): 1 at Δ = 0, shrinking
    for keys before the query (Δ > 0), growing for keys after it (Δ < 0).
    """
    distances = check_array(distances, "distances").astype(np.float64)
    zeta, scale_base = xpos_zeta(d), check_scale_base(scale_base)
    with np.errstate(over="ignore", invalid="ignore"):
        return check_finite(zeta ** (distances[..., None] / scale_base), "the decay ζ_i^(Δ/γ)")


def apply_xpos(x: np.ndarray, positions: np.ndarray | None = None, base: float = 10000.0, *,
               scale_base: float = DEFAULT_SCALE_BASE, downscale: bool = False,
               seq_len: int | None = None) -> np.ndarray:
    """Rotate every pair of the last axis of x, shape (…, length, d), by p·θ_i and scale it by ζ_i^(±p̂/γ).

        x'_pair = ζ_i^(s·p̂/γ)·R(p·θ_i)·x_pair,   s = +1 (queries) or −1 (keys, ``downscale=True``),
        θ_i = base^(−2i/d),  ζ_i = (2i/d + 0.4)/1.4,  p̂ = p − ⌈seq_len/2⌉,  γ = scale_base

    (Sun et al. 2022, arXiv:2212.10554). ``positions`` (default 0, …, length − 1) must broadcast to
    x.shape[:-1]; ``seq_len`` defaults to max(positions) + 1. torchscale's
    ``XPOS(d, γ)(x, offset, downscale)`` is ``apply_xpos(x, offset + arange(length), scale_base=γ,
    downscale=downscale)`` (its length + offset is this seq_len). Queries and keys scored together
    must share one seq_len (:func:`xpos_scores` does).
    """
    x = check_array(x, "x")
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., length, d), at least two axes; got shape {x.shape}.")
    theta = xpos_theta(x.shape[-1], base)
    pos = broadcast_positions(positions, x.shape[:-1])
    scales = xpos_scales(pos, x.shape[-1], scale_base, seq_len=seq_len, downscale=downscale)  # (…, length, d/2)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
        angles = check_finite(pos[..., None] * theta, "the angle position·θ_i")  # (…, length, d/2)
        out = rotate_pairs(x, np.cos(angles) * scales, np.sin(angles) * scales, "interleaved")
        out = out.astype(x.dtype if x.dtype.kind == "f" else np.float64, copy=False)  # ints: float64
    return check_finite(out, "the rotated and scaled x")


def xpos_scores(q: np.ndarray, k: np.ndarray, query_positions: object, key_positions: object,
                base: float = 10000.0, *, scale_base: float = DEFAULT_SCALE_BASE,
                seq_len: int | None = None) -> np.ndarray:
    """The scores q'_m·k'_n for every query position m and key position n; shape (M, N), float64.

    q'_m = apply_xpos(q, m), k'_n = apply_xpos(k, n, downscale=True), both with one seq_len
    (default max(m, n) + 1), so q'_m·k'_n = Σ_i ζ_i^((m − n)/γ)·q_iᵀR((n − m)θ_i)k_i depends on
    m − n only. q and k are one vector each, shape (d,), or one per position, (M, d) and (N, d).
    """
    q, k, query_positions, key_positions = query_key_pairs(q, k, query_positions, key_positions)
    if seq_len is None:
        seq_len = _default_seq_len(np.concatenate([query_positions, key_positions]))
    rotated_q = apply_xpos(q, query_positions, base, scale_base=scale_base, seq_len=seq_len)  # (M, d)
    rotated_k = apply_xpos(k, key_positions, base, scale_base=scale_base, seq_len=seq_len, downscale=True)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
        return check_finite(rotated_q @ rotated_k.T, "the score q'·k'")


def xpos_score_curve(length: int, d: int, base: float = 10000.0, *,
                     scale_base: float = DEFAULT_SCALE_BASE) -> tuple[np.ndarray, np.ndarray]:
    """(offsets j − i from −(length−1) to length−1, raw scores q'·k' for q = k = (1, …, 1)).

    Computed by rotating and scaling vectors with :func:`apply_xpos`: the query at position
    length − 1, the keys at 0, …, 2(length − 1), one seq_len = length. Each pair of ones gives
    2·cos(Δθ_i) times the decay, so the score is Σ_i 2·ζ_i^(−Δ/γ)·cos(Δθ_i) at Δ = j − i:
    RoPE's curve damped for keys before the query (Δ < 0) and amplified after it.
    """
    length, d = check_length(length), _check_pairs(d)
    check_size((2 * length, d), "the rotated keys")
    offsets = np.arange(-(length - 1), length)
    ones = np.ones(d)
    scores = xpos_scores(ones, ones, [length - 1], length - 1 + offsets, base, scale_base=scale_base,
                         seq_len=max(length, 1))
    return offsets, scores[0]


XPOS_OPTIONS = ("scale_base",)


def xpos_keywords(options: dict[str, object]) -> dict[str, object]:
    """The scheme's options as :func:`apply_xpos` keywords (scale_base), or a ValueError naming an unknown one."""
    unknown = sorted(set(options) - set(XPOS_OPTIONS))
    if unknown:
        raise ValueError(f"xPos has no option {', '.join(unknown)}; its only option is scale_base.")
    return {"scale_base": check_scale_base(options.get("scale_base", DEFAULT_SCALE_BASE))}


def _rotate_as_entry(x: np.ndarray, positions: np.ndarray, base: float, *, key: bool = False, seq_len: int | None = None,
                     **options: object) -> np.ndarray:
    """The registry's ``rotate``: a query scaled up by ζ_i^(p̂/γ), a key (``key=True``) down by ζ_i^(−p̂/γ)."""
    return apply_xpos(x, positions, base, downscale=key, seq_len=seq_len, **xpos_keywords(dict(options)))


def _offset_curve(length: int, d_model: int, base: float, **options: object) -> tuple[np.ndarray, np.ndarray]:
    offsets, scores = xpos_score_curve(length, d_model, base, **xpos_keywords(options))
    return offsets, scores / d_model


def _formula(d_model: int, base: float, **options: object) -> str:
    """KaTeX of the frequencies, the ζ_i, the scaled rotations and the score, with the current numbers."""
    gamma = latex_number(xpos_keywords(options)["scale_base"])
    d_model, base = _check_pairs(d_model), check_base(base)
    zeta = xpos_zeta(d_model)
    last = d_model // 2 - 1
    rotation = r"\begin{pmatrix} \cos p\theta_i & -\sin p\theta_i \\ \sin p\theta_i & \cos p\theta_i \end{pmatrix}"
    pair = r"\begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix}"
    lines = [rf"\theta_i = {latex_number(base)}^{{-2i/{d_model}}},\quad "
             rf"\zeta_i = \frac{{2i/{d_model} + 0.4}}{{1.4}} \;({zeta[0]:.4f} \dots {zeta[-1]:.4f}),"
             rf"\quad i = 0, \dots, {last},\quad \gamma = {gamma}",
             rf"\begin{{pmatrix}} x'_{{2i}} \\ x'_{{2i+1}} \end{{pmatrix}} = \zeta_i^{{\pm \hat p/{gamma}}}\, "
             rf"{rotation} {pair},\quad \hat p = p - \lceil L/2 \rceil \quad "
             r"(+\text{: query at } p = m,\ -\text{: key at } p = n;\ L = \text{sequence length})",
             rf"q' \cdot k' = \sum_{{i=0}}^{{{last}}} \zeta_i^{{(m-n)/{gamma}}}\; "
             r"q_{(i)}^\top R\big((n-m)\theta_i\big)\, k_{(i)}"]
    return r"\begin{gathered} " + r" \\ ".join(lines) + r" \end{gathered}"


def decaying_cosine_sums(offsets: np.ndarray, theta: np.ndarray, log_zeta: np.ndarray, gamma: float) -> np.ndarray:
    """Σ_i ζ_i^(−Δ/γ)·cos(Δθ_i) for each offset, one term per (offset, pair): (offsets,)."""
    delta = offsets.astype(np.float64)[:, None]
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused by the caller
        return (np.exp(-delta * log_zeta / gamma) * np.cos(delta * theta)).sum(axis=1)


def decaying_cosine_sums_every_offset(offsets: np.ndarray, theta: np.ndarray, log_zeta: np.ndarray,
                                      gamma: float) -> np.ndarray:
    """Σ_i ζ_i^(−Δ/γ)·cos(Δθ_i) = Σ_i Re(z_i^Δ), z_i = ζ_i^(−1/γ)·e^(iθ_i), for every whole Δ in ``offsets``.

    With Δ = 64a + b (a = ⌊Δ/64⌋, 0 ≤ b < 64), z^Δ = z^(64a)·z^b: as in :func:`posenc.schemes.offsets.cosine_sums_every_offset`,
    two matrix products instead of one power and cosine per offset and pair.
    """
    with np.errstate(over="ignore"):  # a tiny γ overflows the decay rate: the score is refused by the caller
        log_decay = -log_zeta / gamma  # (d/2,), |z_i| = e^log_decay
    offsets = np.asarray(offsets, dtype=np.int64)
    if offsets.size == 0:
        return np.zeros(0)
    high, low = np.divmod(offsets, ANGLE_SPLIT)
    big = (np.arange(high.min(), high.max() + 1, dtype=np.float64) * ANGLE_SPLIT)[:, None]  # (A, 1)
    small = np.arange(ANGLE_SPLIT, dtype=np.float64)[:, None]  # (64, 1)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused by the caller
        big_size, small_size = np.exp(big * log_decay), np.exp(small * log_decay)  # |z|^(64a), |z|^b
        grid = (np.einsum("ah,bh->ab", big_size * np.cos(big * theta), small_size * np.cos(small * theta),
                          optimize=False)
                - np.einsum("ah,bh->ab", big_size * np.sin(big * theta), small_size * np.sin(small * theta),
                            optimize=False))  # (A, 64)
    return grid[high - high.min(), low]


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


def _scores_every_offset(setting: Setting) -> tuple[np.ndarray, np.ndarray]:
    offsets = all_offsets(setting.length)
    return offsets, xpos_scores_at(offsets, setting.length, setting.d_model, setting.base, every=True,
                                   **setting.options)


def _scores_at(setting: Setting, offsets: np.ndarray) -> np.ndarray:
    return xpos_scores_at(offsets, setting.length, setting.d_model, setting.base, **setting.options)


SCHEMES: tuple[Scheme, ...] = (
    Scheme(
        key="xpos",
        label="xPos (rotary, decaying)",
        short_label="xPos",
        family="rotary",
        paper="Sun et al. 2022, A Length-Extrapolatable Transformer, arXiv:2212.10554",
        formula=_formula,
        offset_curve=_offset_curve,
        rotate=_rotate_as_entry,
        offset_curve_fast=_scores_every_offset,
        offset_curve_at=_scores_at,
        checks_own_options=True,
        measured_on="ζ^(p̂/γ)·R_p·(1, …, 1): the all-ones query rotated and scaled to p, p̂ = p − ⌈L/2⌉",
        curve_label="q'·k' / d_model for q = k = (1, …, 1), key at offset j − i from the query "
                    "(RoPE's score times ζ_i^(−(j − i)/γ) per pair: it decays for keys before the query)",
        options=(
            Option("scale_base", "Scale base γ", 512, minimum=16, maximum=65536,
                   help="γ in ζ_i^(Δ/γ): a key Δ positions before the query has pair i scaled by ζ_i^(Δ/γ), "
                        "ζ_i = (2i/d + 0.4)/1.4. Smaller γ: faster decay. 512 in xPos (torchscale's xpos_scale_base)."),
        ),
    ),
)
