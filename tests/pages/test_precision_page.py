"""The Precision page under every scheme and dtype, the live-module panel, and torch loaded only when used."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import apptest_helpers
import posenc
from apptest_helpers import APP, ROOT, charts
from plotly_data import decode, sent_series

pytest.importorskip("torch")
from posenc.precision.tables import precision_of, precision_table
from posenc.ui.precision_views import SECTIONS

DTYPES = ("float32", "float16", "bfloat16")


def run(query: dict, page: str | None = "pages/precision.py") -> AppTest:
    return apptest_helpers.run(query, page, timeout=120)


@pytest.mark.parametrize("scheme", list(posenc.SCHEMES))
def test_every_scheme_has_its_precision_sections(scheme):
    sections = precision_of(scheme).sections  # its record's, or its family's
    assert sections and set(sections) <= set(SECTIONS)  # each draws something under "The relative-position property"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scheme", list(posenc.SCHEMES))
def test_precision_page_under_every_scheme_and_dtype(scheme, dtype):
    at = run({"scheme": scheme, "dtype": dtype, "length": "300", "d_model": "32"})
    assert at.selectbox(key="dtype").value == dtype
    assert at.title and not at.error and not at.warning
    figures = charts(at)
    expected = 3 if scheme in ("sinusoidal", "rope", "xpos") else 1  # error; relative property and θ for the rotations
    assert len(figures) == expected
    assert at.dataframe  # what each dtype holds
    names = [trace["name"] for trace in figures[0]["data"]]
    assert names[0] == f"rounded to {dtype}"


@pytest.mark.parametrize("dtype", DTYPES)
def test_rope_s_two_ways_of_computing_cos_sin_are_one_in_float32(dtype):
    """In float32, cos/sin "in float32, then cast" is all in the dtype: one curve each chart, never labelled
    "float32, then cast to float32"; the caption says what the float32 cos/sin does in float16 and bfloat16."""
    at = run({"scheme": "rope", "dtype": dtype, "length": "300", "d_model": "32"})
    names = [[trace["name"] for trace in figure["data"]] for figure in charts(at)[:2]]
    cast = dtype != "float32"
    assert names == [[f"rounded to {dtype}", f"all in dtype ({dtype})"] + [f"float32, then cast to {dtype}"] * cast,
                     [f"all in dtype ({dtype})"] + [f"float32, then cast ({dtype})"] * cast]
    caption = next(c.value for c in at.caption if c.value.startswith("q = k"))
    assert ("in a float32 model that is this one curve" in caption) == (not cast)


@pytest.mark.parametrize("scheme", ["shaw", "t5", "alibi", "kerple", "transformer_xl"])
def test_a_bias_s_relative_property_names_the_fixed_query(scheme):
    """Shaw's and Transformer-XL's terms read the query too (the registry's reads_query): their bias here is for one
    fixed query; the others' is computed from the offset alone."""
    text = " ".join(m.value for m in run({"scheme": scheme, "length": "40", "d_model": "16"}).markdown)
    entry = posenc.get_scheme(scheme)
    assert entry.reads_query == (scheme in ("shaw", "transformer_xl"))
    if entry.reads_query:
        assert f"{entry.short_label}'s term reads the query" in text and "one fixed seeded unit query" in text
        assert "alone" not in text
    else:
        assert "computed from the offset j − i alone" in text and "query" not in text
    assert "the same for every pair at the same offset" in text


def test_error_chart_holds_posenc_numbers():
    at = run({"scheme": "sinusoidal", "dtype": "bfloat16", "length": "400", "d_model": "16"})
    result = precision_table("sinusoidal", 400, 16, 10000.0, "bfloat16")
    for trace, errors in zip(charts(at)[0]["data"], result.errors.values()):
        np.testing.assert_array_equal(decode(trace["y"]), sent_series(trace, np.maximum(errors, 1e-10)))  # as sent


@pytest.mark.parametrize(("scheme", "sentence"), [
    ("sinusoidal", "computed in bfloat16 (Annotated Transformer): position 257 equals an earlier one bit for bit"),
    ("rope", "all in dtype (bfloat16): position 257 equals an earlier one bit for bit"),
])
def test_long_tables_repeat_at_257_in_bfloat16(scheme, sentence):
    at = run({"scheme": scheme, "dtype": "bfloat16", "length": "4096", "d_model": "64"})
    assert any(sentence in m.value for m in at.markdown)
    assert any("seed's claim does not hold" in i.value for i in at.info)


def test_bad_dtype_in_the_url_falls_back_with_a_warning():
    at = run({"dtype": "float8"})
    assert at.selectbox(key="dtype").value == "bfloat16"
    assert any("dtype" in w.value and "float8" in w.value and "using ` bfloat16 `" in w.value for w in at.warning)


@pytest.mark.parametrize("scheme", list(posenc.SCHEMES))
def test_live_module_matches_numpy(scheme):
    at = run({"scheme": scheme, "module": "true", "length": "90", "d_model": "24"}, page=None)
    gap = next(m for m in at.metric if m.label == "max |torch − numpy|")
    assert float(gap.value) <= 1e-6
    assert at.get("download_button") and not at.error


def test_torch_is_loaded_only_by_pages_that_use_it():
    script = textwrap.dedent(f"""
        import sys
        from streamlit.testing.v1 import AppTest
        at = AppTest.from_file({APP!r}, default_timeout=120)
        at.run()  # the encoding matrix, its module panel closed
        at.switch_page("pages/sinusoids.py").run()
        assert not at.exception
        print("before", "torch" in sys.modules)
        at.switch_page("pages/precision.py").run()
        assert not at.exception
        print("after", "torch" in sys.modules)
    """)
    run_ = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run_.returncode == 0, run_.stderr[-2000:]
    assert "before False" in run_.stdout and "after True" in run_.stdout


def test_a_learned_table_shorter_than_the_length_compares_only_the_positions_it_has():
    """Length 1,000 over a 512-row table: positions 512 … 999 have no encoding, yet the page said 'every position
    differs' as if all 1,000 were compared."""
    text = " ".join(m.value for m in run({"scheme": "learned", "learned.table_size": "512", "length": "1000",
                                          "d_model": "16"}).markdown)
    assert "among positions 0 … 511, the only ones with an encoding (the table has 512 rows)." in text
    full = " ".join(m.value for m in run({"scheme": "learned", "length": "300", "d_model": "16"}).markdown)
    assert "the only ones with an encoding" not in full  # 300 of 512 rows: every position has one
