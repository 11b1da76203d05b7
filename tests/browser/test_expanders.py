"""Every expander opened, as a student opens them, in a real browser: on every page, every scheme's How it
works, the views under released models and every slide of every lecture. No exception, no error box, no
traceback once each is open.

"Chart data" builds its tables only when its expander opens (posenc/ui/presenter.py ``data_expander``), so no
AppTest run ever drew them: opening it crashed 7 of 24 views (a trace whose x or y is one number, issue 38),
which no other test saw."""

from urllib.parse import urlencode

import pytest

import posenc
from app_routes import page_paths
from browser_controls import assert_clean, settle
from live_app import require_chromium, wait_idle
from posenc import lectures
from posenc.schemes.rope.scalings import ROPE_SCALINGS

pytestmark = pytest.mark.browser
require_chromium()

CLOSED = "[data-testid=stExpander] details:not([open]) > summary"
SMALL = {"length": "48", "d_model": "32"}  # every chart's data table stays small: the views are the same


def _views() -> list[tuple[str, dict[str, str]]]:
    views = [(path, {}) for path in page_paths()]  # every page at its defaults (the Rotation check's k = 0 crashed)
    views += [("details", {"scheme": key} | SMALL) for key in posenc.SCHEMES]  # every scheme's How it works
    views += [("details", {"scheme": "rope", "rope.rope_type": rope_type} | SMALL)
              for rope_type in ROPE_SCALINGS if rope_type != "default"]
    views += [(path, {"model": "gemma-3-4b"}) for path in page_paths()]  # a model's views: its layers, real lengths
    views += [("details", {"model": model}) for model in ("llama-3.1-8b", "phi-3-mini-128k", "gpt-oss-20b", "t5-base")]
    views += [("rotation", {"model": "phi-3-mini-128k", "d_model": "718"})]  # the model's lists at another width
    return views


VIEWS = _views()
SLIDES = [(name, number) for name in lectures.names() for number in range(1, len(lectures.load(name).slides) + 1)]


def open_every_expander(page, where: str, rounds: int = 4) -> int:
    """Open every closed expander, a round of clicks then one settled run (opening one may add others: up to
    ``rounds`` rounds), and check the page; how many were opened."""
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


@pytest.mark.parametrize(("path", "settings"), VIEWS, ids=[f"{p or 'heatmap'}?{urlencode(s)}" for p, s in VIEWS])
def test_every_expander_of_every_view_opens_cleanly(pages, app, path, settings):
    page = pages()
    url = f"{app}/{path}" + (f"?{urlencode(settings)}" if settings else "")
    page.goto(url)
    wait_idle(page)
    settle(page, debounce=0)
    assert_clean(page, url)
    open_every_expander(page, url)


@pytest.mark.parametrize(("lecture", "slide"), SLIDES, ids=[f"{name}-{number}" for name, number in SLIDES])
def test_every_expander_of_every_lecture_slide_opens_cleanly(pages, app, lecture, slide):
    page = pages()
    url = f"{app}/?lecture={lecture}&slide={slide}"
    page.goto(url)
    wait_idle(page)
    settle(page, debounce=0)
    assert_clean(page, url)
    open_every_expander(page, url)
