"""A run's stale elements fade as Streamlit fades them, without an opacity transition (posenc/ui/stale_fade.py).

A page drawing posenc's page-wide element (posenc.ui.presenter.apply) and a slow run: a press of its button sleeps
3 s. In the browser, with motion as a student has it (not the other browser tests' stilled animations):

- a stale element holds no CSS transition, the opacity transition that made each element a layer of its own at
  every run's start, and runs posenc's animation of ``--posenc-stale`` instead;
- while the run is under 0.5 s old, the stale element is drawn at full opacity (a short run shows nothing);
- once the run is 1.5 s old (Streamlit's delay and duration), it is drawn at 0.33, as Streamlit drew it;
- when the run ends, the element is fresh and at full opacity again;
- while the page is held by Streamlit's full-screen view (which sets the body's ``overflow: hidden``), a stale element
  does not fade, as Streamlit fades nothing then.
"""

import time

import pytest

from live_app import launch, require_chromium, running_app, wait_idle

pytestmark = pytest.mark.browser
require_chromium()

SCRIPT = """
import time
import streamlit as st
from posenc.ui import presenter

presenter.apply(False)
if st.button("Slow run"):
    time.sleep(3.0)
st.title("Stale")
st.markdown("A paragraph that goes stale while the next run sleeps.")  # drawn after the sleep: stale during it
"""

STATE = """() => { const el = [...document.querySelectorAll('[data-testid=stElementContainer]')]
    .find(e => e.textContent.includes('A paragraph'));
  return {stale: el.getAttribute('data-stale'), opacity: Number(getComputedStyle(el).opacity),
          kinds: el.getAnimations().map(a => a.constructor.name + ':' + (a.animationName || a.transitionProperty))}; }"""


@pytest.fixture(scope="module")
def slow_app(tmp_path_factory):
    script = tmp_path_factory.mktemp("stale") / "slow.py"
    script.write_text(SCRIPT)
    with running_app(script=script) as (url, _process):
        yield url


def test_a_stale_element_fades_after_half_a_second_without_an_opacity_transition(slow_app):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 800})
            page.goto(slow_app)
            wait_idle(page)
            assert page.evaluate(STATE) == {"stale": "false", "opacity": 1, "kinds": []}
            pressed = time.monotonic()
            page.get_by_role("button", name="Slow run").click()
            page.wait_for_function("() => document.querySelector('[data-stale=true]') !== null", timeout=10_000)
            early = page.evaluate(STATE)
            early_age = time.monotonic() - pressed
            page.wait_for_timeout(max(0.0, 1.8 - (time.monotonic() - pressed)) * 1000)
            faded = page.evaluate(STATE)
            faded_age = time.monotonic() - pressed
            wait_idle(page)
            after = page.evaluate(STATE)
            page.evaluate("() => { document.body.style.overflow = 'hidden'; }")  # as Streamlit's full-screen view
            page.get_by_role("button", name="Slow run").click()
            page.wait_for_function("() => document.querySelector('[data-stale=true]') !== null", timeout=10_000)
            full_screen = page.evaluate(STATE)  # no animation to wait for, no transition: it cannot fade
            wait_idle(page)
        finally:
            browser.close()
    assert early["stale"] == "true" and early["kinds"] == ["CSSAnimation:posenc-stale"], early  # no CSSTransition
    if early_age < 0.45:  # read before the fade's delay ended (a loaded machine may read it later)
        assert early["opacity"] == 1, (early_age, early)
    assert faded_age < 2.9 and faded["stale"] == "true", (faded_age, faded)  # still the slow run
    assert faded["opacity"] == pytest.approx(0.33, abs=0.005), faded
    assert after == {"stale": "false", "opacity": 1, "kinds": []}, after
    assert full_screen == {"stale": "true", "opacity": 1, "kinds": []}, full_screen
