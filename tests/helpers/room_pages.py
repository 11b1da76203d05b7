"""Lecture rooms in a real browser, shared by tests/browser/test_rooms_browser.py and test_rooms_slides.py: open a
room from a lecturer's page, wait for a slide, and a page without an error."""

import re

from live_app import wait_idle


def open_room(lecturer, url: str) -> str:
    """Open ``url`` (a slide with ``notes=true``), press **Open a room**; the room's code from the address bar."""
    lecturer.goto(url)
    wait_idle(lecturer)
    lecturer.get_by_role("button", name=re.compile("Open a room")).click()
    lecturer.wait_for_function("() => /[?&]room=[A-Z0-9]{5}/.test(location.search)", timeout=20_000)
    wait_idle(lecturer)
    return re.search(r"room=([A-Z0-9]{5})", lecturer.url).group(1)


def wait_slide(page, number: int, timeout: float = 20_000) -> None:
    page.wait_for_function(f"() => /[?&]slide={number}(&|$)/.test(location.search)", timeout=timeout)
    wait_idle(page)


def assert_no_error(page, where: str) -> None:
    assert page.locator("[data-testid=stException]").count() == 0, where
    assert page.locator("[data-testid=stAlertContentError]").count() == 0, where
