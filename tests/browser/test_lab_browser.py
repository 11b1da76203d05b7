"""The Length generalization page in a real browser: it opens on the shipped results, and a reader trains
one scheme live: the place in line or the progress shows, then the result, with the command that
reproduces it."""

import pytest

from live_app import require_chromium, wait_idle

pytestmark = pytest.mark.browser
require_chromium()


@pytest.fixture
def page(pages):
    return pages(1600, 1000)


def test_the_page_opens_on_the_shipped_results_and_trains_one_scheme_live(app, page, pages):
    page.goto(f"{app}/generalization?own_scheme=alibi&own_length=2&own_steps=100&own_seed=11&task=reverse")
    page.wait_for_selector("h1")
    wait_idle(page, charts=2)
    assert page.locator("[data-testid=stException], [data-testid=stAlertContentError]").count() == 0
    assert "reverse: exact match against test length" in page.content()
    button = page.get_by_role("button", name="Train ALiBi on reverse")
    button.scroll_into_view_if_needed()
    button.click()
    page.wait_for_selector("text=Yours:", timeout=120_000)
    wait_idle(page, charts=3)
    text = page.locator("[data-testid=stMain]").inner_text()
    assert "python -m posenc.lab run --task reverse --scheme alibi --seed 11 --train-max-length 2 --steps 100" in text
    assert page.locator("[data-testid=stException], [data-testid=stAlertContentError]").count() == 0
    # the result is kept by its settings: a fresh tab with the same link shows it at once, with no training
    other = pages()
    other.goto(page.url)
    other.wait_for_selector("text=Yours:", timeout=30_000)
    assert other.get_by_role("button", name="Train ALiBi on reverse").count() == 0


def _titles(page) -> list[str]:
    """The charts' titles as drawn, on one line (posenc/figures/legible.py wraps them) and without the tags the
    theme wraps them in (<b>)."""
    return page.evaluate("() => [...document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot')]"
                         ".map(p => p.layout.title.text.replace(/<br>/g, ' ').replace(/<[^>]+>/g, ''))")


def test_stretching_rope_draws_zero_shot_and_fine_tuned_and_keeps_its_controls_in_the_url(app, page):
    page.goto(f"{app}/generalization?task=copy&stretch_steps=50&stretch_methods=pi&stretch_methods=yarn")
    wait_idle(page, charts=5)
    assert page.locator("[data-testid=stException], [data-testid=stAlertContentError], [data-testid=stAlert]").count() == 0
    assert {"RoPE on copy, stretched to 2L: zero-shot", "RoPE on copy, stretched to 2L: fine-tuned 50 steps at 1…16"} \
        <= set(_titles(page))
    text = page.locator("[data-testid=stMain]").inner_text()
    assert "Stretching RoPE" in text and "PI with a short fine-tune" in text and "NTK-aware scaling beats PI" in text
    field = page.locator("[data-testid=stSelectbox]").filter(has_text="stretched to").locator("input")
    field.scroll_into_view_if_needed()
    field.click()
    field.press("ArrowDown")  # a click opens the list only sometimes; the arrow key always does
    page.wait_for_selector("[role=listbox] [role=option]")
    page.locator("[role=listbox] [role=option]").filter(has_text="4").first.click()
    page.wait_for_function("() => location.search.includes('stretch_factor=4')", timeout=30_000)
    wait_idle(page, charts=5)
    page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')].some(p => "
                           "p.layout.title.text.replace(/<br>/g, ' ').includes('stretched to 4L: zero-shot'))",
                           timeout=30_000)
    assert "RoPE on copy, stretched to 4L: fine-tuned 50 steps at 1…32" in _titles(page)
    assert "stretch_steps=50" in page.url and page.url.count("stretch_methods=") == 2


def test_the_stretched_models_animation_opens_paused_and_plays_in_the_browser(app, page):
    """Stretching RoPE's animation (issue 30 part 3): its method in the URL, paused on 1 digit, ▶ Play steps
    through the 32 test lengths in the browser alone."""
    from test_animations_browser import STATE, animated_plots

    page.goto(f"{app}/generalization?task=reverse&stretch_map_method=pi&stretch_map_layer=2")
    wait_idle(page, charts=6)
    page.wait_for_function("() => [...document.querySelectorAll('g.updatemenu-button')].length > 0", timeout=60_000)
    assert page.locator("[data-testid=stException], [data-testid=stAlertContentError], [data-testid=stAlert]").count() == 0
    plots = [p for p in animated_plots(page)
             if "stretched by PI" in p.evaluate("p => p.layout.title.text.replace(/<br>/g, ' ')")]
    assert len(plots) == 1
    plot = plots[0]
    plot.scroll_into_view_if_needed()
    first = plot.evaluate(STATE)
    assert first["active"] == 0 and first["frames"] == 32
    page.wait_for_timeout(800)
    assert plot.evaluate(STATE)["data"] == first["data"]  # paused: nothing moves by itself
    plot.locator("g.updatemenu-button", has_text="▶ Play").click()
    seen = [first]
    for _ in range(50):  # up to 15 s: a loaded machine draws 32 heatmap frames slowly
        page.wait_for_timeout(300)
        seen.append(plot.evaluate(STATE))
        if len({s["data"] for s in seen}) >= 4 and seen[-1]["active"] > 2:
            break
    assert len({s["data"] for s in seen}) >= 4 and seen[-1]["active"] > 2
    plot.locator("g.updatemenu-button", has_text="Pause").click()
    assert "stretch_map_method=pi" in page.url and "stretch_map_layer=2" in page.url
