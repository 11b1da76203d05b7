"""Every chart legible at a phone's size, at the desk and in presenter mode (issue 37): measured in Chromium, the
title, subplot titles, annotations and axis titles of every plotly chart lie inside the chart, overlap neither each
other nor the legend nor the tool bar, no axis's title or numbers lie over another subplot's plot area, and its
texts show no raw TeX and no long decimal strings. The charts are laid out by posenc/figures/legible.py.

One browser context per size, one visit per view and one evaluate() per visit that returns every box; each size's
test lists every problem it found (view, chart, which texts), not only the first.
"""

import re

import pytest

import posenc
from app_routes import page_paths
from live_app import require_chromium, wait_idle

pytestmark = pytest.mark.browser
require_chromium()

SIZES = {"phone": ({"width": 390, "height": 844}, ""),
         "desk": ({"width": 1920, "height": 1080}, ""),
         "presenter": ({"width": 1920, "height": 1080}, "present=true")}
# The dark theme changes colours only (posenc/ui/presenter.py's _dark_colours): its boxes are the light theme's
# (measured once at 390×844 when this test was written; not repeated, for CI's time).
SLACK = 2  # px: a box may pass the chart's edge, or meet another box, by this much (anti-aliasing, rounding)

# Every chart's labelled texts and the boxes they must avoid, in CSS pixels; its texts for the number check.
MEASURE = """() => [...document.querySelectorAll('[data-testid=stPlotlyChart]')].flatMap((chart, index) => {
    const plot = chart.querySelector('.js-plotly-plot'), box = plot && plot.querySelector('.svg-container');
    if (!box) return [];
    const rect = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
    const area = rect(box);
    if (area[2] - area[0] < 1) return [];  // not shown (a closed expander, another tab)
    const texts = [], seen = new Set();
    const add = (kind, e) => {
        if (seen.has(e)) return;
        seen.add(e);
        const parts = [...e.querySelectorAll('tspan.line')], r = rect(e);
        const text = (parts.length ? parts.map(p => p.textContent).join(' ') : e.textContent).trim();
        if (text && r[2] - r[0] > 0 && getComputedStyle(e).visibility !== 'hidden') texts.push({kind, text, box: r});
    };
    plot.querySelectorAll('.gtitle').forEach(e => add('title', e));
    plot.querySelectorAll('.annotation-text').forEach(e => add('annotation', e));
    plot.querySelectorAll('.cbtitle text').forEach(e => add('colorbar title', e));
    plot.querySelectorAll('.infolayer g[class$="title"] > text').forEach(e => add(e.getAttribute('class') || 'axis title', e));
    // Each subplot's plot area, and the boxes around its axes' tick labels (x ticks and y ticks apart).
    const union = (boxes) => boxes.length ? [Math.min(...boxes.map(b => b[0])), Math.min(...boxes.map(b => b[1])),
                                             Math.max(...boxes.map(b => b[2])), Math.max(...boxes.map(b => b[3]))] : null;
    const plots = [...plot.querySelectorAll('.draglayer > g')].flatMap(g => {
        const drag = g.querySelector('rect.nsewdrag');
        return drag ? [{id: g.getAttribute('class'), box: rect(drag)}] : [];
    });
    const ticks = [...plot.querySelectorAll('.cartesianlayer > g.subplot')].flatMap(g => {
        const id = g.getAttribute('class').replace('subplot ', '');
        return ['x', 'y'].flatMap(axis => {
            const labels = [...g.querySelectorAll(`g[class^="${axis}"][class$="tick"] > text`)]
                .filter(t => t.textContent.trim()).map(rect).filter(b => b[2] > b[0]);
            return labels.length ? [{id, axis, box: union(labels)}] : [];
        });
    });
    const legends = [...plot.querySelectorAll('.legend > rect.bg')].map(rect);
    const bar = plot.querySelector('.modebar');
    const all = [...plot.querySelectorAll('text')].map(e => e.textContent);
    return [{index, area, texts, plots, ticks, legends, modebar: bar ? rect(bar) : null, all, width: innerWidth}];
})"""

# 0.0000000000000031 for 3.1e−15, or 13 digits and more after the point (the relative property's animation prints
# its score to 12 significant digits on purpose: it stays the same to all of them).
LONG_DECIMAL = re.compile(r"\b0\.0{4,}\d|\d\.\d{13,}")
RAW_TEX = re.compile(r"\\[A-Za-z]+|[_^]\{")


def links() -> list[str]:
    """Every page, every scheme's How it works, and a released model's views."""
    return (page_paths() + [f"details?scheme={key}" for key in posenc.SCHEMES]
            + ["compare?model=llama-3.1-8b", "details?model=llama-3.1-8b"])


