"""What every view is checked for at a screen size, in one visit (tests/browser/test_every_view.py): axe-core's
WCAG 2.0/2.1 A and AA rules, the legibility of its charts (issue 37) and the contrast of their texts, which axe-core
does not read (plotly draws them in SVG), and, on a phone, whether it fits the screen.

axe-core comes with axe-playwright-python (requirements-dev.txt); posenc's part of accessibility is
posenc/ui/accessibility.py (page-wide) and posenc/ui/presenter.py (charts); charts are laid out by
posenc/figures/legible.py.
"""

from __future__ import annotations

import re

from playwright.sync_api import TimeoutError as PlaywrightTimeout

import posenc
from app_routes import page_paths
from live_app import wait_idle

PHONE = dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2)
DESK = dict(viewport={"width": 1920, "height": 1080})
# size: (browser context options, the query every link gets). A phone is a touch screen at twice the pixels,
# light and dark (the dark theme changes colours only, which axe-core checks).
SIZES = {"desk": (DESK, ""),
         "presenter": (DESK, "present=true"),
         "phone": (PHONE | {"color_scheme": "light"}, ""),
         "phone-dark": (PHONE | {"color_scheme": "dark"}, "")}
# How it works under these schemes is run through axe-core (each draws a different view; RoPE's formula is wider
# than a phone and its column); every scheme's is measured for legibility.
SCHEMES_THROUGH_AXE = ("rope", "t5", "alibi", "kerple", "transformer_xl")
SLACK = 2  # px: a box may pass the chart's edge, or meet another box, by this much (anti-aliasing, rounding)


# The views a page draws only when its view switch is pressed (pages/heatmap.py's and pages/sinusoids.py's).
OTHER_VIEWS = ("?matrix=Similarity", "sinusoids?curves=Against%20dimension", "sinusoids?curves=Wavelengths")


def links() -> list[str]:
    """Every page and the views its switch opens, every scheme's How it works, a lecture's slide (its bar above
    the view), a released model's views (the Comparison page and How it works under ?model=) and How it works
    under a model with sliding windows, one with windows both ways and under T5 (whose charts once broke on a phone
    or a projector), and the Derivation's step with a square-celled matrix."""
    return (page_paths() + [f"details?scheme={key}" for key in posenc.SCHEMES]
            + ["?lecture=sinusoidal&slide=1", "compare?model=llama-3.1-8b", "details?model=llama-3.1-8b"]
            + [f"details?model={key}" for key in ("mistral-7b-v0.1", "t5-base", "modernbert-base")]  # windows; T5's
            # buckets; windows either side of the query
            + ["derivation?step=4"]  # a square-celled matrix, whose colour bar once ran past it on a phone
            + list(OTHER_VIEWS))


def through_axe(path: str) -> bool:
    scheme = re.fullmatch(r"details\?scheme=(\w+)", path)
    return scheme is None or scheme.group(1) in SCHEMES_THROUGH_AXE


def with_query(path: str, query: str) -> str:
    return f"{path}{'&' if '?' in path else '?'}{query}" if query else path


# The page's charts and its elements, counted every 100 ms until the counts and every chart's size hold still for
# 400 ms (at most 15 s): a run shows "not running" before its first element arrives, plotly resizes a chart to its
# column after drawing, and on a busy machine the sidebar's widgets or a formula can arrive after the charts (CI,
# 2026-12-01: the Tab test missed a control it had counted 12th, where the whole page has it 46th, and axe-core
# met a formula on a phone that the page's script had not marked; neither failed alone here).
STILL = """() => new Promise(done => {
    let last = '', still = 0;
    const stop = Date.now() + 15000;
    const look = () => {
        const now = [...document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot')]
            .map(p => p.data ? p.getBoundingClientRect().width + 'x' + p.getBoundingClientRect().height : 'x').join()
            + '|' + document.querySelectorAll('[data-testid=stApp] *').length
            + '|' + document.querySelector('[data-testid=stApp]')?.dataset.testScriptState;
        still = now === last ? still + 1 : 0;
        last = now;
        if (still >= 4 || Date.now() > stop) done(); else setTimeout(look, 100);
    };
    document.fonts.ready.then(look);
})"""


# Every box that scrolls, either way as axe-core counts it, has been marked a region by the page's script
# (posenc/ui/accessibility.py marks them again when fonts load or a box resizes: a KaTeX formula widens when its
# fonts arrive).
MARKED = """() => [...document.querySelectorAll('[data-testid=stMain] *')].every(e => {
    const style = getComputedStyle(e), can = (o) => ['auto', 'scroll'].includes(o);
    return !((can(style.overflowX) && e.scrollWidth > e.clientWidth)
             || (can(style.overflowY) && e.scrollHeight > e.clientHeight))
        || e.closest('[data-testid=stDataFrame]') || e.getAttribute('role') === 'region';
})"""


