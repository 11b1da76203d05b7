"""Which indices a chart draws when it cannot draw them all (posenc.figures.charts ``evenly_spread``: ALiBi's heads,
xPos's pairs, the clocks): all up to the most, else that many spread from the first to the last, over every head
count a link can ask for and beyond."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from posenc.figures.charts import evenly_spread


@given(st.integers(1, 4096), st.integers(1, 64))
def test_the_indices_are_distinct_in_order_and_span_every_one(count, most):
    drawn = evenly_spread(count, most).tolist()
    assert len(drawn) == min(count, most)
    assert drawn == sorted(set(drawn)) and all(0 <= h < count for h in drawn)
    assert drawn[0] == 0 and (drawn[-1] == count - 1 or most == 1)
    if count <= most:
        assert drawn == list(range(count))
    else:  # evenly spread: no gap more than one wider than another
        gaps = [b - a for a, b in zip(drawn, drawn[1:])]
        assert not gaps or max(gaps) - min(gaps) <= 1
