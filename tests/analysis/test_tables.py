"""One scheme, one record (issues 29, 36): what the analysis reads of a scheme is on its registry entry,
filled in by family where the entry leaves it out, and an entry without its curve at chosen offsets is refused."""

import numpy as np
import pytest

import posenc
from posenc.analysis import offset_curves, table_cells
from posenc.schemes.scheme import Scheme, Setting


@pytest.mark.parametrize("key", posenc.SCHEMES)
def test_every_scheme_has_its_analysis_facts(key):
    scheme = posenc.SCHEMES[key]
    assert callable(scheme.offset_curve_at) and callable(scheme.offset_curve_fast)
    assert callable(scheme.encoding) and callable(scheme.column_wavelengths)
    assert isinstance(scheme.measured_on, str) and scheme.measured_on
    assert (scheme.cells is not None) == (scheme.family == "absolute"), "cells: absolute schemes alone"


def test_a_family_default_is_filled_in_and_an_entry_overrides_it():
    assert posenc.SCHEMES["rope"].measured_on == "R_p·(1, …, 1): the all-ones vector rotated to p"
    assert posenc.SCHEMES["xpos"].measured_on.startswith("ζ^(p̂/γ)")
    setting = Setting(6, 4, 1e4, posenc.SCHEMES["rope"].defaults())
    np.testing.assert_array_equal(posenc.SCHEMES["rope"].encoding(setting, np.arange(6)),
                                  posenc.apply_rope(np.ones((6, 4)), np.arange(6), 1e4, seq_len=6))
    with pytest.raises(ValueError, match="adds no vector per position"):
        posenc.SCHEMES["alibi"].encoding(Setting(6, 4, 1e4, posenc.SCHEMES["alibi"].defaults()), np.arange(6))


def test_an_entry_without_its_curve_at_chosen_offsets_is_refused_by_name():
    nope = posenc.SCHEMES["nope"]
    with pytest.raises(ValueError, match="'toy' has no offset_curve_at"):
        Scheme(key="toy", label="Toy", family="absolute", paper="", formula=nope.formula,
               offset_curve=nope.offset_curve, curve_label="", table=nope.table)


def test_a_setting_is_read_only():
    setting = Setting(8, 4, 1e4, {"layout": "split"})
    with pytest.raises(TypeError):
        setting.options["layout"] = "interleaved"
    with pytest.raises(AttributeError):
        setting.length = 9


def test_an_unknown_scheme_is_named():
    with pytest.raises(ValueError, match="Unknown scheme 'nothing'"):
        offset_curves.offset_curve("nothing", 8, 8, 1e4)
    with pytest.raises(ValueError, match="Unknown scheme"):
        table_cells.column_wavelengths("nothing", 8, 1e4)


def test_column_periods_are_the_sinusoidal_table_s_alone():
    periodic = [key for key in posenc.SCHEMES if table_cells.column_wavelengths(key, 16, 1e4) is not None]
    assert periodic == ["sinusoidal"]
