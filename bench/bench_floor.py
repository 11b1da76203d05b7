"""posenc against Streamlit's floor, page by page, in headless Chromium (one run, interleaved).

Run from the repository root (starts both servers on loopback; about 10 minutes on 2 cores):

    python bench/bench_floor.py [--presses 4] [--rounds 2] [--page compare ...]

The floor (bench/floor_app.py) is a page whose slider redraws one 16 × 16 plotly heatmap:
what any Streamlit app pays for a slider change. For every posenc page, at defaults
(d_model 128, length 100) and at the caps (d_model=1024, length=4096), two browser contexts
are opened, one on posenc (A) and one on the floor (B), and presses alternate A B A B on each
page's main slider (the sidebar's d_model, ArrowLeft; on the Rotation check, its pos slider,
ArrowRight, since an odd d_model has no rotation). Each context's first press warms up and is
not counted; ``--rounds`` fresh pairs of contexts give ``--rounds`` first loads each and
``--rounds × --presses`` counted presses. Per press, browser clock:

- settle: key press until the run's script_finished message has arrived, the script is idle,
  no element is stale and every plotly chart is drawn;
- bytes: websocket bytes received in that time;
- server: from the rerun request leaving the browser to the script_finished message arriving
  (the server's script time plus loopback);
- blocking: summed duration of the main thread's long tasks (≥ 50 ms, Long Tasks API) in that time.
First load: navigation start until settled, in a fresh context; its bytes and long tasks.
``--trace`` (one traced press a side: the main thread by event kind, bench/browser_trace.py) and ``--profile``
(``--rounds`` × ``--presses`` sampled presses a side: the main thread by the code that ran, bench/browser_profile.py)
measure where a press's time goes instead.

Every round presses through the same d_model values (1023, 1022, … at the caps), and a posenc server keeps the
figures it drew: after the first round a press is a cache hit, as on the phones of a hall that follow one lecturer.
``--new-values`` starts each round lower on d_model, so that every counted press draws a value new to the server,
as a reader exploring alone does.

Before and after a change, in one run: ``--compare BEFORE AFTER`` serves two checkouts of posenc (e.g.
``git worktree add /tmp/before <commit>``) beside the floor, and every press alternates before, after,
floor, before, after, floor, … in one browser; the table gives each side's settle, its ratio to the floor
and its bytes. ``--floor-no-delay`` adds a second floor, served with the socket fix posenc's app.py makes
(posenc/ui/no_delay.py, Nagle's algorithm off), and the after side's ratio to it: what the fix gives posenc
against what it would give any Streamlit page.

What of a press is posenc's own: ``--page "" --skeleton`` also serves bench/skeleton_app.py, the Encoding matrix's
kinds of element in their places with no content and the floor's chart, and presses it beside posenc and the floor; a
second table gives its settle, its ratio to the floor and posenc's ratio to it. ``--skeleton mitigated`` gives the
skeleton what posenc does about Streamlit's own costs (app.py's server patches, the stale fade's style). With
``--trace`` or ``--profile`` the skeleton is traced or profiled beside posenc and the floor instead: where each side's
main thread goes, by event kind or by the code that ran.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "helpers"), str(ROOT / "bench")]

import streamlit  # noqa: E402
from playwright.sync_api import Error as PlaywrightError  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

import browser_profile  # noqa: E402
import browser_trace  # noqa: E402
from live_app import launch  # noqa: E402
from posenc.settings.parsing import SHARED_CONTROLS  # noqa: E402
from streamlit_server import free_port, stop_server, wait_healthy  # noqa: E402

PAGES = [("Encoding matrix", "", "d_model", "ArrowLeft"), ("Sinusoids", "sinusoids", "d_model", "ArrowLeft"),
         ("Rotation check", "rotation", "pos", "ArrowRight"), ("How it works", "details", "d_model", "ArrowLeft"),
         ("Comparison", "compare", "d_model", "ArrowLeft"), ("Properties", "properties", "d_model", "ArrowLeft"),
         # the lab's own controls are selectboxes; the sidebar's d_model reruns the page whole, as any of them does
         ("Length generalization", "generalization", "d_model", "ArrowLeft")]
SETTINGS = [("defaults", ""), ("1024 x 4096", "d_model=1024&length=4096")]
TIMEOUT_MS = 120_000

OBSERVE = """(() => {  // stamps of one change: key down, request sent, script_finished in, long tasks, bytes
  window.__b = {key: 0, bytes: 0};
  window.__long = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push([e.startTime, e.duration]); })
    .observe({type: 'longtask', buffered: true});
  const finished = (buffer) => {  // a ForwardMsg whose top-level field 6 (script_finished) says the run ended
    const bytes = new Uint8Array(buffer); let i = 0;
    const varint = () => { let v = 0, s = 1, b; do { b = bytes[i++]; v += (b & 127) * s; s *= 128; } while (b & 128); return v; };
    while (i < bytes.length) {
      const tag = varint(), number = Math.floor(tag / 8), wire = tag % 8;
      if (number === 6) return varint() !== 2;  // not FINISHED_EARLY_FOR_RERUN: a newer run follows
      if (wire === 0) varint(); else if (wire === 2) { const n = varint(); i += n; }  // not i += varint(): i is read first
      else if (wire === 1) i += 8; else if (wire === 5) i += 4;
      else return false;
    }
    return false; };
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (!this.__hooked) { this.__hooked = true; this.addEventListener('message', (e) => {
      const b = window.__b, size = e.data.byteLength ?? e.data.size ?? e.data.length;
      if (b.idle === undefined) { b.bytes += size; (window.__sizes ??= []).push(size); }
      if (b.sent !== undefined && b.finished === undefined && e.data instanceof ArrayBuffer && finished(e.data))
        b.finished = e.timeStamp; }); }
    if (window.__b.sent === undefined) window.__b.sent = performance.now();
    return send.call(this, data); };
})();"""
SETTLED = """(charts) => { const b = window.__b, app = document.querySelector('[data-testid=stApp]');
  if (b.finished === undefined || !app || app.dataset.testScriptState !== 'notRunning') return false;
  if (document.querySelector('[data-stale=true]')) return false;
  const drawn = [...document.querySelectorAll('[data-testid=stPlotlyChart]')];
  if (drawn.length < charts || !drawn.every(c => { const g = c.querySelector('.js-plotly-plot');
                                                   return g && g._fullLayout && g.data; })) return false;
  b.idle ??= performance.now(); return true; }"""
SUMMARY = """() => { const b = window.__b;
  const blocking = window.__long.filter(([t]) => t >= b.key && t <= b.idle).reduce((s, [, d]) => s + d, 0);
  return {bytes: b.bytes, server: b.finished - b.sent, blocking, idle: b.idle - b.key}; }"""


@dataclass
class Sample:
    settle: float  # s
    bytes: int
    server: float  # ms
    blocking: float  # ms


@dataclass
class Side:
    loads: list[Sample] = field(default_factory=list)
    presses: list[Sample] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


SECOND_FLOOR = "floor, Nagle off"  # --floor-no-delay's side
SKELETON = "skeleton"  # --skeleton's side: bench/skeleton_app.py


def start(script: str, root: Path = ROOT, env: dict[str, str] | None = None) -> tuple[subprocess.Popen, str]:
    """``streamlit run script`` from ``root`` (the repository root: its .streamlit/config.toml) on a free port."""
    port = free_port("127.0.0.1")
    command = [sys.executable, "-m", "streamlit", "run", script, "--server.headless=true", f"--server.port={port}",
               "--server.address=127.0.0.1", "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"]
    process = subprocess.Popen(command, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, **(env or {})})
    wait_healthy("127.0.0.1", port)
    return process, f"http://127.0.0.1:{port}"


def summary(page, started: float) -> Sample:
    s = page.evaluate(SUMMARY)
    return Sample(time.perf_counter() - started, s["bytes"], s["server"], s["blocking"])


def first_load(context, url: str) -> tuple[object, Sample]:
    page = context.new_page()
    page.add_init_script(OBSERVE)
    started = time.perf_counter()
    page.goto(url, timeout=TIMEOUT_MS)
    charts = 0 if "/properties" in url else 1  # the Properties page has tables, no chart
    page.wait_for_function(SETTLED, arg=charts, polling="raf", timeout=TIMEOUT_MS)
    return page, summary(page, started)


def press(page, slider: str, key: str) -> Sample:
    """Press ``key`` on the slider; wait until settled with at least as many charts as before."""
    charts = page.locator("[data-testid=stPlotlyChart]").count()
    page.get_by_role("slider", name=slider).first.focus()
    page.evaluate("() => { window.__b = {key: performance.now(), bytes: 0}; window.__sizes = []; }")
    started = time.perf_counter()
    page.keyboard.press(key)
    page.wait_for_function(SETTLED, arg=charts, polling="raf", timeout=TIMEOUT_MS)
    return summary(page, started)


def shifted(url: str, by: int) -> str:
    """``url`` with its d_model ``by`` lower (the default's, if it gives none): a round that starts there and
    presses on draws d_model values no earlier round drew."""
    parts = urllib.parse.urlsplit(url)
    query = dict(urllib.parse.parse_qsl(parts.query))
    default = next(option.default for option in SHARED_CONTROLS if option.name == "d_model")  # the sidebar's
    query["d_model"] = str(int(query.get("d_model", default)) - by)
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


def measure(browser, sides: dict[str, tuple[str, str, str]], args) -> dict[str, Side]:
    """Rounds of fresh context pairs; first loads, then presses alternating between the sides. With
    ``args.new_values``, round r starts 2r × (presses + 1) lower on d_model, so that no press draws a value an
    earlier round drew (a server keeps the figures of the values it drew: a revisit is a cache hit); an even step,
    so that the Rotation check keeps an even d_model."""
    results = {name: Side() for name in sides}
    for round_ in range(args.rounds):
        pages = {}
        contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in sides]
        by = 2 * round_ * (args.presses + 1) if args.new_values else 0
        try:
            for context, (name, (url, _, _)) in zip(contexts, sides.items()):
                pages[name], sample = first_load(context, shifted(url, by) if by else url)
                results[name].loads.append(sample)
            for n in range(args.presses + 1):  # press 0 warms up
                for name, (_, slider, key) in sides.items():
                    sample = press(pages[name], slider, key)
                    if n:
                        results[name].presses.append(sample)
        except PlaywrightError as err:
            for side in results.values():
                side.problems.append(str(err).splitlines()[0][:160])
        finally:
            for context in contexts:
                context.close()
    return results


def studied(browser, what: str, name: str, side: tuple[str, str, str], study) -> dict[str, float] | None:
    """``study(context, page, act)`` of one side in a fresh context, after its first load and a warm-up press
    (``act()`` presses its slider once); None, named on stderr, when a press timed out (the run goes on)."""
    url, slider, key = side
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page, _ = first_load(context, url)
        press(page, slider, key)
        return study(context, page, lambda: press(page, slider, key))
    except PlaywrightError as err:
        print(f"  {what} {name} {url}: {str(err).splitlines()[0][:120]}", file=sys.stderr)
        return None
    finally:
        context.close()


def trace_row(browser, sides: dict[str, tuple[str, str, str]]) -> dict[str, dict[str, float]]:
    """One traced press per side (after a first load and a warm-up press): main-thread time by group."""
    return {name: studied(browser, "trace", name, side,
                          lambda context, page, act: browser_trace.traced(browser, page, act)) or {}
            for name, side in sides.items()}


def profile_row(browser, sides: dict[str, tuple[str, str, str]], args) -> dict[str, dict[str, float]]:
    """``args.rounds`` fresh contexts per side, taken in turn; in each, after a first load and a warm-up press,
    ``args.presses`` presses sampled (bench/browser_profile.py): main-thread ms a press by group, the mean of the
    rounds that finished (a round that timed out is left out and named on stderr)."""
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    for _ in range(args.rounds):
        for name, side in sides.items():
            times = studied(browser, "profile", name, side,
                            lambda context, page, act: browser_profile.profiled(context, page, act, args.presses))
            if times is not None:
                rounds[name].append(times)
    return {name: {group: sum(r.get(group, 0.0) for r in done) / len(done) for group in {g for r in done for g in r}}
            for name, done in rounds.items() if done}


def med(samples: list[Sample], name: str) -> float | None:
    return statistics.median(getattr(s, name) for s in samples) if samples else None


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "B":
        return f"{value / 1e6:.2f} MB" if value >= 1e6 else f"{value / 1e3:.1f} KB"
    return f"{value:.3f} s" if unit == "s" else f"{value:.0f} ms"


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}×" if a and b else "-"


def table(rows: list[tuple[str, str, dict[str, Side]]]) -> str:
    head = ("| page | settings | posenc settles | floor settles | ratio | posenc bytes | floor bytes "
            "| server posenc / floor | blocking posenc / floor | first load posenc / floor | ratio |")
    lines = [head, "|---" * (head.count("|") - 1) + "|"]
    for page, setting, result in rows:
        a, b = result["posenc"], result["floor"]
        lines.append(
            f"| {page} | {setting} | {fmt(med(a.presses, 'settle'), 's')} | {fmt(med(b.presses, 'settle'), 's')} "
            f"| {ratio(med(a.presses, 'settle'), med(b.presses, 'settle'))} | {fmt(med(a.presses, 'bytes'), 'B')} "
            f"| {fmt(med(b.presses, 'bytes'), 'B')} | {fmt(med(a.presses, 'server'), 'ms')} / "
            f"{fmt(med(b.presses, 'server'), 'ms')} | {fmt(med(a.presses, 'blocking'), 'ms')} / "
            f"{fmt(med(b.presses, 'blocking'), 'ms')} | {fmt(med(a.loads, 'settle'), 's')} / "
            f"{fmt(med(b.loads, 'settle'), 's')} | {ratio(med(a.loads, 'settle'), med(b.loads, 'settle'))} |")
    return "\n".join(lines)


def skeleton_table(rows: list[tuple[str, str, dict[str, Side]]]) -> str:
    """posenc, the skeleton (its elements in Streamlit, no content) and the floor: settles and ratios."""
    head = ("| page | settings | posenc settles | skeleton settles | floor settles | posenc / floor | skeleton / floor "
            "| posenc / skeleton | skeleton bytes | server skeleton |")
    lines = [head, "|---" * (head.count("|") - 1) + "|"]
    for page, setting, result in rows:
        a, s, f = (med(result[name].presses, "settle") for name in ("posenc", SKELETON, "floor"))
        lines.append(f"| {page} | {setting} | {fmt(a, 's')} | {fmt(s, 's')} | {fmt(f, 's')} | {ratio(a, f)} "
                     f"| {ratio(s, f)} | {ratio(a, s)} | {fmt(med(result[SKELETON].presses, 'bytes'), 'B')} "
                     f"| {fmt(med(result[SKELETON].presses, 'server'), 'ms')} |")
    return "\n".join(lines)


def compare_table(rows: list[tuple[str, str, dict[str, Side]]]) -> str:
    """Before, after and the floor, side by side: settle (median), its ratio to the floor, bytes per change."""
    second = bool(rows) and SECOND_FLOOR in rows[0][2]
    head = ("| page | settings | before settles | after settles | floor settles | before / floor | after / floor "
            + ("| floor, Nagle off, settles | after / that floor " if second else "")
            + "| before bytes | after bytes | floor bytes | server before / after / floor | blocking before / after / floor |")
    lines = [head, "|---" * (head.count("|") - 1) + "|"]
    for page, setting, result in rows:
        a, b, f = result["before"], result["after"], result["floor"]
        settle = [med(side.presses, "settle") for side in (a, b, f)]
        other = med(result[SECOND_FLOOR].presses, "settle") if second else None
        lines.append(
            f"| {page} | {setting} | {' | '.join(fmt(v, 's') for v in settle)} | {ratio(settle[0], settle[2])} "
            f"| {ratio(settle[1], settle[2])} "
            + (f"| {fmt(other, 's')} | {ratio(settle[1], other)} " if second else "")
            + f"| {' | '.join(fmt(med(x.presses, 'bytes'), 'B') for x in (a, b, f))} "
            f"| {' / '.join(fmt(med(x.presses, 'server'), 'ms') for x in (a, b, f))} "
            f"| {' / '.join(fmt(med(x.presses, 'blocking'), 'ms') for x in (a, b, f))} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=4, help="counted presses per side and round")
    parser.add_argument("--rounds", type=int, default=2, help="fresh context pairs (first loads) per row")
    parser.add_argument("--page", action="append", help="url path of a page to measure ('' = Encoding matrix)")
    parser.add_argument("--setting", action="append", choices=[s for s, _ in SETTINGS])
    parser.add_argument("--trace", action="store_true", help="instead: one traced press per page and side, "
                        "the browser main thread's time by group (bench/browser_trace.py)")
    parser.add_argument("--profile", action="store_true", help="instead: --rounds × --presses sampled presses per "
                        "page and side, the browser main thread's time by the code that ran (bench/browser_profile.py)")
    parser.add_argument("--move", nargs=3, action="append", metavar=("PATH", "SLIDER", "KEY"),
                        help="instead of every page's main slider: this page (a path, query allowed: "
                             "'details?scheme=rope') and this slider of its own, pressed with KEY (e.g. "
                             "'position m' ArrowRight); the floor presses its d_model as ever")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), type=Path,
                        help="two checkouts of posenc, measured alternately beside the floor")
    parser.add_argument("--new-values", action="store_true",
                        help="each round starts lower on d_model, so that every counted press draws a d_model value "
                             "the servers have not drawn (without it, every round presses through the same values, "
                             "which posenc's figure cache holds after the first round)")
    parser.add_argument("--skeleton", nargs="?", const="plain", choices=("plain", "mitigated"),
                        help="the Encoding matrix only: also serve bench/skeleton_app.py (its elements, no content) "
                             "and press it as posenc and the floor are pressed, so that what posenc pays beyond "
                             "Streamlit's cost of its elements shows (with --trace or --profile: traced or profiled "
                             "beside them); 'mitigated': the skeleton with posenc's server patches and stale fade")
    parser.add_argument("--floor-no-delay", action="store_true",
                        help="with --compare: a second floor, its sockets with Nagle's algorithm off as posenc's")
    args = parser.parse_args(argv)
    pages = ([(f"{path}: {slider}", path, slider, key) for path, slider, key in args.move] if args.move else
             [p for p in PAGES if args.page is None or p[1] in args.page])
    settings = [s for s in SETTINGS if args.setting is None or s[0] in args.setting]
    roots = dict(zip(("before", "after"), args.compare)) if args.compare else {"posenc": ROOT}
    if args.skeleton and (args.compare or args.move or [p[1] for p in pages] != [""]):
        parser.error("--skeleton mirrors the Encoding matrix: use it with --page '' alone")
    servers = {name: start("app.py", root) for name, root in roots.items()}
    floors = {"floor": start("bench/floor_app.py")}  # each measured at its d_model slider, on its only page
    if args.skeleton:  # pressed at its d_model, at posenc's settings
        floors[SKELETON] = start("bench/skeleton_app.py",
                                 env={"POSENC_SKELETON_MITIGATED": "1" if args.skeleton == "mitigated" else "0"})
    if args.compare and args.floor_no_delay:
        floors[SECOND_FLOOR] = start("bench/floor_app.py", env={"POSENC_FLOOR_NO_DELAY": "1"})
    rows, problems = [], []
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            warm = {name: (f"{url}/", "d_model", "ArrowLeft") for name, (_, url) in (servers | floors).items()}
            measure(browser, warm, argparse.Namespace(presses=1, rounds=1, new_values=False))  # imports, first load
            for title, path, slider, key in pages:
                for setting, query in settings:
                    joined = f"{path}{'&' if '?' in path else '?'}{query}"
                    sides = {name: (f"{url}/{joined}", slider, key) for name, (_, url) in servers.items()}
                    sides |= {name: (f"{url}/?{query}", "d_model", "ArrowLeft") for name, (_, url) in floors.items()}
                    if args.trace or args.profile:
                        rows.append((title, setting, trace_row(browser, sides) if args.trace
                                     else profile_row(browser, sides, args)))
                        continue
                    result = measure(browser, sides, args)
                    rows.append((title, setting, result))
                    problems += [f"{title}, {setting}, {n}: {p}" for n, s in result.items() for p in s.problems]
                    print(f"  measured {title}, {setting}", file=sys.stderr, flush=True)
            version = browser.version
            browser.close()
    finally:
        for server, _ in (servers | floors).values():
            stop_server(server)
    load = os.getloadavg()
    print(f"{datetime.datetime.now():%Y-%m-%d %H:%M}; {os.cpu_count()} CPUs, {platform.machine()}, Python "
          f"{platform.python_version()}, streamlit {streamlit.__version__}, Chromium {version} headless; "
          f"{args.rounds} round(s) x {args.presses} counted presses per side"
          f"{', every press a d_model value new to the server' if args.new_values else ''}, "
          f"{'before after floor, alternating' if args.compare else 'A B A B'}; medians; "
          f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}\n")
    print(browser_trace.table(rows) if args.trace else browser_profile.table(rows) if args.profile
          else compare_table(rows) if args.compare else table(rows))
    if args.skeleton and not (args.trace or args.profile):
        print("\n" + skeleton_table(rows))
    if problems:
        print("\nProblems:\n" + "\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