def with_query(path: str, query: str) -> str:
    return f"{path}{'&' if '?' in path else '?'}{query}" if query else path


def overlap(a: list[float], b: list[float]) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > SLACK and min(a[3], b[3]) - max(a[1], b[1]) > SLACK


def inside(inner: list[float], outer: list[float]) -> bool:
    return (inner[0] >= outer[0] - SLACK and inner[1] >= outer[1] - SLACK
            and inner[2] <= outer[2] + SLACK and inner[3] <= outer[3] + SLACK)


def short(text: str) -> str:
    return repr(text if len(text) <= 50 else text[:49] + "…")


def problems_of(chart: dict) -> list[str]:
    """What is illegible in one measured chart, one sentence per problem."""
    area, texts, found = chart["area"], chart["texts"], []
    if area[2] > chart["width"] + SLACK:
        found.append(f"the chart passes the screen's right edge ({area[2]:.0f} > {chart['width']} px)")
    for n, text in enumerate(texts):
        label = f"{text['kind']} {short(text['text'])}"
        if not inside(text["box"], area):
            sides = [side for side, cut in zip(("left", "top", "right", "bottom"),
                                               (area[0] - text["box"][0], area[1] - text["box"][1],
                                                text["box"][2] - area[2], text["box"][3] - area[3])) if cut > SLACK]
            found.append(f"{label} is cut at the chart's {'/'.join(sides)} edge")
        for other in texts[n + 1:]:
            if overlap(text["box"], other["box"]):
                found.append(f"{label} overlaps {other['kind']} {short(other['text'])}")
        if any(overlap(text["box"], legend) for legend in chart["legends"]):
            found.append(f"{label} is under the legend")
        if chart["modebar"] and overlap(text["box"], chart["modebar"]):
            found.append(f"{label} is under the tool bar")
    found += neighbours(chart)
    for text in chart["all"]:
        for pattern, what in ((LONG_DECIMAL, "a long decimal string"), (RAW_TEX, "raw TeX")):
            if match := pattern.search(text):
                found.append(f"{what} {match.group()!r} in {short(text)}")
    return found


def axes_of(subplot: str) -> set[str]:
    """'x2y2' -> {'x2', 'y2'}."""
    return set(re.findall(r"[xy]\d*", subplot))


def neighbours(chart: dict) -> list[str]:
    """An axis's title or tick labels that lie over the plot area of another subplot (small multiples too close)."""
    found = []
    titles = [(text["kind"].removesuffix("title"), text) for text in chart["texts"]
              if re.fullmatch(r"[xy]\d*title", text["kind"])]
    for plot in chart["plots"]:
        for axis, text in titles:
            if axis not in axes_of(plot["id"]) and overlap(text["box"], plot["box"]):
                found.append(f"{text['kind']} {short(text['text'])} lies over the plot of {plot['id']}")
        for ticks in chart["ticks"]:
            if ticks["id"] != plot["id"] and overlap(ticks["box"], plot["box"]):
                found.append(f"the {ticks['axis']} tick labels of {ticks['id']} lie over the plot of {plot['id']}")
    return found


def chart_name(chart: dict) -> str:
    titles = [text["text"] for text in chart["texts"] if text["kind"] == "title"]
    return f"chart {chart['index']} {short(titles[0])}" if titles else f"chart {chart['index']}"


# The page's charts, counted every 100 ms until the count and every chart's size hold still for 400 ms: a run
# shows "not running" before its first element arrives, and plotly resizes a chart to its column after drawing.
STILL = """() => new Promise(done => {
    let last = '', still = 0;
    const look = () => {
        const now = [...document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot')]
            .map(p => p.data ? p.getBoundingClientRect().width + 'x' + p.getBoundingClientRect().height : 'x').join();
        still = now === last ? still + 1 : 0;
        last = now;
        if (still >= 4) done(); else setTimeout(look, 100);
    };
    document.fonts.ready.then(look);
})"""


def settle(page) -> None:
    """The run finished, every chart drawn, the fonts in and plotly's resize to its column done."""
    wait_idle(page)
    page.evaluate(STILL)
    wait_idle(page)


@pytest.mark.parametrize("size", SIZES)
def test_every_chart_text_is_inside_its_chart_and_overlaps_nothing(app, browser, size):
    viewport, query = SIZES[size]
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    found = []
    for path in links():
        page.goto(f"{app}/{with_query(path, query)}")
        settle(page)
        assert page.locator("[data-testid=stException]").count() == 0, path
        for chart in page.evaluate(MEASURE):
            found += [f"{path or '/'} [{size}] {chart_name(chart)}: {problem}" for problem in problems_of(chart)]
    context.close()
    assert not found, f"{len(found)} problems:\n" + "\n".join(found)
