"""Shared test settings: the hypothesis budget, and the app and browser of the browser tests.

POSENC_FUZZ selects a profile: "ci" (default, fixed seed, a budget CI runs in seconds) or
"long" (a long local run: ``POSENC_FUZZ=long python -m pytest tests/test_library_*.py``).
"""

import os
import sys

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=60, derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=2000, derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("POSENC_FUZZ", "ci"))


def pytest_collection_finish(session) -> None:
    """AppTest compiles the app and its page anew at every run (a new ScriptCache each time, with Streamlit's magic:
    app.py ~4 ms, a page 1-13 ms here); a server compiles each script once, for all its sessions. Once the tests are
    collected, if any of them imported AppTest, every AppTest of this process shares one cache, as a server's sessions
    do, kept by the file's path and its stat (a script a test rewrites is compiled again). A run without AppTest
    (the library's tests alone) does not import Streamlit for it."""
    if "streamlit.testing.v1" not in sys.modules:
        return
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test, local_script_runner

    class OneScriptCache(ScriptCache):
        def __init__(self):
            super().__init__()
            self._stamped: dict[tuple, object] = {}

        def get_bytecode(self, script_path: str):
            stat = os.stat(script_path)
            key = (os.path.abspath(script_path), stat.st_mtime_ns, stat.st_size, stat.st_ino)
            code = self._stamped.get(key)
            if code is None:
                code = self._stamped[key] = ScriptCache().get_bytecode(script_path)
            return code

    shared = OneScriptCache()
    app_test.ScriptCache = local_script_runner.ScriptCache = lambda: shared


@pytest.fixture(scope="module")
def app():
    """The base URL of a fresh app on loopback, for one test module (tests/helpers/live_app.py)."""
    from live_app import running_app

    with running_app() as (url, _process):
        yield url


@pytest.fixture(scope="module")
def profile(tmp_path_factory):
    """Debian's Chromium, headless, for one test module, as its default context: a profile on disk whose tabs keep
    the HTTP and code caches a student's browser keeps (tests/helpers/live_app.py ``launch_with_profile``). Waits
    without a timeout of their own wait 60 s, as wait_idle does, not Playwright's 30: CI (2026-12-01, both cores
    busy) waited longer than 30 s for a reopened link's sidebar on the lab's page."""
    from playwright.sync_api import sync_playwright

    from live_app import STILL_MOTION, launch_with_profile

    with sync_playwright() as playwright:
        kept = launch_with_profile(playwright, str(tmp_path_factory.mktemp("chromium")),
                                   viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        kept.add_init_script(STILL_MOTION)
        kept.set_default_timeout(60_000)
        yield kept
        kept.close()


@pytest.fixture(scope="module")
def browser(profile):
    """The same Chromium, for the tests that make contexts of their own (incognito: a phone, a dark theme, a
    lecturer and followers side by side)."""
    from live_app import still_motion

    return still_motion(profile.browser)


@pytest.fixture
def pages(profile, app):
    """New tabs of the module's profile (a student's tab, a copied link opened elsewhere), each as a new visitor
    opens it: the app's cookies and storage cleared first, its caches kept; a desk's size (1400 × 1000) unless told
    another. Closed after the test. Each was a fresh incognito context until 2026-12-01: 1.3 s more of Chromium's CPU
    for the context, and Streamlit's front end compiled anew in each (a tab of posenc's Encoding matrix: ~6.3 s of
    CPU incognito, ~5.1 s from the profile)."""
    opened = []

    def fresh(width: int = 1400, height: int = 1000):
        page = profile.new_page()
        opened.append(page)
        profile.clear_cookies()
        session = profile.new_cdp_session(page)
        session.send("Storage.clearDataForOrigin", {"origin": app, "storageTypes": "local_storage,indexeddb,websql,"
                                                    "service_workers,cache_storage,file_systems"})
        session.detach()
        page.set_viewport_size({"width": width, "height": height})
        return page

    yield fresh
    for page in opened:
        if not page.is_closed():
            page.close()


@pytest.fixture
def page(pages):
    """One fresh page at a desk's size (1400 × 1000), downloads accepted, closed after the test."""
    return pages()


def pytest_collection_modifyitems(config, items):
    """The slow files first (browser tests, the lab's trainings), each file's tests in their order. pytest-xdist
    (pytest.ini: -n 2 --dist loadfile) hands out whole files, but sorted by their number of tests first (its
    loadscope reorder, on by default), so that this order only breaks ties. Measured in CI on 6f6655e (each test's
    start and end logged per worker): the two workers were busy 2,354 s and 2,416 s and finished 58 s apart, so the
    files are balanced as they are, and CI's time is their work (BENCHMARKS.md)."""
    items.sort(key=lambda item: 0 if item.get_closest_marker("browser") or "/lab/" in item.nodeid
               or "test_fuzz_app" in item.nodeid else 1)
