"""A table's cells, computed only where a chart shows them.

A heatmap a few hundred pixels wide shows at most 256 × 256 cells of a table that can be
4096 × 1024 (32 MiB in float64). :func:`table_cells` computes exactly those cells by the scheme's
own ``cells`` (:func:`posenc.schemes.sinusoidal.sinusoidal_cells`,
:func:`posenc.schemes.absolute.learned_cells`: the table's arithmetic, bit for bit), so a chart holds
the table's own values; :func:`column_wavelengths` gives the period of each column, which says which
columns a thinned chart cannot draw faithfully. Offset curves are :mod:`posenc.analysis.offset_curves`'.
"""

from __future__ import annotations

import numpy as np

from posenc.checks import check_d_model, check_indices, check_length, check_max_relative_position
from posenc.schemes.registry import get_scheme
from posenc.schemes.scheme import Setting


def table_cells(scheme: str, length: int, d_model: int, base: float, rows: object, cols: object,
                **options: object) -> np.ndarray:
    """scheme.table(length, d_model, base, **options)[np.ix_(rows, cols)], computing only those cells
    (the scheme's ``cells``: cell by cell where it has a route, otherwise cut from the built table)."""
    entry = get_scheme(scheme)
    if entry.table is None:
        raise ValueError(f"{entry.label} has no table of encodings (it is not an absolute scheme).")
    length = check_length(length)
    rows, cols = check_indices(rows, length, "rows"), check_indices(cols, check_d_model(d_model), "columns")
    return entry.cells(Setting(length, d_model, base, options), rows, cols)


def shaw_clip_cells(length: int, max_relative_position: int, rows: object, cols: object) -> np.ndarray:
    """shaw_relative_positions(length, k)[np.ix_(rows, cols)] without the (length, length) matrix:

        R[i, j] = clip(j − i, −k, k)   (Shaw et al. 2018, arXiv:1803.02155, eq. 6)

    for the query positions ``rows`` and key positions ``cols`` only (int64, (len(rows), len(cols))).
    """
    length = check_length(length)
    k = check_max_relative_position(max_relative_position)
    rows, cols = check_indices(rows, length, "rows"), check_indices(cols, length, "columns")
    return np.clip(cols[None, :] - rows[:, None], -k, k)


def column_wavelengths(scheme: str, d_model: int, base: float, **options: object) -> np.ndarray | None:
    """The wavelength 2π/θ of every column of the scheme's table (in positions), or None (no period): the
    scheme's ``column_wavelengths`` (the length plays no part)."""
    return get_scheme(scheme).column_wavelengths(Setting(0, d_model, base, options))


def aliased_columns(wavelengths: np.ndarray | None, stride: int) -> np.ndarray:
    """Columns whose wavelength is shorter than two strides: sampled every ``stride`` positions
    they cannot be drawn faithfully (Nyquist: at least two samples per period)."""
    if wavelengths is None or stride <= 1:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.asarray(wavelengths) < 2 * stride)
