"""WCAG 2.0/2.1 A and AA in a real browser: axe-core on every page at the desk (1920×1080), in presenter
mode and on a phone (390×844, light and dark), 0 violations; every chart's text alternative and data; the keyboard.

axe-core comes with axe-playwright-python (requirements-dev.txt). posenc's part of it is
posenc/ui/accessibility.py (page-wide) and posenc/ui/presenter.py (charts).
"""


import numpy as np
import pytest

import posenc
from app_routes import page_paths
from live_app import require_chromium, wait_idle

pytestmark = pytest.mark.browser
require_chromium()

WCAG_AA = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
           "resultTypes": ["violations"]}
# How it works draws a different view per scheme; RoPE's formula is wider than a phone (and than its column).
SCHEMES_OF_HOW_IT_WORKS = ("rope", "t5", "alibi", "kerple", "transformer_xl")
# (viewport, query, theme): the three sizes, and the phone again in the dark theme (its colours).
SIZES = {"desk": ({"width": 1920, "height": 1080}, "", "light"),
         "presenter": ({"width": 1920, "height": 1080}, "present=true", "light"),
         "phone": ({"width": 390, "height": 844}, "", "light"),
         "phone-dark": ({"width": 390, "height": 844}, "", "dark")}
# Streamlit's own elements that posenc cannot change and axe-core flags: none at streamlit 1.67.0.
# An entry is (axe rule, CSS selector of the element), with a comment naming both and why.
STREAMLIT_EXCLUSIONS: list[tuple[str, str]] = []


def links() -> list[str]:
    """Every page, How it works under several schemes, a lecture's slide (its bar above the view), and the views
    of a released model's real context (the Comparison page and How it works under ?model=)."""
    return (page_paths() + [f"details?scheme={scheme}" for scheme in SCHEMES_OF_HOW_IT_WORKS]
            + ["?lecture=sinusoidal&slide=1", "compare?model=llama-3.1-8b", "details?model=llama-3.1-8b"])


def with_query(path: str, query: str) -> str:
    return f"{path}{'&' if '?' in path else '?'}{query}" if query else path


def settle(page) -> None:
    """The run finished, every chart drawn, and the page's script has marked the boxes that scroll."""
    wait_idle(page)
    page.wait_for_timeout(300)  # charts and formulas drawn after the run: a frame or two
    page.evaluate("() => document.fonts.ready.then(() => new Promise(requestAnimationFrame))")  # KaTeX's fonts
    wait_idle(page)


def violations(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, options=WCAG_AA).response["violations"]
    found = []
    for violation in results:
        for node in violation["nodes"]:
            target = " ".join(map(str, node["target"]))
            if not any(violation["id"] == rule and
                       page.evaluate("([s, t]) => !!document.querySelector(t)?.matches(s)", [selector, target])
                       for rule, selector in STREAMLIT_EXCLUSIONS):
                found.append(f"{violation['id']} ({violation['impact']}): {target} {node['html'][:120]}")
    return found


@pytest.mark.parametrize("size", SIZES)
def test_axe_finds_no_wcag_aa_violation_on_any_page(app, browser, size):
    viewport, query, theme = SIZES[size]
    context = browser.new_context(viewport=viewport, color_scheme=theme)
    page = context.new_page()
    found = {}
    for path in links():
        page.goto(f"{app}/{with_query(path, query)}")
        settle(page)
        assert page.locator("[data-testid=stException]").count() == 0, path
        if problems := violations(page):
            found[path or "/"] = problems
    context.close()
    assert found == {}


