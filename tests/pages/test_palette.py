"""?palette=: a colour-blind-safe palette for every chart, kept in the link; a hostile value warns and the default
stays (posenc/ui/palette.py)."""

import re

import plotly.colors
import pytest

from apptest_helpers import charts, run
from posenc.figures import heatmaps, palettes
from posenc.figures.layout import PALETTE


def _scale_start(trace: dict) -> str:
    return str(trace["colorscale"][0][1]).replace(" ", "").lower()


def _start(name: str) -> str:
    return str(plotly.colors.get_colorscale(name)[0][1]).replace(" ", "").lower()


def test_the_default_palette_draws_as_before_and_stays_out_of_the_link():
    at = run({"d_model": "16", "length": "20"})
    assert at.selectbox(key="palette").value == palettes.DEFAULT
    assert _scale_start(charts(at)[0]["data"][0]) == _start(heatmaps.DIVERGING)
    assert "palette" not in at.query_params


@pytest.mark.parametrize("name, scale", [("cividis", "Cividis"), ("purple-orange", "PuOr")])
def test_a_palette_in_the_link_colours_the_heatmap_and_the_series_and_stays_in_the_link(name, scale):
    at = run({"d_model": "16", "length": "20", "palette": name})
    assert at.selectbox(key="palette").value == name and at.query_params["palette"] == name
    assert _scale_start(charts(at)[0]["data"][0]) == _start(scale)
    at.switch_page("pages/sinusoids.py").run()
    colours = [t["line"]["color"] for t in charts(at)[0]["data"] if "line" in t and "color" in t["line"]]
    assert colours and not set(colours) & set(PALETTE[:7])
    assert set(colours) <= set(palettes.PALETTES[name].series)
    assert at.query_params["palette"] == name  # kept on a page change


def _plain(text: str) -> str:
    """A warning with its code spans written `x` (Streamlit pads them: ` x `)."""
    return re.sub(r"`+ ?([^`]*?) ?`+", r"`\1`", text)


@pytest.mark.parametrize("hostile", ["[Log in again](https://evil.example)", "<script>alert(1)</script>", "Cividis",
                                     "", "x" * 10_000], ids=["markdown link", "script", "capitalised", "empty", "10k"])
def test_a_hostile_palette_gets_a_clear_warning_and_the_default(hostile):
    at = run({"d_model": "16", "length": "20", "palette": hostile})
    warnings = [_plain(w.value) for w in at.warning if "`palette`" in _plain(w.value)]
    assert len(warnings) == 1, [w.value for w in at.warning]
    why = "is empty" if not hostile else "is not one of `default`, `cividis`, `purple-orange`"
    assert f"{why}: using `default`." in warnings[0]
    assert not any("](" in w.value and "`" not in w.value for w in at.warning)  # the text only as code
    assert at.selectbox(key="palette").value == palettes.DEFAULT and "palette" not in at.query_params
    assert _scale_start(charts(at)[0]["data"][0]) == _start(heatmaps.DIVERGING)


def test_a_repeated_palette_key_reads_the_last_and_says_so():
    at = run({"d_model": "16", "length": "20", "palette": ["purple-orange", "cividis"]})
    assert any("`palette`" in _plain(w.value) and "given 2 times" in w.value for w in at.warning)
    assert at.selectbox(key="palette").value == "cividis"
