"""Cached figures of the pages: scalars in, shared plotly figures out.

Each builder is cached as a shared object (posenc.ui.compute.shared_figure): a rerun with the same
settings reuses the figure instead of rebuilding it, which is most of a rerun's cost.
"""

from __future__ import annotations

import functools

import numpy as np
import streamlit as st

import posenc
import posenc.schemes.offsets
from posenc.analysis import offset_curves, table_cells
from posenc.figures import animations, charts, heatmaps
from posenc.schemes.scheme import Option
from posenc.schemes.sinusoidal import sinusoidal_cells
from posenc.ui.binding import bound_control
from posenc.ui.compute import offset_bias, offset_curve, rotation_check, shared_figure
from posenc.ui.sidebar import Controls

WINDOW = heatmaps.MAX_CELLS_PER_AXIS  # a window shows 256 consecutive positions (or dimensions) in full


def shown_index(size: int, start: int | None, group: int = 1) -> np.ndarray:
    """What a heatmap draws of 0 … size−1: thinned to at most 256 (``start`` None), or the window
    start … start+255 at full resolution (moved back inside the range if it would run past the end)."""
    if start is None:
        return heatmaps.thin_index(size, group=group)
    start = min(max(int(start), 0), max(size - WINDOW, 0))
    return np.arange(start, min(start + WINDOW, size))


def window_controls(c: Controls, *, columns: bool) -> tuple[int | None, int | None]:
    """The heatmaps' view, bound to the URL: ``view=whole`` (thinned to 256 × 256) or ``view=window``
    with ``window.pos`` = a (positions a … a+255) and, for a table, ``window.dim`` (256 dimensions)
    at full resolution. Returns (pos_start, dim_start), None where the whole axis is shown."""
    wide = columns and c.d_model > WINDOW
    if c.length <= WINDOW and not wide:
        return None, None  # nothing is thinned: every cell is shown
    view = bound_control(Option("view", "View", "whole", choices=VIEWS, help=VIEW_HELP), "view")
    if view != "window":
        return None, None
    left, right = st.columns(2)
    with left:
        pos = bound_control(Option("window.pos", "Window: first position a", 0, 0, max(c.length - WINDOW, 0),
                                   help="Positions a … a+255 at full resolution."), "window.pos")
    dim = None
    if wide:
        with right:
            dim = bound_control(Option("window.dim", "Window: first dimension", 0, 0, c.d_model - WINDOW,
                                       help="256 consecutive dimensions at full resolution."), "window.dim")
    return int(pos), None if dim is None else int(dim)


VIEWS = ("whole", "window")
VIEW_HELP = ("whole: the whole matrix, every s-th position (and dimension) so that at most 256 × 256 cells "
             "are drawn; columns too fast for that stride are marked. window: 256 consecutive positions "
             "(and dimensions) at full resolution, anywhere in the matrix.")


@functools.lru_cache(maxsize=256)
def has_missing_rows(scheme: str, length: int, d_model: int, base: float, options: tuple) -> bool:
    """Whether the last position has no encoding (a learned table ends before it). Kept for the settings (every
    run of Sinusoids and of the Encoding matrix asks; a cell took ~0.3 ms); an error is not kept."""
    return bool(np.isnan(table_cells.table_cells(scheme, length, d_model, base, [length - 1], [0], **dict(options))).any())


@functools.lru_cache(maxsize=256)
def periodic(scheme: str, d_model: int, base: float, options: tuple) -> bool:
    """Whether the scheme's table has columns with a period (the Sinusoids' Wavelengths view). Kept for the
    settings: every run of Sinusoids asks (~0.15 ms of a follower's run, py-spy)."""
    return table_cells.column_wavelengths(scheme, d_model, base, **dict(options)) is not None


@shared_figure
def table_heatmap(scheme: str, length: int, d_model: int, base: float, options: tuple,
                  pos_start: int | None = None, dim_start: int | None = None):
    """Heatmap of the (length, d_model) table at the cells shown (only those are computed).

    Thinned: every s-th position, interleaved (sin, cos) pairs kept together, and every column
    whose wavelength is under 2·s marked "aliased at this stride". A window (``pos_start``,
    ``dim_start``) shows 256 consecutive positions and dimensions at full resolution.
    """
    group = 2 if dict(options).get("layout", "interleaved") == "interleaved" else 1
    rows = shown_index(length, pos_start)
    cols = shown_index(d_model, dim_start, group)
    values = table_cells.table_cells(scheme, length, d_model, base, rows, cols, **dict(options))
    aliased = table_cells.aliased_columns(table_cells.column_wavelengths(scheme, d_model, base, **dict(options)),
                                    heatmaps.row_stride(rows))
    return heatmaps.cells_heatmap(values, rows, cols, (length, d_model), title="PE: positions × dimensions",
                                 x_label="dimension", y_label="position", col_group=group, aliased=aliased,
                                 zrange=posenc.get_scheme(scheme).value_range)


