"""A table's cells, computed only where a chart shows them.

A heatmap a few hundred pixels wide shows at most 256 × 256 cells of a table that can be
4096 × 1024 (32 MiB in float64). The functions here compute exactly those cells, with the
same arithmetic as the full table, so a chart holds the table's own values
(``table_cells(...) == scheme.table(...)[np.ix_(rows, cols)]``, bit for bit for the
sinusoidal and learned tables); and the period of each column, which says which columns a
thinned chart cannot draw faithfully. Offset curves are :mod:`posenc.analysis.offset_curves`'.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from posenc.checks import check_base, check_d_model, check_int, check_length, check_max_relative_position, check_seed
from posenc.schemes.absolute import DEFAULT_STD, DEFAULT_TABLE_SIZE
from posenc.schemes.registry import get_scheme
from posenc.schemes.sinusoidal import PHASE_BLOCK, frequencies

_ROW_CHUNK = 256  # rows of the learned table drawn at a time (bounded memory at 4096 × 1024)


def _indices(values: object, size: int | None, name: str) -> np.ndarray:
    """Whole numbers ≥ 0 (and < ``size`` when given) as an int64 array, or a ValueError."""
    array = np.asarray(values)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise ValueError(f"{name} must be a list of whole numbers; got {values!r}.")
    array = array.astype(np.int64)
    if array.size and (array.min() < 0 or (size is not None and array.max() >= size)):
        bound = f" and below {size}" if size is not None else ""
        raise ValueError(f"{name} must be at least 0{bound}; got {array.min()} … {array.max()}.")
    return array


def _pair_of_columns(dims: np.ndarray, d_model: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """(pair i, is cosine) of each column: interleaved 2i → sin θ_i, 2i+1 → cos θ_i; split i → sin, d/2+i → cos."""
    if layout == "split":
        if d_model % 2:
            raise ValueError(f"The split layout needs an even d_model; got {d_model}.")
        half = d_model // 2
        return dims % half, dims >= half
    if layout != "interleaved":
        raise ValueError(f"layout must be 'interleaved' or 'split'; got {layout!r}.")
    return dims // 2, dims % 2 == 1


def sinusoidal_cells(positions: object, dims: object, d_model: int, base: float = 10000.0, *,
                     layout: str = "interleaved", spacing: str = "vaswani") -> np.ndarray:
    """PE[positions][:, dims] of :func:`posenc.sinusoidal` (arXiv:1706.03762) without the full table.

        PE[p, 2i] = sin(p·θ_i),  PE[p, 2i+1] = cos(p·θ_i)   (split: PE[p, i], PE[p, d/2+i])

    With the table's own arithmetic: p = a + b (a a multiple of the block, b below it) and
    sin(pθ) = sin(aθ)cos(bθ) + cos(aθ)sin(bθ), cos(pθ) = cos(aθ)cos(bθ) − sin(aθ)sin(bθ)
    in float64, so every cell equals the table's bit for bit. Shape (len(positions), len(dims)).
    """
    d_model = check_d_model(d_model)
    positions, dims = _indices(positions, None, "positions"), _indices(dims, d_model, "dims")
    pair, is_cos = _pair_of_columns(dims, d_model, layout)
    theta = frequencies(d_model, check_base(base), spacing=spacing)[pair]  # (c,)
    starts, a = np.unique(positions // PHASE_BLOCK * PHASE_BLOCK, return_inverse=True)  # each distinct a and b once:
    offsets, b = np.unique(positions % PHASE_BLOCK, return_inverse=True)  # few of them for nearby positions
    phase_a, phase_b = starts.astype(np.float64)[:, None] * theta, offsets.astype(np.float64)[:, None] * theta
    sin_a, cos_a, sin_b, cos_b = np.sin(phase_a)[a], np.cos(phase_a)[a], np.sin(phase_b)[b], np.cos(phase_b)[b]
    return np.where(is_cos, cos_a * cos_b - sin_a * sin_b, sin_a * cos_b + cos_a * sin_b)


def learned_cells(positions: object, dims: object, d_model: int, *, table_size: int = DEFAULT_TABLE_SIZE,
                  seed: int = 0, std: float = DEFAULT_STD) -> np.ndarray:
    """W[positions][:, dims] of :func:`posenc.learned_absolute` (NaN past the table), drawn in chunks.

    The rows come from the same generator stream, row after row, so they equal the full
    table's; only the rows up to the last one asked for are drawn, ``_ROW_CHUNK`` at a time.
    """
    d_model = check_d_model(d_model)
    table_size = check_int(table_size, "table_size", minimum=1, meaning="the number of learned positions")
    positions, dims = _indices(positions, None, "positions"), _indices(dims, d_model, "dims")
    out = np.full((len(positions), len(dims)), np.nan)
    inside = positions < table_size
    needed = int(positions[inside].max()) + 1 if inside.any() else 0
    rng = np.random.default_rng(check_seed(seed))
    for start in range(0, needed, _ROW_CHUNK):
        rows = rng.normal(0.0, std, size=(min(_ROW_CHUNK, needed - start), d_model))
        hit = inside & (positions >= start) & (positions < start + len(rows))
        out[hit] = rows[positions[hit] - start][:, dims]
    return out


def _sinusoidal_table_cells(length, d_model, base, rows, cols, **options):
    return sinusoidal_cells(rows, cols, d_model, base, **options)


def _learned_table_cells(length, d_model, base, rows, cols, **options):
    return learned_cells(rows, cols, d_model, **options)


def _nope_cells(length, d_model, base, rows, cols):
    return np.zeros((len(rows), len(cols)))


def _built(key: str) -> Callable[..., np.ndarray]:
    """The cells cut from the scheme's full table (a scheme without a table is refused before)."""
    def cells(length, d_model, base, rows, cols, **options):
        return np.asarray(get_scheme(key).table(length, d_model, base, **options), dtype=np.float64)[np.ix_(rows, cols)]
    return cells


