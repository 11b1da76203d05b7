"""A move re-sends only the charts it changes (posenc/ui/presenter.py ``file_name``).

A chart's element carries its download's file name. Named after every value of the URL, a chart changed whenever
any control of its page moved, and Streamlit sent it again; named after the settings its view reads, an unchanged
chart is the same element, which Streamlit sends as a reference to the copy the browser holds (its
forward-message cache). Here each move's changed charts are exactly those that read the control moved."""

import pytest

import apptest_helpers

# (page, query, control moved and its new value, the charts that read it)
MOVES = [
    ("pages/rotation.py", {}, ("k", 3), {"vectors", "residual_per_dimension", "residuals", "phasors"}),
    ("pages/rotation.py", {}, ("pairs", [0, 5]), {"phasors"}),
    ("pages/details.py", {"scheme": "rope"}, ("rope_m", 4),
     {"rope_pairs_fig", "rope_relative_together", "rope_relative_apart"}),
    ("pages/details.py", {"scheme": "rope"}, ("patch_col", 0), {"rope_grid_ids", "rope_grid_2-D", "rope_grid_M-R"}),
    ("pages/precision.py", {"scheme": "rope"}, ("offset", 7), {"relative"}),
    ("pages/sinusoids.py", {"curves": "Against dimension"}, ("positions", [1, 2]), {"by_dimension"}),
]


@pytest.mark.parametrize(("page", "query", "move", "reads"), MOVES, ids=lambda v: str(v) if isinstance(v, tuple) else None)
def test_a_move_changes_only_the_charts_that_read_it(page, query, move, reads):
    at = apptest_helpers.run(query, page, timeout=60)
    before = apptest_helpers.chart_messages(at)
    key, value = move
    widget = next(w for w in [*at.slider, *at.multiselect] if w.key == key)
    widget.set_value(value).run()
    after = apptest_helpers.chart_messages(at)
    assert not at.error and not at.exception and set(after) == set(before)
    assert {name for name in before if after[name] != before[name]} == reads
