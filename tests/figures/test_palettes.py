"""Palettes (posenc/figures/palettes.py): every heatmap's scale and every series colour swapped by kind and index."""

import numpy as np
import plotly.colors
import plotly.graph_objects as go
import pytest

import posenc
from posenc.figures import charts, heatmaps, palettes
from posenc.figures.layout import PALETTE


def _spec(fig: go.Figure) -> dict:
    return fig.to_dict()


def _first_colours(scale) -> str:
    return str(scale[0][1]).replace(" ", "").lower()


def test_default_leaves_the_figure_as_it_is():
    spec = _spec(heatmaps.heatmap(posenc.sinusoidal(10, 8), title="t", x_label="d", y_label="p"))
    assert palettes.recolour(spec, palettes.DEFAULT) is spec


@pytest.mark.parametrize("name, want", [("cividis", "Cividis"), ("purple-orange", "PuOr")])
def test_a_diverging_heatmap_takes_the_palette_s_diverging_scale(name, want):
    spec = palettes.recolour(_spec(heatmaps.heatmap(posenc.sinusoidal(10, 8), title="t", x_label="d", y_label="p")), name)
    assert [[float(a), c] for a, c in spec["data"][0]["colorscale"]] == [[float(a), c] for a, c in
                                                                          plotly.colors.get_colorscale(want)]


def test_a_levelled_heatmap_keeps_its_gap_stop_under_a_palette():
    fig = heatmaps.heatmap(posenc.sinusoidal(1000, 600), title="t", x_label="d", y_label="p", col_group=2)
    spec = palettes.recolour(_spec(fig), "purple-orange")
    assert spec["data"][0]["colorscale"] == heatmaps.level_colorscale("PuOr")
    assert spec["data"][0]["colorscale"][-1] == [1.0, "rgba(0,0,0,0)"]


def test_a_sequential_heatmap_becomes_cividis_and_the_black_overflow_cells_stay_black():
    seq = {"type": "heatmap", "z": [[0.0, 1.0]], "colorscale": "Viridis"}
    black = {"type": "heatmap", "z": [[1.0, np.nan]], "colorscale": [[0, "#000000"], [1, "#000000"]]}
    spec = palettes.recolour(go.Figure(dict(data=[seq, black])).to_dict(), "purple-orange")
    assert _first_colours(spec["data"][0]["colorscale"]) == _first_colours(plotly.colors.get_colorscale("Cividis"))
    assert spec["data"][1]["colorscale"] == [[0.0, "#000000"], [1.0, "#000000"]]


@pytest.mark.parametrize("name", ["cividis", "purple-orange"])
def test_series_colours_are_swapped_by_index_and_black_stays(name):
    x = np.arange(5)
    fig = charts.line_chart(x, {"a": x * 1.0, "b": x * 2.0, "c": x * 3.0}, title="t", x_label="x", y_label="y")
    before = [t["line"]["color"] for t in _spec(fig)["data"]]
    assert before == list(PALETTE[:3])
    spec = palettes.recolour(_spec(fig), name)
    assert [t["line"]["color"] for t in spec["data"]] == list(palettes.PALETTES[name].series[:3])
    assert spec["layout"]["colorway"] == list(palettes.PALETTES[name].series)
    assert palettes.PALETTES[name].series[7] == "#000000"


def test_every_palette_has_eight_distinct_series_colours_and_known_scales():
    for palette in palettes.PALETTES.values():
        assert len(palette.series) == 8 and len({c.lower() for c in palette.series}) == 8
        plotly.colors.get_colorscale(palette.diverging)
        plotly.colors.get_colorscale(palette.sequential)
