"""Robustness in a real browser: URL text that would render (links, images, emphasis, HTML) shown
literally. (Every slider of every page pushed to both ends: tests/browser/test_links.py.)"""

from urllib.parse import quote, urlparse

import pytest

from live_app import require_chromium, wait_idle

pytestmark = pytest.mark.browser
require_chromium()

@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    yield tab
    context.close()


def assert_clean(page, where: str):
    assert page.locator("[data-testid=stException]").count() == 0, where
    assert page.locator("[data-testid=stAlertContentError]").count() == 0, where
    assert "Traceback" not in page.content(), where


def test_url_text_is_shown_literally_not_rendered(app, page):
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    hostile = {"d_model": "[Log in again](https://evil.example/login)",
               "length": f"![i]({app}/evil-image.png)", "n": "**bold** <b>html</b>", "scheme": ":red[red]",
               "dims": "<img src=x onerror=alert(1)>"}
    page.goto(f"{app}/sinusoids?" + "&".join(f"{k}={quote(v)}" for k, v in hostile.items()))
    wait_idle(page)
    assert_clean(page, "hostile link")
    alerts = page.locator("[data-testid=stAlert]").all_inner_texts()
    text = " ".join(alerts)
    for value in hostile.values():
        assert value[:40] in text  # shown, as text
    assert page.locator("a[href*='evil.example']").count() == 0
    assert page.locator("[data-testid=stAlert] img, [data-testid=stAlert] strong, [data-testid=stAlert] b").count() == 0
    assert not [url for url in requests if "evil-image" in urlparse(url).path or "evil" in urlparse(url).netloc]
