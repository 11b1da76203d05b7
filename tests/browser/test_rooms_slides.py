"""Every slide of both lectures, followed in place (issue 34): when the lecturer moves, a follower's tab is switched
to the new slide by the rerun the room pushes (posenc.ui.room.catch_up), without a page load; each slide must then
be exactly the slide's link in the address bar and show what a fresh tab of that link shows (every text on the page,
the charts' included), with no error."""

import re
from urllib.parse import parse_qsl, urlsplit

import pytest

from live_app import require_chromium, wait_idle
from posenc import lectures

pytestmark = pytest.mark.browser
require_chromium()


def _wait_slide(page, number: int, timeout: float = 30_000) -> None:
    page.wait_for_function(f"() => /[?&]slide={number}(&|$)/.test(location.search)", timeout=timeout)
    wait_idle(page)


def _shown(page) -> list[str]:
    """The page's text, charts' included, once the run is over and the charts drawn."""
    wait_idle(page)
    page.wait_for_timeout(300)
    wait_idle(page)
    return [line for line in page.locator("[data-testid=stMain]").inner_text().splitlines() if line.strip()]


def _address(page) -> tuple[str, list[tuple[str, str]]]:
    parts = urlsplit(page.url)
    return parts.path, sorted(parse_qsl(parts.query, keep_blank_values=True))


def _clean(page, where: str) -> None:
    assert page.locator("[data-testid=stException]").count() == 0, where
    assert page.locator("[data-testid=stAlertContentError]").count() == 0, where


@pytest.mark.parametrize("name", ["sinusoidal", "rope-to-128k"])
def test_a_follower_sees_every_slide_as_a_fresh_tab_of_its_link(app, browser, name):
    lecture = lectures.load(name)
    desk = {"viewport": {"width": 1280, "height": 900}}
    lecturer = browser.new_context(**desk).new_page()
    lecturer.goto(f"{app}/?lecture={name}&slide=1&notes=true")
    wait_idle(lecturer)
    lecturer.get_by_role("button", name=re.compile("Open a room")).click()
    lecturer.wait_for_function("() => /[?&]room=[A-Z0-9]{5}/.test(location.search)", timeout=20_000)
    wait_idle(lecturer)
    code = re.search(r"room=([A-Z0-9]{5})", lecturer.url).group(1)
    follower = browser.new_context(**desk).new_page()
    follower.goto(f"{app}/?room={code}")
    _wait_slide(follower, 1)
    follower.evaluate("() => { window.posencSameTab = true; }")
    fresh = browser.new_context(**desk).new_page()
    for number in range(2, len(lecture.slides) + 1):
        where = f"{name} slide {number}"
        lecturer.keyboard.press("PageDown")
        _wait_slide(lecturer, number)
        _wait_slide(follower, number)
        _clean(follower, where)
        assert follower.evaluate("() => window.posencSameTab === true"), f"{where}: the tab was loaded again"
        slide = lecture.slides[number - 1]
        path, query = _address(follower)
        assert path.rstrip("/").rsplit("/", 1)[-1] == slide.page, where
        link = {*slide.settings, ("lecture", name), ("slide", str(number)), ("room", code)}
        assert set(query) <= link and {("lecture", name), ("slide", str(number)), ("room", code)} <= set(query), where
        fresh.goto(follower.url)
        _wait_slide(fresh, number)
        _clean(fresh, where)
        assert _shown(follower) == _shown(fresh), where  # the follower's address reproduces its view
