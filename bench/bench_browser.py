"""The "Encoding matrix" page in a real browser: bytes and redraw time of a length change.

(Until the window view replaced it, this compared posenc with ``send_all=true``; that mode is gone
and BENCHMARKS.md keeps its last results. bench/bench_floor.py compares every page with the floor.)

Run from the repository root; it starts its own server on loopback and drives Debian's Chromium
(about 5 minutes on 2 cores, most of it send-everything at 1024 x 4096):

    python bench/bench_browser.py [--presses 9] [--page-steps 3] [--budget 300]

Per size (128 x 100 default, 512 x 2048, 1024 x 4096) and mode (posenc; ``send_all=true``), in a
fresh browser context: open the page, press ArrowLeft ``--presses`` times on the focused length
slider (the first press a warm-up; left because 4096 is the cap), then ``--page-steps`` page
steps (PageUp or PageDown, ~409 positions: new rows even in a thinned chart). A last row,
"revisit", alternates ArrowLeft and ArrowRight at the default size: every counted press returns
to a length whose figures the server has cached and the browser holds (Streamlit's own cost of
a rerun and a redraw, without computing or sending data). Per press:

- bytes: received on Streamlit's websocket (Playwright ``framereceived``) until settled;
- redraw: ``perf_counter`` from the key press until the first chart is current: a run started
  after the press, the chart's element is no longer stale (its delta of this run arrived) and
  its plotly div is drawn (``_fullLayout``). A changed figure mounts a new plotly div
  ("changed"); an unchanged one comes as a reference to Streamlit's message cache;
- settled: until the script is idle and every chart is current;
- first chart: from ``page.goto`` to the first chart drawn.
Browser-clock stamps (key down, rerun request sent, script running, arrival of the chart's
message and of the run's last message, chart current, idle) show where the time goes. Waits
time out after 120 s; a timeout or a crashed tab is listed under "Problems".
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # posenc, and the browser helpers of the tests

import streamlit  # noqa: E402
from playwright.sync_api import Error as PlaywrightError  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from browser_report import STAGES, Press, Result, table  # noqa: E402
from live_app import launch, running_app, wait_idle  # noqa: E402
from posenc.figures.heatmaps import thin_index

SIZES = [("128 x 100 (default)", ""), ("512 x 2048", "d_model=512&length=2048"),
         ("1024 x 4096", "d_model=1024&length=4096")]
MODES = [("posenc", "")]  # send_all=true is gone (the window view replaced it); BENCHMARKS.md keeps its last run
ARROWS = {"ArrowLeft": -1, "ArrowRight": 1}
TIMEOUT_MS = 120_000

OBSERVE = """() => {  // browser-clock stamps of a press: key down, request sent, run started, payload in
  window.__bench = {key: null};
  const stamp = (name) => { const b = window.__bench; if (b.key !== null) b[name] ??= performance.now(); };
  window.addEventListener('keydown', () => { window.__bench.key ??= performance.now(); }, true);
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (!this.__stamped) { this.__stamped = true; this.addEventListener('message', (e) => {
      const b = window.__bench, size = e.data.byteLength ?? e.data.size ?? e.data.length;
      if (b.key !== null && !b.idle) b.last = e.timeStamp;
      if (b.key !== null && !b.chart && size > (b.size ?? -1)) { b.size = size; b.payload = e.timeStamp; } }); }
    stamp('sent'); return send.call(this, data); };
  const app = document.querySelector('[data-testid=stApp]');
  new MutationObserver(() => { if (app.dataset.testScriptState === 'running') stamp('run'); })
    .observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  window.__captions = () => [...document.querySelectorAll('[data-testid=stCaptionContainer]')]
    .map(e => e.textContent).join('|');
}"""
# a run of this press has shown: 'running', or (a cached run can finish within one render) its new caption
RAN = """(b) => { if (!b.run && window.__captions() !== b.captions) b.run = performance.now(); return !!b.run; }"""
CURRENT = """(g) => g && g._fullLayout && g.data
  && g.closest('[data-testid=stElementContainer]')?.dataset.stale === 'false'"""
FIRST_CHART = f"""(needRun) => {{ const b = needRun ? window.__bench : (window.__first ??= {{}});
  const g = document.querySelector('[data-testid=stPlotlyChart] .js-plotly-plot');
  if ((needRun && !({RAN})(b)) || !({CURRENT})(g)) return false;
  b.chart ??= performance.now(); return true; }}"""
SETTLED = f"""() => {{ const b = window.__bench, app = document.querySelector('[data-testid=stApp]');
  if (!({RAN})(b) || app.dataset.testScriptState !== 'notRunning') return false;
  const charts = [...document.querySelectorAll('[data-testid=stPlotlyChart]')];
  if (!charts.length || !charts.every(c => ({CURRENT})(c.querySelector('.js-plotly-plot')))) return false;
  b.idle ??= performance.now(); return true; }}"""
Y_AXIS = """() => { const y = document.querySelector('[data-testid=stPlotlyChart] .js-plotly-plot').data[0].y;
  const a = y._inputArray || y; return [a.length, Number(a[a.length - 1])]; }"""


FIRST_LOAD = """() => { const r = performance.getEntriesByType('resource').find(e => e.name.includes('PlotlyChart'));
  return [performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd, r ? r.responseEnd : null,
          window.__first.chart]; }"""


class Received:
    """Bytes the page receives on its websockets."""

    def __init__(self, page):
        self.count = 0
        page.on("websocket", lambda ws: ws.on("framereceived", self._add))

    def _add(self, payload) -> None:
        self.count += len(payload)


def press(page, received: Received, key: str, thinned: bool) -> Press:
    """Press ``key`` on the length slider; wait for the first chart, then for the page to settle."""
    slider = page.get_by_role("slider", name="length")
    slider.focus()
    before = int(slider.input_value())
    page.evaluate("() => { window.__bench = {key: null, captions: window.__captions()}; window.__old ="
                  " document.querySelector('[data-testid=stPlotlyChart] .js-plotly-plot'); }")
    received.count = 0
    start = time.perf_counter()
    page.keyboard.press(key)
    page.wait_for_function(FIRST_CHART, arg=True, polling="raf", timeout=TIMEOUT_MS)
    redraw = time.perf_counter() - start
    page.wait_for_function(SETTLED, polling="raf", timeout=TIMEOUT_MS)
    settled = time.perf_counter() - start
    b = page.evaluate("() => ({...window.__bench, changed: window.__old !== "
                      "document.querySelector('[data-testid=stPlotlyChart] .js-plotly-plot')})")
    check_axis(page, before, int(slider.input_value()), key, thinned)
    if not b["changed"] or b.get("size", 0) < 10_000:  # the chart came as a cache reference: no payload span
        b.pop("payload", None)
    stages = tuple(b[later] - b[earlier] if b.get(earlier) and b.get(later) else None for earlier, later in STAGES)
    return Press(received.count, redraw, settled, b["changed"], stages)


def check_axis(page, before: int, length: int, key: str, thinned: bool) -> None:
    """The slider moved as asked and the first chart's y axis shows the positions of the new length."""
    if key in ARROWS and length != before + ARROWS[key]:
        raise AssertionError(f"length went from {before} to {length} on {key}")
    rows = thin_index(length) if thinned else range(length)
    if page.evaluate(Y_AXIS) != [len(rows), int(rows[-1])]:
        raise AssertionError(f"chart y axis {page.evaluate(Y_AXIS)} does not match length {length}")


