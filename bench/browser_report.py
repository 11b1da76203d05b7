"""The numbers bench/bench_browser.py measures and the tables it prints (medians, p90, ratios).

A ``Press`` is one key press on the length slider (bytes received, redraw and settled times,
and the browser-clock spans named in ``STAGES``); a ``Result`` is one size and mode.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field


@dataclass
class Press:
    bytes: int
    redraw: float
    settled: float
    changed: bool  # a new plotly div was mounted (the figure changed)
    stages: tuple[float | None, ...]  # ms, browser clock: the spans named in STAGES


@dataclass
class Result:
    size: str
    mode: str
    first_chart: float | None = None
    first_load: tuple[float, float, float, int] | None = None  # ms: DOMContentLoaded, PlotlyChart.js, chart; bytes
    arrows: list[Press] = field(default_factory=list)
    page_steps: list[Press] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


STAGES = (("key", "sent"), ("sent", "run"), ("sent", "last"), ("run", "chart"), ("payload", "chart"), ("chart", "idle"))


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def p90(values: list[float]) -> float | None:
    return statistics.quantiles(values, n=10, method="inclusive")[-1] if len(values) > 1 else median(values)


def size_text(n: float | None) -> str:
    return "-" if n is None else f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.1f} KB"


def secs(t: float | None, places: int = 3) -> str:
    return "-" if t is None else f"{t:.{places}f}"


def main_table(results: list[Result]) -> list[str]:
    head = (f"{'size':20} {'mode':9} {'bytes/change':>12} {'max':>9} {'changed':>7} {'redraw':>7} {'p90':>7}"
            f" {'settled':>7} {'1st chart':>9} | {'page step':>9} {'redraw':>7} {'settled':>7}")
    lines = [head, "-" * len(head)]
    for r in results:
        a, steps = r.arrows, r.page_steps
        lines.append(
            f"{r.size:20} {r.mode:9} {size_text(median([p.bytes for p in a])):>12}"
            f" {size_text(max((p.bytes for p in a), default=None)):>9} {sum(p.changed for p in a):>3}/{len(a):<3}"
            f" {secs(median([p.redraw for p in a])):>7} {secs(p90([p.redraw for p in a])):>7}"
            f" {secs(median([p.settled for p in a])):>7} {secs(r.first_chart, 2):>9} |"
            f" {size_text(median([p.bytes for p in steps])):>9} {secs(median([p.redraw for p in steps])):>7}"
            f" {secs(median([p.settled for p in steps])):>7}")
    return lines


def stages_table(results: list[Result]) -> list[str]:
    names = [f"{a}->{b}" for a, b in STAGES]
    lines = ["Where an arrow press's time goes (medians, ms, browser clock). sent->last: until the run's last",
             "message arrived. payload->chart: from the arrival of the chart's message to the chart drawn, for",
             "presses whose new figure was sent (not a cache reference):",
             f"{'size':20} {'mode':9}" + "".join(f" {n:>13}" for n in names)]
    for r in results:
        stage = [median([p.stages[i] for p in r.arrows if p.stages[i] is not None]) for i in range(len(names))]
        lines.append(f"{r.size:20} {r.mode:9}" + "".join(f" {secs(t, 0):>13}" for t in stage))
    return lines


def first_load_table(results: list[Result]) -> list[str]:
    lines = ["First load (ms from navigation start; websocket bytes until idle):",
             f"{'size':20} {'mode':9} {'DOMContentLoaded':>16} {'PlotlyChart.js':>14} {'1st chart':>9} {'bytes':>9}"]
    for r in results:
        dom, plotly, chart, received = r.first_load or (None, None, None, None)
        lines.append(f"{r.size:20} {r.mode:9} {secs(dom, 0):>16} {secs(plotly, 0):>14} {secs(chart, 0):>9}"
                     f" {size_text(received):>9}")
    return lines


def ratio_table(results: list[Result]) -> list[str]:
    lines = ["send-all / posenc (medians of the arrow presses and of the page steps):",
             f"{'size':20} {'bytes/change':>12} {'redraw':>7} {'settled':>7} {'1st chart':>9} {'page step bytes':>15}"]
    for thin, full in zip(results[:-1:2], results[1::2]):
        pairs = [(median([getattr(p, name) for p in full.arrows]), median([getattr(p, name) for p in thin.arrows]))
                 for name in ("bytes", "redraw", "settled")]
        pairs += [(full.first_chart, thin.first_chart),
                  (median([p.bytes for p in full.page_steps]), median([p.bytes for p in thin.page_steps]))]
        ratio = [ratio_text(f, t) for f, t in pairs]
        lines.append(f"{thin.size:20} {ratio[0]:>12} {ratio[1]:>7} {ratio[2]:>7} {ratio[3]:>9} {ratio[4]:>15}")
    return lines


def table(results: list[Result]) -> str:
    """The main table, where the time goes, the first load, and the send-all / posenc ratios."""
    lines = main_table(results) + [""] + stages_table(results) + [""] + first_load_table(results)
    if any(r.mode == "send-all" for r in results):
        lines += [""] + ratio_table(results)
    problems = [f"{r.size}, {r.mode}: {p}" for r in results for p in r.problems]
    return "\n".join(lines + (["", "Problems:"] + problems if problems else []))


def ratio_text(numerator: float | None, denominator: float | None) -> str:
    if not numerator or not denominator:
        return "-"
    ratio = numerator / denominator
    return f"{ratio:,.0f}x" if ratio >= 10 else f"{ratio:.1f}x"
