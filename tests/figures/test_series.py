"""A long line chart's series is sent as what it shows (posenc.figures.series): evenly spaced integer x as x0 and
dx, y as the float32 of the digits its hover prints. Every hover prints what it printed for the exact values;
a trace that does not meet every condition is sent as it is; the figure on the server keeps its values.

Python's ``format(v, ".Ng")`` stands for plotly.js's ``%{y:.Ng}`` (d3-format: ``toPrecision(N)``): both round the
exact binary value to N significant digits, so they print the same digits."""

import copy
import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plotly_data import decode
from posenc.figures import series
from posenc.ui import cached_figures, presenter

FLOAT32_NORMAL = st.floats(min_value=1e-37, max_value=1e38)  # rounded to N digits, still float32 normal numbers


def _printed(values, digits: int) -> list[str]:
    return [format(float(v), f".{digits}g") for v in values]


def _sent_y(values, digits: int) -> np.ndarray:
    rounded = series.round_significant(np.asarray(values, dtype=np.float64), digits)
    return rounded.astype(np.float32).astype(np.float64)


@settings(max_examples=300, deadline=None)
@given(size=FLOAT32_NORMAL, sign=st.sampled_from([1.0, -1.0]), digits=st.integers(1, series.MAX_DIGITS),
       nudge=st.integers(-3, 3))
def test_the_float32_sent_prints_the_digits_of_the_exact_value(size, sign, digits, nudge):
    value = sign * size
    half = float(f"{value:.{digits}g}")  # a value on a decimal of N digits, and its neighbours a few ulps off
    near = np.nextafter(half, np.inf if nudge > 0 else -np.inf) if nudge else half
    for v in (value, near):
        assert _printed(_sent_y([v], digits), digits) == _printed([v], digits)


def test_the_float32_sent_prints_the_digits_of_the_exact_value_on_halves_and_powers_of_ten():
    halves = [0.5, 1.5, 2.5, 0.1234565, 1234565.0, 9.9999995, 9.9999994999, 999999.5, 123456.5, -0.0000123456500001]
    powers = [10.0 ** k for k in range(-37, 38)] + [np.nextafter(10.0 ** k, 0) for k in range(-37, 38)]
    for digits in range(1, series.MAX_DIGITS + 1):
        values = np.array(halves + powers + [-v for v in powers])
        values = values[np.abs(series.round_significant(values, digits)) < 3.4e38]
        assert _printed(_sent_y(values, digits), digits) == _printed(values, digits)


def test_rounding_matches_python_s_formatting_to_the_ulp():
    rng = np.random.default_rng(0)
    values = rng.standard_normal(20_000) * 10.0 ** rng.integers(-300, 300, 20_000)
    values = np.concatenate([values, [5e-324, 1e-310, 0.0, -0.0, np.nan, np.inf, -np.inf]])
    for digits in (1, 3, 6):
        rounded = series.round_significant(values, digits)
        expected = np.array([float(f"{v:.{digits}g}") for v in values])
        np.testing.assert_array_max_ulp(rounded[np.isfinite(values)], expected[np.isfinite(values)], maxulp=1)
        assert np.isnan(rounded[-3]) and rounded[-2] == np.inf and rounded[-1] == -np.inf
        assert rounded[-4] == 0 and np.signbit(rounded[-4])  # −0 stays −0


def _long(y=None, x=None, **trace) -> dict:
    size = series.MIN_POINTS
    x = np.arange(-5, -5 + 3 * size, 3) if x is None else x
    y = np.sin(np.arange(size) * 0.37) * 123.456789 if y is None else y
    return {"data": [dict(type="scatter", x=x, y=y, hovertemplate="Δ %{x}<br>value %{y:.6g}<extra></extra>") | trace],
            "layout": {}}


