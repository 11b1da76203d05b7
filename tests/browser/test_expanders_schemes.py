"""Every expander of every scheme's How it works opened in a real browser (and RoPE's under the scalings whose
clocks crashed "Chart data"): no exception, no error box, no traceback (tests/helpers/expanders.py)."""

import pytest

import posenc
from expanders import SMALL, open_view_and_every_expander, view_id
from live_app import require_chromium

pytestmark = pytest.mark.browser
require_chromium()

VIEWS = [("details", {"scheme": key} | SMALL) for key in posenc.SCHEMES]
VIEWS += [("details", {"scheme": "rope", "rope.rope_type": rope_type} | SMALL) for rope_type in ("yarn", "longrope")]


@pytest.mark.parametrize(("path", "settings"), VIEWS, ids=[view_id(*view) for view in VIEWS])
def test_every_expander_of_how_it_works_opens_cleanly(pages, app, path, settings):
    open_view_and_every_expander(pages, app, path, settings)