def settle(page) -> None:
    """The run finished, every chart drawn, the fonts in, plotly's resize to its column done, and the boxes that
    scroll marked: the script marks a formula that its fonts widened a frame or more after they arrive (CI's axe
    check at 390×844 once ran in between, twice). A box still unmarked after 5 s is left for axe-core to report."""
    wait_idle(page)
    page.evaluate(STILL)
    try:
        page.wait_for_function(MARKED, timeout=5_000, polling=100)
    except PlaywrightTimeout:
        pass
    wait_idle(page)


# -- axe-core ------------------------------------------------------------------------------------------------------

WCAG_AA = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
           "resultTypes": ["violations"]}
# Streamlit's own elements that posenc cannot change and axe-core flags: none at streamlit 1.67.0.
# An entry is (axe rule, CSS selector of the element), with a comment naming both and why.
STREAMLIT_EXCLUSIONS: list[tuple[str, str]] = []


def violations(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, options=WCAG_AA).response["violations"]
    found = []
    for violation in results:
        for node in violation["nodes"]:
            target = " ".join(map(str, node["target"]))
            if not any(violation["id"] == rule and
                       page.evaluate("([s, t]) => !!document.querySelector(t)?.matches(s)", [selector, target])
                       for rule, selector in STREAMLIT_EXCLUSIONS):
                found.append(f"{violation['id']} ({violation['impact']}): {target} {node['html'][:120]}")
    return found


# -- legibility of the charts ------------------------------------------------------------------------------------

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
                .filter(t => t.textContent.trim()).map(t => ({text: t.textContent.trim(), box: rect(t)}))
                .filter(l => l.box[2] > l.box[0]);
            return labels.length ? [{id, axis, box: union(labels.map(l => l.box)), labels}] : [];
        });
    });
    const legends = [...plot.querySelectorAll('.legend > rect.bg')].map(rect);
    const colourbars = [...plot.querySelectorAll('.colorbar .cbfills')].map(rect).filter(b => b[2] - b[0] > 0);
    const bar = plot.querySelector('.modebar');
    const all = [...plot.querySelectorAll('text')].map(e => e.textContent);
    return [{index, area, texts, plots, ticks, legends, colourbars, modebar: bar ? rect(bar) : null, all,
             width: innerWidth}];
})"""

# 0.0000000000000031 for 3.1e−15, or 13 digits and more after the point (the relative property's animation prints
# its score to 12 significant digits on purpose: it stays the same to all of them).
LONG_DECIMAL = re.compile(r"\b0\.0{4,}\d|\d\.\d{13,}")
RAW_TEX = re.compile(r"\\[A-Za-z]+|[_^]\{")


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
    found += neighbours(chart) + crowded_ticks(chart) + stray_colour_bars(chart)
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


def stray_colour_bars(chart: dict) -> list[str]:
    """A colour bar of which less than half its length lies alongside the plot areas, from the first's edge to the
    last's: upright, its span down the page against theirs; lying, across (a bar shared by a grid of maps runs
    beside the grid, the gaps between its rows included). Derivation step 4's square M_k on a phone: its upright
    bar ran 520 px beside a 211 px square."""
    found = []
    for bar in chart["colourbars"]:
        lying = bar[2] - bar[0] > bar[3] - bar[1]
        start, end = (0, 2) if lying else (1, 3)
        length = bar[end] - bar[start]
        boxes = [plot["box"] for plot in chart["plots"]]
        beside = max(0.0, min(bar[end], max((box[end] for box in boxes), default=bar[start]))
                     - max(bar[start], min((box[start] for box in boxes), default=bar[end])))
        if beside < length / 2:
            found.append(f"the colour bar ({length:.0f} px long) lies alongside the plots for {beside:.0f} px")
    return found


def crowded_ticks(chart: dict) -> list[str]:
    """Two tick labels of one axis that overlap (a log axis's small 2 and 5 on a decade's exponent, dates run
    together)."""
    found = []
    for ticks in chart["ticks"]:
        labels = ticks["labels"]
        for n, label in enumerate(labels):
            found += [f"the {ticks['axis']} tick labels {label['text']!r} and {other['text']!r} of {ticks['id']} overlap"
                      for other in labels[n + 1:] if overlap(label["box"], other["box"])]
    return found


def chart_name(chart: dict) -> str:
    titles = [text["text"] for text in chart["texts"] if text["kind"] == "title"]
    return f"chart {chart['index']} {short(titles[0])}" if titles else f"chart {chart['index']}"


def legibility(page) -> list[str]:
    """What is illegible in the page's charts, one sentence per problem, each naming its chart."""
    return [f"{chart_name(chart)}: {problem}" for chart in page.evaluate(MEASURE) for problem in problems_of(chart)]


