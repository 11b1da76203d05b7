"""A page change keeps the view, tried as a new user would in a real browser: open a link with settings
that are not the defaults, click through the sidebar's pages, and after each click check that the new
page shows the link's settings and that its address, opened in a new visitor's tab, shows the same controls.

Before the fix, the first click reset the view to the defaults (sinusoidal, 128, 100, 10000) and
the address bar of every other page was bare (``/compare``): the shared widgets were the page's own,
and Streamlit starts a page's own widgets afresh (posenc/ui/sidebar.py ``draw``)."""

from urllib.parse import parse_qs, urlsplit

import pytest

from browser_controls import assert_link_reproduces, settle
from live_app import require_chromium, wait_idle

pytestmark = pytest.mark.browser
require_chromium()

SIDEBAR_VALUES = """() => Object.fromEntries([...document.querySelectorAll(
    '[data-testid=stSidebar] [data-testid=stSlider], [data-testid=stSidebar] [data-testid=stSelectbox],'
    + ' [data-testid=stSidebar] [data-testid=stNumberInput]')].map(e => [
        (e.querySelector('[data-testid=stWidgetLabel]') || e).innerText.trim(),
        (e.querySelector('input[type=range]') || e.querySelector('input')).value]))"""

# (the link a student opens, what the sidebar must show on every page, the URL keys it must carry, the route)
ROUTES = [
    ("/?scheme=learned&d_model=418&length=40&n=2",
     {"scheme": "learned", "d_model": "418", "length": "40", "n (base)": "2"},
     {"scheme": "learned", "d_model": "418", "length": "40"},
     ["Sinusoids", "Comparison", "Derivation", "How it works", "Encoding matrix"]),
    ("/rotation?scheme=rope&rope.rope_type=yarn&rope.factor=8&d_model=64&present=true",
     {"scheme": "rope", "d_model": "64", "Context-extension scaling": "yarn"},
     {"scheme": "rope", "d_model": "64", "rope.rope_type": "yarn", "rope.factor": "8", "present": "true"},
     ["How it works", "Precision", "Properties", "Rotation check"]),
    ("/details?scheme=t5&t5.num_buckets=16&length=300",
     {"scheme": "t5", "length": "300"},
     {"scheme": "t5", "t5.num_buckets": "16", "length": "300"},
     ["Length generalization", "Encoding matrix", "Comparison"]),
]


def query(url: str) -> dict[str, str]:
    return {key: values[-1] for key, values in parse_qs(urlsplit(url).query).items()}


def same_number(a: str, b: str) -> bool:
    try:
        return float(a) == float(b)
    except ValueError:
        return a == b


@pytest.mark.parametrize(("link", "shown", "carried", "route"), ROUTES)
def test_sidebar_clicks_keep_the_view_and_the_address(pages, app, link, shown, carried, route):
    page = pages()
    page.goto(app + link)
    wait_idle(page)
    settle(page, debounce=0)
    for title in route:
        link = page.locator("[data-testid=stSidebarNav] a", has_text=title).first
        expand = page.locator("[data-testid=stExpandSidebarButton]")
        if expand.count() and expand.is_visible():  # presenter mode opens with the sidebar collapsed
            expand.click()
        link.click()
        page.wait_for_function("(t) => document.querySelector('h1') !== null", arg=title)
        settle(page)
        where = f"{link} -> {title}"
        values = page.evaluate(SIDEBAR_VALUES)
        assert {key: values.get(key) for key in shown} == shown, where
        address = query(page.url)
        assert all(same_number(address.get(key, ""), value) for key, value in carried.items()), (where, page.url)
        if "present" in carried:
            assert page.evaluate("getComputedStyle(document.documentElement).fontSize") == "22.4px", where
        assert_link_reproduces(pages, page, where)
