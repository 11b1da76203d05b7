"""Compute only what is shown, and be honest when thinning: the cells a chart draws are the table's
own values (thinned and zoomed), and every column too fast for the row stride is marked."""

import numpy as np
import pytest

import posenc
from apptest_helpers import charts, run, title
from plotly_data import decode, heatmap_cells, sent
from posenc.analysis import offset_curves, table_cells
from posenc.figures import heatmaps
from posenc.schemes.sinusoidal import sinusoidal_cells
from posenc.ui import cached_figures


def cells(spec: dict, number: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cells a chart sends (float32 values, or colour levels) and the true row and column indices it labels
    them with: a heatmap's, or the image's a large one is sent as (posenc.figures.images)."""
    z, rows, cols = heatmap_cells(spec, number)
    return z, rows.astype(int), np.array([int(c) for c in cols])


@pytest.mark.parametrize("length, d_model, base, options", [
    (4096, 1024, 10000.0, {}),
    (4096, 1024, 10000.0, {"layout": "split", "spacing": "tensor2tensor"}),
    (777, 33, 7.5, {"spacing": "tensor2tensor"}),
    (300, 2, 1e9, {"layout": "split"}),
])
def test_sinusoidal_cells_equal_the_table_bit_for_bit(length, d_model, base, options):
    table = posenc.sinusoidal(length, d_model, base, **options)
    rng = np.random.default_rng(0)
    rows, cols = rng.integers(0, length, 200), rng.integers(0, d_model, 100)
    got = table_cells.table_cells("sinusoidal", length, d_model, base, rows, cols, **options)
    np.testing.assert_array_equal(got, table[np.ix_(rows, cols)])
    thin = heatmaps.thin_index(length)
    np.testing.assert_array_equal(sinusoidal_cells(thin, np.arange(d_model), d_model, base, **options),
                                  table[thin])


@pytest.mark.parametrize("table_size", [1, 300, 512, 4096])
def test_learned_cells_equal_the_table_and_are_nan_past_it(table_size):
    table = posenc.learned_absolute(4096, 24, table_size=table_size, seed=5)
    rows = np.array([0, 1, 255, 256, 257, 299, 300, 511, 512, 4095])
    got = table_cells.table_cells("learned", 4096, 24, 1.0, rows, [0, 7, 23], table_size=table_size, seed=5)
    np.testing.assert_array_equal(got, table[np.ix_(rows, [0, 7, 23])])


@pytest.mark.parametrize("length, k", [(1, 0), (50, 3), (777, 16), (4096, 128)])
def test_shaw_clip_cells_equal_the_full_matrix(length, k):
    rows = np.unique(np.r_[heatmaps.thin_index(length), length - 1])
    cols = np.random.default_rng(1).integers(0, length, 64)
    got = table_cells.shaw_clip_cells(length, k, rows, cols)
    np.testing.assert_array_equal(got, posenc.shaw_relative_positions(length, k)[np.ix_(rows, cols)])
    assert got.dtype == np.int64
    with pytest.raises(ValueError, match="rows must be at least 0 and below"):
        table_cells.shaw_clip_cells(length, k, [length], [0])
    with pytest.raises(ValueError, match="max_relative_position"):
        table_cells.shaw_clip_cells(length, -1, [0], [0])


def test_cells_refuse_positions_outside_the_table():
    with pytest.raises(ValueError, match="rows must be at least 0 and below 10"):
        table_cells.table_cells("sinusoidal", 10, 8, 1e4, [10], [0])
    with pytest.raises(ValueError, match="columns"):
        table_cells.table_cells("nope", 10, 8, 1e4, [0], [8])


@pytest.mark.parametrize("scheme, length, d_model, options", [
    ("sinusoidal", 4096, 1024, {}),
    ("sinusoidal", 301, 33, {"spacing": "tensor2tensor"}),
    ("sinusoidal", 200, 64, {"layout": "split"}),
    ("rope", 4096, 1024, {}),
    ("rope", 300, 100, {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}),
    ("rope", 300, 100, {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 64,
                        "rotary_fraction": 0.5, "layout": "half"}),
    ("learned", 2000, 64, {"table_size": 512}),
    ("learned", 300, 16, {"table_size": 4096, "seed": 3}),
    ("t5", 300, 16, {}),
])
def test_fast_offset_curves_equal_the_registry(scheme, length, d_model, options):
    entry = posenc.get_scheme(scheme)
    chosen = entry.defaults() | options
    offsets, values = offset_curves.offset_curve(scheme, length, d_model, 500.0, **chosen)
    want_offsets, want = entry.offset_curve(length, d_model, 500.0, **chosen)
    np.testing.assert_array_equal(offsets, want_offsets)
    np.testing.assert_allclose(values, want, rtol=1e-12, atol=1e-12 * d_model)  # the FFT route rounds ~1e-13·d


def test_aliased_columns_are_those_with_wavelength_under_two_strides():
    waves = table_cells.column_wavelengths("sinusoidal", 1024, 1e4)
    np.testing.assert_array_equal(waves[0::2], posenc.wavelengths(1024))
    np.testing.assert_array_equal(table_cells.aliased_columns(waves, 16), np.flatnonzero(waves < 32))
    assert table_cells.aliased_columns(waves, 1).size == 0 and table_cells.column_wavelengths("learned", 8, 1.0) is None


def test_thinned_table_holds_true_values_and_marks_every_aliased_column():
    at = run({"d_model": "1024", "length": "4096"})
    fig = charts(at)[0]
    trace = fig["data"][0]
    z, rows, cols = cells(fig)
    stride = rows[1] - rows[0]
    assert stride == 16 and len(rows) <= 256 and len(cols) <= 256
    exact = posenc.sinusoidal(4096, 1024)[np.ix_(rows, cols)]
    np.testing.assert_array_equal(z, sent(trace, exact))  # 65,536 cells: their colour levels, as an image
    assert z.dtype == np.uint8 and trace["meta"] == {"levels": [-1.0, 1.0]}
    shared = cached_figures.table_heatmap("sinusoidal", 4096, 1024, 10000.0, ())  # the figure this run drew, cached
    np.testing.assert_array_equal(heatmaps.exact_values(shared, 0, shared.data[0]), exact.astype(np.float32))
    waves = np.repeat(posenc.wavelengths(1024), 2)  # interleaved: columns 2i and 2i+1 share θ_i
    expected = [int(c) for c in cols if waves[c] < 2 * stride]
    assert expected and fig["layout"]["meta"] == {"aliased": expected, "stride": 16}
    marks = [s for s in fig["layout"]["shapes"] if s["name"] == "aliased at this stride"]
    covered = [int(c) for n, c in enumerate(cols) if any(s["x0"] < n < s["x1"] for s in marks)]
    assert covered == expected  # columns placed 0, 1, 2, …: shapes span the places of the marked columns
    assert all(s["label"]["text"] == "aliased at this stride" for s in marks)
    assert f"{len(expected)} dimensions with wavelength under 2 × 16 marked" in title(fig)


def test_window_view_draws_256_positions_and_dimensions_at_full_resolution():
    window_view = {"d_model": "1024", "length": "4096", "view": "window", "window.pos": "1000", "window.dim": "300"}
    at = run(window_view)
    table, = charts(at)  # lazy tabs: only the open one (Table) is computed and sent
    z, rows, cols = cells(table)
    np.testing.assert_array_equal(rows, np.arange(1000, 1256))
    np.testing.assert_array_equal(cols, np.arange(300, 556))
    full = posenc.sinusoidal(4096, 1024)
    np.testing.assert_array_equal(z, sent(table["data"][0], full[1000:1256, 300:556]))
    assert "meta" not in table["layout"]  # full resolution: nothing is aliased
    assert "position 1000 … 1255 of 4096" in title(table)
    window = full[1000:1256]
    similarity, = charts(run(window_view | {"matrix": "Similarity"}))
    bound = similarity["data"][0]["meta"]["levels"][1]
    np.testing.assert_allclose(heatmaps.level_value(cells(similarity)[0], (-bound, bound)), window @ window.T,
                               atol=bound / 254 + 1e-6)  # half a level of the span 2·bound
    assert at.query_params["window.pos"] == "1000"  # the window lives in the URL


def test_the_matrix_tabs_are_lazy_and_live_in_the_url():
    """Only the open tab's chart is computed and sent; ?matrix= opens a tab, a bad value warns."""
    assert [title(c).startswith("PE·PEᵀ: similarity") for c in charts(run({"matrix": "Similarity"}))] == [True]
    at = run({"matrix": "[x](https://evil.example)"})
    assert len(charts(at)) == 1 and "matrix" not in at.query_params
    assert any("`matrix`" in w.value.replace(" ", "") and "using" in w.value for w in at.warning)
    assert not any("](" in w.value and "`" not in w.value for w in at.warning)


def test_window_past_the_end_is_clamped_with_a_warning():
    at = run({"length": "1000", "view": "window", "window.pos": "999"})
    _, rows, _ = cells(charts(at)[0])
    np.testing.assert_array_equal(rows, np.arange(744, 1000))
    assert any("window.pos" in w.value for w in at.warning)


@pytest.mark.parametrize("query", [{"scheme": "alibi"}, {"scheme": "rope"}])
def test_position_matrices_hold_true_values_thinned_and_windowed(query):
    length = 3000
    for view in ({}, {"view": "window", "window.pos": "2000"}):
        at = run(query | {"length": str(length), "d_model": "64"} | view)
        spec = charts(at)[0]
        trace = spec["data"][0]
        z, rows, cols = cells(spec)
        offsets, values = posenc.get_scheme(query["scheme"]).offset_curve(length, 64, 10000.0,
                                                                           **posenc.get_scheme(query["scheme"]).defaults())
        want = values[cols[None, :] - rows[:, None] + length - 1]
        if "meta" in trace:  # colour levels (256 × 256 cells): each within half a level of its value
            low, high = trace["meta"]["levels"]
            got = heatmaps.level_value(z, (low, high))
            np.testing.assert_allclose(got, want, atol=(high - low) / 254 / 2 + 1e-6)
        else:
            np.testing.assert_allclose(z, want.astype(np.float32), rtol=1e-6, atol=1e-6)
        assert (rows[1] - rows[0] == 12) if not view else rows[0] == 2000 and len(rows) == 256


def test_send_all_in_an_old_link_is_ignored_with_a_warning():
    at = run({"send_all": "true", "length": "600", "d_model": "64"})
    assert any("`send_all` is no longer used" in w.value for w in at.warning)
    assert decode(charts(at)[0]["data"][0]["z"]).shape == (200, 64)
