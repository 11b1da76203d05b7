"""The app in a real browser: headless Chromium (Debian's) driven by Playwright, app on loopback."""

import time

import numpy as np
import pytest

import posenc
from browser_controls import assert_clean
from live_app import chart_data, require_chromium, wait_idle
from posenc.figures import images

pytestmark = pytest.mark.browser
require_chromium()
PAGES = ["", "sinusoids", "rotation", "details", "compare", "properties"]
# The pages that draw the sidebar's scheme itself. The others are loaded under every scheme elsewhere: How it works
# by test_every_view.py (every scheme, four screen sizes, the same checks); Comparison and Properties draw every scheme,
# the sidebar's with its options (the defaults here), so they show the same under each (AppTest runs every page under
# every scheme: tests/pages/test_app.py).
DRAWING_THE_SCHEME = ["", "sinusoids", "rotation"]


@pytest.mark.parametrize("scheme", list(posenc.SCHEMES))
def test_every_page_drawing_the_scheme_loads_under_every_scheme(app, page, scheme):
    for name in DRAWING_THE_SCHEME:
        page.goto(f"{app}/{name}?scheme={scheme}&length=64&d_model=32")
        wait_idle(page)
        assert_clean(page, f"{name} under {scheme}")
        assert page.locator("h1").count() == 1, name
        content = "[data-testid=stPlotlyChart], [data-testid=stDataFrame], [data-testid=stAlert]"
        page.wait_for_selector(content, timeout=30_000)  # charts and tables load after the run ends
        wait_idle(page)
        assert_clean(page, f"{name} under {scheme}, drawn")


def test_moving_the_length_slider_redraws_the_heatmap(app, page):
    page.goto(f"{app}/?d_model=16&length=40")
    wait_idle(page, charts=1)  # the Table tab; the Similarity tab is drawn when opened
    assert len(chart_data(page)[0]["z"]) == 40
    slider = page.get_by_role("slider", name="length")
    slider.focus()
    page.keyboard.press("ArrowRight")
    # null-safe: a new setting mounts a new plot, and for a moment there is none (a throwing predicate fails the wait)
    page.wait_for_function("() => { const plot = document.querySelector('[data-testid=stPlotlyChart] .js-plotly-plot');"
                           " const z = plot && plot.data && plot.data[0] && plot.data[0].z;"
                           " return !!z && (z._inputArray || z).length === 41; }", timeout=30_000)
    wait_idle(page)
    assert slider.input_value() == "41"
    assert "length=41" in page.url
    z = np.array(chart_data(page)[0]["z"], dtype=np.float32)
    np.testing.assert_array_equal(z, posenc.sinusoidal(41, 16).astype(np.float32))


