"""Which heads a per-head chart draws (posenc/ui/how_it_works/bias.py ``heads_drawn``): all up to eight, else eight
spread from the first to the last, over every head count a link can ask for and beyond."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from posenc.ui.how_it_works.bias import heads_drawn


@given(st.integers(1, 4096), st.integers(1, 64))
def test_heads_drawn_are_distinct_in_order_and_span_every_head(heads, most):
    drawn = heads_drawn(heads, most)
    assert len(drawn) == min(heads, most)
    assert drawn == sorted(set(drawn)) and all(0 <= h < heads for h in drawn)
    assert drawn[0] == 0 and (drawn[-1] == heads - 1 or most == 1)
    if heads <= most:
        assert drawn == list(range(heads))
    else:  # evenly spread: no gap more than one wider than another
        gaps = [b - a for a, b in zip(drawn, drawn[1:])]
        assert not gaps or max(gaps) - min(gaps) <= 1
