"""Every view at four screen sizes, each visited once: the desk (1920×1080), presenter mode, and a phone (390×844,
touch, light and dark). On each: axe-core finds no WCAG 2.0/2.1 A or AA violation (issue 27), every chart's title,
subplot titles, annotations and axis titles lie inside the chart and overlap neither each other nor the legend nor
the tool bar, no two tick labels of an axis overlap, with no raw TeX and no long decimal strings (issue 37), no formula,
code or table that fits scrolls by a hair (KaTeX's 2 px strut did), and on a phone the page fits the screen, a
formula wider than it scrolls in its own named box, and no chart's tool bar lies on its title (issue 28), nor a data
grid's tool bar on the text above it.

What each check measures is in tests/helpers/view_checks.py. Each size's test lists every problem it found (view,
chart, which texts), not only the first. Each view is also clean: no exception, no error box, no traceback. One
visit serves the checks: they were three tests visiting the same views (8 minutes of CI; 5 now, with the dark
phone's legibility added).
"""

import pytest

from browser_controls import assert_clean
from live_app import require_chromium
from view_checks import (
    SIZES,
    fit,
    hairline_scrollers,
    legibility,
    links,
    scroll_boxes,
    settle,
    text_contrast,
    through_axe,
    violations,
    with_query,
)

pytestmark = pytest.mark.browser
require_chromium()


@pytest.mark.parametrize("size", SIZES)
def test_every_view_is_accessible_legible_and_fits_the_screen(app, browser, size):
    options, query = SIZES[size]
    context = browser.new_context(**options)
    page = context.new_page()
    found = []
    for path in links():
        page.goto(f"{app}/{with_query(path, query)}")
        settle(page)
        assert_clean(page, f"{path} [{size}]")
        boxes = scroll_boxes(page)  # read once: the hairline check and, on a phone, the fit check
        problems = legibility(page) + text_contrast(page) + hairline_scrollers(boxes)
        if through_axe(path):
            problems += violations(page)
        if size.startswith("phone"):
            problems += fit(page, boxes)
        found += [f"{path or '/'} [{size}] {problem}" for problem in problems]
    context.close()
    assert not found, f"{len(found)} problems:\n" + "\n".join(found)