@shared_figure
def similarity_heatmap(scheme: str, length: int, d_model: int, base: float, options: tuple,
                       pos_start: int | None = None):
    """Heatmap of PE·PEᵀ at the positions shown (only their rows of the table are computed)."""
    rows = shown_index(length, pos_start)
    table_rows = table_cells.table_cells(scheme, length, d_model, base, rows, np.arange(d_model), **dict(options))
    return heatmaps.position_heatmap(posenc.similarity_matrix(table_rows), rows, length,
                                    title="PE·PEᵀ: similarity of two positions", x_label="position", y_label="position")


def toeplitz_heatmap(values: np.ndarray, rows: np.ndarray, length: int, *, title: str):
    """Heatmap of M[i, j] = values[j − i + L − 1] at the positions ``rows`` (a bias or score that
    depends only on the offset). Masked entries (−∞, a causal decoder's future keys) are drawn as gaps.
    """
    matrix = posenc.schemes.offsets.toeplitz_view(np.where(np.isneginf(values), np.nan, values), rows, rows)
    return heatmaps.position_heatmap(matrix, rows, length, title=title, x_label="key position j",
                                    y_label="query position i")


@shared_figure
def bias_heatmap(scheme: str, length: int, d_model: int, base: float, options: tuple, head: int,
                 pos_start: int | None = None):
    """The (length, length) logit bias of head h = 1 … H (h = 1: the steepest ALiBi slope), at the positions shown."""
    _, values = offset_bias(scheme, length, d_model, base, options)
    return toeplitz_heatmap(values[head - 1], shown_index(length, pos_start), length,
                            title=f"Attention-logit bias of head h = {head}")


@shared_figure
def score_heatmap(scheme: str, length: int, d_model: int, base: float, options: tuple,
                  pos_start: int | None = None, *, title: str):
    """The score of a rotary scheme (its offset curve: q·k / d_model for q = k = ones), at the (query, key) pairs
    shown, under ``title``: the score depends only on j − i, so it is computed at the offsets those pairs have,
    and nowhere else."""
    rows = shown_index(length, pos_start)
    needed = np.unique(rows[None, :] - rows[:, None])  # the offsets j − i of the cells shown
    values = np.full(2 * length - 1, np.nan)
    values[needed + length - 1] = score_at(scheme, length, d_model, base, options, needed)
    return toeplitz_heatmap(values, rows, length, title=title)


def score_at(scheme: str, length: int, d_model: int, base: float, options: tuple, offsets: np.ndarray) -> np.ndarray:
    """The scheme's score curve at ``offsets``: the cached offset curve (a closed form for RoPE and xPos,
    the scheme's ``offset_curve_fast``), read at those offsets."""
    all_offsets, values = offset_curve(scheme, length, d_model, base, options)
    return values[np.asarray(offsets) + length - 1]


@shared_figure
def rotation_vectors(d_model: int, base: float, spacing: str, pos: int, k: int):
    """(figure of PE[pos], M_k·PE[pos], PE[pos+k]; figure of their residual per dimension; max residual)."""
    dims = np.arange(d_model)
    start, target = sinusoidal_cells([pos, pos + k], dims, d_model, base, spacing=spacing)  # rows pos, pos+k
    predicted = posenc.apply_rotation(k, start[None, :], base, spacing=spacing)[0]
    vectors = charts.vectors_chart(dims, {f"PE[{pos}]": start, f"M_k·PE[{pos}]": predicted,
                                           f"PE[{pos + k}]": target},
                                    title=f"PE[{pos}] rotated by M_k (k = {k}) lands on PE[{pos + k}]")
    residual = np.abs(predicted - target)
    per_dimension = charts.line_chart(dims, {"|M_k·PE[pos] − PE[pos+k]|": np.maximum(residual, 1e-18)},
                                       title="Their residual, dimension by dimension (float64; exact zeros drawn at 1e−18)",
                                       x_label="dimension", y_label="residual", log_y=True, markers=True,
                                       height=300, x_window=63)
    return vectors, per_dimension, float(residual.max())


@shared_figure
def residual_figure(length: int, d_model: int, base: float, k: int, spacing: str):
    """The rotation residual at every position, float64 and float32, on a log axis."""
    checks = {name: rotation_check(length, d_model, base, k, spacing, name) for name in ("float64", "float32")}
    return charts.line_chart(
        checks["float64"].positions, {name: np.maximum(check.errors, 1e-18) for name, check in checks.items()},
        title="max over dimensions of |M_k·PE[p] − PE[p+k]|", x_label="position p", y_label="residual", log_y=True,
    )


