"""Lecture rooms in real browsers, through the hall (bench/hall.py serve: 2 replicas behind HAProxy, rooms in a real
redis-server): a lecturer and two followers, one on a phone. PageDown moves both; two answers show as 2 on the
lecturer's screen; Reveal shows the answer on both; a follower who moves a control leaves and the button brings
it back; a follower cannot move the room (keys, buttons, a crafted link). Issue 34."""

import re
import shutil

import pytest

from live_app import require_chromium, running_hall, wait_idle
from room_pages import assert_no_error, open_room, wait_slide

pytestmark = pytest.mark.browser
require_chromium()
if shutil.which("redis-server") is None or shutil.which("haproxy") is None and not __import__("os").path.exists(
        "/usr/sbin/haproxy"):
    pytest.skip("the hall needs redis-server and haproxy (.ci/run installs both)", allow_module_level=True)

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


@pytest.fixture(scope="module")
def hall():
    with running_hall(2) as (url, _process):
        yield url.rstrip("/")


def _slide(page) -> str:
    found = re.search(r"[?&]slide=(\d+)", page.url)
    return found.group(1) if found else ""




def _answer(page, choice_text: str) -> None:
    page.get_by_text(choice_text, exact=True).first.click()
    page.get_by_role("button", name=re.compile("Answer")).click()
    page.get_by_text("Your answer:").first.wait_for(timeout=20_000)




def test_the_hall_follows_the_lecturer_and_answers(hall, browser):
    from posenc import lectures

    lecturer_context = browser.new_context(viewport={"width": 1920, "height": 1080})
    lecturer = lecturer_context.new_page()
    code = open_room(lecturer, f"{hall}/?lecture=sinusoidal&slide=2&notes=true&present=true")
    key_cookie = next(c for c in lecturer_context.cookies() if c["name"] == "posenc_room")
    assert key_cookie["value"].startswith(code) and key_cookie["sameSite"] == "Strict"
    key = key_cookie["value"].split(".", 1)[1]
    assert key not in lecturer.content().replace(key_cookie["value"], "")  # only in the cookie's own script

    followers = [browser.new_context(viewport={"width": 1280, "height": 900}).new_page(),
                 browser.new_context(**PHONE).new_page()]
    for page in followers:
        page.goto(f"{hall}/?room={code}")
        wait_slide(page, 2)
        page.get_by_text("Following room").first.wait_for(timeout=20_000)
        assert_no_error(page, "a follower on slide 2")
    lecturer.get_by_text("2 following").first.wait_for(timeout=20_000)

    # two answers: 2 on the lecturer's screen (its session is pushed a rerun by each)
    question = lectures.question_of("sinusoidal", 2)
    for page in followers:
        _answer(page, question.choices[int(question.correct)])
    lecturer.get_by_text("(2 answers)").first.wait_for(timeout=20_000)

    # Reveal: the answer on both phones, without a tap
    lecturer.get_by_role("button", name=re.compile("Reveal the answer")).click()
    for page in followers:
        page.get_by_text("The answer:").first.wait_for(timeout=20_000)

    # a follower cannot move the room: no keys, no Next, and a crafted link lands back on the lecturer's slide
    followers[0].keyboard.press("PageDown")
    followers[0].wait_for_timeout(1500)
    assert _slide(followers[0]) == "2" and followers[0].locator("a[data-rel=next]").count() == 0
    crafted = followers[1].context.new_page()
    crafted.goto(f"{hall}/sinusoids?lecture=sinusoidal&slide=9&room={code}&notes=true")
    wait_slide(crafted, 2)  # the room is still on slide 2: the crafted page follows it
    crafted.close()

    # PageDown on the lecturer's screen moves both followers, in place (no page load: a mark set in the tab stays)
    for page in followers:
        page.evaluate("() => { window.posencSameTab = true; }")
    lecturer.keyboard.press("PageDown")
    wait_slide(lecturer, 3)
    for page in followers:
        wait_slide(page, 3)
        wait_idle(page)
        assert_no_error(page, "a follower on slide 3")
        assert page.evaluate("() => window.posencSameTab === true")
        # slide 3 is sinusoids?curves=Wavelengths&length=512: the address and the controls are the link's

        assert "/sinusoids?" in page.url and "length=512" in page.url and "curves=Wavelengths" in page.url, page.url
        page.get_by_text("Following room").first.wait_for(timeout=20_000)
        length = page.locator('[data-testid=stSidebar] [role=slider][aria-label="length"]')
        assert length.count() == 0 or length.first.get_attribute("aria-valuenow") == "512"
        assert "Wavelengths" in page.locator("[role=radio][aria-checked=true]").first.inner_text()

    # a follower who moves a control leaves; the button brings it back to the lecturer's slide
    leaver = followers[0]
    expand = leaver.locator("[data-testid=stExpandSidebarButton]")
    if expand.count() and expand.is_visible():
        expand.click()
    handle = leaver.locator("[data-testid=stSidebar] [data-testid=stSlider] input[type=range]").first
    handle.focus()
    handle.press("ArrowRight")
    leaver.get_by_text("Follow the lecturer (slide 3)").wait_for(timeout=20_000)
    assert "room=" not in leaver.url
    lecturer.keyboard.press("PageDown")
    wait_slide(lecturer, 4)
    wait_slide(followers[1], 4)
    leaver.get_by_text("Follow the lecturer (slide 4)").wait_for(timeout=20_000)
    assert _slide(leaver) == "3"
    leaver.get_by_text("Follow the lecturer (slide 4)").click()
    wait_slide(leaver, 4)
    assert f"room={code}" in leaver.url
    for page in [lecturer, *followers]:
        assert_no_error(page, "the end")