TABLE_CELLS: dict[str, Callable[..., np.ndarray]] = {
    "sinusoidal": _sinusoidal_table_cells,
    "learned": _learned_table_cells,
    "nope": _nope_cells,
    "rope": _built("rope"),
    "xpos": _built("xpos"),
    "shaw": _built("shaw"),
    "t5": _built("t5"),
    "alibi": _built("alibi"),
    "kerple": _built("kerple"),
    "transformer_xl": _built("transformer_xl"),
}
"""How to compute a table's cells, by registry key: fn(length, d_model, base, rows, cols, **options) ->
(len(rows), len(cols)) float64, equal to scheme.table(...)[np.ix_(rows, cols)], with rows and cols already
checked. Cell by cell where a route exists (sinusoidal, learned, NoPE); otherwise cut from the full table
(:func:`_built`; a scheme without a table never reaches it). A new scheme adds its key here."""


def table_cells(scheme: str, length: int, d_model: int, base: float, rows: object, cols: object,
                **options: object) -> np.ndarray:
    """scheme.table(length, d_model, base, **options)[np.ix_(rows, cols)], computing only those cells
    (by the route :data:`TABLE_CELLS` names). Schemes without a cell-wise route build their table."""
    entry = get_scheme(scheme)
    if entry.table is None:
        raise ValueError(f"{entry.label} has no table of encodings (it is not an absolute scheme).")
    length = check_length(length)
    rows, cols = _indices(rows, length, "rows"), _indices(cols, check_d_model(d_model), "columns")
    return TABLE_CELLS[scheme](length, d_model, base, rows, cols, **options)


def shaw_clip_cells(length: int, max_relative_position: int, rows: object, cols: object) -> np.ndarray:
    """shaw_relative_positions(length, k)[np.ix_(rows, cols)] without the (length, length) matrix:

        R[i, j] = clip(j − i, −k, k)   (Shaw et al. 2018, arXiv:1803.02155, eq. 6)

    for the query positions ``rows`` and key positions ``cols`` only (int64, (len(rows), len(cols))).
    """
    length = check_length(length)
    k = check_max_relative_position(max_relative_position)
    rows, cols = _indices(rows, length, "rows"), _indices(cols, length, "columns")
    return np.clip(cols[None, :] - rows[:, None], -k, k)


def _sinusoidal_wavelengths(d_model: int, base: float, **options: object) -> np.ndarray:
    """2π/θ_i of the pair i of every column (interleaved 2i, 2i+1 → i; split i, d/2 + i → i)."""
    d_model = check_d_model(d_model)
    chosen = get_scheme("sinusoidal").defaults() | options
    pair, _ = _pair_of_columns(np.arange(d_model), d_model, str(chosen["layout"]))
    return 2.0 * np.pi / frequencies(d_model, base, spacing=str(chosen["spacing"]))[pair]


def _no_period(d_model: int, base: float, **options: object) -> None:
    return None


COLUMN_WAVELENGTHS: dict[str, Callable[..., np.ndarray | None]] = {
    "sinusoidal": _sinusoidal_wavelengths,
    "learned": _no_period,
    "nope": _no_period,
    "rope": _no_period,
    "xpos": _no_period,
    "shaw": _no_period,
    "t5": _no_period,
    "alibi": _no_period,
    "kerple": _no_period,
    "transformer_xl": _no_period,
}
"""The period of each column of a scheme's table, by registry key: fn(d_model, base, **options) ->
(d_model,) wavelengths in positions, or None when the columns have no period (:func:`_no_period`).
A new scheme adds its key here."""


def column_wavelengths(scheme: str, d_model: int, base: float, **options: object) -> np.ndarray | None:
    """The wavelength 2π/θ of every column of the scheme's table (in positions), or None (no period)."""
    get_scheme(scheme)
    return COLUMN_WAVELENGTHS[scheme](d_model, base, **options)


def aliased_columns(wavelengths: np.ndarray | None, stride: int) -> np.ndarray:
    """Columns whose wavelength is shorter than two strides: sampled every ``stride`` positions
    they cannot be drawn faithfully (Nyquist: at least two samples per period)."""
    if wavelengths is None or stride <= 1:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.asarray(wavelengths) < 2 * stride)
