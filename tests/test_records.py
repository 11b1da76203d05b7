"""Every per-scheme record, in one place (issue 36): what a scheme is, on its registry entry, then the one record
each outer layer keeps of it, each found (or filled in by family) for every registered scheme."""

from __future__ import annotations

import pytest

import posenc
from posenc.export.source import EXPORTS, export_of
from posenc.lab.names import LAB_ONLY_SCHEMES
from posenc.lab.names import SCHEMES as LAB_SCHEMES
from posenc.precision.tables import PRECISION, precision_of
from posenc.settings.constraints import FIXES
from posenc.ui.precision_views import SECTIONS
from posenc.ui.scheme_views import SCHEME_VIEWS, views_of

pytest.importorskip("torch")
from posenc.lab.schemes import POSITIONS  # noqa: E402  (torch)

RECORDS = {
    "the registry's Scheme": posenc.SCHEMES,
    "posenc.export.source.EXPORTS": EXPORTS,
    "posenc.ui.scheme_views.SCHEME_VIEWS": SCHEME_VIEWS,
}
"""The records every scheme states: one entry per registry key, in its order."""
OVERRIDES = {"posenc.precision.tables.PRECISION": PRECISION, "posenc.settings.constraints.FIXES": FIXES}
"""The records a scheme states only where it differs from its family's."""


@pytest.mark.parametrize("name", RECORDS)
def test_every_scheme_has_its_records(name):
    assert list(RECORDS[name]) == list(posenc.SCHEMES), name


@pytest.mark.parametrize("name", OVERRIDES)
def test_overrides_are_of_registered_schemes(name):
    assert set(OVERRIDES[name]) <= set(posenc.SCHEMES), name


@pytest.mark.parametrize("key", posenc.SCHEMES)
def test_each_record_resolves_with_its_family_s_defaults(key):
    scheme = posenc.SCHEMES[key]
    assert callable(scheme.offset_curve_at) and callable(scheme.offset_curve_fast) and callable(scheme.encoding)
    assert scheme.measured_on and scheme.short_label
    assert export_of(key).reference is not None and export_of(key).output
    assert callable(precision_of(key).table) and set(precision_of(key).sections) <= set(SECTIONS)
    assert views_of(key).matrix_note is not None and callable(views_of(key).how_it_works)


def test_the_lab_has_every_registered_scheme_and_its_own():
    assert LAB_SCHEMES == (*posenc.SCHEMES, *LAB_ONLY_SCHEMES)
    assert list(POSITIONS) == list(LAB_SCHEMES)
