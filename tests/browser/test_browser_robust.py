"""Robustness in a real browser: URL text that would render (links, images, emphasis, HTML) shown
literally. (Every slider of every page pushed to both ends: tests/browser/test_links.py.)"""

from urllib.parse import quote, urlparse

import pytest

from browser_controls import assert_clean
from live_app import require_chromium, wait_idle

pytestmark = pytest.mark.browser
require_chromium()

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


@pytest.mark.parametrize("link", ["?n=1e309", "rotation?k=99999&d_model=abc", "sinusoids?dims=5000&dims=3",
                                  "?d_model=32&d_model=32", "?model=qwen3-8b&n=1e309"])
def test_a_link_s_refused_values_are_replaced_in_the_address_bar(pages, app, link):
    """A value the app refuses or corrects (the nearest valid one is used, with a warning) is written into the
    address bar, so the copied link reopens the view shown: Streamlit dropped ``n=1e309`` from the URL while the
    view used 1e9, and the link reopened at 10,000 (posenc/ui/address.py ``write_corrected``, issue 38.4)."""
    from browser_controls import assert_link_reproduces, settle

    page = pages()
    page.goto(f"{app}/{link}")
    wait_idle(page)
    settle(page, debounce=0)
    assert page.locator("[data-testid=stAlert]").count() >= 1  # the warning is still shown
    assert_link_reproduces(pages, page, link)
