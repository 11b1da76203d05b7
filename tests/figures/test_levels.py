"""A large heatmap is sent as what its colours can show: one byte a cell (its level on the colour scale),
the colour bar in true values, the exact values kept on the server for the sentence and the Chart data."""

import json

import numpy as np
import plotly.colors
import plotly.io as pio
import pytest

import posenc
from plotly_data import decode, plotly_rgb
from posenc.figures import describe, heatmaps


def test_levels_known_values():
    values = np.array([-1.0, -0.999, -0.5, 0.0, 0.002, 0.5, 1.0, 1.5, -7.0, np.nan])
    levels = heatmaps.colour_levels(values, (-1.0, 1.0))
    assert levels.dtype == np.uint8
    # (v + 1) / 2 · 254, rounded: ends exact, 0 at the middle level 127, outside the range clamped, NaN 255
    assert levels.tolist() == [0, 0, 64, 127, 127, 190, 254, 254, 0, 255]
    np.testing.assert_array_equal(heatmaps.level_value(levels[:7], (-1.0, 1.0)),
                                  [-1.0, -1.0, -1 + 64 / 127, 0.0, 0.0, -1 + 190 / 127, 1.0])
    assert np.isnan(heatmaps.level_value(np.array([255], np.uint8), (-1.0, 1.0))).all()


@pytest.mark.parametrize("zrange", [(-1.0, 1.0), (0.0, 1.0), (-3.7e5, 3.7e5), (-81.25, 0.0)])
def test_a_level_is_within_half_a_level_and_keeps_min_max_and_order(zrange):
    rng = np.random.default_rng(0)
    values = rng.uniform(*zrange, 10_000)
    values[:2] = zrange
    levels = heatmaps.colour_levels(values, zrange)
    back = heatmaps.level_value(levels, zrange)
    half = (zrange[1] - zrange[0]) / 254 / 2
    assert np.abs(back - values).max() <= half * (1 + 1e-9)
    assert (levels.min(), levels.max()) == (0, 254) and back.min() == zrange[0] and back.max() == zrange[1]
    order = np.argsort(values)
    assert np.all(np.diff(levels[order].astype(int)) >= 0)  # monotone: a larger value never gets a lower colour


@pytest.mark.parametrize("colorscale", [heatmaps.DIVERGING, "Cividis", "Viridis"])
def test_a_level_moves_a_colour_by_at_most_two_of_255_in_one_channel(colorscale):
    """The level's colour, drawn through the level scale (zmin 0, zmax 255), against the value's own colour."""
    fraction = np.linspace(0, 1, 100_001)
    levels = heatmaps.colour_levels(fraction, (0.0, 1.0))
    exact = plotly_rgb(plotly.colors.get_colorscale(colorscale), fraction)
    drawn = plotly_rgb([s for s in heatmaps.level_colorscale(colorscale) if "rgba" not in s[1]], levels / 255)
    assert np.abs(exact - drawn).max() <= 2


def test_the_level_scale_ends_in_a_gap_for_cells_without_a_value():
    scale = heatmaps.level_colorscale(heatmaps.DIVERGING)
    assert scale[-1] == [1.0, "rgba(0,0,0,0)"] and scale[-2][0] == pytest.approx(254 / 255) and scale[0][0] == 0


def test_colour_bar_reads_true_values_at_round_ticks():
    fig = heatmaps.heatmap(posenc.sinusoidal(1000, 600), title="t", x_label="dimension", y_label="position",
                           col_group=2)
    bar = fig.data[0].colorbar
    assert list(bar.ticktext) == ["−1", "−0.5", "0", "0.5", "1"]
    assert list(bar.tickvals) == [0, 63.5, 127, 190.5, 254]
    assert (fig.data[0].zmin, fig.data[0].zmax) == (0, 255) and fig.data[0].meta == {"levels": [-1.0, 1.0]}
    assert heatmaps.tick_text(heatmaps.nice_ticks(-3, 3)) == ["−3", "−2", "−1", "0", "1", "2", "3"]
    assert heatmaps.tick_text(heatmaps.nice_ticks(-81.2, 0)) == ["−80", "−60", "−40", "−20", "0"]


def test_a_small_heatmap_still_sends_its_exact_float32_values():
    table = posenc.sinusoidal(128, 128)  # 16,384 cells: the most sent as float32
    trace = heatmaps.heatmap(table, title="t", x_label="d", y_label="p").to_plotly_json()["data"][0]
    np.testing.assert_array_equal(decode(trace["z"]), table.astype(np.float32))
    assert "value %{z:.6g}" in trace["hovertemplate"]


def test_at_the_caps_the_heatmap_sends_a_quarter_of_the_bytes_and_reads_the_same():
    """256 × 256 cells: 87 KB of base64 instead of 350 KB; the sentence and the Chart data read the exact values."""
    table = posenc.sinusoidal(4096, 1024)
    rows, cols = heatmaps.thin_index(4096), heatmaps.thin_index(1024, group=2)
    shown = table[np.ix_(rows, cols)]
    fig = heatmaps.cells_heatmap(shown, rows, cols, table.shape, title="PE", x_label="dimension",
                                 y_label="position", zrange=(-1.0, 1.0), col_group=2)
    spec = json.loads(pio.to_json(fig, validate=False))
    assert len(json.dumps(spec["data"][0]["z"])) < 90_000
    assert len(pio.to_json(fig, validate=False)) < 120_000
    tables = describe.data_tables(fig)
    caption, columns = tables[0]
    np.testing.assert_array_equal(columns["y"], rows)
    np.testing.assert_array_equal(np.column_stack([columns[str(c)] for c in cols]), shown.astype(np.float32))
    assert "values from −1 to 1" in describe.describe(fig)
    assert "exact value: Chart data" in spec["data"][0]["hovertemplate"]
    assert "(colours in 255 levels; exact values in Chart data)" in spec["layout"]["title"]["text"]


def test_a_restyled_copy_reads_the_levels_back_as_values():
    """A copy keeps only what is sent: its sentence reads the levels' values, within half a level."""
    import plotly.graph_objects as go

    table = posenc.sinusoidal(300, 300) * 2.5
    fig = heatmaps.heatmap(table, title="t", x_label="d", y_label="p", zrange=None)
    copy = go.Figure(fig.to_dict())
    exact = heatmaps.exact_values(fig, 0, fig.data[0])
    back = heatmaps.exact_values(copy, 0, copy.data[0])
    bound = float(np.abs(exact).max())
    assert np.abs(back - exact).max() <= bound / 254 + 1e-6
    assert describe.describe(copy) == describe.describe(fig)  # 3 significant digits: the ends are levels 0 and 254


def test_gaps_and_overflow_stay_gaps_and_black_in_levels():
    values = np.full((200, 100), 0.5)
    values[np.triu_indices(100, 1)] = np.nan  # a causal mask: keys after the query have no value
    values[5, 5] = 1e300
    fig = heatmaps.cells_heatmap(values, np.arange(200), np.arange(100), (200, 100), title="t", x_label="j",
                                 y_label="i", zrange=None)
    main, black = fig.data
    levels = np.asarray(main.z)
    assert (levels[np.triu_indices(100, 1)] == heatmaps.NO_VALUE).all() and levels[5, 5] == heatmaps.NO_VALUE
    assert np.asarray(black.z).dtype == np.uint8 and np.asarray(black.z).sum() == 1 and black.z[5][5] == 1
    assert "1 of 20000 cells shown are beyond float32's range" in fig.layout.title.text