# -- contrast of the charts' texts ---------------------------------------------------------------------------------

# WCAG 2.1's contrast ratio (1.4.3) of every text plotly draws in a chart against what lies under it: the button of
# an animation control, else the legend's box, else the chart's paper, each laid over the page's background where it
# is translucent. axe-core reads HTML text only: plotly's SVG text is measured here. Left out: a heatmap's numbers in
# its cells (on the cell's own colour, and hidden on a phone), a shape's label (on its translucent fill over a
# heatmap) and the hover box's text (its own box, shown only on hover). The tool bar's icons are measured apart, at
# 3:1 against their bar (WCAG 1.4.11, the look of a control).
CONTRAST = """() => {
    const colour = (text) => {
        const m = /rgba?\\(([^)]*)\\)/.exec(text || '');
        if (!m) return null;
        const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
        return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
    };
    const over = (top, under) => !top ? under : {r: top.r * top.a + under.r * (1 - top.a),
        g: top.g * top.a + under.g * (1 - top.a), b: top.b * top.a + under.b * (1 - top.a), a: 1};
    const light = (c) => ['r', 'g', 'b'].map(k => c[k] / 255).map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
        .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
    const ratio = (a, b) => (Math.max(light(a), light(b)) + 0.05) / (Math.min(light(a), light(b)) + 0.05);
    const page = over(colour(getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor),
                      {r: 255, g: 255, b: 255, a: 1});
    const found = [];
    document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot').forEach((plot, index) => {
        if (plot.getBoundingClientRect().width < 1) return;  // not shown (a closed expander, another view)
        const svg = plot.querySelector('.main-svg');  // plotly paints the paper as the SVG's CSS background
        const paper = over(svg && colour(getComputedStyle(svg).backgroundColor), page);
        const title = plot.querySelector('.gtitle')?.textContent.trim() || '';
        for (const text of plot.querySelectorAll('text')) {
            if (!text.textContent.trim() || text.closest('.heatmap-label, .shapelayer, .hoverlayer, .modebar')) continue;
            const style = getComputedStyle(text);
            if (style.visibility === 'hidden' || style.display === 'none' || text.getBoundingClientRect().width < 1) continue;
            const button = text.closest('.updatemenu-button')?.querySelector('rect.updatemenu-item-rect');
            const legend = text.closest('.legend')?.querySelector('rect.bg');
            const under = button ? over(colour(getComputedStyle(button).fill), paper)
                        : legend ? over(colour(getComputedStyle(legend).fill), paper) : paper;
            const fill = colour(style.fill);
            if (!fill) continue;
            const size = parseFloat(style.fontSize), bold = parseInt(style.fontWeight) >= 700;
            const needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
            const got = ratio(over({...fill, a: fill.a * (parseFloat(style.fillOpacity) || 1)}, under), under);
            if (got < needed) found.push({index, title, text: text.textContent.trim(), got, needed, fill: style.fill});
        }
        for (const button of plot.querySelectorAll('.modebar-btn')) {  // the tool bar's icons: 3:1, a control's look
            const path = button.querySelector('path'), group = button.closest('.modebar-group');
            const painted = path && getComputedStyle(path).fill, fill = colour(painted);
            if (!fill) continue;
            const under = over(group && colour(getComputedStyle(group).backgroundColor), paper);
            const got = ratio(over(fill, under), under);
            if (got < 3) found.push({index, title, text: `tool bar icon "${button.getAttribute('data-title')}"`, got,
                                     needed: 3, fill: painted});
        }
    });
    return found;
}"""


def text_contrast(page) -> list[str]:
    """Every chart text under WCAG's contrast (4.5:1, 3:1 for large text) and every tool bar icon under 3:1, one
    sentence per chart and colour."""
    grouped: dict[tuple, list[dict]] = {}
    for low in page.evaluate(CONTRAST):
        grouped.setdefault((low["index"], low["title"], low["fill"], round(low["got"], 2), low["needed"]), []).append(low)
    return [f"chart {index} {short(title)}: {len(lows)} texts or icons in {fill} at {got}:1 against its background (WCAG asks "
            f"{needed}:1), e.g. {short(lows[0]['text'])}" for (index, title, fill, got, needed), lows in grouped.items()]


# -- a phone's screen ----------------------------------------------------------------------------------------------

# Elements whose right edge passes the screen's and that no box of theirs clips or scrolls (an SVG
# clips what it draws; a box with overflow-x other than visible clips or scrolls what it holds).
OVERFLOWING = """() => {
    const clipped = (e) => { for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
        if (a instanceof SVGSVGElement || getComputedStyle(a).overflowX !== 'visible')
            return a.getBoundingClientRect().right <= innerWidth + 0.5; }
        return false; };
    return [...document.querySelectorAll('[data-testid=stApp] *')]
        .filter(e => { const r = e.getBoundingClientRect();
                       return r.width > 0 && (r.right > innerWidth + 0.5 || r.left < -0.5) && !clipped(e); })
        .slice(0, 5).map(e => e.outerHTML.slice(0, 160));
}"""

