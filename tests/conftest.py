"""Shared test settings: the hypothesis budget, and the app and browser of the browser tests.

POSENC_FUZZ selects a profile: "ci" (default, fixed seed, a budget CI runs in seconds) or
"long" (a long local run: ``POSENC_FUZZ=long python -m pytest tests/test_library_*.py``).
"""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=60, derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=2000, derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("POSENC_FUZZ", "ci"))


@pytest.fixture(scope="module")
def app():
    """The base URL of a fresh app on loopback, for one test module (tests/helpers/live_app.py)."""
    from live_app import running_app

    with running_app() as (url, _process):
        yield url


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, for one test module."""
    from playwright.sync_api import sync_playwright

    from live_app import launch, still_motion

    with sync_playwright() as playwright:
        chromium = still_motion(launch(playwright))
        yield chromium
        chromium.close()


@pytest.fixture
def pages(browser):
    """New pages, each in a fresh browser context (a student's tab, a copied link opened elsewhere),
    for one test; closed afterwards. A desk's size (1400 × 1000) unless told another."""
    contexts = []

    def fresh(width: int = 1400, height: int = 1000):
        context = browser.new_context(viewport={"width": width, "height": height}, accept_downloads=True)
        # A wait without its own timeout waits 60 s, as wait_idle does, not Playwright's 30: CI (2026-12-01, both
        # cores busy) waited longer than 30 s for a reopened link's sidebar on the lab's page.
        context.set_default_timeout(60_000)
        contexts.append(context)
        return context.new_page()

    yield fresh
    for context in contexts:
        context.close()


@pytest.fixture
def page(pages):
    """One fresh page at a desk's size (1400 × 1000), downloads accepted, closed after the test."""
    return pages()


def pytest_collection_modifyitems(config, items):
    """The slow files first (browser tests, the lab's trainings), each file's tests in their order: pytest-xdist
    (pytest.ini: -n 2 --dist loadfile) hands out whole files in this order, and a long file started last would
    leave one core idle while the other finishes it."""
    items.sort(key=lambda item: 0 if item.get_closest_marker("browser") or "/lab/" in item.nodeid
               or "test_fuzz_app" in item.nodeid else 1)
