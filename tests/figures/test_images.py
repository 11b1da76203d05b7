"""A large heatmap is sent as the image it draws (posenc.figures.images): the PNG holds the cells' colour levels,
coloured as plotly.js colours the levels, at the cells' true rows and columns; smaller heatmaps are sent as they
were, and the figure on the server keeps its heatmap."""

import io
import json

import numpy as np
import plotly.io as pio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

import posenc
from plotly_data import heatmap_cells, plotly_rgb, sent
from posenc.figures import heatmaps, images, palettes
from posenc.ui import presenter


def _caps_figure(table: np.ndarray | None = None):
    """The Encoding matrix at the caps: every 16th position, every 4th (sin, cos) pair."""
    table = posenc.sinusoidal(4096, 1024) if table is None else table
    rows, cols = heatmaps.thin_index(4096), heatmaps.thin_index(1024, group=2)
    return heatmaps.cells_heatmap(table[np.ix_(rows, cols)], rows, cols, table.shape, title="PE", x_label="dimension",
                                  y_label="position", zrange=(-1.0, 1.0), col_group=2), rows, cols


def test_the_png_reads_back_and_any_decoder_draws_the_palette():
    rng = np.random.default_rng(0)
    levels = rng.integers(0, 256, (37, 53), dtype=np.uint8)
    colours = rng.integers(0, 256, (256, 4), dtype=np.uint8)
    data = images.png(levels, colours)
    back, palette = images.read_png(data)
    np.testing.assert_array_equal(back, levels)
    np.testing.assert_array_equal(palette, colours)
    drawn = np.asarray(Image.open(io.BytesIO(data)).convert("RGBA"))  # Pillow as an independent decoder
    np.testing.assert_array_equal(drawn, colours[levels])
    with pytest.raises(ValueError, match="not a PNG"):
        images.read_png(b"GIF89a")


@pytest.mark.parametrize("colorscale", [heatmaps.DIVERGING, "Cividis", "Viridis", "PuOr"])
def test_a_level_has_the_colour_plotly_gives_it_on_the_level_scale(colorscale):
    scale = heatmaps.level_colorscale(colorscale)
    colours = images.level_colours(scale)
    opaque = [s for s in scale if "rgba" not in s[1]]
    np.testing.assert_array_equal(colours[:255, :3], plotly_rgb(opaque, np.arange(255) / 255))
    assert (colours[:255, 3] == 255).all() and colours[heatmaps.NO_VALUE].tolist() == [0, 0, 0, 0]


def test_at_the_caps_the_heatmap_is_sent_as_its_image_at_the_true_rows_and_columns():
    fig, rows, cols = _caps_figure()
    spec = images.as_images(fig.to_dict())
    image, bar = spec["data"]
    assert (image["type"], bar["type"]) == ("image", "scatter")
    np.testing.assert_array_equal(images.image_levels(image), heatmaps.typed_array(fig.to_dict()["data"][0]["z"]))
    z, shown_rows, shown_cols = heatmap_cells(spec)
    np.testing.assert_array_equal(shown_rows, rows)  # evenly spaced: the image at y0 = 0, dy = 16
    assert (image["y0"], image["dy"]) == (0, 16)
    assert [int(c) for c in shown_cols] == cols.tolist()  # pairs 0, 1, 8, 9, …: placed 0, 1, 2, … and named
    assert (image["x0"], image["dx"]) == (0, 1) and spec["layout"]["xaxis"]["type"] == "linear"
    assert spec["layout"]["xaxis"]["labelalias"]["2"] == "8" and spec["layout"]["yaxis"]["scaleanchor"] is False
    np.testing.assert_array_equal(z, sent(image, posenc.sinusoidal(4096, 1024)[np.ix_(rows, cols)]))
    # hover: plotly's own label names the dimension (a template's %{x} would be the place, 0 … 255)
    assert image["hoverinfo"] == "x+y+name" and image["name"] == "(dimension, position)"
    assert "hovertemplate" not in image and image["meta"] == {"levels": [-1.0, 1.0]}
    assert bar["marker"]["showscale"] and bar["marker"]["colorbar"]["ticktext"] == ["−1", "−0.5", "0", "0.5", "1"]
    assert (bar["marker"]["cmin"], bar["marker"]["cmax"]) == (0, 255) and bar["hoverinfo"] == "skip"
    assert len(pio.to_json(spec, validate=False)) < 70_000  # 110 KB as levels (test_levels.py), 470 KB as float32


def test_evenly_spaced_cells_keep_their_coordinates_and_their_hover():
    length = 4096
    positions = heatmaps.thin_index(length)
    fig = heatmaps.position_heatmap(np.cos(positions[:, None] - positions[None, :] / 7.0), positions, length,
                                    title="t", x_label="key position j", y_label="query position i")
    spec = images.as_images(fig.to_dict())
    image = spec["data"][0]
    assert (image["x0"], image["dx"], image["y0"], image["dy"]) == (0, 16, 0, 16)
    assert "labelalias" not in spec["layout"]["xaxis"]
    assert image["hovertemplate"] == fig.data[0].hovertemplate  # %{x}, %{y}: the pixel's centre, a true position
    np.testing.assert_array_equal(images.coordinates(image, spec["layout"], "x"), positions)