def first_load(page, received: Received, url: str, result: Result) -> None:
    """Open ``url`` in this fresh page: time to the first chart drawn, then wait for the whole run."""
    start = time.perf_counter()
    page.goto(url, timeout=TIMEOUT_MS)
    page.wait_for_function(FIRST_CHART, arg=False, polling="raf", timeout=TIMEOUT_MS)
    result.first_chart = time.perf_counter() - start
    wait_idle(page, charts=1, timeout=TIMEOUT_MS)  # the Table tab (Similarity is drawn when opened)
    result.first_load = (*page.evaluate(FIRST_LOAD), received.count)


def measure(browser, url: str, size: str, query: str, mode: str, flag: str, args, keys=("ArrowLeft",)) -> Result:
    """One size and mode in a fresh context: first chart, arrow presses (``keys`` in turn), page steps."""
    result = Result(size, mode)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    received = Received(page)
    deadline = time.monotonic() + args.budget
    step = "first load"
    try:
        first_load(page, received, f"{url}/?{'&'.join(p for p in (query, flag) if p)}", result)
        page.evaluate(OBSERVE)
        for n in range(args.presses):
            if n > 1 and time.monotonic() > deadline:
                result.problems.append(f"budget of {args.budget:g} s reached after {n} presses")
                break
            step = f"press {n + 1}"
            measured = press(page, received, keys[n % len(keys)], not flag)
            if n:  # the first press warms up
                result.arrows.append(measured)
        key = "PageUp" if int(page.get_by_role("slider", name="length").input_value()) < 2048 else "PageDown"
        for n in range(args.page_steps):
            step = f"{key} {n + 1}"
            result.page_steps.append(press(page, received, key, not flag))
    except (PlaywrightError, AssertionError) as err:  # a timeout, or the chart did not show the new length
        result.problems.append(f"{step}: {str(err).splitlines()[0][:160]}")
    finally:
        context.close()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=9, help="ArrowLeft presses per size and mode (first is warm-up)")
    parser.add_argument("--page-steps", type=int, default=3, help="page steps per size and mode, after the presses")
    parser.add_argument("--budget", type=float, default=300.0, help="seconds of presses per size and mode, at most")
    args = parser.parse_args(argv)
    results = []
    with running_app() as (url, _server), sync_playwright() as playwright:
        browser = launch(playwright)
        measure(browser, url, "warm-up", "", "posenc", "", argparse.Namespace(presses=1, page_steps=1, budget=0))
        for size, query in SIZES:
            for mode, flag in MODES:
                results.append(measure(browser, url, size, query, mode, flag, args))
                print(f"  measured {size}, {mode}", file=sys.stderr, flush=True)
        # a rerun without new data: back and forth between two lengths already computed and sent
        no_steps = argparse.Namespace(**{**vars(args), "page_steps": 0})
        results.append(measure(browser, url, SIZES[0][0], "", "revisit", "", no_steps, ("ArrowLeft", "ArrowRight")))
        version = browser.version
        browser.close()
    print(f"{datetime.date.today()}; {os.cpu_count()} CPUs, {platform.machine()}, Python {platform.python_version()},"
          f" streamlit {streamlit.__version__}, Chromium {version} headless; per row {args.presses} ArrowLeft"
          f" presses ({args.presses - 1} counted), then {args.page_steps} page step(s) (PageUp below length 2048,"
          " else PageDown);"
          " one run, noisy.\n")
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
