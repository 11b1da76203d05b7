"""Accessibility in a real browser beyond axe-core's rules (which tests/browser/test_every_view.py runs on every
view at every size): every chart's text alternative and data, a wide formula scrolled from the keyboard, every
control reached with the Tab key, the chart tool bar and an animation driven from the keyboard.

posenc's part of it is posenc/ui/accessibility.py (page-wide) and posenc/ui/presenter.py (charts).
"""


import numpy as np
import pytest

import posenc
from live_app import require_chromium
from view_checks import settle

pytestmark = pytest.mark.browser
require_chromium()

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


CONTROLS = ("button:not([disabled]), input:not([disabled]):not([type=hidden]), [role=slider], [role=radio], "
            "[role=switch], a[href], summary, [tabindex='0']")


def test_every_control_is_reached_with_the_tab_key(app, desk):
    """Tab from the top of the page: every visible control of the page and of the sidebar takes the focus
    in turn (a widget drawn without a keyboard path would be skipped). A radio group (a page's view switch) is
    one stop, as WAI-ARIA's radio group is: the arrows move among its views (the next test)."""
    for path in ("sinusoids", "rotation", "derivation"):
        desk.goto(f"{app}/{path}")
        settle(desk)
        controls = desk.evaluate("""(selector) => [...new Set([...document.querySelectorAll(selector)]
            .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden'
                         && e.tabIndex >= 0 && !e.closest('[aria-hidden=true], [inert]'))
            .map(e => e.closest('[role=radiogroup]') || e))]
            .map((e, i) => { e.dataset.posencControl = i; return i; })""", CONTROLS)
        assert len(controls) > 10, path  # the sidebar's and the page's
        reached, laps = set(), 0
        desk.locator("body").focus()
        for _ in range(400):  # until every control is reached or the focus has gone round the page twice
            desk.keyboard.press("Tab")
            index, body = desk.evaluate("() => [document.activeElement?.closest('[data-posenc-control]')"
                                        "?.dataset.posencControl, document.activeElement === document.body]")
            if index is not None:
                reached.add(int(index))
            laps += body
            if reached == set(controls) or laps == 2:
                break
        missed = desk.evaluate("(ids) => ids.map(i => document.querySelector(`[data-posenc-control='${i}']`)"
                               ".outerHTML.slice(0, 160))", sorted(set(controls) - reached))
        assert missed == [], path


def test_a_view_switch_moves_with_the_arrows_and_picks_with_space(app, desk):
    """The Sinusoids' views (a segmented control, binding.bound_views): Tab reaches the view shown, an arrow
    moves to the next one and Space shows it, in the address too."""
    desk.goto(f"{app}/sinusoids")
    settle(desk)
    shown = desk.get_by_role("radiogroup", name="Curves").get_by_role("radio", checked=True)
    assert shown.inner_text().strip() == "Against position"
    shown.focus()
    desk.keyboard.press("ArrowRight")
    assert desk.evaluate("() => document.activeElement.innerText.trim()") == "Against dimension"
    desk.keyboard.press("Space")
    desk.wait_for_function("() => /curves=Against(\\+|%20)dimension/.test(location.search)", timeout=30_000)
    settle(desk)
    assert desk.get_by_role("radio", name="Against dimension").get_attribute("aria-checked") == "true"


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