def test_small_heatmaps_animations_and_other_charts_are_sent_as_they_were():
    small = heatmaps.heatmap(posenc.sinusoidal(128, 128), title="t", x_label="d", y_label="p").to_dict()
    assert images.as_images(json.loads(json.dumps(small, default=str))) == json.loads(json.dumps(small, default=str))
    line = {"data": [{"type": "scatter", "x": [0, 1], "y": [1, 2]}], "layout": {}}
    assert images.as_images(line) == {"data": [{"type": "scatter", "x": [0, 1], "y": [1, 2]}], "layout": {}}
    fig, _, _ = _caps_figure()
    animated = fig.to_dict() | {"frames": [{"data": [{"type": "heatmap"}]}]}  # frames restyle a heatmap trace
    assert images.as_images(animated)["data"][0]["type"] == "heatmap"


def test_cells_beyond_float32_are_drawn_black_over_the_image_on_its_places():
    table = posenc.sinusoidal(4096, 1024)
    table[32, 8] = 1e300  # row 2 and column 2 of those shown (positions every 16th, pairs 0, 1, 8, 9, …)
    fig, rows, cols = _caps_figure(table)
    spec = images.as_images(fig.to_dict())
    types = [t["type"] for t in spec["data"]]
    assert types == ["image", "scatter", "heatmap"]
    black = spec["data"][2]
    assert black["x"] == list(range(256))  # on the image's places, where the axis names the dimension
    z = heatmaps.typed_array(black["z"])
    assert z[2, 2] == 1 and z.sum() == 1


@pytest.mark.parametrize("palette", ["cividis", "purple-orange"])
@pytest.mark.parametrize("dark", [False, True])
def test_the_chart_sent_draws_the_image_in_the_palette_and_the_server_keeps_the_heatmap(palette, dark):
    fig, _, _ = _caps_figure()
    sent_fig = presenter.restyle(fig, present=False, dark=dark, colours=palette)
    image, bar = sent_fig.to_dict()["data"][:2]
    recoloured = palettes.recolour(fig.to_dict(), palette)["data"][0]["colorscale"]
    _, colours = images.read_png(image["source"])
    np.testing.assert_array_equal(colours, images.level_colours(recoloured))
    assert [list(s) for s in bar["marker"]["colorscale"]] == [list(s) for s in recoloured]
    assert fig.data[0].type == "heatmap"  # the figure the sentence and the Chart data read


_values = st.floats(allow_nan=True, allow_infinity=True, width=64)


@st.composite
def _heatmaps(draw):
    """A heatmap past MAX_EXACT_CELLS over any values (NaN, ±inf, past float32 included), its rows and columns
    evenly spaced, unevenly spaced or thinned in (sin, cos) pairs."""
    rows = draw(st.integers(heatmaps.MAX_EXACT_CELLS // 300 + 1, 300))
    columns = draw(st.integers(heatmaps.MAX_EXACT_CELLS // rows + 1, 300))
    fill = draw(_values)
    values = np.full((rows, columns), fill)
    for _ in range(draw(st.integers(0, 20))):
        values[draw(st.integers(0, rows - 1)), draw(st.integers(0, columns - 1))] = draw(_values)
    start, step = draw(st.integers(0, 5000)), draw(st.integers(1, 40))
    kind = draw(st.sampled_from(["even", "uneven", "pairs"]))
    cols = start + step * np.arange(columns)
    if kind == "uneven":
        cols = start + np.cumsum(draw(st.lists(st.integers(1, 9), min_size=columns, max_size=columns)))
    if kind == "pairs":  # 0, 1, 2·step, 2·step + 1, …: the Encoding matrix's thinned (sin, cos) pairs
        cols = start + 2 * step * (np.arange(columns) // 2) + np.arange(columns) % 2
    group = 2 if kind == "pairs" else 1
    zrange = draw(st.sampled_from([None, (-1.0, 1.0), (0.0, 5.0)]))
    return values, start + step * np.arange(rows), cols, group, zrange


@settings(max_examples=60, deadline=None)
@given(_heatmaps(), st.sampled_from(list(palettes.PALETTES)), st.booleans())
def test_any_large_heatmap_is_sent_as_an_image_of_its_levels_at_its_coordinates(case, palette, dark):
    values, rows, cols, group, zrange = case
    fig = heatmaps.cells_heatmap(values, rows, cols, (int(rows.max()) + 1, int(cols.max()) + 1), title="t",
                                 x_label="column", y_label="row", zrange=zrange, col_group=group)
    sent_spec = presenter.restyle(fig, present=False, dark=dark, colours=palette).to_dict()
    heatmap = palettes.recolour(fig.to_dict(), palette)["data"][0]
    image = sent_spec["data"][0]
    assert image["type"] == "image"
    levels, colours = images.read_png(image["source"])
    np.testing.assert_array_equal(levels, heatmaps.typed_array(heatmap["z"]))
    np.testing.assert_array_equal(colours, images.level_colours(heatmap["colorscale"]))
    for letter in "xy":
        shown, drawn = images.coordinates(image, sent_spec["layout"], letter), heatmaps.typed_array(heatmap[letter])
        if drawn.dtype.kind in "iuf":
            np.testing.assert_array_equal(np.asarray(shown, float), drawn.astype(float))
        else:  # a category axis's labels: the axis names each place by them
            assert shown == [str(v) for v in drawn.tolist()]
    black = [t for t in sent_spec["data"] if t["type"] == "heatmap"]
    assert len(black) == (1 if len(fig.data) > 1 else 0)
