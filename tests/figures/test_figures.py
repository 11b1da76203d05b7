"""Figure builders: thinning keeps true values and says so."""

import numpy as np
import pytest

import posenc
from plotly_data import decode
from posenc.figures import heatmaps


def test_thin_index_limits_and_keeps_pairs():
    assert list(heatmaps.thin_index(10)) == list(range(10))
    rows = heatmaps.thin_index(4096)
    assert len(rows) <= heatmaps.MAX_CELLS_PER_AXIS and rows[1] - rows[0] == 16
    cols = heatmaps.thin_index(1024, group=2)
    assert len(cols) <= heatmaps.MAX_CELLS_PER_AXIS
    assert list(cols[:4]) == [0, 1, 8, 9]


def test_heatmap_sends_true_values_at_shown_cells():
    table = posenc.sinusoidal(1000, 600)
    fig = heatmaps.heatmap(table, title="t", x_label="dimension", y_label="position", col_group=2)
    trace = fig.to_plotly_json()["data"][0]
    levels = decode(trace["z"])  # 250 × 200 cells: sent as colour levels, one byte each
    rows, cols = decode(trace["y"]).astype(int), np.array([int(c) for c in trace["x"]])
    shown = table[np.ix_(rows, cols)].astype(np.float32)
    assert levels.dtype == np.uint8
    np.testing.assert_array_equal(levels, np.rint((shown.astype(np.float64) + 1) / 2 * 254))
    np.testing.assert_array_equal(heatmaps.exact_values(fig, 0, fig.data[0]), shown)  # kept on the server
    assert "every 4th position shown" in fig.layout.title.text
    assert "every 3rd dimension pair shown" in fig.layout.title.text


def test_heatmap_unthinned_has_no_note_and_pinned_scale():
    fig = heatmaps.heatmap(posenc.sinusoidal(10, 8), title="t", x_label="d", y_label="p")
    assert "shown" not in fig.layout.title.text
    assert (fig.data[0].zmin, fig.data[0].zmax) == (-1.0, 1.0)


def test_position_heatmap_labels_the_true_positions_once():
    rows = heatmaps.thin_index(1000)
    table = posenc.sinusoidal(1000, 8)
    fig = heatmaps.position_heatmap(posenc.similarity_matrix(table[rows]), rows, 1000,
                                   title="t", x_label="position", y_label="position")
    trace = fig.to_plotly_json()["data"][0]
    np.testing.assert_array_equal(decode(trace["y"]), rows)
    similarity = (table[rows] @ table[rows].T).astype(np.float32)
    np.testing.assert_array_equal(heatmaps.exact_values(fig, 0, fig.data[0]), similarity)
    bound = float(np.abs(similarity).max())
    np.testing.assert_allclose(heatmaps.level_value(decode(trace["z"]), (-bound, bound)), similarity,
                               atol=2 * bound / 254 / 2 + 1e-6)  # half a level of the span 2·bound
    assert fig.layout.title.text.count("every 4th position shown") == 1


def test_cells_beyond_float32_are_said_and_drawn_black_not_left_blank():
    """xPos at length 2048 and γ's base 16 scores past 3.4e38: the float32 cast made them inf, plotly drew
    nothing there and the title said "all values are exact" (found as a new user)."""
    import warnings

    from posenc.figures.heatmaps import cells_heatmap

    values = np.array([[1.0, -2.0, 1e300], [-1e300, np.inf, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning in the server's log
        fig = cells_heatmap(values, np.arange(0, 4, 2), np.arange(3), (4, 3), title="t", x_label="j", y_label="i",
                            zrange=None)
    main, black = fig.data
    z = np.asarray(main.z, dtype=float)
    assert np.isnan(z[[0, 1, 1], [2, 0, 1]]).all() and z[1, 2] == 3.0 and (main.zmin, main.zmax) == (-3.0, 3.0)
    assert np.array_equal(~np.isnan(np.asarray(black.z, dtype=float)), [[False, False, True], [True, True, False]])
    assert black.colorscale[0][1] == "#000000" and black.showscale is False
    title = fig.layout.title.text
    assert "3 of 6 cells shown are beyond float32's range (|value| > 3.4e+38): drawn black" in title
    assert "all values are exact" not in title
    fine = cells_heatmap(values[:, :2].clip(-5, 5), np.arange(0, 4, 2), np.arange(2), (4, 2), title="t",
                         x_label="j", y_label="i", zrange=None)
    assert len(fine.data) == 1 and "all values are exact" in fine.layout.title.text


@pytest.mark.parametrize("count", [1, 4, 16, 17, 126])
def test_a_model_s_layers_are_ticked_on_whole_layers(count):
    """How far a token sees: plotly's own ticks for a few layers fell between them (ℓ = 0.5, 1.5, … under a four-layer
    config); up to 16 layers every layer is ticked, beyond that plotly's steps, which are whole (1, 2, 5, 10, …)."""
    from posenc.figures.layers import layers_figure

    fig = layers_figure(["full_attention"] * count, np.full(count, 99), np.full(count, 99), 100, title="t")
    assert (fig.layout.xaxis.tick0, fig.layout.xaxis.dtick) == ((0, 1) if count <= 16 else (None, None))
