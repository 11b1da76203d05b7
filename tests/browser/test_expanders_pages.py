"""Every expander of every page opened in a real browser: at the defaults, under a released model (Gemma 3: its
layers, real lengths and how far a token sees), a model's How it works, and lecture slides. No exception, no
error box, no traceback once each is open (tests/helpers/expanders.py; every scheme's How it works:
test_expanders_schemes.py)."""

import pytest

from app_routes import page_paths
from expanders import open_view_and_every_expander, view_id
from live_app import require_chromium

pytestmark = pytest.mark.browser
require_chromium()

VIEWS = [(path, {}) for path in page_paths()]  # every page at its defaults (the Rotation check's k = 0 crashed)
VIEWS += [(path, {"model": "gemma-3-4b"}) for path in page_paths()]
VIEWS += [("details", {"model": model}) for model in ("llama-3.1-8b", "phi-3-mini-128k", "t5-base")]
VIEWS += [("rotation", {"model": "phi-3-mini-128k", "d_model": "718"})]  # the model's lists at another width
VIEWS += [("", {"lecture": "rope-to-128k", "slide": "4"}), ("", {"lecture": "sinusoidal", "slide": "3"})]


@pytest.mark.parametrize(("path", "settings"), VIEWS, ids=[view_id(*view) for view in VIEWS])
def test_every_expander_opens_cleanly(pages, app, path, settings):
    open_view_and_every_expander(pages, app, path, settings)
