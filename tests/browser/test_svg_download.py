"""Every chart downloads as SVG beside its PNG (posenc/ui/svg_download.py): the file is named after the settings,
and it holds the chart's title, its legend and its data as vector paths."""

import base64
import io
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

from live_app import require_chromium, wait_idle
from posenc.figures import images

pytestmark = pytest.mark.browser
require_chromium()
SVG = "{http://www.w3.org/2000/svg}"


def _classes(element) -> set[str]:
    return set((element.get("class") or "").split())


def _text(element) -> str:
    return "".join(element.itertext())


def _vertices(d: str) -> np.ndarray:
    """The points of a path drawn with absolute M and L commands (plotly's lines), as (n, 2)."""
    return np.array([[float(x), float(y)] for x, y in re.findall(r"[ML]\s*([-\d.e]+)[ ,]([-\d.e]+)", d)])


def test_a_chart_downloads_as_svg_with_its_title_legend_and_data(app, page, tmp_path):
    page.goto(f"{app}/sinusoids?d_model=16&length=40")
    wait_idle(page, 1)
    page.wait_for_selector(".posenc-svg", state="attached", timeout=30_000)
    plot = page.locator(".js-plotly-plot").first
    drawn = plot.evaluate("""(gd) => ({title: gd.layout.title.text, names: gd.data.map(t => t.name),
        x: gd._fullData.map(t => Array.from(t.x)), y: gd._fullData.map(t => Array.from(t.y)),
        xrange: gd._fullLayout.xaxis.range, yrange: gd._fullLayout.yaxis.range,
        width: gd._fullLayout.xaxis._length, height: gd._fullLayout.yaxis._length,
        options: gd._context.toImageButtonOptions})""")
    button = page.get_by_role("button", name="Download plot as SVG").first
    button.focus()  # the tool bar shows itself while one of its buttons has the focus; Enter presses it
    with page.expect_download(timeout=30_000) as download:
        page.keyboard.press("Enter")
    name = download.value.suggested_filename
    assert name == drawn["options"]["filename"] + ".svg"
    assert re.fullmatch(r"posenc_\w+_scheme-sinusoidal_d_model-16_n-10000_length-40.*\.svg", name)
    path = tmp_path / name
    download.value.save_as(path)
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"

    titles = [_text(e) for e in root.iter(f"{SVG}text") if "gtitle" in _classes(e)]
    title = re.sub(r"<[^>]+>", "", re.split(r"<br\s*/?>", drawn["title"])[0])  # its first line, tags off
    assert title and titles and title in titles[0]
    legend = [_text(e) for e in root.iter(f"{SVG}text") if "legendtext" in _classes(e)]
    assert legend == drawn["names"]

    layers = [g for g in root.iter(f"{SVG}g") if "scatterlayer" in _classes(g)]  # the plot, not the legend's samples
    lines = [e.get("d") for layer in layers for e in layer.iter(f"{SVG}path") if "js-line" in _classes(e)]
    assert len(lines) == len(drawn["names"])
    for d, xs, ys in zip(lines, drawn["x"], drawn["y"]):
        pixels = _vertices(d)  # plot-area pixels, y down; plotly may drop collinear points, never add one
        (x0, x1), (y0, y1) = drawn["xrange"], drawn["yrange"]
        x = x0 + pixels[:, 0] / drawn["width"] * (x1 - x0)
        y = y1 - pixels[:, 1] / drawn["height"] * (y1 - y0)
        per_pixel = np.array([(x1 - x0) / drawn["width"], (y1 - y0) / drawn["height"]])
        nearest = np.abs(np.asarray(xs)[None, :] - x[:, None]).argmin(axis=1)
        assert np.all(np.abs(np.asarray(xs)[nearest] - x) <= per_pixel[0])
        assert np.all(np.abs(np.asarray(ys)[nearest] - y) <= per_pixel[1])
        assert nearest[0] == 0 and nearest[-1] == len(xs) - 1  # from the first point to the last

    # the camera still saves a PNG afterwards: its options were put back
    assert plot.evaluate("(gd) => gd._context.toImageButtonOptions") == drawn["options"]
    with page.expect_download(timeout=30_000) as png:
        page.get_by_role("button", name="Download plot as a PNG").first.click()
    assert png.value.suggested_filename == drawn["options"]["filename"] + ".png"


def test_a_large_heatmap_downloads_as_svg_with_the_image_of_its_cells(app, page, tmp_path):
    """At the caps the heatmap is sent as the PNG of its colour levels (posenc.figures.images): the SVG holds
    that image, every cell of it, beside the chart's title and axes as text."""
    page.goto(f"{app}/?d_model=1024&length=4096")
    wait_idle(page, 1)
    page.wait_for_selector(".posenc-svg", state="attached", timeout=30_000)
    plot = page.locator(".js-plotly-plot").first
    source = plot.evaluate("(gd) => gd.data[0].source")
    button = page.get_by_role("button", name="Download plot as SVG").first
    button.focus()
    with page.expect_download(timeout=30_000) as download:
        page.keyboard.press("Enter")
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    root = ET.parse(path).getroot()
    hrefs = [e.get("href") or e.get("{http://www.w3.org/1999/xlink}href") for e in root.iter(f"{SVG}image")]
    drawn = [h for h in hrefs if h and h.startswith(images.PREFIX)]
    assert len(drawn) == 1
    # plotly writes the plot area's picture: a cell of the 256 × 256 shown is a few pixels, its level's colour
    raster = np.asarray(Image.open(io.BytesIO(base64.b64decode(drawn[0].removeprefix(images.PREFIX)))).convert("RGBA"))
    levels, colours = images.read_png(source)
    height, width = raster.shape[:2]
    centres = ((np.arange(256) + 0.5) * height / 256).astype(int), ((np.arange(256) + 0.5) * width / 256).astype(int)
    at_centres = raster[np.ix_(*centres)].astype(int)  # (256, 256, 4)
    close = np.abs(at_centres - colours[levels].astype(int)).max(axis=-1) <= 2
    assert close.mean() > 0.99, close.mean()  # 1.0 here
    titles = [_text(e) for e in root.iter(f"{SVG}text") if "gtitle" in _classes(e)]
    assert titles and titles[0].startswith("PE: positions × dimensions")
    ticks = [_text(g) for g in root.iter(f"{SVG}g") if "xtick" in _classes(g)]
    assert ticks[:2] == ["0", "200"]  # the axis names the dimension of each place
