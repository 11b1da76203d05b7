"""Every expander of a view opened, as a student opens them, in a real browser (the expander browser tests).

"Chart data" builds its tables only when its expander opens (posenc/ui/presenter.py ``data_expander``), so no
AppTest run ever drew them: opening it crashed 7 of 24 views (a trace whose x or y is one number, issue 38)."""

from urllib.parse import urlencode

from browser_controls import assert_clean, settle
from live_app import wait_idle

CLOSED = "[data-testid=stExpander] details:not([open]) > summary"
SMALL = {"length": "48", "d_model": "32"}  # every chart's data table stays small: the views are the same


def view_id(path: str, settings: dict[str, str]) -> str:
    return f"{path or 'heatmap'}?{urlencode(settings)}"


def open_every_expander(page, where: str, rounds: int = 4) -> int:
    """Open every closed expander, a round of clicks then one settled run (opening one may add others: up to
    ``rounds`` rounds), and check the page after each round; how many were opened."""
    opened = 0
    for _ in range(rounds):
        closed = page.locator(CLOSED)
        if not closed.count():
            break
        for index in reversed(range(closed.count())):  # from the last: a click does not move those above
            closed.nth(index).click()
            opened += 1
        settle(page)
        assert_clean(page, f"{where}, {opened} expanders opened")
    assert not page.locator(CLOSED).count(), f"{where}: an expander stayed closed"
    return opened


def open_view_and_every_expander(pages, app: str, path: str, settings: dict[str, str]) -> int:
    """Open ``/path?settings`` in a fresh tab, check it, open every expander (at least one where a chart is: its
    "Chart data"); how many were opened."""
    page = pages()
    url = f"{app}/{path}" + (f"?{urlencode(settings)}" if settings else "")
    page.goto(url)
    wait_idle(page)
    settle(page, debounce=0)
    assert_clean(page, url)
    opened = open_every_expander(page, url)
    charts = page.locator("[data-testid=stPlotlyChart]").count()
    assert opened >= (1 if charts else 0), f"{url}: {charts} charts and no expander (each chart has its data)"
    return opened
