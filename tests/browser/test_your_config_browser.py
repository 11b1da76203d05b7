"""Your config in a real browser: a config.json uploaded through the sidebar's file box sets the view, its
findings sit above the views, and the address bar reopens the same view in a fresh tab without the file; a
link changed by hand gets one sentence (issue 35, the app)."""

import json

import pytest

from browser_controls import assert_clean, assert_link_reproduces, settle
from live_app import require_chromium, wait_idle

pytestmark = pytest.mark.browser
require_chromium()

CONFIG = {"_name_or_path": "student/yarn-test", "model_type": "qwen3", "hidden_size": 2048,
          "num_attention_heads": 16, "head_dim": 128, "num_hidden_layers": 4, "max_position_embeddings": 131072,
          "rope_scaling": {"type": "linear", "rope_type": "yarn", "factor": 4.0,
                           "original_max_position_embeddings": 32768}, "vocab_size": 151936, "torch_dtype": "bfloat16"}


def _main_text(page) -> str:
    return page.locator("[data-testid=stMain]").inner_text()


def test_an_uploaded_config_sets_the_view_and_its_link_reopens_it(pages, app, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(CONFIG))
    page = pages()
    page.goto(f"{app}/details?model=config")
    wait_idle(page)
    settle(page, debounce=0)
    assert "Upload a config.json or paste its text" in _main_text(page)
    page.locator("[data-testid=stSidebar] [data-testid=stFileUploaderDropzoneInput]").set_input_files(str(path))
    page.wait_for_function("() => location.search.includes('config=1.')", timeout=30_000)
    settle(page)
    text = _main_text(page)
    assert "Check of student/yarn-test: 1 error, 1 warning." in text, text[:500]
    assert text.index("rope_scaling.type") < text.index("rope_theta")  # errors first
    assert text.index("Check of") < text.index("How it works")  # above the views
    assert "What a dropped scaling costs student/yarn-test" in text
    assert "vocab_size" not in page.url and len(page.url) < 600  # the positional fields only, compactly

    def same_findings(other):
        assert "Check of student/yarn-test: 1 error, 1 warning." in _main_text(other)
    assert_link_reproduces(pages, page, "your config, uploaded", also=same_findings)


def test_a_link_changed_by_hand_gets_one_sentence(pages, app):
    from posenc.models.config_link import to_link

    link = to_link(CONFIG)
    page = pages()
    page.goto(f"{app}/details?model=config&config={link[:-1]}{'0' if link[-1] != '0' else '1'}")
    wait_idle(page)
    settle(page, debounce=0)
    assert_clean(page, "a changed link")
    alerts = page.locator("[data-testid=stAlert]").all_inner_texts()
    assert len(alerts) == 1 and "does not match its check digits" in alerts[0], alerts
