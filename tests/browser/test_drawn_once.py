"""A heatmap is drawn once (posenc/figures/margins.py): its margins already hold what plotly's automargin asks for,
so plotly does not widen them and draw the chart again; and they hold it with little to spare.

Read in Chromium from what plotly.js keeps: ``_fullLayout._pushmargin`` (the room each axis and the colour bar asked
for, a pushed margin's 12 px pad included) and ``_fullLayout._size`` (the margins it drew with)."""

import pytest

from live_app import require_chromium, wait_idle

pytestmark = pytest.mark.browser
require_chromium()

SPARE = 8  # px: at most this much room beyond what plotly asks for, on any side margins.hold sets

READ = """(gd) => { const full = gd._fullLayout, pushed = {l: 0, r: 0, b: 0};
  for (const [name, push] of Object.entries(full._pushmargin)) {
    if (name === 'base') continue;
    for (const side of ['l', 'r', 'b']) pushed[side] = Math.max(pushed[side], push[side].size);
  }
  return {margin: gd.layout.margin, drawn: full._size, pushed}; }"""

VIEWS = [  # every heatmap kind: a table thinned (categorical x) and whole, a bias, a score, a similarity
    "?d_model=1024&length=4096", "", "?scheme=alibi", "?scheme=rope&length=1000", "?matrix=Similarity&length=4096",
    "?scheme=kerple", "?length=100000&d_model=64",
]
# On a phone plotly tilts x labels of three digits and more (positions to 999 or 4095) and widens the bottom margin
# for them, as it may: those charts are drawn twice there (margins.py says so), as every chart was
TILTED_ON_A_PHONE = {"?scheme=rope&length=1000", "?matrix=Similarity&length=4096"}


@pytest.mark.parametrize("width", [1400, 390])
def test_a_heatmap_is_drawn_with_the_margins_it_was_sent(app, pages, width):
    page = pages(width, 1000 if width > 390 else 844)
    for view in VIEWS:
        if width == 390 and view in TILTED_ON_A_PHONE:
            continue
        page.goto(f"{app}/{view}")
        wait_idle(page, 1)
        chart = page.locator(".js-plotly-plot").first.evaluate(READ)
        margin, drawn, pushed = chart["margin"], chart["drawn"], chart["pushed"]
        for side in "lrb":
            assert drawn[side] == margin[side], (view, side, chart)  # plotly did not widen it: one draw
            assert 0 <= margin[side] - pushed[side] <= SPARE, (view, side, chart)  # it holds what was asked
