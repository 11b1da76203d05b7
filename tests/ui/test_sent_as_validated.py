"""A restyled chart is sent as plotly would send it validated (posenc/ui/presenter.py ``restyle``).

restyle edits a validated figure's dict (palette, presenter sizes, a phone's layout, dark colours, heatmaps drawn as
images) and sends it without validating it again. Here every chart of every page, of every scheme's Encoding matrix
and How it works and of a model's views is restyled in four looks, and its JSON must equal, value for value, the
JSON of the same dict validated by plotly (which also raises on any property plotly.js does not know), frames
included."""

import json

import plotly.graph_objects as go
import plotly.io as pio
import pytest

import posenc
from apptest_helpers import PAGES, run
from posenc.ui import presenter

LOOKS = [(False, False, "default"), (True, False, "purple-orange"), (False, True, "cividis"), (True, True, "default")]
SMALL = {"d_model": "32", "length": "48"}
VIEWS = ([(f"{page} {scheme}", dict(SMALL, scheme=scheme), page) for scheme in posenc.SCHEMES
          for page in (None, "pages/details.py")]
         + [(page, SMALL, page) for page in PAGES if page not in ("pages/heatmap.py", "pages/details.py")]
         + [("caps", {"d_model": "1024", "length": "4096"}, None),
            ("model compare", dict(SMALL, model="llama-3.1-8b"), "pages/compare.py")])


def _shown(monkeypatch, query: dict, page: str | None) -> list[go.Figure]:
    """The figures a page hands to presenter.styled (its charts as built, before their look)."""
    seen, styled = [], presenter.styled

    def recording(fig, **look):
        seen.append(fig)
        return styled(fig, **look)

    monkeypatch.setattr(presenter, "styled", recording)
    run(query, page)
    return seen


def _as_json(spec: dict) -> object:
    return json.loads(pio.to_json(spec, validate=False))


@pytest.mark.parametrize("name, query, page", VIEWS, ids=[name for name, _, _ in VIEWS])
def test_every_chart_restyled_is_sent_as_plotly_validates_it(monkeypatch, name, query, page):
    figures = _shown(monkeypatch, query, page)
    assert figures
    for fig in figures:
        for present, dark, colours in LOOKS:
            sent = presenter.restyle(fig, present=present, dark=dark, colours=colours).to_dict()
            frames = sent.get("frames")
            validated = go.Figure({key: value for key, value in sent.items() if key != "frames"}).to_dict()
            if frames:
                validated["frames"] = [frame.to_plotly_json() for frame in go.Figure(frames=frames).frames]
            assert _as_json(sent) == _as_json(validated), (name, fig.layout.title.text, present, dark, colours)
