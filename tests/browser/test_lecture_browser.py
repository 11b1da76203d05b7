"""The lecture hall in a real browser: no request leaves the origin, the derivation steps by
link and buttons, and presenter mode enlarges text and collapses the sidebar."""

from urllib.parse import urlsplit

import pytest

from app_routes import page_paths
from live_app import require_chromium, wait_idle

pytestmark = pytest.mark.browser
require_chromium()
LOCAL_SCHEMES = {"data", "blob", "about"}  # drawn by the browser itself, never fetched


@pytest.fixture
def context(browser):
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    yield context
    context.close()


def title(page) -> str:
    return page.locator("h1").first.inner_text()


def wait_for_step(page, step: int) -> None:
    page.wait_for_function("(s) => { const h = document.querySelector('h1');"
                           " return h && h.innerText.startsWith('Step ' + s + ' of'); }", arg=step, timeout=30_000)
    wait_idle(page)


def font_size(page, selector: str) -> float:
    return page.evaluate("(s) => parseFloat(getComputedStyle(document.querySelector(s)).fontSize)", selector)


def sidebar(page) -> tuple[str, float]:
    """(data-collapsed, visible width in pixels) of the sidebar."""
    return tuple(page.evaluate("() => { const s = document.querySelector('[data-testid=stSidebar]');"
                         " const r = s.getBoundingClientRect();"
                         " return [s.dataset.collapsed, Math.max(0, Math.round(r.right))]; }"))


def test_no_request_leaves_the_origin_on_any_page_and_dark_charts_are_dark(app, browser):
    """Every page, in the dark theme: all requests go to the app's own origin, and every chart drawn
    has the theme's background (a white chart with the dark theme's light text would be unreadable)."""
    origin = urlsplit(app)
    requests = []
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, color_scheme="dark")
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    paths = page_paths()
    assert "derivation" in paths and len(paths) >= 7
    visits = [f"{path}?d_model=32&length=64" for path in paths]
    visits += ["derivation?step=9", "derivation?step=7&present=true"]  # torch's step; presenter CSS
    backgrounds = {}
    try:
        for visit in visits:
            page.goto(f"{app}/{visit}")
            wait_idle(page)
            page.wait_for_timeout(300)  # late requests: fonts, icons, chart bundles
            backgrounds[visit] = page.evaluate(
                "() => [...document.querySelectorAll('[data-testid=stPlotlyChart] .main-svg:first-child')]"
                ".map(s => getComputedStyle(s).backgroundColor)")
    finally:
        context.close()
    foreign = {url for url in requests
               if urlsplit(url).scheme not in LOCAL_SCHEMES
               and (urlsplit(url).hostname, urlsplit(url).port) != (origin.hostname, origin.port)}
    assert len(requests) > 20 and not foreign, sorted(foreign)
    assert sum(map(len, backgrounds.values())) >= 10
    assert all(colour == "rgb(14, 17, 23)" for colours in backgrounds.values() for colour in colours), backgrounds


def test_a_step_link_and_next_previous_land_on_the_right_step(app, context):
    page = context.new_page()
    page.goto(f"{app}/derivation?step=3")
    wait_for_step(page, 3)
    page.get_by_role("button", name="Next").click()
    wait_for_step(page, 4)
    page.wait_for_function("() => location.search.includes('step=4')", timeout=10_000)
    page.get_by_role("button", name="Previous").click()
    wait_for_step(page, 3)
    page.get_by_role("button", name="Previous").click()
    wait_for_step(page, 2)
    assert "step=2" in page.url
    page.goto(page.url)  # the link as copied lands on the same step
    wait_for_step(page, 2)
    page.goto(f"{app}/derivation?step=99")
    wait_for_step(page, 9)
    assert page.get_by_role("button", name="Next").is_disabled()
    assert "using 9" in page.locator("[data-testid=stAlert]").first.inner_text()


def test_presenter_mode_enlarges_text_and_collapses_the_sidebar(app, context):
    page = context.new_page()
    page.goto(f"{app}/derivation?step=2")
    wait_idle(page, charts=1)
    paragraph = "[data-testid=stMarkdownContainer] p"
    normal = font_size(page, paragraph), font_size(page, "h1")
    chart_text = "[data-testid=stPlotlyChart] .xtick text"
    normal_ticks = font_size(page, chart_text)
    assert sidebar(page) == ("false", 300)

    page.goto(f"{app}/derivation?step=2&present=true")
    wait_idle(page, charts=1)
    assert sidebar(page) == ("true", 0)  # collapsed: moved out of view
    present = font_size(page, paragraph), font_size(page, "h1")
    assert present[0] / normal[0] >= 1.3 and present[1] / normal[1] >= 1.3, (normal, present)
    assert font_size(page, chart_text) / normal_ticks >= 1.3
    width = page.evaluate("() => Math.max(...[...document.querySelectorAll('[data-testid=stPlotlyChart] "
                          ".scatterlayer path.js-line')].map(p => parseFloat(getComputedStyle(p).strokeWidth)))")
    assert width >= 3.5  # lines 1.8× thicker (2 px in the laptop view)


def test_presenter_toggle_is_bound_to_the_url(app, context):
    page = context.new_page()
    page.goto(f"{app}/sinusoids")
    wait_idle(page)
    normal = font_size(page, "h1")
    page.get_by_text("Presenter mode").click()
    page.wait_for_function("() => location.search.includes('present=true')", timeout=10_000)
    wait_idle(page)
    page.wait_for_function("(n) => parseFloat(getComputedStyle(document.querySelector('h1')).fontSize) > 1.3 * n",
                           arg=normal, timeout=10_000)


def test_dark_theme_draws_charts_on_the_dark_background(app, browser):
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, color_scheme="dark")
    try:
        page = context.new_page()
        page.goto(f"{app}/derivation?step=5")
        wait_idle(page, charts=2)
        colours = page.evaluate("() => [getComputedStyle(document.querySelector('[data-testid=stApp]'))"
                                ".backgroundColor, getComputedStyle(document.querySelector('.js-plotly-plot .main-svg'))"
                                ".backgroundColor]")
        text = page.evaluate("() => getComputedStyle(document.querySelector('.js-plotly-plot .xtick text')).fill")
    finally:
        context.close()
    assert colours == ["rgb(14, 17, 23)", "rgb(14, 17, 23)"]  # [theme.dark] backgroundColor, on the chart too
    assert text == "rgb(240, 242, 246)"
