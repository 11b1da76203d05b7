"""One scheme, one entry (issue 29): each table of posenc.analysis has every registry key, and nothing else."""

import pytest

import posenc
from posenc.analysis import offset_curves, properties, table_cells

TABLES = {
    "offset_curves.OFFSET_CURVES": offset_curves.OFFSET_CURVES,
    "table_cells.TABLE_CELLS": table_cells.TABLE_CELLS,
    "table_cells.COLUMN_WAVELENGTHS": table_cells.COLUMN_WAVELENGTHS,
    "properties.ENCODINGS": properties.ENCODINGS,
    "properties.MEASURED_ON": properties.MEASURED_ON,
}


@pytest.mark.parametrize("name", TABLES)
def test_every_scheme_has_one_entry(name):
    assert set(TABLES[name]) == set(posenc.SCHEMES), name


@pytest.mark.parametrize("name", [n for n in TABLES if n != "properties.MEASURED_ON"])
def test_the_entries_are_callable(name):
    assert all(callable(entry) for entry in TABLES[name].values())


def test_an_unknown_scheme_is_named():
    with pytest.raises(ValueError, match="Unknown scheme 'nothing'"):
        offset_curves.offset_curve("nothing", 8, 8, 1e4)
    with pytest.raises(ValueError, match="Unknown scheme"):
        table_cells.column_wavelengths("nothing", 8, 1e4)


def test_column_periods_are_the_sinusoidal_table_s_alone():
    periodic = [key for key in posenc.SCHEMES if table_cells.column_wavelengths(key, 16, 1e4) is not None]
    assert periodic == ["sinusoidal"]
