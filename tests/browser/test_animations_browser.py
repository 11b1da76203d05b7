"""Every animation in a real browser: it opens paused, plotly's ▶ Play changes the drawn data frame after
frame while the page sends nothing on its websocket, and under prefers-reduced-motion Play is hidden while
the slider still steps the frames."""

import pytest

from live_app import require_chromium, wait_idle

pytestmark = pytest.mark.browser
require_chromium()

ANIMATIONS = [  # (link, index of the animation among the page's animated charts, what it shows)
    ("/details?scheme=sinusoidal", 0, "clocks"),
    ("/rotation?scheme=sinusoidal&pos=3", 0, "rotation"),
    ("/details?scheme=rope", 0, "rope_clocks"),
    ("/details?scheme=rope&rope_m=2&rope_n=9", 1, "rope_together"),
    ("/details?scheme=rope&rope_m=2&rope_n=9", 2, "rope_apart"),
    ("/generalization?map_scheme=alibi", 0, "lab"),
]

STATE = """(plot) => {
    const plain = v => (v && v._inputArray ? plain(v._inputArray)
        : ArrayBuffer.isView(v) ? Array.from(v) : Array.isArray(v) ? v.map(plain) : v);
    return {active: plot._fullLayout.sliders[0].active, frames: plot._transitionData._frames.length,
            data: JSON.stringify(plot._fullData.map(t => [plain(t.x), plain(t.y), plain(t.z)])),
            y: plot._fullData.map(t => plain(t.y))};
}"""


def animated_plots(page):
    """The page's animated charts (those with plotly's ▶ Play button), in page order."""
    plots = page.locator("[data-testid=stPlotlyChart] .js-plotly-plot")
    return [plots.nth(i) for i in range(plots.count()) if plots.nth(i).locator("g.updatemenu-button").count()]


def open_page(browser, app, link, reduced=False):
    context = browser.new_context(viewport={"width": 1600, "height": 1000},
                                  reduced_motion="reduce" if reduced else "no-preference")
    page = context.new_page()
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    page.goto(app + link)
    wait_idle(page, charts=1)
    page.wait_for_function("() => [...document.querySelectorAll('g.updatemenu-button')].length > 0", timeout=60_000)
    page.wait_for_timeout(1000)  # the run's last messages, then silence
    assert page.locator("[data-testid=stException]").count() == 0
    return context, page, sent


@pytest.mark.parametrize("link, index, name", ANIMATIONS, ids=[a[2] for a in ANIMATIONS])
def test_the_animation_starts_paused_then_plays_in_the_browser_alone(app, browser, link, index, name):
    context, page, sent = open_page(browser, app, link)
    plot = animated_plots(page)[index]
    plot.scroll_into_view_if_needed()
    first = plot.evaluate(STATE)
    assert first["active"] == 0 and first["frames"] >= 2
    page.wait_for_timeout(800)
    assert plot.evaluate(STATE)["data"] == first["data"]  # paused: nothing moves by itself
    before = len(sent)
    plot.locator("g.updatemenu-button", has_text="▶ Play").click()
    seen, actives = [first], [0]
    for _ in range(50):  # up to 15 s: a loaded machine draws the lab's 24 heatmap frames slowly
        page.wait_for_timeout(300)
        state = plot.evaluate(STATE)
        seen.append(state)
        actives.append(state["active"])
        if len({s["data"] for s in seen}) >= 5 and state["active"] > 2:
            break
    assert len({s["data"] for s in seen}) >= 5, f"{name}: the drawn data did not change frame after frame"
    assert actives[-1] > 2 and actives == sorted(actives) or actives[-1] == first["frames"] - 1
    plot.locator("g.updatemenu-button", has_text="Pause").click()
    page.wait_for_timeout(400)
    held = plot.evaluate(STATE)
    page.wait_for_timeout(600)
    assert plot.evaluate(STATE)["data"] == held["data"]  # paused again
    assert len(sent) == before, f"{name}: the page sent {len(sent) - before} websocket frames while playing"
    if name in ("rope_together", "rope_apart"):  # the score marker (trace 2): constant together, moving apart
        scores = {round(s["y"][2][0], 9) for s in seen}
        assert len(scores) == 1 if name == "rope_together" else len(scores) >= 5
    context.close()


def test_the_speed_buttons_set_the_frame_duration(app, browser):
    context, page, _ = open_page(browser, app, "/details?scheme=sinusoidal")
    plot = animated_plots(page)[0]
    plot.scroll_into_view_if_needed()
    duration = "(p) => p._fullLayout.updatemenus[0].buttons[0].args[1].frame.duration"
    normal = plot.evaluate(duration)
    plot.locator("g.updatemenu-button", has_text="2×").click()
    page.wait_for_timeout(300)
    assert plot.evaluate(duration) == normal / 2
    plot.locator("g.updatemenu-button", has_text="0.5×").click()
    page.wait_for_timeout(300)
    assert plot.evaluate(duration) == normal * 2
    context.close()


def test_reduced_motion_hides_play_and_the_slider_still_steps(app, browser):
    context, page, sent = open_page(browser, app, "/details?scheme=sinusoidal", reduced=True)
    plot = animated_plots(page)[0]
    plot.scroll_into_view_if_needed()
    assert not plot.locator("g.updatemenu-button", has_text="▶ Play").is_visible()
    assert plot.locator("g.updatemenu-button", has_text="2×").is_visible()
    first = plot.evaluate(STATE)
    page.wait_for_timeout(800)
    assert plot.evaluate(STATE)["data"] == first["data"]
    before = len(sent)
    rail = plot.locator("rect.slider-rail-touch-rect").first
    box = rail.bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + box["height"] / 2)  # a step halfway along
    page.wait_for_timeout(500)
    stepped = plot.evaluate(STATE)
    assert stepped["active"] > 10 and stepped["data"] != first["data"]
    assert len(sent) == before
    context.close()
