"""A chart's text alternative: the sentence and the tables are built from the figure's own numbers."""

import numpy as np
import plotly.graph_objects as go

import posenc
from posenc.figures import charts, heatmaps
from posenc.figures.describe import data_tables, describe, number, plain


def test_number_prints_three_significant_digits_and_a_true_minus():
    assert [number(v) for v in (0.0, 49.0, -1.0, 0.98935, -0.0004567, 12345.0, 2.5e9)] == \
        ["0", "49", "−1", "0.989", "−0.000457", "12345", "2.5e+09"]


def test_plain_drops_plotly_markup():
    assert plain("PE<br><sup>every 4th position shown</sup>") == "PE: every 4th position shown"
    assert plain("<b>copy</b> &amp; reverse") == "copy & reverse"
    assert plain(None) == ""


def test_line_chart_sentence_names_series_and_ranges():
    x = np.arange(5)
    fig = charts.line_chart(x, {"dim 0": np.array([0.0, 0.5, -1.0, 2.0, 1.25]), "dim 1": np.zeros(5)},
                            title="Each dimension", x_label="position", y_label="value")
    assert describe(fig) == ('Line chart "Each dimension": 2 series (dim 0, dim 1); x (position) from 0 to 4; '
                             "y (value) from −1 to 2.")


def test_sinusoid_sentence_carries_the_current_numbers():
    table = posenc.sinusoidal(50, 8)
    fig = charts.line_chart(np.arange(50), {"dim 4": table[:, 4]}, title="Sinusoid", x_label="position",
                            y_label="PE", log_y=True)
    # dimension 4 of 8 is sin(pos / 10000^(4/8)) = sin(pos / 100): 0 at pos 0, sin(0.49) = 0.4706 at pos 49
    assert describe(fig) == ('Line chart "Sinusoid": 1 series (dim 4); x (position) from 0 to 49; '
                             "y (PE) from 0 to 0.471, log scale.")


def test_heatmap_sentence_gives_size_axes_and_values():
    fig = heatmaps.heatmap(posenc.sinusoidal(10, 8), title="PE: positions × dimensions", x_label="dimension",
                           y_label="position")
    assert describe(fig) == ('Heatmap "PE: positions × dimensions": 10 rows × 8 columns; x (dimension) from 0 to 7; '
                             "y (position) from 0 to 9; values from −0.99 to 1.")


def test_thinned_heatmap_counts_the_cells_shown_and_keeps_the_note():
    fig = heatmaps.heatmap(posenc.sinusoidal(1000, 600), title="PE", x_label="dimension", y_label="position",
                           col_group=2)
    assert describe(fig) == ('Heatmap "PE: every 4th position shown; every 3rd dimension pair shown (colours in 255 '
                             'levels; exact values in Chart data)": 250 rows × 200 columns; x (dimension) from 0 to 595; '
                             "y (position) from 0 to 996; values from −1 to 1.")


def test_many_series_are_counted_and_categories_described():
    series = {f"s{i}": np.full(3, float(i)) for i in range(8)}
    fig = charts.line_chart(np.arange(3), series, title="", x_label="", y_label="")
    assert describe(fig) == ("Line chart: 8 series (s0, s1, s2, s3, s4, s5 and 2 more); x from 0 to 2; "
                             "y from 0 to 7.")
    bars = go.Figure(dict(data=[dict(type="bar", x=["RoPE", "ALiBi", "T5"], y=[0.25, 1.0, 0.5])],
                          layout=dict(title=dict(text="Accuracy"), yaxis=dict(title=dict(text="exact match")))))
    assert describe(bars) == ('Bar chart "Accuracy": 1 series; x: 3 categories, RoPE to T5; '
                              "y (exact match) from 0.25 to 1.")
    assert describe(go.Figure()) == "Chart: no data."


def test_data_tables_hold_the_traces_numbers():
    x = np.arange(4)
    fig = charts.line_chart(x, {"a": x * 2.0}, title="t", x_label="x", y_label="y")
    [(caption, columns)] = data_tables(fig)
    assert caption == "a"
    np.testing.assert_array_equal(columns["x"], x)
    np.testing.assert_array_equal(columns["y"], x * 2.0)
    table = posenc.sinusoidal(6, 4)
    [(caption, columns)] = data_tables(heatmaps.heatmap(table, title="t", x_label="d", y_label="p"))
    assert list(columns) == ["y", "0", "1", "2", "3"]
    np.testing.assert_array_equal(columns["y"], np.arange(6))
    np.testing.assert_array_equal(columns["2"], table[:, 2].astype(np.float32))


def test_data_tables_keep_the_first_rows_of_a_large_trace_and_say_so():
    fig = charts.line_chart(np.arange(1000), {"a": np.ones(1000)}, title="t", x_label="x", y_label="y")
    [(caption, columns)] = data_tables(fig, max_cells=100)
    assert caption == "a: the first 50 of 1000 rows"
    assert len(columns["x"]) == 50


def test_data_tables_take_a_single_number_and_columns_of_other_lengths():
    """A marker's or an animation frame's x or y can be one number (it crashed "Chart data": len() of unsized
    object); points pair by index, as plotly draws them, so every table's columns have one length."""
    import pandas as pd
    import plotly.graph_objects as go

    # unvalidated, as posenc.figures.animations builds its figures (plotly's validation refuses a scalar x)
    fig = go.Figure(dict(data=[dict(type="scatter", x=np.float64(3.0), y=np.array([1.0, 2.0]), name="marker"),
                               dict(type="scatter", x=[0, 1, 2], y=[5.0, 6.0], name="short"),
                               dict(type="scatter", x=4, y=7.5, name="point"),
                               dict(type="heatmap", z=np.arange(6.0).reshape(2, 3), x=[10, 20, 30, 40], y=[0])]),
                    _validate=False)
    tables = dict(data_tables(fig))
    np.testing.assert_array_equal(tables["marker"]["x"], [3.0, 3.0])
    np.testing.assert_array_equal(tables["short"]["x"], [0, 1])
    np.testing.assert_array_equal(tables["point"]["y"], [7.5])
    assert list(tables["trace 4"]) == ["y", "10", "20", "30"]
    np.testing.assert_array_equal(tables["trace 4"]["20"], [1.0])  # the rows y names
    for columns in tables.values():
        pd.DataFrame(columns)  # st.dataframe's own conversion: equal lengths
