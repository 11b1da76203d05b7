r"""Rotary embeddings for images: axial 2-D RoPE and multimodal RoPE (M-RoPE), numpy only.

A patch of an image has two coordinates, its row r and its column c. Vision transformers with
rotary embeddings (Heo et al., "Rotary Position Embedding for Vision Transformer",
arXiv:2403.13298, the axial variant) give half of the pairs of a head to the row and half to
the column; Qwen2-VL's vision encoder (Wang et al., arXiv:2409.12191) does exactly this with
θ_j = base^(−4j/d), j = 0, …, d/4 − 1, in the "half" layout (pair i is dimensions i and i + d/2):

    φ_i = r·θ_i for i < d/4,   φ_i = c·θ_{i − d/4} for d/4 ≤ i < d/2.

Qwen2-VL's language model reads every token at three ids (t, h, w): a text token at position p
has t = h = w = p, an image patch has its frame, row and column (offset by the text before
it). M-RoPE splits the d/2 pairs, with the usual θ_i = base^(−2i/d), into three consecutive
bands of sizes ``mrope_section`` = (s_t, s_h, s_w) (16, 24, 24 of 64 in Qwen2-VL), and band k
turns by id k:

    φ_i = t·θ_i (i < s_t),   h·θ_i (s_t ≤ i < s_t + s_h),   w·θ_i (the rest).

With t = h = w = p every pair turns by p·θ_i: on text, M-RoPE is 1-D RoPE. Qwen3-VL interleaves the
bands instead (t, h, w, t, h, w, …; ``apply_mrope(..., interleaved=True)``), so that each id turns fast
and slow pairs alike. Both rotate
(x_i, x_{i+d/2}) by φ_i, so a score depends on the offsets only: (Δr, Δc) for 2-D RoPE,
(Δt, Δh, Δw) for M-RoPE. Reference: Hugging Face transformers 5.23.0,
``models/qwen2_vl/modeling_qwen2_vl.py`` (``Qwen2VLVisionRotaryEmbedding``,
``Qwen2VLRotaryEmbedding``, ``apply_rotary_pos_emb_vision``, ``Qwen2VLModel.get_rope_index``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from posenc.checks import (
    MAX_LENGTH,
    MAX_WHOLE,
    ArgumentTypeError,
    check_array,
    check_base,
    check_d_model,
    check_finite,
    check_flag,
    check_int,
)
from posenc.schemes.rope.rotation import rotate_pairs
from posenc.schemes.rope.scalings import default_inv_freq

QWEN2_VL_SECTION = (16, 24, 24)
"""Qwen2-VL's mrope_section: 16 pairs for the frame, 24 for the row, 24 for the column (head of 128)."""
AXES = ("temporal", "height", "width")


def _rotated_input(x: object) -> np.ndarray:
    """x as an array of shape (..., length, d), at least two axes."""
    x = check_array(x, "x")
    if x.ndim < 2:
        raise ValueError(f"x must have shape (length, d) (or (..., length, d)), at least two axes; got shape "
                         f"{x.shape}.")
    return x