@pytest.fixture
def desk(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    yield context.new_page()
    context.close()


def test_a_chart_has_its_sentence_as_its_name_and_its_data_a_click_away(app, desk):
    desk.goto(f"{app}/sinusoids?d_model=24&length=50&n=100")
    settle(desk)
    chart = desk.locator("[data-testid=stPlotlyChart]").first
    assert chart.get_attribute("role") == "figure"
    assert chart.get_attribute("aria-label") == (
        'Line chart "Each dimension is a sinusoid over positions": 4 series (dim 4, dim 5, dim 6, dim 7); '
        "x (position) from 0 to 49; y (PE[position, dim]) from −1 to 1.")
    assert desk.locator("[data-testid=stDataFrame]").count() == 0  # made only when opened
    desk.get_by_text("Chart data: Each dimension is a sinusoid over positions").click()
    desk.wait_for_selector("[data-testid=stDataFrame]", timeout=30_000)
    settle(desk)
    assert desk.locator("[data-testid=stDataFrame]").count() == 4  # one table per series
    # the table's numbers are the chart's: the grid's cells, read through its accessible table
    read = "() => [...document.querySelectorAll('[data-testid=stDataFrame]')[0].querySelectorAll('td')]" \
           ".map(c => c.textContent)"
    desk.wait_for_function(f"({read})().length >= 6", timeout=30_000)
    cells = desk.evaluate(read)
    expected = posenc.sinusoidal(50, 24, 100.0)[:3, 4]
    assert [float(c) for c in cells[:6]] == pytest.approx(
        np.column_stack([np.arange(3), expected]).ravel(), abs=1e-4)


def test_a_wide_formula_is_a_named_region_scrolled_from_the_keyboard(app, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(f"{app}/details?scheme=rope")
    settle(page)
    region = page.get_by_role("region", name="Formula, wider than its column: scroll sideways to read it all").first
    region.focus()
    assert page.evaluate("() => document.activeElement.classList.contains('katex-display')")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("End")
    page.wait_for_function("() => document.activeElement.scrollLeft > 0", timeout=5_000)
    context.close()


CONTROLS = ("button:not([disabled]), input:not([disabled]):not([type=hidden]), [role=slider], [role=tab], "
            "[role=switch], a[href], summary, [tabindex='0']")


def test_every_control_is_reached_with_the_tab_key(app, desk):
    """Tab from the top of the page: every visible control of the page and of the sidebar takes the focus
    in turn (a widget drawn without a keyboard path would be skipped)."""
    for path in ("sinusoids", "rotation", "derivation"):
        desk.goto(f"{app}/{path}")
        settle(desk)
        controls = desk.evaluate("""(selector) => [...document.querySelectorAll(selector)]
            .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden'
                         && e.tabIndex >= 0 && !e.closest('[aria-hidden=true], [inert]'))
            .map((e, i) => { e.dataset.posencControl = i; return i; })""", CONTROLS)
        assert len(controls) > 10, path  # the sidebar's and the page's
        reached = set()
        desk.locator("body").focus()
        for _ in range(len(controls) * 2 + 20):
            desk.keyboard.press("Tab")
            index = desk.evaluate("() => document.activeElement?.closest('[data-posenc-control]')"
                                  "?.dataset.posencControl")
            if index is not None:
                reached.add(int(index))
            if reached == set(controls):
                break
        missed = desk.evaluate("(ids) => ids.map(i => document.querySelector(`[data-posenc-control='${i}']`)"
                               ".outerHTML.slice(0, 160))", sorted(set(controls) - reached))
        assert missed == [], path


def test_the_chart_tool_bar_saves_a_png_from_the_keyboard(app, desk):
    desk.goto(f"{app}/sinusoids")
    settle(desk)
    camera = desk.get_by_role("button", name="Download plot as a PNG").first
    camera.focus()
    assert desk.evaluate("() => getComputedStyle(document.activeElement.closest('.modebar')).opacity") == "1"
    with desk.expect_download(timeout=30_000) as download:
        desk.keyboard.press("Enter")
    assert download.value.suggested_filename.startswith("posenc_")


def test_an_animation_steps_and_plays_from_the_keyboard(app, desk):
    """plotly's frame slider and its Play and Pause buttons (SVG drawn for a mouse) take the keyboard."""
    desk.goto(f"{app}/rotation")
    settle(desk)
    slider = desk.locator(".slider-group[role=slider]").first
    frames = int(slider.get_attribute("aria-valuemax")) + 1
    # the largest gap between the y values drawn and those of the frame the slider shows
    gap = ("() => { const p = document.querySelector('.slider-group[role=slider]').closest('.js-plotly-plot');"
           " const active = p._fullLayout.sliders[0].active, frame = p._transitionData._frames[active];"
           " const plain = v => Array.from(v._inputArray || v);"
           " return [active, Math.max(...frame.data.flatMap((t, i) => { const drawn = plain(p.data[frame.traces ?"
           " frame.traces[i] : i].y); return plain(t.y).map((v, j) => Math.abs(v - drawn[j])); }))]; }")
    slider.focus()
    desk.keyboard.press("ArrowRight")
    desk.wait_for_function("() => document.querySelector('.slider-group[role=slider]')"
                           ".getAttribute('aria-valuenow') === '1'", timeout=10_000)
    desk.wait_for_timeout(700)  # the frame's transition
    active, largest = desk.evaluate(gap)
    assert active == 1 and largest < 1e-6
    desk.keyboard.press("End")
    desk.wait_for_function(f"() => document.querySelector('.slider-group[role=slider]')"
                           f".getAttribute('aria-valuenow') === '{frames - 1}'", timeout=10_000)
    desk.keyboard.press("Home")
    desk.wait_for_function("() => document.querySelector('.slider-group[role=slider]')"
                           ".getAttribute('aria-valuenow') === '0'", timeout=10_000)
    desk.get_by_role("button", name="▶ Play").first.focus()
    desk.keyboard.press("Enter")
    desk.wait_for_function("() => Number(document.querySelector('.slider-group[role=slider]')"
                           ".getAttribute('aria-valuenow')) > 2", timeout=10_000)
    desk.get_by_role("button", name="❚❚ Pause").first.focus()
    desk.keyboard.press(" ")
    desk.wait_for_timeout(300)
    held = slider.get_attribute("aria-valuenow")
    desk.wait_for_timeout(1000)
    assert slider.get_attribute("aria-valuenow") == held
