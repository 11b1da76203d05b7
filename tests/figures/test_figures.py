"""Figure builders: thinning keeps true values and says so."""

import numpy as np

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
    z = decode(trace["z"])
    rows, cols = decode(trace["y"]).astype(int), np.array([int(c) for c in trace["x"]])
    assert z.dtype == np.float32
    np.testing.assert_array_equal(z, table[np.ix_(rows, cols)].astype(np.float32))
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
    np.testing.assert_array_equal(decode(trace["z"]), (table[rows] @ table[rows].T).astype(np.float32))
    assert fig.layout.title.text.count("every 4th position shown") == 1