def _whole_positions(values: object, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """``values`` as float64 of exactly ``shape``, every entry a whole number within ±2^53."""
    positions = check_array(values, name)
    if positions.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, one id per token of x; got shape {positions.shape}.")
    positions = positions.astype(np.float64)
    if positions.size and np.abs(positions).max() > MAX_WHOLE:
        raise ValueError(f"{name} must lie within ±2^53; got {float(np.abs(positions).max()):g}.")
    if not np.array_equal(positions, np.floor(positions)):
        fraction = positions[positions != np.floor(positions)][0]
        raise ValueError(f"{name} must hold whole numbers (a patch sits at a whole row, column or frame); "
                         f"got {fraction:g}.")
    return positions


def _rotate_half_layout(x: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """x·cos(cat(φ, φ)) + rotate_half(x)·sin(cat(φ, φ)), φ = ``angles`` of shape (length, d/2)."""
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
        check_finite(angles, "the angle position·θ_i")
        out = rotate_pairs(x, np.cos(angles), np.sin(angles), "half")
        out = out.astype(x.dtype if x.dtype.kind == "f" else np.float64, copy=False)  # ints: float64
    return check_finite(out, "the rotated x")


def rope_2d_inv_freq(d: int, base: float = 10000.0) -> np.ndarray:
    """θ_j = base^(−4j/d), j = 0, …, d/4 − 1: the frequencies each axis of 2-D RoPE uses; shape (d/4,).

    Qwen2-VL's ``compute_axial_rope_parameters``: 1-D RoPE's θ for a head of d/2 dimensions
    (arXiv:2409.12191; axial 2-D RoPE, arXiv:2403.13298). d must be a multiple of 4.
    """
    d = check_d_model(d)
    if d % 4:
        raise ValueError(f"2-D RoPE gives half of the d/2 pairs to the row and half to the column, so d must be "
                         f"a multiple of 4; got d = {d}.")
    return default_inv_freq(d // 2, base)[0]


def apply_rope_2d(x: np.ndarray, rows: np.ndarray, cols: np.ndarray, base: float = 10000.0) -> np.ndarray:
    """Rotate x, shape (length, d) or (..., length, d), by axial 2-D RoPE at patch (rows[p], cols[p]).

    φ_i = r·θ_i for i < d/4 and c·θ_{i−d/4} for d/4 ≤ i < d/2, θ_j = base^(−4j/d); pair i is
    (x_i, x_{i+d/2}) and turns by φ_i: x' = x·cos(cat(φ, φ)) + rotate_half(x)·sin(cat(φ, φ)),
    as Qwen2-VL's vision encoder (arXiv:2409.12191; axial 2-D RoPE, arXiv:2403.13298). rows and
    cols: shape (length,), whole numbers. ⟨x'_q, x'_k⟩ depends on (r_k − r_q, c_k − c_q) only.
    """
    x = _rotated_input(x)
    length, d = x.shape[-2:]
    theta = rope_2d_inv_freq(d, base)  # (d/4,)
    rows = _whole_positions(rows, "rows", (length,))
    cols = _whole_positions(cols, "cols", (length,))
    angles = np.concatenate([rows[:, None] * theta, cols[:, None] * theta], axis=-1)  # (length, d/2)
    return _rotate_half_layout(x, angles)


def check_mrope_section(mrope_section: object, d: int) -> tuple[int, int, int]:
    """(s_t, s_h, s_w): three whole numbers ≥ 0 that split the d/2 pairs of a head, in order."""
    if isinstance(mrope_section, (str, bytes)) or not isinstance(mrope_section, (Sequence, np.ndarray)):
        raise ArgumentTypeError(f"mrope_section must be three whole numbers (pairs for the frame, the row and the "
                                f"column), such as (16, 24, 24); got {mrope_section!r:.40}.")
    if len(mrope_section) != 3:
        raise ValueError(f"mrope_section must be three whole numbers (pairs for the frame, the row and the column); "
                         f"got {len(mrope_section)} of them.")
    section = tuple(check_int(size, f"mrope_section[{n}]", minimum=0, maximum=MAX_LENGTH,
                              meaning=f"the pairs that turn with the {AXES[n]} id")
                    for n, size in enumerate(mrope_section))
    if sum(section) != d // 2:
        raise ValueError(f"mrope_section must split the d/2 = {d // 2} pairs of a head into three bands, so its "
                         f"sizes must sum to {d // 2}; got {section}, which sums to {sum(section)}.")
    return section


def scaled_mrope_section(d: int) -> tuple[int, int, int]:
    """Qwen2-VL's (16, 24, 24) of 64 pairs in the same proportions for a head of d dimensions (d even):
    s_h = s_w = ⌊3·(d/2)/8⌋ and s_t = d/2 − 2·s_h; (16, 24, 24) for d = 128."""
    d = check_d_model(d)
    if d % 2:
        raise ValueError(f"M-RoPE rotates pairs of dimensions, so d must be even; got d = {d}.")
    spatial = 3 * (d // 2) // 8
    return d // 2 - 2 * spatial, spatial, spatial


def mrope_axes(d: int, mrope_section: Sequence[int] = QWEN2_VL_SECTION, interleaved: bool = False) -> np.ndarray:
    """Which id turns each pair of an M-RoPE head: 0 (t), 1 (h) or 2 (w); shape (d/2,), int64.

    Qwen2-VL (arXiv:2409.12191): three consecutive bands of s_t, s_h, s_w pairs. Qwen3-VL
    (``interleaved=True``; transformers 5.23 ``Qwen3VLTextRotaryEmbedding``): pair i takes h when
    i mod 3 = 1 and i < 3·s_h, w when i mod 3 = 2 and i < 3·s_w, t otherwise; s_h and s_w pairs go to
    the row and the column only if 3·s_h − 2 < d/2 and 3·s_w − 1 < d/2, which is checked. (24, 20, 20)
    for d = 128: h at 1, 4, …, 58, w at 2, 5, …, 59, t at 0, 3, …, 63 and 60 to 63.
    """
    section = check_mrope_section(mrope_section, d)
    interleaved = check_flag(interleaved, "interleaved")
    if not interleaved:
        return np.repeat(np.arange(3), section)
    pairs, (_, rows, cols) = d // 2, section
    if 3 * rows - 2 >= pairs or 3 * cols - 1 >= pairs:
        raise ValueError(f"interleaved M-RoPE gives the row every third pair from 1 and the column every third from "
                         f"2, so 3·s_h − 2 and 3·s_w − 1 must be below d/2 = {pairs}; got mrope_section {section}.")
    axis = np.zeros(pairs, dtype=np.int64)
    axis[1:3 * rows:3], axis[2:3 * cols:3] = 1, 2
    return axis


def apply_mrope(x: np.ndarray, positions: np.ndarray, base: float = 10000.0,
                mrope_section: Sequence[int] = QWEN2_VL_SECTION, interleaved: bool = False) -> np.ndarray:
    """Rotate x, shape (length, d) or (..., length, d), by multimodal RoPE at ids (t, h, w) = positions[:, p].

    M-RoPE (Qwen2-VL, arXiv:2409.12191): with θ_i = base^(−2i/d) and (s_t, s_h, s_w) =
    ``mrope_section`` (summing to d/2), pair i = (x_i, x_{i+d/2}) turns by φ_i = t·θ_i for
    i < s_t, h·θ_i for s_t ≤ i < s_t + s_h and w·θ_i after: x' = x·cos(cat(φ, φ)) +
    rotate_half(x)·sin(cat(φ, φ)). ``positions``: shape (3, length), whole numbers (temporal,
    height, width ids). On a text token (t = h = w = p) this is 1-D RoPE at p, half layout.

    ``interleaved=True`` is Qwen3-VL's layout (:func:`mrope_axes`): the three ids take turns,
    pair i turning by h when i mod 3 = 1 and i < 3·s_h, by w when i mod 3 = 2 and i < 3·s_w, by t
    otherwise, so every id gets fast and slow pairs (transformers 5.23,
    ``Qwen3VLTextRotaryEmbedding.recomposition_frequencies``, formerly ``apply_interleaved_mrope``).
    """
    x = _rotated_input(x)
    length, d = x.shape[-2:]
    d = check_d_model(d)
    if d % 2:
        raise ValueError(f"M-RoPE rotates pairs of dimensions, so d must be even; got d = {d}.")
    axis = mrope_axes(d, mrope_section, interleaved)  # (d/2,): which id turns pair i
    ids = _whole_positions(positions, "positions", (3, length))  # rows: t, h, w
    theta = default_inv_freq(d, check_base(base))[0]  # (d/2,)
    angles = ids[axis].T * theta  # (length, d/2)
    return _rotate_half_layout(x, angles)


def mrope_position_ids(text_before: int, height: int, width: int, text_after: int, frames: int = 1) -> np.ndarray:
    """The (t, h, w) ids of "text_before text tokens, an image (or video) of frames × height × width
    patches, text_after text tokens", shape (3, length), int64, as Qwen2-VL's get_rope_index lays out one
    image (arXiv:2409.12191).

    Text token p: t = h = w = p. Patch (f, r, c), in frame-major then row-major order, with
    s = text_before: (s + f, s + r, s + c). The text after continues from the largest id + 1,
    s + max(frames, height, width). height and width count the patches the language model sees
    (Qwen2-VL merges 2 × 2 encoder patches into one). transformers 5.23.0 continues from
    s + max(height, width) instead, which is the same unless frames > max(height, width).
    """
    text_before, text_after = (check_int(value, name, minimum=0, maximum=MAX_LENGTH, meaning="a number of tokens")
                               for value, name in ((text_before, "text_before"), (text_after, "text_after")))
    frames, height, width = (check_int(value, name, minimum=1, maximum=MAX_LENGTH, meaning=meaning)
                             for value, name, meaning in ((frames, "frames", "frames of the video, 1 for an image"),
                                                          (height, "height", "rows of patches"),
                                                          (width, "width", "columns of patches")))
    length = text_before + frames * height * width + text_after
    if length > MAX_LENGTH:
        raise ValueError(f"the sequence would hold {length:,} tokens, more than {MAX_LENGTH:,}; use a smaller image "
                         "or fewer tokens.")
    start = text_before
    f, r, c = np.meshgrid(np.arange(frames), np.arange(height), np.arange(width), indexing="ij")
    patches = start + np.stack([f.ravel(), r.ravel(), c.ravel()])  # (3, frames·height·width)
    after = start + max(frames, height, width) + np.arange(text_after)
    return np.concatenate([np.broadcast_to(np.arange(text_before), (3, text_before)), patches,
                           np.broadcast_to(after, (3, text_after))], axis=1).astype(np.int64)


def rope_2d_patch_scores(height: int, width: int, row: int, col: int, d: int,
                         base: float = 10000.0) -> np.ndarray:
    """⟨R(row, col)·1, R(r, c)·1⟩ / d for every patch (r, c) of a height × width grid, under 2-D RoPE; (H, W).

    q = k = (1, …, 1) rotated by :func:`apply_rope_2d`; the result equals
    (2/d)·[Σ_j cos((r − row)·θ_j) + Σ_j cos((c − col)·θ_j)], θ_j = base^(−4j/d): a row profile plus
    a column profile, and a function of the offset (r − row, c − col) only.
    """
    rows, cols = _grid(height, width)
    row, col = _query(row, col, height, width)
    keys = apply_rope_2d(np.ones((height * width, d)), rows, cols, base)  # (H·W, d)
    query = apply_rope_2d(np.ones((1, d)), [row], [col], base)[0]  # (d,)
    return (keys @ query / d).reshape(height, width)


def mrope_patch_scores(height: int, width: int, row: int, col: int, d: int, base: float = 10000.0,
                       mrope_section: Sequence[int] | None = None) -> np.ndarray:
    """⟨R(t, row, col)·1, R(t, r, c)·1⟩ / d for every patch (r, c) of the query's frame, under M-RoPE; (H, W).

    q = k = (1, …, 1) rotated by :func:`apply_mrope` (``mrope_section`` default: :func:`scaled_mrope_section`);
    equals (2/d)·[s_t + Σ_{i∈h band} cos((r − row)·θ_i) + Σ_{i∈w band} cos((c − col)·θ_i)], θ_i = base^(−2i/d).
    The ids' common offset (the text before the image, the frame) cancels: it is left at 0.
    """
    section = scaled_mrope_section(d) if mrope_section is None else mrope_section
    rows, cols = _grid(height, width)
    row, col = _query(row, col, height, width)
    keys = apply_mrope(np.ones((height * width, d)), np.stack([np.zeros_like(rows), rows, cols]), base, section)
    query = apply_mrope(np.ones((1, d)), [[0], [row], [col]], base, section)[0]
    return (keys @ query / d).reshape(height, width)


def _grid(height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of every patch of a height × width grid, row-major; each (H·W,)."""
    height, width = (check_int(value, name, minimum=1, maximum=MAX_LENGTH, meaning=meaning)
                     for value, name, meaning in ((height, "height", "rows of patches"),
                                                  (width, "width", "columns of patches")))
    if height * width > MAX_LENGTH:
        raise ValueError(f"a grid of {height} × {width} patches holds more than {MAX_LENGTH:,}; use a smaller one.")
    rows, cols = np.divmod(np.arange(height * width), width)
    return rows, cols


def _query(row: int, col: int, height: int, width: int) -> tuple[int, int]:
    """The query patch (row, col), inside the grid."""
    return (check_int(row, "row", minimum=0, maximum=height - 1, meaning="the query patch's row"),
            check_int(col, "col", minimum=0, maximum=width - 1, meaning="the query patch's column"))
