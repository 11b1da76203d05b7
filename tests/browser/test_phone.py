"""A phone of 390×844 CSS pixels, touch only: every kind of control posenc draws answers a finger, a table of
sentences reads at a readable width, a long page title leaves the screen to the page (posenc/ui/accessibility.py).
That every page fits the phone's screen is checked with the other checks of every view, in
tests/browser/test_every_view.py."""

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from live_app import require_chromium, wait_idle
from view_checks import PHONE, settle

pytestmark = pytest.mark.browser
require_chromium()

@pytest.fixture(scope="module")
def phone(browser):
    context = browser.new_context(**PHONE, accept_downloads=True)
    yield context.new_page()
    context.close()


def tap_and_wait(page, locator) -> None:
    locator.tap()
    page.wait_for_timeout(300)
    wait_idle(page)


def test_every_kind_of_control_answers_a_finger(app, phone):
    """A view switch, an expander, the chart tool bar, a multiselect, buttons, the sidebar, a selectbox, a number
    input, a slider and a toggle, each tapped on a phone; the URL shows each change."""
    phone.goto(f"{app}/sinusoids")
    settle(phone)
    tap_and_wait(phone, phone.get_by_role("radio", name="Against dimension"))
    assert "curves=Against+dimension" in phone.url or "curves=Against%20dimension" in phone.url
    tap_and_wait(phone, phone.get_by_text("Chart data:").first)
    phone.wait_for_selector("[data-testid=stDataFrame]", timeout=30_000)
    with phone.expect_download(timeout=30_000) as download:
        phone.get_by_role("button", name="Download plot as a PNG").first.tap()
    assert download.value.suggested_filename.startswith("posenc_")
    tap_and_wait(phone, phone.get_by_test_id("stMultiSelect").first.locator("input"))
    tap_and_wait(phone, phone.get_by_role("option", name="9", exact=True))
    phone.wait_for_function("() => new URLSearchParams(location.search).getAll('dims').includes('9')",
                            timeout=30_000)

    phone.goto(f"{app}/derivation?step=2")
    settle(phone)
    tap_and_wait(phone, phone.get_by_role("button", name="Next").first)
    phone.wait_for_function("() => location.search.includes('step=3')", timeout=30_000)

    tap_and_wait(phone, phone.get_by_test_id("stExpandSidebarButton"))
    sidebar = phone.get_by_test_id("stSidebar")
    phone.wait_for_timeout(600)  # the sidebar slides in: a tap during the slide can miss
    box, option = (sidebar.get_by_test_id("stSelectbox").filter(has=phone.get_by_text("scheme", exact=True)),
                   phone.get_by_role("option", name="rope"))
    for _ in range(3):  # a tap that lands while the page still moves opens nothing: tap again
        tap_and_wait(phone, box)
        try:
            option.wait_for(timeout=5_000)
            break
        except PlaywrightTimeout:
            pass
    tap_and_wait(phone, option)
    phone.wait_for_function("() => location.search.includes('scheme=rope')", timeout=30_000)
    tap_and_wait(phone, sidebar.get_by_test_id("stNumberInputStepUp").first)
    phone.wait_for_function("() => location.search.includes('n=')", timeout=30_000)
    slider = sidebar.get_by_role("slider", name="length")
    before = slider.input_value()
    track = sidebar.get_by_role("group", name="length").locator("> div").first
    track.scroll_into_view_if_needed()
    box = track.bounding_box()
    phone.touchscreen.tap(box["x"] + box["width"] * 0.5, box["y"] + box["height"] / 2)
    phone.wait_for_function("(v) => !location.search.includes('length=' + v) && location.search.includes('length=')",
                            arg=before, timeout=30_000)
    wait_idle(phone)
    assert 1500 < int(slider.input_value()) < 2600  # the middle of 2 … 4096
    tap_and_wait(phone, sidebar.get_by_text("Presenter mode"))
    phone.wait_for_function("() => location.search.includes('present=true')", timeout=30_000)


ANIMATION_BUTTONS = """() => [...document.querySelectorAll('.updatemenu-button')].map(b => {
    const r = b.getBoundingClientRect(); return {name: b.getAttribute('aria-label'), left: r.left, right: r.right,
                                                top: r.top, bottom: r.bottom}; })"""