@shared_figure
def phasor_figure(d_model: int, base: float, spacing: str, pos: int, k: int, pairs: tuple, per_row: int = 2):
    """Unit circles of the chosen (sin, cos) pairs at pos and pos+k, ``per_row`` a row."""
    idx = np.array(pairs)
    start, end = sinusoidal_cells([pos, pos + k], np.stack([2 * idx, 2 * idx + 1], axis=1).ravel(), d_model,
                                        base, spacing=spacing).reshape(2, len(idx), 2)  # (sin, cos) of each pair
    angles = k * posenc.frequencies(d_model, base, spacing=spacing)[idx]
    return charts.phasor_chart(list(pairs), start, end, angles, pos=pos, k=k, per_row=per_row)


@shared_figure
def dimension_curves(scheme: str, length: int, d_model: int, base: float, options: tuple, dims: tuple):
    """PE[:, d] against position for each chosen dimension d (titled a sinusoid only where the columns have a
    period: a learned table's are seeded draws, NoPE's zeros)."""
    columns = table_cells.table_cells(scheme, length, d_model, base, np.arange(length), list(dims), **dict(options))
    title = ("Each dimension is a sinusoid over positions" if periodic(scheme, d_model, base, options)
             else "Each dimension against position")
    return charts.line_chart(np.arange(length), {f"dim {d}": columns[:, n] for n, d in enumerate(dims)},
                              title=title, x_label="position",
                              y_label="PE[position, dim]", x_window=255)


@shared_figure
def position_vectors(scheme: str, length: int, d_model: int, base: float, options: tuple, positions: tuple):
    """PE[p, :] against dimension for each chosen position p."""
    rows = table_cells.table_cells(scheme, length, d_model, base, list(positions), np.arange(d_model), **dict(options))
    return charts.line_chart(np.arange(d_model), {f"pos {p}": rows[n] for n, p in enumerate(positions)},
                              title="Each position is a vector over dimensions", x_label="dimension",
                              y_label="PE[pos, dimension]", x_window=127)


@shared_figure
def wavelength_figure(d_model: int, base: float, spacing: str, length: int):
    """(the wavelength of every pair on a log axis with the length marked, the longest wavelength)."""
    waves = posenc.wavelengths(d_model, base, spacing=spacing)
    pairs = np.arange(len(waves))
    label = f"length = {length}"
    figure = charts.line_chart(pairs, {"wavelength 2π/θᵢ": waves, label: np.full(len(waves), length)},
                                title="Wavelength of every (sin, cos) pair", x_label="pair i",
                                y_label="wavelength (positions)", log_y=True, markers=len(waves) <= 64, dashed=(label,))
    return figure, float(waves[-1])


@shared_figure
def comparison_figure(selected: str, length: int, d_model: int, base: float, options: tuple, columns: int = 2):
    """Every scheme's offset curve in ``columns`` columns; the selected scheme with the sidebar's options."""
    panels = {}
    for key, scheme in posenc.SCHEMES.items():
        chosen = options if key == selected else tuple(scheme.defaults().items())
        offsets, values = offset_curves.offset_curve(key, length, d_model, base, **dict(chosen))
        label = scheme.curve_label if len(scheme.curve_label) < 40 else "value"
        panels[scheme.label] = (offsets, values, label)
    return charts.curve_grid(panels, x_label="offset j − i", columns=columns)


@shared_figure
def rope_phasor_figure(d_model: int, base: float, options: tuple, m: int, n: int, pairs: tuple, per_row: int = 2):
    """Pair i of a unit vector rotated by apply_rope to position m and to position n, ``per_row`` pairs a row."""
    from posenc.schemes.rope.entry import rope_keywords
    from posenc.schemes.rope.frequencies import rope_inv_freq

    keywords = rope_keywords(dict(options))
    inv_freq, _ = rope_inv_freq(d_model, base, seq_len=max(m, n) + 1,
                                **{k: v for k, v in keywords.items() if k != "layout"})
    d_rot = 2 * len(inv_freq)  # p-RoPE ("proportional"): every pair of the head, some with θ = 0
    idx = np.array(pairs)
    first = 2 * idx if keywords.get("layout", "interleaved") == "interleaved" else idx
    second = first + 1 if keywords.get("layout", "interleaved") == "interleaved" else idx + d_rot // 2
    units = np.zeros((len(idx), 1, d_model))
    units[np.arange(len(idx)), 0, first] = 1.0  # one unit vector per pair, along the pair's first axis
    ends = []
    for position in (m, n):
        rotated = posenc.apply_rope(units, np.array([position]), base, seq_len=max(m, n) + 1, **keywords)[:, 0]
        ends.append(np.stack([rotated[np.arange(len(idx)), second], rotated[np.arange(len(idx)), first]], axis=1))
    return charts.phasor_chart(list(pairs), ends[0], ends[1], (n - m) * inv_freq[idx], pos=m, k=n - m,
                                title=f"Pairs of a unit vector rotated to position m={m} and to n={n}", per_row=per_row)


