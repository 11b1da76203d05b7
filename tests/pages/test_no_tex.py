"""No raw TeX in a chart: plotly draws no LaTeX offline, so a title printed 'R_{i−j}' (Transformer-XL's, once).
Every scheme's How it works and Encoding matrix: no title, subplot title, axis or colour-bar title holds a backslash,
'_{' or '^{'."""

import pytest

import posenc
from apptest_helpers import charts, run, title

TEX = ("\\", "_{", "^{")


def _texts(spec: dict) -> list[str]:
    """Every title a chart shows: the figure's, its subplots' (annotations), its axes' and its colour bars'."""
    layout = spec.get("layout", {})
    texts = [(layout.get("title") or {}).get("text", "")]
    texts += [a.get("text", "") for a in layout.get("annotations", [])]
    texts += [(axis.get("title") or {}).get("text", "") for name, axis in layout.items()
              if name.startswith(("xaxis", "yaxis")) and isinstance(axis, dict)]
    texts += [((t.get("colorbar") or {}).get("title") or {}).get("text", "") for t in spec.get("data", [])]
    return [t for t in texts if t]


@pytest.mark.parametrize("scheme", list(posenc.SCHEMES))
def test_no_chart_title_of_a_scheme_view_holds_tex(scheme):
    at = run({"scheme": scheme, "length": "48", "d_model": "32"})
    seen = [text for spec in charts(at) for text in _texts(spec)]
    at.switch_page("pages/details.py").run()
    assert not at.exception, [e.value for e in at.exception]
    seen += [text for spec in charts(at) for text in _texts(spec)]
    assert seen
    assert [t for t in seen if any(mark in t for mark in TEX)] == []


def test_transformer_xl_names_its_terms_with_subscripts():
    at = run({"scheme": "transformer_xl", "length": "48", "d_model": "32"}, "pages/details.py")
    titles = [title(spec) for spec in charts(at)]
    assert "(b) qᵢ·W<sub>R</sub> Rᵢ₋ⱼ: query and distance" in titles
    assert "(a) + (b) + (c) + (d): the score Aᵢⱼ" in titles
    labels = [e.label.replace("\\", "") for e in at.expander]  # escaped for markdown
    assert "Chart data: (b) qᵢ·WR Rᵢ₋ⱼ: query and distance" in labels


@pytest.mark.parametrize("scheme", ["sinusoidal", "rope", "xpos"])
def test_the_precision_and_derivation_pages_write_theta_with_its_subscript(scheme):
    """'θ_i' printed raw in the Precision page's titles, axes and headings (and the Derivation's θ chart): θᵢ."""
    at = run({"scheme": scheme, "length": "48", "d_model": "32"}, "pages/precision.py")
    seen = [text for spec in charts(at) for text in _texts(spec)] + [h.value for h in at.subheader]
    seen += [m.value for m in at.markdown] + [c.value for c in at.caption]
    at = run({"scheme": scheme, "length": "48", "d_model": "32", "step": "9"}, "pages/derivation.py")
    seen += [text for spec in charts(at) for text in _texts(spec)]
    assert any("θᵢ" in t for t in seen) and [t for t in seen if "θ_i" in t] == []