def test_an_animation_answers_a_finger(app, phone):
    """plotly's ▶ Play and ❚❚ Pause, tapped at their centres: no other button lies on one, Play moves the
    frames and Pause holds them."""
    phone.goto(f"{app}/rotation")
    settle(phone)
    wait_idle(phone, charts=1)
    phone.locator(".updatemenu-button").first.scroll_into_view_if_needed()
    phone.wait_for_timeout(500)  # the page stops moving (formulas marked, charts drawn)
    if phone.get_attribute("[data-testid=stSidebar]", "data-collapsed") == "false":
        # After the previous test (which leaves presenter mode on in its own context), this new context has
        # opened with the sidebar expanded over the page; not understood yet (noted on issue 28): close it
        # as a student would.
        phone.get_by_test_id("stSidebarCollapseButton").locator("button").tap()
        phone.wait_for_timeout(600)
    buttons = phone.evaluate(ANIMATION_BUTTONS)
    covered = [(a["name"], b["name"]) for i, a in enumerate(buttons) for b in buttons[i + 1:]
               if a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]]
    assert covered == []
    frame = "() => Number(document.querySelector('.slider-group[role=slider]').getAttribute('aria-valuenow'))"
    for name in ("▶ Play", "❚❚ Pause"):
        phone.locator(f'.updatemenu-button[aria-label="{name}"]').tap()  # its centre, once it stands still
        if name == "▶ Play":
            phone.wait_for_function(f"() => ({frame})() > 2", timeout=10_000)
    phone.wait_for_timeout(300)
    held = phone.evaluate(frame)
    phone.wait_for_timeout(1000)
    assert phone.evaluate(frame) == held


def test_the_properties_verdicts_read_on_a_phone_and_scroll_sideways(app, phone):
    """The verdict table's cells are sentences: on a phone each of its columns keeps WIDE_CELL_REM rem (about 20
    characters a line), where five columns squeezed into the screen held one or two words a line; the table then
    scrolls sideways, says so to a screen reader and takes the keyboard's focus (posenc/ui/accessibility.py)."""
    import posenc
    from posenc.ui.accessibility import WIDE_CELL_REM, WIDE_CELLS

    phone.goto(f"{app}/properties")
    settle(phone)
    table = phone.locator(f".st-key-{WIDE_CELLS} [data-testid=stTable]")
    table.scroll_into_view_if_needed()
    phone.wait_for_timeout(300)  # the scroller is marked at the next frame
    rem = phone.evaluate("() => parseFloat(getComputedStyle(document.documentElement).fontSize)")
    widths = table.locator("td").evaluate_all("cells => cells.map(c => c.getBoundingClientRect().width)")
    assert len(widths) == 5 * len(posenc.SCHEMES) and min(widths) >= WIDE_CELL_REM * rem - 0.5
    scroller = table.locator("[data-posenc-scrolls]")
    assert scroller.count() == 1
    assert scroller.get_attribute("role") == "region" and "scroll sideways" in scroller.get_attribute("aria-label")
    assert scroller.evaluate("box => box.scrollWidth > box.clientWidth")


def test_a_long_page_title_leaves_the_phone_screen_to_the_page(app, phone):
    """The longest page title (the lab's question) is set in 2rem on a phone, three lines at most, where Streamlit's
    2.75rem took five lines, half of the screen, before the page began."""
    phone.goto(f"{app}/generalization")
    settle(phone)
    title = phone.locator("[data-testid=stMain] h1").first
    size, line = title.evaluate("h => [parseFloat(getComputedStyle(h).fontSize), parseFloat(getComputedStyle(h).lineHeight)]")
    rem = phone.evaluate("() => parseFloat(getComputedStyle(document.documentElement).fontSize)")
    assert size == 2 * rem
    text_height = title.evaluate("h => { const r = document.createRange(); r.selectNodeContents(h);"
                                 " return r.getBoundingClientRect().height; }")
    assert round(text_height / line) <= 3  # lines of text (the box of a line is a little taller than its line)
