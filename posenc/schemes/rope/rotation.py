r"""Rotary position embedding (RoPE): the rotation of queries and keys, numpy only.

RoFormer (Su et al., arXiv:2104.09864) rotates each pair (a, b) of a query or
key at position m by the angle φ = m·θ_i, θ_i = base^(−2i/d):

    (a, b) ↦ (a·cos φ − b·sin φ,  a·sin φ + b·cos φ),

i.e. a + i·b is multiplied by e^{i·m·θ_i}. With q_i, k_i the pairs read as complex
numbers, ⟨R_m q, R_n k⟩ = Re Σ_i q_i·conj(k_i)·e^{i(m−n)θ_i} depends on the offset
only. Two layouts pair the dimensions differently:

- ``"interleaved"``: pairs (2i, 2i+1), as RoFormer and GPT-J (``rotate_every_two``);
- ``"half"``: pairs (i, i + d/2), as GPT-NeoX (arXiv:2204.06745) and Llama in
  Hugging Face: x·cos + rotate_half(x)·sin with cos/sin = cat(freqs, freqs).

Only the first d_rot = int(d·rotary_fraction) dimensions are rotated (GPT-NeoX's
rotary_pct, HF's partial_rotary_factor); θ_i uses d_rot. The context-extension
scalings (``rope_type``) are in :mod:`posenc.schemes.rope.scalings`.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from posenc.checks import (
    MAX_WHOLE,
    check_array,
    check_choice,
    check_d_model,
    check_finite,
    check_length,
    check_real,
    check_size,
)
from posenc.schemes.rope.frequencies import rope_inv_freq
from posenc.schemes.rope.scalings import LENGTH_DEPENDENT

Layout = Literal["interleaved", "half"]
LAYOUTS: tuple[str, ...] = ("interleaved", "half")


def broadcast_positions(positions: object, shape: tuple[int, ...]) -> np.ndarray:
    """Positions as float64 broadcast to ``shape`` = x.shape[:-1]; default 0, 1, …, length − 1."""
    if positions is None:
        return np.broadcast_to(np.arange(shape[-1], dtype=np.float64), shape)
    positions = check_array(positions, "positions").astype(np.float64)
    if positions.size and np.abs(positions).max() > MAX_WHOLE:
        raise ValueError(f"positions must lie within ±2^53; got {float(np.abs(positions).max()):g}.")
    try:
        return np.broadcast_to(positions, shape)
    except ValueError as err:
        raise ValueError(f"positions of shape {positions.shape} do not fit x, whose positions have "
                         f"shape {shape} (…, length).") from err


def rotate_pairs(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, layout: str) -> np.ndarray:
    """Rotate the first 2·cos.shape[-1] dims of x pairwise; cos, sin: (..., length, d_rot/2)."""
    d_rot = 2 * cos.shape[-1]
    x_rot, x_pass = x[..., :d_rot], x[..., d_rot:]
    if layout == "interleaved":
        a, b = x_rot[..., 0::2], x_rot[..., 1::2]
        rotated = np.stack([a * cos - b * sin, a * sin + b * cos], axis=-1).reshape(x_rot.shape)
    else:
        a, b = x_rot[..., : d_rot // 2], x_rot[..., d_rot // 2 :]
        rotated = np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)
    return np.concatenate([rotated, x_pass], axis=-1)


def apply_rope(x: np.ndarray, positions: np.ndarray | None = None, base: float = 10000.0, *,
               layout: Layout = "interleaved", rotary_fraction: float = 1.0, rope_type: str = "default",
               seq_len: int | None = None, **params: object) -> np.ndarray:
    """Rotate every pair of the last axis of x, shape (..., length, d), by positions·θ_i.

    x'_pair = s·R(m·θ_i)·x_pair with R(φ) = [[cos φ, −sin φ], [sin φ, cos φ]]
    (RoFormer, arXiv:2104.09864); s is the scaling's attention factor (1 except
    for YaRN, where HF multiplies cos and sin by it). ``positions`` (default
    0, …, length − 1) must broadcast to x.shape[:-1]. ``rope_type`` and ``params``
    choose a scaling of :data:`posenc.schemes.rope.scalings.ROPE_SCALINGS`; ``seq_len``
    (used by "dynamic" and "longrope") defaults to max(positions) + 1, as in HF.
    """
    x = check_array(x, "x")
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., length, d), at least two axes; got shape {x.shape}.")
    layout = check_choice(layout, "layout", LAYOUTS)
    pos = broadcast_positions(positions, x.shape[:-1])
    if seq_len is None and rope_type in LENGTH_DEPENDENT and pos.size:
        seq_len = max(int(np.floor(pos.max())) + 1, 1)
    inv_freq, scale = rope_inv_freq(x.shape[-1], base, rope_type=rope_type, seq_len=seq_len,
                                    rotary_fraction=rotary_fraction, **params)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
        angles = pos[..., None] * inv_freq  # (..., length, d_rot/2)
        check_finite(angles, "the angle position·θ_i")
        out = rotate_pairs(x, np.cos(angles) * scale, np.sin(angles) * scale, layout)
        out = out.astype(x.dtype if x.dtype.kind == "f" else np.float64, copy=False)  # ints: float64
    return check_finite(out, "the rotated x")


def query_key_pairs(q: object, k: object, query_positions: object,
                    key_positions: object) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(q, k, query positions, key positions) for a score matrix, checked, float64: q and k given as one
    vector each, shape (d,), or one per position, (M, d) and (N, d), become one row per position."""
    query_positions = check_array(query_positions, "query_positions", max_ndim=1).astype(np.float64).reshape(-1)
    key_positions = check_array(key_positions, "key_positions", max_ndim=1).astype(np.float64).reshape(-1)
    q = check_array(q, "q", min_ndim=1, max_ndim=2).astype(np.float64)
    k = check_array(k, "k", min_ndim=1, max_ndim=2).astype(np.float64)
    if q.shape[-1:] != k.shape[-1:]:
        raise ValueError(f"q and k must have the same size; got {q.shape[-1:]} and {k.shape[-1:]}.")
    for name, vectors, positions in (("q", q, query_positions), ("k", k, key_positions)):
        if vectors.ndim == 2 and len(vectors) != positions.size:
            raise ValueError(f"{name} holds {len(vectors)} vectors but {positions.size} positions were given: "
                             "give one vector, or one per position.")
    check_size((query_positions.size, key_positions.size), "the score matrix")
    q = np.broadcast_to(q, (query_positions.size, q.shape[-1]))
    k = np.broadcast_to(k, (key_positions.size, k.shape[-1]))
    return q, k, query_positions, key_positions


