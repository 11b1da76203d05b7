"""posenc.figures.layout.log_axis: a log axis labels whole decades, never a small 2 or 5 under a decade's exponent
(what ran into "10⁴" in presenter mode), whatever its values; and the charts drawn on a log axis use it."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.figures import charts
from posenc.figures.layers import layers_figure
from posenc.figures.layout import DECADES_LABELLED, log_axis
from posenc.figures.long_context import dropped_scaling_figure, reach_grid, scaling_regions_figure

DECADES = dict(dtick=1, minor=dict(dtick="D2", showgrid=True))


@pytest.mark.parametrize("low, high", [(6.28, 54_410.0), (1.0, 10.0), (1e-18, 1.6e-15), (1.0, 10.0 ** DECADES_LABELLED)])
def test_one_to_six_decades_are_labelled_at_each_decade_with_unlabelled_lines_between(low, high):
    spec = log_axis("wavelength", np.geomspace(low, high, 50))
    assert spec["type"] == "log" and spec["exponentformat"] == "power" and spec["title"] == {"text": "wavelength"}
    assert {key: spec[key] for key in DECADES} == DECADES and "range" not in spec  # plotly's autorange


@pytest.mark.parametrize("value", [1e-18, 131_072.0, 1.0])
def test_equal_values_get_the_decade_on_either_side(value):
    spec = log_axis(None, np.full(32, value), [value])
    assert spec["range"] == pytest.approx([np.log10(value) - 1, np.log10(value) + 1])
    assert spec["dtick"] == 1 and "title" not in spec


@pytest.mark.parametrize("values, decades", [(np.linspace(6.28, 12.6, 9), [0, 2]), ([4096, 32_768], [3, 5]),
                                             ([1000.0, 5000.0], [2, 4]), ([20.0, 80.0], [1, 2])])
def test_values_within_a_decade_get_the_whole_decades_around_them(values, decades):
    """Mistral's layers see 4,096 to 32,768 positions: plotly's range from the bars' foot spanned more than a
    decade and it labelled every digit, "8" on "9" in presenter mode. A value on a decade is kept off the edge."""
    spec = log_axis("y", values)
    assert spec["range"] == decades and spec["dtick"] == 1 and spec["minor"]["dtick"] == "D2"


@pytest.mark.parametrize("values", [np.geomspace(1e-16, 1e-2, 9),  # > 6 decades
                                    np.array([0.0, -1.0, np.nan]), np.array([])])  # nothing a log axis draws
def test_beyond_six_decades_or_nothing_to_draw_plotly_picks(values):
    spec = log_axis("y", values)
    assert not {"dtick", "minor", "range"} & set(spec) and spec["type"] == "log"


def test_zeros_negatives_and_nan_are_ignored_and_several_arrays_count_together():
    spec = log_axis("y", np.array([0.0, -3.0, np.nan, 10.0]), [1000.0])
    assert spec["dtick"] == 1 and "range" not in spec  # 10 to 1000: two decades


def test_every_chart_on_a_log_axis_takes_it():
    x = np.arange(64)
    line = charts.line_chart(x, {"wavelength": 2 * np.pi * 10_000 ** (x / 64)}, title="t", x_label="i", y_label="λ",
                             log_y=True)
    assert line.layout.yaxis.dtick == 1 and line.layout.yaxis.minor.dtick == "D2"
    assert charts.line_chart(x, {"a": x + 1.0}, title="t", x_label="i", y_label="a").layout.yaxis.type is None
    layers = layers_figure(["full_attention"] * 4, np.full(4, 131_071), np.full(4, 131_071), 131_072, title="t")
    assert layers.layout.yaxis.range == pytest.approx((np.log10(131_072) - 1, np.log10(131_072) + 1))
    distances = np.geomspace(1, 131_072, 40)
    grid = reach_grid({"A": (distances, np.ones(40), "score")}, {"L": 8192}, x_label="distance")
    dropped = dropped_scaling_figure(distances, np.ones(40), np.ones(40), first_disagreement=None,
                                     contexts={"L": 8192}, title="t")
    regions = scaling_regions_figure(np.geomspace(6, 6e5, 8), np.geomspace(6, 6e5, 8), np.array(["interpolated"] * 8),
                                     original=8192, context=131_072, bounds=None, title="t")
    assert grid.layout.xaxis.dtick == dropped.layout.xaxis.dtick == regions.layout.yaxis.dtick == 1


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=40))
@settings(max_examples=300, deadline=None)
def test_any_values_give_a_log_axis_whose_range_holds_the_values_it_draws(values):
    spec = log_axis("y", np.array(values, dtype=np.float64))
    assert spec["type"] == "log"
    drawn = [v for v in values if np.isfinite(v) and v > 0]
    if "range" in spec:
        assert all(np.isfinite(spec["range"])) and spec["range"][0] < spec["range"][1]
        assert spec["range"][0] <= np.log10(min(drawn)) and np.log10(max(drawn)) <= spec["range"][1]
    if "dtick" in spec:
        assert drawn and np.log10(max(drawn)) - np.log10(min(drawn)) <= DECADES_LABELLED
