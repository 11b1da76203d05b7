"""Under a model, a copied link reopens the view, tried in a real browser (issue 38.3 and 38.4).

Streamlit leaves out of the address bar a value equal to the widget's own default. Before the fix the widget's
default was posenc's even under a model: with ``model=qwen3-8b`` (θ's base 1,000,000), n set to 10,000 showed
10,000 but the address bar carried no ``n``, and the link reopened at 1,000,000. Under a model the widgets now
take the model's values as their defaults (posenc/ui/model_picker.py ``read_against``)."""

import time

import pytest
from playwright.sync_api import Error as PlaywrightError

from browser_controls import assert_link_reproduces, controls, settle
from live_app import require_chromium, wait_idle

pytestmark = pytest.mark.browser
require_chromium()


def _open(pages, app, link: str):
    page = pages()
    page.goto(f"{app}/{link}")
    wait_idle(page)
    settle(page, debounce=0)
    return page


def _type(page, label: str, text: str) -> None:
    box = page.locator(f'[data-testid=stSidebar] [data-testid=stNumberInput]:has([aria-label="{label}"]) input')
    box.fill(text)
    box.press("Enter")
    settle(page)


def _labelled_box(page, label: str, wait: float = 30.0):
    """The sidebar's selectbox labelled ``label``, waited for: CI once found none labelled "model" just after a
    page had settled (the sidebar being drawn again by a run), and the one-shot search raised StopIteration."""
    boxes = page.locator("[data-testid=stSidebar] [data-testid=stSelectbox]")
    deadline, seen = time.monotonic() + wait, []
    while True:
        try:
            seen = [boxes.nth(i).locator("[data-testid=stWidgetLabel]").inner_text(timeout=5_000).strip()
                    for i in range(boxes.count())]
        except PlaywrightError:  # a box went while it was read: read them again
            seen = []
        if label in seen:
            return boxes.nth(seen.index(label))
        if time.monotonic() > deadline:
            raise AssertionError(f"no selectbox labelled {label!r} in the sidebar after {wait:.0f} s; "
                                 f"its selectboxes: {seen}")
        page.wait_for_timeout(250)


def _choose(page, label: str, option: str) -> None:
    field = _labelled_box(page, label).locator("input")
    field.click()
    field.press("ArrowDown")  # a click opens the list only sometimes; the arrow key always does
    page.locator("[role=listbox] [role=option]", has_text=option).filter(
        has=page.get_by_text(option, exact=True)).first.click()
    settle(page)


def test_posenc_s_default_base_under_a_model_stays_in_the_link(pages, app):
    page = _open(pages, app, "?model=qwen3-8b")
    _type(page, "n (base)", "10000")
    assert "n=10000" in page.url
    assert_link_reproduces(pages, page, "qwen3-8b, n = 10,000 typed")
    _type(page, "n (base)", "1e309")  # the box refuses it and falls back to its default: now the model's base
    assert "n=" not in page.url and controls(page)[3] == ["n (base)", "1000000"], (page.url, controls(page))
    assert_link_reproduces(pages, page, "qwen3-8b, 1e309 typed")


def test_a_refused_base_in_a_link_under_a_model_is_said_and_kept_in_the_link(pages, app):
    page = _open(pages, app, "?model=qwen3-8b&n=1e309")
    warnings = " ".join(page.locator("[data-testid=stAlert]").all_inner_texts())
    assert "n = 1e309 is outside" in warnings and "using 1e+09" in warnings, warnings  # the nearest valid value
    assert_link_reproduces(pages, page, "qwen3-8b, n = 1e309 in the link")


def test_posenc_s_default_scaling_under_a_model_stays_in_the_link(pages, app):
    page = _open(pages, app, "details?model=llama-3.1-8b")
    _choose(page, "Context-extension scaling", "default")
    assert "rope.rope_type=default" in page.url
    assert_link_reproduces(pages, page, "llama-3.1-8b, scaling default")


def test_a_change_of_model_and_back_to_none_keeps_the_link(pages, app):
    page = _open(pages, app, "rotation?model=qwen3-8b&n=10000")
    for model in ("phi-3-mini-128k", "llama-3.1-8b", "none"):
        _choose(page, "model", model)
        assert_link_reproduces(pages, page, f"model changed to {model}")


@pytest.mark.parametrize("model", ["qwen3-8b", "llama-3.1-8b", "deepseek-v3", "t5-base"])
def test_every_control_a_model_sets_at_posenc_s_default_stays_in_the_link(pages, app, model):
    """Each control the model sets, given in the link at posenc's own default: Streamlit clears from the URL a value
    equal to the widget's default, so with posenc's defaults as the widgets' own, these vanished on opening and
    the copied link reopened at the model's values."""
    from urllib.parse import urlencode

    import posenc
    from posenc.settings.parsing import SHARED_CONTROLS
    from posenc.ui.model_picker import preset

    values, _ = preset(model)
    scheme = posenc.get_scheme(values["scheme"])
    defaults = {option.name: option.default for option in SHARED_CONTROLS}
    defaults |= {f"{scheme.key}.{option.name}": option.default for option in scheme.options}
    differ = {key: str(defaults[key]) for key, value in values.items() if key in defaults and defaults[key] != value}
    assert differ, model
    page = _open(pages, app, "details?" + urlencode({"model": model} | differ))
    for key, value in differ.items():
        assert f"{key}=" in page.url, (key, value, page.url)
    assert_link_reproduces(pages, page, f"{model} at posenc's defaults: {differ}")
