"""What a student sees of the controls in a real browser, and whether a copied link reproduces it: shared by
the browser tests of links, navigation and lectures."""

from live_app import wait_idle

# What every control shows: its label and its value, in page order.
CONTROLS = """() => [...document.querySelectorAll(
    '[data-testid=stSlider], [data-testid=stNumberInput], [data-testid=stSelectbox],'
    + ' [data-testid=stMultiSelect], [data-testid=stCheckbox], [data-testid=stButtonGroup] [role=radio], [data-testid=stExpander]')]
  .map(e => {
    const id = e.dataset.testid, label = (e.querySelector('[data-testid=stWidgetLabel]') || e).innerText.trim();
    if (id === 'stSlider') return [label, e.querySelector('input[type=range]').value];
    if (id === 'stNumberInput' || id === 'stSelectbox') return [label, e.querySelector('input').value];
    if (id === 'stMultiSelect') return [label, [...e.querySelectorAll('[data-baseweb=tag], [role=option][aria-selected], span[title]')]
        .map(t => t.innerText.trim()).join(',') || e.innerText.replace(label, '').trim()];
    if (id === 'stCheckbox') return [label, String(e.querySelector('input').checked)];
    if (e.getAttribute('role') === 'radio') return [e.innerText.trim(), e.getAttribute('aria-checked')];  // a view switch's view
    return [label.split('\\n')[0], String(e.querySelector('details').open)];
  })"""


def controls(page) -> list:
    return page.evaluate(CONTROLS)


def settle(page, debounce: int = 300) -> None:
    """Wait until the run the key press started is over and the controls stand still. ``debounce``: how
    long a widget may take to send its new value (a slider waits 200 ms); 0 for a page just opened."""
    page.wait_for_timeout(debounce)
    wait_idle(page)
    before = controls(page), page.url
    for _ in range(20):
        page.wait_for_timeout(250)
        wait_idle(page)
        now = controls(page), page.url
        if now == before:
            return
        before = now


def assert_clean(page, where: str) -> None:
    assert page.locator("[data-testid=stException]").count() == 0, where
    assert page.locator("[data-testid=stAlertContentError]").count() == 0, where
    assert "Traceback" not in page.content(), where


def assert_link_reproduces(pages, page, where: str, also=None) -> None:
    """The address bar opened in a new visitor's tab (tests/conftest.py ``pages``) shows every control as ``page``
    does; ``also(other)`` checks more on the reopened page."""
    assert_clean(page, where)
    shown, link = controls(page), page.url
    other = pages()
    other.goto(link)
    other.wait_for_selector("[data-testid=stSidebar] [data-testid=stSelectbox]")
    settle(other, debounce=0)
    if controls(other) != shown:
        # Under load a run can finish after ``settle`` saw the page still: one failed CI run read the address
        # bar of a model change before that run wrote it. Both pages settled again, a real difference stays.
        settle(page)
        settle(other)
        if (page.url, controls(page)) != (link, shown):
            shown, link = controls(page), page.url
            other.goto(link)
            other.wait_for_selector("[data-testid=stSidebar] [data-testid=stSelectbox]")
            settle(other, debounce=0)
    assert controls(other) == shown, f"{where}: {link}\n{shown}\n{controls(other)}"
    assert_clean(other, f"{where}, reopened")
    if also is not None:
        also(other)
    other.close()