# Boxes that scroll sideways: each must be a named, focusable region with a visible cue.
SCROLL_BOXES = """() => [...document.querySelectorAll('[data-testid=stMain] *')]
    .filter(e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX) && e.scrollWidth > e.clientWidth
                 && !e.closest('[data-testid=stDataFrame]'))  // the data grid scrolls with its own keys
    .map(e => ({role: e.getAttribute('role'), name: e.getAttribute('aria-label'), tab: e.tabIndex,
                cue: getComputedStyle(e).boxShadow !== 'none', html: e.outerHTML.slice(0, 80),
                by: e.scrollWidth - e.clientWidth,  // px wider than the box; a formula named by its TeX:
                text: Array.from((e.querySelector('annotation') || e).textContent.replace(/\\s+/g, ' ').trim())
                          .slice(0, 50).join('')}))"""

# Whether two rectangles (getBoundingClientRect) meet: the start of the scripts below that compare boxes.
MEET = "const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;"

# Every chart's tool bar (shown on a touch screen) against its title: their rectangles may not meet.
TOOLBAR_ON_TITLE = """() => { """ + MEET + """
  return [...document.querySelectorAll('[data-testid=stPlotlyChart]')].flatMap(chart => {
    const bar = chart.querySelector('.modebar'), title = chart.querySelector('.gtitle');
    if (!bar || !title) return [];
    const b = bar.getBoundingClientRect(), t = title.getBoundingClientRect();
    const opacity = getComputedStyle(bar).opacity;
    const met = meet(b, t);
    return met || opacity !== '1' ? [{title: title.textContent, opacity, meet: met}] : [];
  }); }"""

# The tool bar Streamlit puts above a data grid (shown at all times on a touch screen) against every text outside
# its own element: the heading above the grid, mostly. Their rectangles may not meet.
ELEMENT_TOOLBAR_ON_TEXT = """() => { """ + MEET + """
  return [...document.querySelectorAll('[data-testid=stMain] [data-testid=stElementToolbar]')].flatMap(bar => {
    const b = bar.getBoundingClientRect(), own = bar.closest('.stElementContainer');
    // a bar not shown (in a closed expander, or faded out for a mouse) covers nothing
    if (!bar.checkVisibility({opacityProperty: true, visibilityProperty: true}) || b.width === 0) return [];
    const texts = [...document.querySelectorAll('[data-testid=stMain] :is(h1, h2, h3, h4, h5, h6, p, li, label)')];
    return texts.filter(t => !own.contains(t))
      .filter(t => { const r = t.getBoundingClientRect(); return r.width > 0 && meet(b, r); })
      .map(t => t.innerText.trim().slice(0, 40));
  }); }"""


def scroll_boxes(page) -> list[dict]:
    """The page's boxes that scroll sideways (:data:`SCROLL_BOXES`), read once a view for the checks below."""
    return page.evaluate(SCROLL_BOXES)


def fit(page, boxes: list[dict]) -> list[str]:
    """What does not fit a phone's screen: the page wider than it, elements sticking out, a box that scrolls
    sideways without being a named focusable region with a cue (``boxes``: :func:`scroll_boxes`), a chart's tool bar
    on its title, a data grid's tool bar on a text outside its element (the heading above it)."""
    found = {"page wider than the screen": page.evaluate("document.documentElement.scrollWidth") > 390,
             "sticks out": page.evaluate(OVERFLOWING),
             "scroll box not a named focusable region": [
                 box for box in boxes
                 if not (box["role"] == "region" and box["name"] and box["tab"] == 0 and box["cue"])],
             "tool bar on a title": page.evaluate(TOOLBAR_ON_TITLE),
             "a data grid's tool bar on a text": page.evaluate(ELEMENT_TOOLBAR_ON_TEXT)}
    return [f"{key}: {value}" for key, value in found.items() if value]


# A box that scrolls sideways by a hair: it fits its column, yet scrolls and is marked "wider than its column" with a
# shadow (KaTeX's 2 px strut did that to RoPE's formula at every size, 1920 px too).
HAIRLINE = 4  # px: a box wider than its column by this much or less is a box that fits


def hairline_scrollers(boxes: list[dict]) -> list[str]:
    """Of ``boxes`` (:func:`scroll_boxes`: formulas, code, tables), those that scroll sideways by a few pixels only."""
    return [f"a box that fits scrolls by {box['by']} px: {box['text']!r}" for box in boxes if box["by"] <= HAIRLINE]
