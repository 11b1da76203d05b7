"""Where a slider change spends the browser's main thread: a Chromium trace, summarised.

Used by ``python bench/bench_floor.py --trace``: one press per page and side is recorded with
Playwright's ``browser.start_tracing`` and the renderer main thread's time is split by self
time into JavaScript by source (the plotly chunk, KaTeX, the rest of Streamlit's frontend),
style and layout, paint, and garbage collection.
"""

from __future__ import annotations

import collections
import json

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8", "blink.user_timing"]
GROUPS = {"UpdateLayoutTree": "style + layout", "Layout": "style + layout", "RecalculateStyles": "style + layout",
          "Paint": "paint + composite", "PrePaint": "paint + composite", "Layerize": "paint + composite",
          "UpdateLayer": "paint + composite", "CompositeLayers": "paint + composite", "Commit": "paint + composite",
          "MinorGC": "GC", "MajorGC": "GC", "V8.GC_SCAVENGER": "GC", "ParseHTML": "parse",
          "V8.ParseFunctions": "parse", "v8.compile": "parse", "EvaluateScript": "JS: other"}


def _script_group(url: str) -> str:
    if "Plotly" in url or "plotly" in url:
        return "JS: plotly"
    if "katex" in url.lower() or "Latex" in url:
        return "JS: katex"
    return "JS: streamlit frontend" if url else "JS: other"


def main_thread(events: list[dict]) -> tuple[int, int] | None:
    """(pid, tid) of the renderer's main thread (the one named CrRendererMain with the most events)."""
    names = {(e["pid"], e["tid"]) for e in events if e.get("name") == "thread_name"
             and e.get("args", {}).get("name") == "CrRendererMain"}
    counts = collections.Counter((e["pid"], e["tid"]) for e in events if (e["pid"], e["tid"]) in names)
    return counts.most_common(1)[0][0] if counts else None


def self_times(events: list[dict], thread: tuple[int, int]) -> dict[str, float]:
    """Milliseconds of self time per group on ``thread`` (complete 'X' events, nested by time)."""
    spans = sorted((e for e in events if (e["pid"], e["tid"]) == thread and e.get("ph") == "X" and "dur" in e),
                   key=lambda e: (e["ts"], -e["dur"]))
    totals: dict[str, float] = collections.defaultdict(float)
    stack: list[list] = []  # [end, group, child time]

    def close(until: float) -> None:
        while stack and stack[-1][0] <= until:
            end, group, child, start = stack.pop()
            totals[group] += (end - start - child) / 1000
            if stack:
                stack[-1][2] += end - start

    for e in spans:
        close(e["ts"])
        name = e["name"]
        if name == "FunctionCall":
            group = _script_group(e.get("args", {}).get("data", {}).get("url", ""))
        elif name == "RunTask" or name == "ThreadControllerImpl::RunTask":
            group = "other (task overhead)"
        else:
            group = GROUPS.get(name, "other (task overhead)" if not stack else stack[-1][1])
        stack.append([e["ts"] + e["dur"], group, 0.0, e["ts"]])
    close(float("inf"))
    return dict(totals)


def summarise(trace: bytes) -> dict[str, float]:
    events = json.loads(trace)
    events = events["traceEvents"] if isinstance(events, dict) else events
    thread = main_thread(events)
    return self_times(events, thread) if thread else {}


def traced(browser, page, action) -> dict[str, float]:
    """Run ``action()`` while tracing ``page``; the main thread's self time by group (ms)."""
    browser.start_tracing(page=page, categories=CATEGORIES)
    try:
        action()
    finally:
        trace = browser.stop_tracing()
    return summarise(trace)


def table(rows: list[tuple[str, str, dict[str, dict[str, float]]]]) -> str:
    """Markdown: one row per page, setting and side; one column per group."""
    groups = sorted({g for _, _, sides in rows for times in sides.values() for g in times},
                    key=lambda g: (not g.startswith("JS"), g))
    head = "| page | settings | side | total | " + " | ".join(groups) + " |"
    lines = [head, "|---" * (head.count("|") - 1) + "|"]
    for page, setting, sides in rows:
        for side, times in sides.items():
            lines.append(f"| {page} | {setting} | {side} | {sum(times.values()):.0f} | "
                         + " | ".join(f"{times.get(g, 0):.0f}" for g in groups) + " |")
    return "\n".join(lines)