@shared_figure
def patch_grid_figures(d_model: int, base: float, height: int, width: int, frames: int, row: int, col: int,
                       text_tokens: int = 3):
    """(figure of the (t, h, w) ids of "text, image, text"; {name: (score figure, max shift difference) or None}).

    Per scheme (2-D RoPE, Qwen2-VL's vision encoder; M-RoPE, its language model, sections scaled from
    16/24/24): q·k / d of q = k = ones for the query patch (row, col) and for it moved by one patch, with the
    largest |difference| between the two pictures once the second is moved back (None for a 1 × 1 grid).
    2-D RoPE is None when d_model is not a multiple of 4.
    """
    from posenc.figures import patches
    from posenc.schemes.rope import multimodal

    ids = multimodal.mrope_position_ids(text_tokens, height, width, text_tokens, frames)
    image = f"{'image' if frames == 1 else f'video of {frames} frames'}: {frames * height * width} patches"
    ids_figure = patches.position_ids_figure(
        ids, [("text", text_tokens), (image, frames * height * width), ("text", text_tokens)],
        title=f"(t, h, w) ids of {ids.shape[1]} tokens: text, {frames} × {height} × {width} patches, text")
    moved = (row + 1 if row + 1 < height else max(row - 1, 0), col + 1 if col + 1 < width else max(col - 1, 0))
    dr, dc = moved[0] - row, moved[1] - col
    results = {}
    for name, scores_of in (("2-D RoPE (vision encoder)", multimodal.rope_2d_patch_scores),
                            ("M-RoPE (language model)", multimodal.mrope_patch_scores)):
        if name.startswith("2-D") and d_model % 4:
            results[name] = None
            continue
        first = scores_of(height, width, row, col, d_model, base)  # (H, W)
        second = scores_of(height, width, *moved, d_model, base)
        overlap_first = first[max(-dr, 0):height - max(dr, 0), max(-dc, 0):width - max(dc, 0)]
        overlap_second = second[max(dr, 0):height - max(-dr, 0), max(dc, 0):width - max(-dc, 0)]
        difference = float(np.abs(overlap_second - overlap_first).max()) if (dr, dc) != (0, 0) else None
        panels = {f"query patch ({row}, {col})": (first, (row, col))}
        if difference is not None:
            panels[f"query moved by ({dr:+d}, {dc:+d}) to ({moved[0]}, {moved[1]})"] = (second, moved)
        figure = patches.patch_scores_figure(panels, value_label="q·k / d",
                                             title=f"{name}: q·k / d_model, q = k = ones")
        results[name] = (figure, difference)
    return ids_figure, results


# -- animations: every frame built here once, played in the browser (posenc.figures.animations) --------------