def test_a_rerun_sends_the_page_wide_script_once_then_as_its_hash(app, page):
    """.streamlit/config.toml's global.minCachedMessageSize: an element of 1 KB or more that a run sends unchanged
    reaches a tab that holds it as its hash (Streamlit's forward-message cache), so the ~8 KB page-wide style and
    script (posenc/ui/accessibility.py) reach a tab once, not at every run; the page still has them."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    mark = b"window.posencAccessibility"
    frames: list[bytes] = []
    kinds: list[str | None] = []  # each frame's ForwardMsg kind ("delta", "script_finished"), read once as it comes

    def received(data: bytes | str) -> None:
        frame = data if isinstance(data, bytes) else data.encode()
        message = ForwardMsg()
        message.ParseFromString(frame)
        frames.append(frame)
        kinds.append(message.WhichOneof("type"))

    page.on("websocket", lambda socket: socket.on("framereceived", received))
    page.goto(f"{app}/sinusoids?d_model=16&length=40")
    wait_idle(page, charts=1)
    assert any(mark in frame for frame in frames)
    frames.clear()
    kinds.clear()
    page.get_by_role("slider", name="length").focus()
    page.keyboard.press("ArrowRight")
    deadline = time.monotonic() + 30
    while "script_finished" not in kinds and time.monotonic() < deadline:
        page.wait_for_timeout(50)  # (Playwright's events come while it waits)
    wait_idle(page, charts=1)
    assert "length=41" in page.url and sum(map(len, frames)) > 1_000  # the whole run came
    assert not any(mark in frame for frame in frames)
    assert page.evaluate("() => window.posencAccessibility === true")
    assert page.evaluate("() => [...document.querySelectorAll('style')].some("
                         "s => s.textContent.includes('[data-posenc-scrolls]'))")


def test_a_shared_url_reproduces_controls_and_chart(app, page):
    page.goto(f"{app}/sinusoids?d_model=24&length=50&n=100&scheme=sinusoidal")
    wait_idle(page, charts=1)
    assert page.get_by_role("slider", name="d_model").input_value() == "24"
    assert page.get_by_role("slider", name="length").input_value() == "50"
    assert page.get_by_label("n (base)", exact=True).input_value() == "100"
    traces = chart_data(page)
    assert [t["name"] for t in traces] == ["dim 4", "dim 5", "dim 6", "dim 7"]
    np.testing.assert_allclose(traces[0]["y"], posenc.sinusoidal(50, 24, 100.0)[:, 4], rtol=1e-12)


def test_bad_url_warns_and_renders_every_page(app, page):
    for name in PAGES:
        page.goto(f"{app}/{name}?d_model=abc&length=1000000000&n=0&scheme=%3Cscript%3Ealert(1)%3C/script%3E")
        wait_idle(page)
        assert_clean(page, f"{name} with a bad link")
        text = page.locator("[data-testid=stAlert]").all_inner_texts()
        joined = " ".join(text)
        assert "URL parameter d_model = abc is not a number: using 128." in joined, name
        assert "URL parameter length = 1000000000 is outside 2 … 4096: using 4096." in joined, name
        assert page.locator("[data-testid=stAlert] code", has_text="<script>alert(1)</script>").count() == 1
        assert page.get_by_role("slider", name="length").input_value() == "4096"


def test_download_returns_the_matrix(app, page, tmp_path):
    page.goto(f"{app}/?d_model=12&length=30&n=500")
    wait_idle(page)
    page.get_by_text("Download the matrix").click()  # a closed expander: its buttons are made when it opens
    page.get_by_role("button", name="Download sinusoidal_L30_d12_n500.npy").wait_for()
    assert "download=true" in page.url
    with page.expect_download() as info:
        page.get_by_role("button", name="Download sinusoidal_L30_d12_n500.npy").click()
    path = tmp_path / "table.npy"
    info.value.save_as(path)
    np.testing.assert_array_equal(np.load(path), posenc.sinusoidal(30, 12, 500.0))
    with page.expect_download() as info:
        page.get_by_role("button", name="Download sinusoidal_L30_d12_n500.csv").click()
    info.value.save_as(tmp_path / "table.csv")
    np.testing.assert_array_equal(np.loadtxt(tmp_path / "table.csv", delimiter=","), posenc.sinusoidal(30, 12, 500.0))


def test_large_settings_send_a_thinned_heatmap_drawn_as_its_image(app, page):
    """At the caps the 256 × 256 cells shown travel as the PNG of their colour levels (posenc.figures.images): the
    plot keeps the heatmap's shape, the axis names the true dimension of each interleaved (sin, cos) column, and so
    does the hover."""
    page.goto(f"{app}/?d_model=1024&length=4096")
    wait_idle(page, charts=1)
    plot = page.locator("[data-testid=stPlotlyChart] .js-plotly-plot").first
    drawn = plot.evaluate("""(gd) => ({types: gd._fullData.map(t => t.type), source: gd.data[0].source,
        width: gd._fullLayout.xaxis._length, height: gd._fullLayout.yaxis._length,
        ticks: [...gd.querySelectorAll('.xtick text')].map(t => t.textContent)})""")
    assert drawn["types"] == ["image", "scatter"]  # the image and its colour bar
    levels, _ = images.read_png(drawn["source"])
    assert levels.shape == (256, 256)
    assert drawn["width"] > 2 * drawn["height"]  # not squared to 256 × 4096 data units
    assert drawn["ticks"][:2] == ["0", "200"]  # place 50 is dimension 200 (pairs 0, 1, 8, 9, …)
    assert "every 16th position shown" in page.locator("[data-testid=stPlotlyChart]").first.inner_text()
    box = page.locator("[data-testid=stPlotlyChart] .nsewdrag").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] * (1 - 1 / 512), box["y"] + box["height"] / 512)  # the last column, the first row
    hover = page.locator(".hoverlayer .hovertext").first
    hover.wait_for(timeout=10_000)
    assert "(1017, 0)" in hover.text_content() and "(dimension, position)" in hover.text_content()


SIMILARITY_CELLS = """() => {
    const plot = [...document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot')]
        .find(p => p.layout && p.data && /similarity/.test(p.layout.title.text));
    const plain = v => (v && v._inputArray ? plain(v._inputArray)
        : ArrayBuffer.isView(v) ? Array.from(v) : Array.isArray(v) ? v.map(plain) : v);
    return plot ? plain(plot.data[0].z) : null;
}"""


def test_the_similarity_view_draws_its_chart_when_opened_and_lands_in_the_url(app, page):
    page.goto(f"{app}/?d_model=8&length=30")
    wait_idle(page, charts=1)
    assert page.locator("[data-testid=stPlotlyChart]").count() == 1  # the view not shown is not drawn
    page.get_by_role("radio", name="Similarity").click()
    page.wait_for_function("() => /matrix=Similarity/.test(location.search)", timeout=30_000)
    page.wait_for_function("() => [...document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot')]"
                           ".some(p => p.layout && /similarity/.test(p.layout.title.text))", timeout=30_000)
    table = posenc.sinusoidal(30, 8)
    # The similarity chart's cells, found and read in one step: a rerun can replace the page's charts between two
    # reads (CI failed reading by an index found one step before)
    z = page.wait_for_function(SIMILARITY_CELLS, timeout=30_000).json_value()
    np.testing.assert_allclose(np.array(z, dtype=np.float32), (table @ table.T).astype(np.float32), rtol=1e-6)


def test_a_long_series_hover_prints_the_exact_values_digits(app, page):
    """A series of 256 points or more is sent as float32 of the six digits its hover prints (posenc.figures.series):
    plotly.js prints, for every point hovered, the six significant digits of the exact value, at its exact offset."""
    scheme = posenc.get_scheme("rope")
    offsets, values = scheme.offset_curve(300, 64, 10000.0, **scheme.defaults())
    exact = dict(zip(offsets.tolist(), values.tolist()))
    page.goto(f"{app}/details?scheme=rope&length=300&d_model=64")
    wait_idle(page, charts=1)
    plot = page.locator("[data-testid=stPlotlyChart] .js-plotly-plot").filter(has_text="q·k against the offset").first
    sent = plot.evaluate("(gd) => ({dtype: gd._fullData[0].y.constructor.name, x0: gd.data[0].x0, dx: gd.data[0].dx})")
    assert sent == {"dtype": "Float32Array", "x0": int(offsets[0]), "dx": 1}
    plot.scroll_into_view_if_needed()
    points = plot.evaluate("""(gd, picks) => {
        const box = gd.getBoundingClientRect(), xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
        const trace = gd._fullData[0];
        return picks.map(i => [box.left + xa._offset + xa.l2p(trace.x0 + i * trace.dx),
                               box.top + ya._offset + ya.l2p(trace.y[i])]);
    }""", [int(i) for i in np.linspace(3, len(offsets) - 4, 12)])
    box_top = plot.bounding_box()["y"]
    hover = plot.locator(".hoverlayer .hovertext").first
    printed = {}
    for x, y in points:  # wherever the pointer lands, the point hovered prints its own offset and value
        # off the plot area first (onto its title): its label goes, so the next one read is the new one
        page.mouse.move(x, box_top + 5)
        hover.wait_for(state="detached", timeout=10_000)
        page.mouse.move(x, y)
        hover.wait_for(timeout=10_000)
        text = hover.text_content().replace("−", "-")
        offset = int(text.split("offset n - m ")[1].split("q·k")[0])
        printed[offset] = text.split("q·k / d_model (q = k = ones) ")[1]
    assert len(printed) == len(points)
    for offset, shown in printed.items():
        assert float(shown) == float(f"{exact[offset]:.6g}"), (offset, shown, exact[offset])
