"""What a browser with nothing cached receives through the hall (bench/hall.py serve: HAProxy with
deploy/haproxy.cfg in front of a replica and the asset server), counted from Chromium's own network
events: HAProxy's cache answers the page and Streamlit's front end gzip'd, and a reload gets the
assets from the browser's cache ("immutable"). About 30 s.

Issue 28 asks for <= 2.8 MB of HTTP bodies. HAProxy 2.6 compresses with libslz, whose deflate is
fast but loose (3.9 MB, BENCHMARKS.md); the asset server (deploy/assets.py) gzips Streamlit's
/static/ files once with zlib at level 9, and HAProxy's cache keeps them: 2.7 MB.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from live_app import ROOT, require_chromium, running_hall

pytestmark = pytest.mark.browser
require_chromium()
if not (shutil.which("haproxy") or Path("/usr/sbin/haproxy").exists()):
    pytest.skip("haproxy is not installed (apt-get install -y haproxy; .ci/run does)", allow_module_level=True)
sys.path.insert(0, str(ROOT / "bench"))

from browser_bytes import new_browser  # noqa: E402
from hall import LINK  # noqa: E402

STRAIGHT_BYTES = 8.0e6  # one server's answer to a new browser (BENCHMARKS.md): nothing compressed
TARGET_BYTES = 2.8e6  # issue 28
ZLIB_9_BYTES = 2.6e6  # no less: the same answers gzip'd by zlib at level 9 are 2.72 MB (BENCHMARKS.md)


@pytest.fixture(scope="module")
def hall_url():
    """The link through a 1-replica hall (bench/hall.py serve), its cache filled by the lecturer's tab."""
    with running_hall(1) as (url, _process):
        yield f"{url}?{LINK}"


@pytest.fixture(scope="module")
def received(hall_url, browser):
    """(first load, reload) of a new browser, after the lecturer's tab has opened the link."""
    new_browser(browser, hall_url)  # the lecturer's tab: HAProxy's cache keeps the page and the front end
    return new_browser(browser, hall_url)


def test_a_new_browser_gets_the_front_end_gzipd_and_a_reload_gets_nothing_again(received):
    first, again = received
    scripts = {r: n for r, n in first.bodies.items() if first.kinds[r] in ("application/javascript", "text/css")}
    # every script but a few of under 200 bytes, which gzip would make larger (the asset server sends those as they are)
    assert len(scripts) > 50 and all(first.encodings[r] == "gzip" for r in scripts if scripts[r] > 200)
    assert sum(scripts.values()) > 1.5e6  # the plotly chunk alone is 1.4 MB gzip'd: the count is real
    assert ZLIB_9_BYTES < first.body_bytes < STRAIGHT_BYTES / 2.5, f"{first.body_bytes / 1e6:.2f} MB"
    # a reload: the page is asked again (no-cache), the hashed assets come from the browser's cache
    assert not [again.urls[r] for r in again.bodies if "/static/" in again.urls[r]]
    assert again.body_bytes < 30e3, f"{again.body_bytes / 1e3:.1f} KB"


def test_a_new_browser_receives_at_most_the_issues_target(received):
    first, _ = received
    assert first.body_bytes <= TARGET_BYTES, f"{first.body_bytes / 1e6:.2f} MB"
    # the hashed files came from the asset server (zlib level 9), not from listen gzip (libslz)
    static = [r for r in first.bodies if "/static/" in first.urls[r]]
    assert len(static) > 100 and all(first.servers[r] == "posenc-assets" for r in static)