def test_a_long_trace_sends_x0_dx_and_float32_of_its_printed_digits():
    spec = _long()
    x, y = spec["data"][0]["x"].copy(), spec["data"][0]["y"].copy()
    trace = series.as_sent(spec)["data"][0]
    assert "x" not in trace and (trace["x0"], trace["dx"]) == (-5, 3)
    np.testing.assert_array_equal(trace["x0"] + trace["dx"] * np.arange(len(y)), x)
    assert trace["y"]["dtype"] == "f4"
    sent = decode(trace["y"]).astype(np.float64)
    assert _printed(sent, 6) == _printed(y, 6)
    assert np.abs(sent - y).max() <= 5e-6 * np.abs(y).max()
    # plotly.js reads it as any typed array plotly writes
    written = json.loads(pio.to_json(go.Figure(spec)))["data"][0]
    assert written["y"]["dtype"] == "f4" and written["x0"] == -5 and "x" not in written


@pytest.mark.parametrize("change", [
    {"hovertemplate": "value %{y}<extra></extra>"},  # printed by plotly as it is
    {"hovertemplate": "value %{y:.9f}<extra></extra>"},  # another format
    {"hovertemplate": "value %{y:.7g}<extra></extra>"},  # seven digits: float32 cannot keep them
    {"hovertemplate": "%{y:.6g} or %{y:.3g}<extra></extra>"},  # two ways
    {"hovertemplate": None},  # plotly's own hover label
    {"text": ["a"] * series.MIN_POINTS},
    {"texttemplate": "%{y}"},
    {"y": np.linspace(1e38, 1e39, series.MIN_POINTS)},  # beyond float32
    {"y": np.linspace(1e-45, 1e-40, series.MIN_POINTS)},  # subnormal in float32: digits lost
    {"y": np.arange(series.MIN_POINTS, dtype=np.int64)},  # integers: sent as plotly types them
])
def test_y_is_sent_as_it_is_unless_every_condition_holds(change):
    spec = _long(**change) if "y" not in change else _long(y=change["y"])
    before = copy.deepcopy(spec["data"][0]["y"])
    trace = series.as_sent(spec)["data"][0]
    np.testing.assert_array_equal(trace["y"], before)


@pytest.mark.parametrize("x", [np.arange(series.MIN_POINTS) * 0.5,  # not integers
                               np.r_[0, np.arange(2, series.MIN_POINTS + 1)],  # uneven
                               np.zeros(series.MIN_POINTS, dtype=int),  # no step
                               np.arange(series.MIN_POINTS - 1)])  # short
def test_x_is_sent_as_it_is_unless_evenly_spaced_integers(x):
    spec = _long(x=x, y=np.ones(len(x)))
    trace = series.as_sent(spec)["data"][0]
    assert "x0" not in trace
    np.testing.assert_array_equal(trace["x"], x)


def test_a_category_axis_and_other_traces_are_left_as_they_are():
    spec = _long()
    spec["layout"]["xaxis"] = {"type": "category"}
    spec["data"].append(dict(type="bar", x=np.arange(series.MIN_POINTS), y=np.ones(series.MIN_POINTS),
                             hovertemplate="%{y:.6g}"))
    data = series.as_sent(spec)["data"]
    assert "x" in data[0] and data[0]["y"]["dtype"] == "f4"
    assert "x" in data[1] and isinstance(data[1]["y"], np.ndarray)


def test_the_comparison_at_the_caps_prints_every_value_as_before_in_under_half_the_bytes():
    """The Comparison page's chart at the caps, as presenter.chart sends it: every transformed trace's every point
    prints as the exact curve's, the figure on the server keeps float64, and the chart's JSON is under half."""
    fig = cached_figures.comparison_figure("sinusoidal", 4096, 1024, 10000.0, ())
    exact = [np.asarray(trace.y, dtype=np.float64).copy() for trace in fig.data]
    sent = presenter.restyle(fig, present=False, dark=False).to_dict()
    assert [np.asarray(trace.y).dtype for trace in fig.data] == [np.float64] * len(fig.data)
    for trace, values in zip(sent["data"], exact):
        digits = series.hover_digits(trace)
        assert digits == 6 and trace["y"]["dtype"] == "f4", trace.get("name")
        assert _printed(decode(trace["y"]), 6) == _printed(values, 6)
        assert trace["x0"] + trace["dx"] * (len(values) - 1) == 4095  # offsets −4095 … 4095
    assert len(pio.to_json(sent, validate=False)) < 0.5 * len(pio.to_json(fig))  # both with base64 typed arrays
