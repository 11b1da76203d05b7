"""Every slide of both lectures, followed in place (issue 34): when the lecturer moves, a follower's tab is switched
to the new slide by the rerun the room pushes (posenc.ui.room.catch_up), without a page load; each slide must then
be exactly the slide's link in the address bar and show what a fresh tab of that link shows (every text on the page,
the charts' included), with no error."""

from urllib.parse import parse_qsl, urlsplit

import pytest

from live_app import require_chromium
from posenc import lectures
from room_pages import assert_no_error, open_room, wait_slide
from view_checks import settle

pytestmark = pytest.mark.browser
require_chromium()




def _shown(page) -> list[str]:
    """The page's text, charts' included, once the page has settled (view_checks.settle: the run over, the charts
    drawn, the page's elements still for 400 ms). CI (2026-12-01, both cores busy) once read a fresh tab idle
    between two runs, with its answer's label and the view under it not drawn yet."""
    settle(page)
    return [line for line in page.locator("[data-testid=stMain]").inner_text().splitlines() if line.strip()]


def _address(page) -> tuple[str, list[tuple[str, str]]]:
    parts = urlsplit(page.url)
    return parts.path, sorted(parse_qsl(parts.query, keep_blank_values=True))




@pytest.mark.parametrize("name", ["sinusoidal", "rope-to-128k"])
def test_a_follower_sees_every_slide_as_a_fresh_tab_of_its_link(app, browser, name):
    lecture = lectures.load(name)
    desk = {"viewport": {"width": 1280, "height": 900}}
    lecturer = browser.new_context(**desk).new_page()
    code = open_room(lecturer, f"{app}/?lecture={name}&slide=1&notes=true")
    follower = browser.new_context(**desk).new_page()
    follower.goto(f"{app}/?room={code}")
    wait_slide(follower, 1, 30_000)
    follower.evaluate("() => { window.posencSameTab = true; }")
    fresh = browser.new_context(**desk).new_page()
    for number in range(2, len(lecture.slides) + 1):
        where = f"{name} slide {number}"
        lecturer.keyboard.press("PageDown")
        wait_slide(lecturer, number, 30_000)
        wait_slide(follower, number, 30_000)
        assert_no_error(follower, where)
        assert follower.evaluate("() => window.posencSameTab === true"), f"{where}: the tab was loaded again"
        slide = lecture.slides[number - 1]
        path, query = _address(follower)
        assert path.rstrip("/").rsplit("/", 1)[-1] == slide.page, where
        link = {*slide.settings, ("lecture", name), ("slide", str(number)), ("room", code)}
        assert set(query) <= link and {("lecture", name), ("slide", str(number)), ("room", code)} <= set(query), where
        fresh.goto(follower.url)
        wait_slide(fresh, number, 30_000)
        assert_no_error(fresh, where)
        assert _shown(follower) == _shown(fresh), where  # the follower's address reproduces its view
