"""compute.built_once: a figure drawn inline from a view's numbers is built once for its key and shared, so that the
restyled copy presenter.styled keeps for it is reused too (posenc/ui/compute.py)."""

import plotly.graph_objects as go

from posenc.ui import compute, presenter


def test_a_key_builds_once_and_every_caller_gets_the_same_figure():
    calls = []

    def build():
        calls.append(1)
        return go.Figure(go.Scatter(x=[0, 1], y=[2, 3]), layout=dict(title="t"))

    first = compute.built_once(("test", 1), build)
    again = compute.built_once(("test", 1), build)
    assert first is again and len(calls) == 1
    assert list(first.data[0].y) == [2, 3]
    styled = presenter.styled(first, present=False, dark=False, colours="default")
    assert presenter.styled(again, present=False, dark=False, colours="default") is styled


def test_other_keys_build_again_and_the_cache_stays_bounded():
    figures = [compute.built_once(("test-bound", n), lambda n=n: go.Figure(go.Bar(y=[n]))) for n in range(40)]
    assert [list(figure.data[0].y) for figure in figures] == [[n] for n in range(40)]
    assert len(compute._BUILT) <= compute.CACHE_ENTRIES
    assert compute.built_once(("test-bound", 39), lambda: go.Figure()) is figures[-1]  # the newest is kept
