"""Absolute encodings that are not sinusoids: a learned table, and no encoding at all.

Learned absolute positions (BERT, Devlin et al. 2018, arXiv:1810.04805; GPT-2, Radford
et al. 2019) are one trainable row per position, added to the token embedding:

    x_p ← x_p + W[p],   W ∈ R^(table_size × d_model),   W[p, d] ~ N(0, std²) at initialisation.

Here the table is its initialisation (GPT-2 and BERT both draw N(0, 0.02²)); a position
p ≥ table_size has no row, so no encoding exists for it (NaN, never an invented value).

NoPE (Kazemnejad et al. 2023, arXiv:2305.19466) adds nothing: PE[p] = 0. A causal
decoder can still infer positions from its mask.
"""

from __future__ import annotations

import numpy as np

from posenc.checks import (
    check_d_model,
    check_indices,
    check_int,
    check_length,
    check_seed,
    check_size,
    check_std,
    check_table_size,
)
from posenc.schemes.offsets import all_offsets, offset_similarity
from posenc.schemes.scheme import Option, Scheme, Setting

DEFAULT_TABLE_SIZE = 512
"""Rows of the learned table by default: BERT's 512 (GPT-2 has 1024), small enough
that the app's length slider can reach past it and show where the table ends."""
DEFAULT_STD = 0.02
"""The standard deviation of the initial table in BERT and GPT-2."""
_ROW_CHUNK = 256  # rows of the learned table drawn at a time by learned_cells (bounded memory at 4096 × 1024)


def learned_absolute(
    length: int,
    d_model: int,
    *,
    table_size: int = DEFAULT_TABLE_SIZE,
    seed: int = 0,
    std: float = DEFAULT_STD,
) -> np.ndarray:
    """The (length, d_model) learned absolute encoding at initialisation, float64.

        PE[p] = W[p]        for p < table_size,   W[p, d] ~ N(0, std²),
        PE[p] = NaN         for p ≥ table_size    (the table has no row: no encoding exists).

    BERT (Devlin et al. 2018, arXiv:1810.04805) uses table_size 512, GPT-2 1024; both
    draw std = 0.02. W is drawn row after row from ``np.random.default_rng(seed)``, so a
    seed gives the same rows whatever ``length`` is: PE for length 10 is the first 10
    rows of PE for length 500 (prefix stability).
    """
    length = check_length(length)
    d_model = check_d_model(d_model)
    table_size = check_table_size(table_size)
    seed = check_seed(seed)
    std = check_std(std)
    check_size((length, d_model), "the learned table")
    rows = min(length, table_size)
    table = np.full((length, d_model), np.nan)
    # Generator.normal fills in C order, so drawing `rows` rows yields the prefix of the full table.
    table[:rows] = np.random.default_rng(seed).normal(0.0, std, size=(rows, d_model))
    return table


def nope(length: int, d_model: int) -> np.ndarray:
    """No positional encoding (NoPE, Kazemnejad et al. 2023, arXiv:2305.19466): PE[p] = 0.

    Returns zeros of shape (length, d_model): adding it changes nothing.
    """
    shape = (check_length(length), check_d_model(d_model))
    check_size(shape, "the NoPE table")
    return np.zeros(shape)


# --- registry entries: fn(length, d_model, base, **options); base is unused here ---


def _learned_table(length: int, d_model: int, base: float, **options) -> np.ndarray:
    return learned_absolute(length, d_model, **options)


def _learned_curve(length: int, d_model: int, base: float, **options) -> tuple[np.ndarray, np.ndarray]:
    return offset_similarity(learned_absolute(length, d_model, **options))


def _learned_formula(d_model: int, base: float, *, table_size: int = DEFAULT_TABLE_SIZE, seed: int = 0) -> str:
    d_model, table_size, seed = check_d_model(d_model), check_table_size(table_size), check_seed(seed)
    return (
        r"\mathrm{PE}_p = \begin{cases} W_{p} & p < " + str(table_size) + r" \\"
        r" \text{none (no row)} & p \ge " + str(table_size) + r" \end{cases}"
        r",\qquad W \in \mathbb{R}^{" + f"{table_size} \\times {d_model}" + r"},\;"
        r" W_{p,d} \sim \mathcal{N}(0,\, 0.02^2)\ \text{(seed " + str(seed) + ")}"
    )


def _nope_table(length: int, d_model: int, base: float) -> np.ndarray:
    return nope(length, d_model)


def _nope_curve(length: int, d_model: int, base: float) -> tuple[np.ndarray, np.ndarray]:
    length = check_length(length)
    offsets = np.arange(-(length - 1), length)
    check_d_model(d_model)
    return offsets, np.zeros(len(offsets))


def _nope_formula(d_model: int, base: float) -> str:
    d_model = check_d_model(d_model)
    return r"\mathrm{PE}_p = \mathbf{0} \in \mathbb{R}^{" + str(d_model) + r"}\quad\text{(nothing is added)}"