@shared_figure
def clock_figure(d_model: int, base: float, spacing: str, length: int, per_row: int = 2):
    """The sinusoidal encoding's pairs as clocks: hand i at (PE[p, 2i+1], PE[p, 2i]) = (cos pθᵢ, sin pθᵢ), the
    table's own cells, for positions 0 … min(length, MAX_CLOCK_FRAMES) − 1."""
    pairs = animations.clock_pairs(d_model // 2)
    positions = np.arange(min(length, animations.MAX_CLOCK_FRAMES))
    values = sinusoidal_cells(positions, np.stack([2 * pairs, 2 * pairs + 1], axis=1).ravel(), d_model, base,
                                    spacing=spacing)  # (positions, 2·pairs): sin, cos of each pair
    thetas = posenc.frequencies(d_model, base, spacing=spacing)[pairs]
    return animations.clock_animation(positions, pairs, values[:, 1::2], values[:, 0::2], thetas,
                                      title=f"Each pair i turns by θᵢ per position (d_model = {d_model})", per_row=per_row)


def _rope_pair_axes(keywords: dict, pairs: np.ndarray, pair_count: int) -> tuple[np.ndarray, np.ndarray]:
    """The two dimensions of each pair: (2i, 2i+1) interleaved, (i, i + d_rot/2) in the half layout."""
    if keywords.get("layout", "interleaved") == "interleaved":
        return 2 * pairs, 2 * pairs + 1
    return pairs, pairs + pair_count


@shared_figure
def rope_clock_figure(d_model: int, base: float, options: tuple, length: int, per_row: int = 2):
    """RoPE's pairs as clocks: a unit vector along each pair's first axis, rotated by apply_rope to
    positions 0 … min(length, MAX_CLOCK_FRAMES) − 1 (frequencies of seq_len = length), divided by the
    scaling's attention factor (YaRN's s) so the hand shows the angle p·θ'ᵢ on the unit circle."""
    from posenc.schemes.rope.entry import rope_keywords

    keywords = rope_keywords(dict(options)) | {"seq_len": length}
    inv_freq, scale = posenc.rope_inv_freq(d_model, base, **{k: v for k, v in keywords.items() if k != "layout"})
    pairs = animations.clock_pairs(len(inv_freq))
    first, second = _rope_pair_axes(keywords, pairs, len(inv_freq))
    positions = np.arange(min(length, animations.MAX_CLOCK_FRAMES))
    units = np.zeros((len(pairs), 1, d_model))
    units[np.arange(len(pairs)), 0, first] = 1.0
    rotated = posenc.apply_rope(np.broadcast_to(units, (len(pairs), len(positions), d_model)), positions, base,
                                **keywords) / scale  # (pairs, positions, d_model)
    cosines = rotated[np.arange(len(pairs)), :, first].T  # (positions, pairs)
    sines = rotated[np.arange(len(pairs)), :, second].T
    return animations.clock_animation(positions, pairs, cosines, sines, inv_freq[pairs],
                                      title=f"Each rotated pair i turns by θ'ᵢ per position (d_model = {d_model})",
                                      per_row=per_row)


@shared_figure
def rotation_sweep_figure(d_model: int, base: float, spacing: str, pos: int, length: int):
    """M_k·PE[pos] (apply_rotation) against PE[pos+k] (the table's cells) for k = 0 … K, K + 1 ≤
    MAX_SWEEP_FRAMES and pos + K < length; at most MAX_SWEEP_DIMENSIONS dimensions drawn, whole pairs."""
    offsets = np.arange(min(length - pos, animations.MAX_SWEEP_FRAMES))
    every = np.arange(d_model)
    start = sinusoidal_cells([pos], every, d_model, base, spacing=spacing)  # (1, d_model)
    rotated = np.concatenate([posenc.apply_rotation(int(k), start, base, spacing=spacing) for k in offsets])
    targets = sinusoidal_cells(pos + offsets, every, d_model, base, spacing=spacing)  # (offsets, d_model)
    dims = heatmaps.thin_index(d_model, animations.MAX_SWEEP_DIMENSIONS, group=2)
    note = heatmaps.stride_note(dims, d_model, "dimension", group=2)
    return animations.rotation_animation(dims, start[0, dims], offsets, rotated[:, dims], targets[:, dims], pos=pos,
                                         dimension_note=note)


@shared_figure
def rope_relative_figures(d_model: int, base: float, options: tuple, length: int, m: int, n: int):
    """{"together": (figure, scores), "apart": (figure, scores)}: a fixed random query and key (seed 0, as the
    rotation check's) at m + s and n + s (together) or at m and n + s (apart), s = 0 … while inside the length,
    at most MAX_SWEEP_FRAMES frames; the scores by posenc.rope_scores, one seq_len = length for every frame."""
    from posenc.schemes.rope.entry import rope_keywords

    keywords = rope_keywords(dict(options)) | {"seq_len": length}
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=d_model), rng.normal(size=d_model)
    shifts = np.arange(min(length - max(m, n), animations.MAX_SWEEP_FRAMES))
    moves = {"together": (m + shifts, n + shifts), "apart": (np.full(len(shifts), m), n + shifts)}
    scores = {name: np.diagonal(posenc.rope_scores(q, k, queries, keys, base, **keywords)).copy()
              for name, (queries, keys) in moves.items()}
    every = np.concatenate(list(scores.values()))
    pad = 0.08 * max(float(np.ptp(every)), 1e-9)
    score_range = (float(every.min()) - pad, float(every.max()) + pad)
    titles = {"together": "Query and key move together: the offset stays, the score stays",
              "apart": "The key moves away: the offset grows, the score changes"}
    figures = {}
    for name, (queries, keys) in moves.items():
        scores[name].setflags(write=False)
        figures[name] = (animations.shift_animation(queries, keys, scores[name], length=length, title=titles[name],
                                                    score_range=score_range), scores[name])
    return figures
