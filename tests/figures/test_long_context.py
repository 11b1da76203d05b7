"""posenc.figures.long_context: the figures hold the numbers they are given, on the axes they say."""

import numpy as np

from posenc.figures.long_context import REGION_COLOURS, reach_grid, scaling_regions_figure


def test_reach_grid_draws_each_curve_on_a_log_axis_with_the_contexts_marked():
    x = np.array([1, 10, 100, 131_071])
    curves = {"A": (x, np.array([1.0, 0.5, 0.25, 0.0]), "score"), "B": (x, -np.log1p(x), "bias"),
              "C": (x, np.zeros(4), "similarity")}
    fig = reach_grid(curves, {"trained context L₀": 8192, "model's context": 131_072}, x_label="distance")
    assert [trace.name for trace in fig.data[:3]] == ["A", "B", "C"]
    np.testing.assert_array_equal(fig.data[1].x, x)
    np.testing.assert_array_equal(fig.data[1].y, -np.log1p(x))
    assert fig.data[2].xaxis == "x3" and fig.layout.xaxis3.type == "log" and fig.layout.xaxis.type == "log"
    marks = fig.data[3:]  # one trace of vertical lines per panel, over its values' range
    assert [mark.xaxis for mark in marks] == ["x", "x2", "x3"]
    np.testing.assert_array_equal(marks[0].x, [8192, 8192, np.nan, 131_072, 131_072, np.nan])  # NaN: a gap
    np.testing.assert_array_equal(marks[0].y, [0.0, 1.0, np.nan, 0.0, 1.0, np.nan])
    np.testing.assert_array_equal(marks[1].y[:2], [-np.log1p(131_071), -np.log1p(1)])
    np.testing.assert_array_equal(marks[2].y[:2], [-0.5, 0.5])  # a flat curve: a unit-high line around it
    assert "131,072" in fig.layout.title.text and "8,192" in fig.layout.title.text


def test_scaling_regions_figure_colours_each_pair_by_its_region():
    before = np.array([6.0, 60.0, 600.0, 6000.0])
    after = np.array([6.0, 100.0, 4800.0, 48000.0])
    region = np.array(["extrapolated", "in between", "interpolated", "interpolated"])
    fig = scaling_regions_figure(before, after, region, original=2048, context=16_384, bounds=(512.0, 2048.0),
                                 title="t")
    np.testing.assert_array_equal(fig.data[0].y, before)
    by_name = {trace.name: trace for trace in fig.data}
    interpolated = by_name["after, interpolated (2)"]
    np.testing.assert_array_equal(interpolated.x, [2, 3])
    np.testing.assert_array_equal(interpolated.y, [4800.0, 48000.0])
    assert interpolated.marker.color == REGION_COLOURS["interpolated"]
    assert list(by_name["after, extrapolated (1)"].y) == [6.0]
    assert list(by_name["trained context L₀ = 2,048"].y) == [2048, 2048]
    assert list(by_name["extended context 16,384"].y) == [16_384, 16_384]
    assert {"scaling's bound 512", "scaling's bound 2,048"} <= set(by_name)
    assert fig.layout.yaxis.type == "log"
    no_bounds = scaling_regions_figure(before, after, region, original=2048, context=16_384, bounds=None, title="t")
    assert not any(trace.name.startswith("scaling's bound") for trace in no_bounds.data)