def learned_cells(positions: object, dims: object, d_model: int, *, table_size: int = DEFAULT_TABLE_SIZE,
                  seed: int = 0, std: float = DEFAULT_STD) -> np.ndarray:
    """W[positions][:, dims] of :func:`posenc.learned_absolute` (NaN past the table), drawn in chunks.

    The rows come from the same generator stream, row after row, so they equal the full
    table's; only the rows up to the last one asked for are drawn, ``_ROW_CHUNK`` at a time.
    """
    d_model = check_d_model(d_model)
    table_size = check_int(table_size, "table_size", minimum=1, meaning="the number of learned positions")
    positions, dims = check_indices(positions, None, "positions"), check_indices(dims, d_model, "dims")
    out = np.full((len(positions), len(dims)), np.nan)
    inside = positions < table_size
    needed = int(positions[inside].max()) + 1 if inside.any() else 0
    rng = np.random.default_rng(check_seed(seed))
    for start in range(0, needed, _ROW_CHUNK):
        rows = rng.normal(0.0, std, size=(min(_ROW_CHUNK, needed - start), d_model))
        hit = inside & (positions >= start) & (positions < start + len(rows))
        out[hit] = rows[positions[hit] - start][:, dims]
    return out


def _learned_cells(setting: Setting, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    return learned_cells(rows, cols, setting.d_model, **setting.options)


def _nope_cells(setting: Setting, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    return np.zeros((len(rows), len(cols)))


def learned_similarity(length: int, d_model: int, base: float = 10000.0, **options: object,
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The learned table's mean PE[i]·PE[i+Δ] over defined rows: only the rows the table has
    (NaN for offsets no pair of them reaches), instead of the full length, 64 columns at a time."""
    length = check_length(length)
    rows = min(length, int(options.get("table_size", DEFAULT_TABLE_SIZE)))
    table = _learned_table(rows, d_model, base, **options)
    # the sums over dimensions add up block by block, and the counts of defined pairs are the same
    # in every block: the mean over all columns is the sum of the blocks' means (FFT memory bounded)
    inside = sum(offset_similarity(table[:, start:start + 64])[1] for start in range(0, table.shape[1], 64))
    values = np.full(2 * length - 1, np.nan) if length else np.zeros(0)
    values[length - rows: length + rows - 1] = inside
    return all_offsets(length), values


def _learned_similarity_every_offset(setting: Setting) -> tuple[np.ndarray, np.ndarray]:
    return learned_similarity(setting.length, setting.d_model, setting.base, **setting.options)


def _learned_at(setting: Setting, offsets: np.ndarray) -> np.ndarray:
    """The rows the table has (at most table_size ≤ 4096, by the registry's own route); NaN past them."""
    table_size = check_int(setting.options["table_size"], "table_size", minimum=1,
                           meaning="the number of learned positions")
    rows = min(setting.length, table_size)
    _, values = learned_similarity(rows, setting.d_model, setting.base, table_size=table_size,
                                   seed=setting.options["seed"])  # offsets −(rows − 1) … rows − 1
    result = np.full(len(offsets), np.nan)
    hit = np.abs(offsets) < rows
    result[hit] = values[offsets[hit] + rows - 1]
    return result


def _nope_at(setting: Setting, offsets: np.ndarray) -> np.ndarray:
    check_d_model(setting.d_model)
    return np.zeros(len(offsets))


SCHEMES: tuple[Scheme, ...] = (
    Scheme(
        key="learned",
        label="Learned absolute (BERT / GPT-2)",
        short_label="Learned",
        family="absolute",
        paper="Devlin et al. 2018, arXiv:1810.04805",
        formula=_learned_formula,
        offset_curve=_learned_curve,
        curve_label="mean PE[i]·PE[i+Δ] over valid i (untrained table)",
        table=_learned_table,
        cells=_learned_cells,
        offset_curve_fast=_learned_similarity_every_offset,
        offset_curve_at=_learned_at,
        options=(
            Option(
                "table_size", "Table size (learned positions)", DEFAULT_TABLE_SIZE, 1, 4096,
                help="Rows of the table: 512 in BERT, 1024 in GPT-2. Positions past it have no encoding.",
            ),
            Option("seed", "Random seed", 0, 0, 9999, help="Seed of the N(0, 0.02²) initial table."),
        ),
    ),
    Scheme(
        key="nope",
        label="NoPE (no positional encoding)",
        short_label="NoPE",
        family="absolute",
        paper="Kazemnejad et al. 2023, arXiv:2305.19466",
        formula=_nope_formula,
        offset_curve=_nope_curve,
        curve_label="PE[i]·PE[i+Δ] (always 0)",
        table=_nope_table,
        cells=_nope_cells,
        offset_curve_at=_nope_at,
    ),
)
