"""Series of equal values drawn as one line (posenc.figures.charts.merge_equal): none hides another, every label
stays in the legend, and every line drawn holds exactly the values of each label it names."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from posenc.figures.charts import merge_equal


def test_equal_series_share_one_entry_named_in_the_order_first_seen():
    a, b = np.array([1.0, 2.0]), np.array([1.0, 3.0])
    merged = merge_equal({"p": a, "q": b, "r": a.copy(), "s": b.copy(), "t": np.array([1.0, 2.0, 3.0])})
    assert list(merged) == ["p = r", "q = s", "t"]
    np.testing.assert_array_equal(merged["p = r"], a)


@given(st.lists(st.lists(st.integers(-2, 2).map(float), min_size=1, max_size=3), min_size=0, max_size=8))
def test_no_two_lines_are_equal_and_each_names_every_series_it_stands_for(rows):
    series = {f"s{n}": np.array(row) for n, row in enumerate(rows)}
    merged = merge_equal(series)
    labels = [label for entry in merged for label in entry.split(" = ")]
    assert sorted(labels) == sorted(series)  # every series named once
    for entry, values in merged.items():
        assert all(np.array_equal(series[label], values) for label in entry.split(" = "))
    lines = list(merged.values())
    assert not any(np.array_equal(x, y) for n, x in enumerate(lines) for y in lines[n + 1:])
