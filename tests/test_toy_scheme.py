"""A scheme from outside the package (issue 36): a toy scheme defined here registers its records the way a user's
code would, and every page renders it through AppTest; each record it leaves out is named when asked for; the link fuzzing draws it."""

from __future__ import annotations

import numpy as np
import pytest
import streamlit as st
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hypothesis_st

import posenc
from apptest_helpers import PAGES, run
from fuzz_links import HOSTILE, SHARED_KEYS, UNIVERSE, describe, run_link
from posenc.export import source as export
from posenc.precision.tables import precision_of
from posenc.schemes.offsets import all_offsets
from posenc.schemes.registry import SCHEMES, register
from posenc.schemes.scheme import Option, Scheme
from posenc.ui.scheme_views import SCHEME_VIEWS, SchemeViews, views_of

pytest.importorskip("torch")


def _table(length, d_model, base, *, scale=1.0):
    """PE[p] = (c, …, c): every position alike (a toy: it tells no position apart)."""
    return np.full((length, d_model), float(scale))


def _curve(length, d_model, base, *, scale=1.0):
    offsets = all_offsets(length)
    return offsets, np.full(len(offsets), d_model * float(scale) ** 2)


def _curve_at(setting, offsets):
    return np.full(len(offsets), setting.d_model * float(setting.options["scale"]) ** 2)


TOY = Scheme(
    key="toy", label="Toy (every position alike)", family="absolute", paper="a test of posenc",
    formula=lambda d_model, base, **options: r"\mathrm{PE}_p = (c, \dots, c)",
    offset_curve=_curve, curve_label="PE[i]·PE[i+Δ] = d·c²", table=_table, offset_curve_at=_curve_at,
    options=(Option("scale", "Scale c", 1.0, 0.0, 2.0, help="The value of every entry."),),
)

TEMPLATE = """

class ToyEncoding(nn.Module):
    \"\"\"x -> x + (c, ..., c) at every position.\"\"\"

    def __init__(self, d_model: int = {D_MODEL}, max_len: int = {LENGTH}, scale: float = {SCALE}) -> None:
        super().__init__()
        self.register_buffer("pe", torch.full((max_len, d_model), float(scale)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.pe[: x.shape[-2]].to(x.dtype)


def output() -> torch.Tensor:
    return ToyEncoding().pe
"""


def _view(c) -> None:
    st.markdown("Every position gets the same vector, so attention cannot tell them apart.")


@pytest.fixture
def toy():
    """The toy registered with its records (its precision, fixes, cells and encoding are its family's)."""
    register(TOY)
    export.EXPORTS["toy"] = export.Export(TEMPLATE)
    SCHEME_VIEWS["toy"] = SchemeViews(_view)
    try:
        yield TOY
    finally:
        SCHEMES.pop("toy"), export.EXPORTS.pop("toy"), SCHEME_VIEWS.pop("toy")


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_the_toy(toy, page):
    at = run({"scheme": "toy", "length": "40", "d_model": "8"}, page, timeout=120)
    assert at.selectbox(key="scheme").value == "toy" and at.sidebar.caption[0].value == TOY.label
    assert not at.error, [e.value for e in at.error]
    if page == "pages/details.py":  # its own view, from this file
        assert TOY.label in at.title[0].value and any("same vector" in m.value for m in at.markdown)


def test_the_toy_s_records_are_its_own_and_its_family_s(toy):
    assert posenc.get_scheme("toy") is TOY
    assert precision_of("toy").sections == ("no_relative",) and views_of("toy").matrix_note == ""
    assert "class ToyEncoding(nn.Module)" in export.module_source("toy", 4, 2, 1e4)
    np.testing.assert_array_equal(export.reference_output("toy", 4, 2, 1e4, scale=0.5), np.full((4, 2), 0.5))
    with pytest.raises(ValueError, match="registered already"):
        register(TOY)


def test_each_missing_record_is_named(toy, monkeypatch):
    monkeypatch.delitem(export.EXPORTS, "toy")
    with pytest.raises(ValueError, match="'toy' has no export entry"):
        export.module_source("toy", 4, 2, 1e4)
    monkeypatch.delitem(SCHEME_VIEWS, "toy")
    with pytest.raises(ValueError, match="'toy' has no views"):
        views_of("toy")
    rotary = Scheme(key="toy_rotary", label="Toy rotary", family="rotary", paper="", formula=TOY.formula,
                    offset_curve=_curve, curve_label="", rotate=lambda x, positions, base, **o: x,
                    offset_curve_at=_curve_at)
    monkeypatch.setitem(SCHEMES, "toy_rotary", rotary)
    with pytest.raises(ValueError, match="'toy_rotary' has no precision record"):
        precision_of("toy_rotary")
    with pytest.raises(ValueError, match="'toy_rotary' has no offset_curve_at"):
        Scheme(key="toy_rotary", label="", family="rotary", paper="", formula=TOY.formula, offset_curve=_curve,
               curve_label="")
    monkeypatch.setitem(export.EXPORTS, "toy_rotary", export.Export(TEMPLATE))
    with pytest.raises(ValueError, match="'toy_rotary'.s export entry has no reference"):
        export.reference_output("toy_rotary", 4, 2, 1e4)


@settings(max_examples=3, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=hypothesis_st.data())
def test_link_fuzzing_draws_the_toy(toy, data):
    """A few fuzzed links under the toy (its option valid, out of range or hostile; the shared controls as the link
    fuzzing draws them), through every page: no exception, no error box, no URL text rendered."""
    scale = hypothesis_st.one_of(hypothesis_st.floats(-1.0, 3.0).map(str), hypothesis_st.sampled_from(HOSTILE))
    link = {"scheme": "toy", "toy.scale": data.draw(scale, label="toy.scale")}
    for key in SHARED_KEYS:
        if data.draw(hypothesis_st.booleans(), label=f"has {key}"):
            link[key] = data.draw(UNIVERSE[key], label=key)
    problems, _ = run_link(link)
    assert not problems, f"{describe(link)}\n" + "\n".join(problems)