def rope_scores(q: np.ndarray, k: np.ndarray, query_positions: np.ndarray, key_positions: np.ndarray,
                base: float = 10000.0, **rope_options: object) -> np.ndarray:
    """The scores ⟨R_m q, R_n k⟩ for every query position m and key position n; shape (M, N).

    q and k are one vector each, shape (d,), or one per position, (M, d) and
    (N, d). ``rope_options`` go to :func:`apply_rope`; both sides share one
    ``seq_len`` (default max(m, n) + 1), so the score depends on m − n only.
    """
    q, k, query_positions, key_positions = query_key_pairs(q, k, query_positions, key_positions)
    if rope_options.get("seq_len") is None and query_positions.size and key_positions.size:
        last = max(query_positions.max(), key_positions.max())
        rope_options["seq_len"] = max(int(np.floor(last)) + 1, 1)
    rotated_q = apply_rope(q, query_positions, base, **rope_options)  # (M, d)
    rotated_k = apply_rope(k, key_positions, base, **rope_options)  # (N, d)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
        return check_finite(rotated_q @ rotated_k.T, "the score ⟨R_m q, R_n k⟩")


def rope_shift_invariance(q: np.ndarray, k: np.ndarray, m: float, n: float, shift: float,
                          base: float = 10000.0, **rope_options: object) -> tuple[float, float]:
    """(score(m, n), score(m + s, n + s)): equal, since R_mᵀR_n = R_{n−m}.

    RoFormer (arXiv:2104.09864): the rotated dot product sees the offset only.
    Both scores use the same frequencies (one ``seq_len`` for the four positions).
    """
    m, n, shift = (check_real(value, name, minimum=-MAX_WHOLE, maximum=MAX_WHOLE, meaning="a position")
                   for value, name in ((m, "m"), (n, "n"), (shift, "shift")))
    positions = np.array([m, n, m + shift, n + shift], dtype=np.float64)
    rope_options.setdefault("seq_len", max(int(np.floor(positions.max())) + 1, 1))
    before = rope_scores(q, k, [m], [n], base, **rope_options)[0, 0]
    after = rope_scores(q, k, [m + shift], [n + shift], base, **rope_options)[0, 0]
    return float(before), float(after)


def rope_score_curve(length: int, d: int, base: float = 10000.0, **rope_options: object,
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(offsets j − i from −(length−1) to length−1, raw scores ⟨R_i 1, R_j 1⟩).

    The score of q = k = (1, …, 1) for a key at offset j − i from the query, not
    normalised, computed by rotating vectors with :func:`apply_rope`: the query
    sits at position length − 1, the keys at 0, …, 2(length − 1); "dynamic" uses
    seq_len = length. In both layouts, without scaling, the score equals
    Σ_i 2·cos((j − i)·θ_i) + (d − d_rot) (RoFormer's long-term decay, with ripples).
    """
    length, d = check_length(length), check_d_model(d)
    check_size((2 * length, d), "the rotated keys")
    offsets = np.arange(-(length - 1), length)
    rope_options.setdefault("seq_len", max(length, 1))
    ones = np.ones(d)
    scores = rope_scores(ones, ones, [length - 1], length - 1 + offsets, base, **rope_options)
    return offsets, scores[0]
