"""Where a slider change spends the browser's main thread, by the code that runs: a V8 sampling profile, summarised.

Used by ``python bench/bench_floor.py --profile``: ``--presses`` presses per page and side (after a first load and a
warm-up press) are sampled every 100 µs through the Chrome DevTools Protocol (``Profiler.start`` / ``stop``) and each
sample's self time goes to the group of the code it was in:

- a script by its file (Streamlit's frontend is split into chunks named by module): plotly.js (``PlotlyChart``),
  React (``react-dom``), style objects (``emotion-styled``, ``styled-components``, …), markdown and KaTeX
  (``StreamlitMarkdown``, ``rehype-katex``, ``hastscript``, …) and the rest of Streamlit's frontend (``index``,
  ``protobuf``, its widgets …);
- a browser function called from script by its name: ``getBoundingClientRect`` (a layout read), ``URLPattern`` (Streamlit
  checks the origin of every message a page posts to its window, its own included), the other DOM calls;
- V8's own entries: ``(program)`` (the browser's work outside script: style, layout, paint, tasks), ``(garbage
  collector)``, ``(idle)``.

Unlike bench/browser_trace.py (a trace's events by kind) this names the script, and it samples every press counted,
not one. Sampling slows a press: read the groups against each other and against the floor's, not as settle times.
"""

from __future__ import annotations

import collections

SAMPLING_US = 100
MARKDOWN = ("Markdown", "katex", "remark", "rehype", "micromark", "mdast", "hast", "unified", "space-separated",
            "comma-separated", "property-information")
STYLES = ("emotion", "styled-components", "opacities")
NATIVE = {"(program)": "browser, outside script", "(garbage collector)": "GC", "(idle)": "idle",  # by function name
          "getBoundingClientRect": "layout reads", "URLPattern": "URLPattern (host messages)"}
GROUPS = ["plotly.js", "React", "styles (emotion)", "markdown + KaTeX", "Streamlit frontend, other",
          "layout reads", "URLPattern (host messages)", "other DOM calls", "browser, outside script", "GC", "idle"]


def group(call_frame: dict) -> str:
    """The group of a profile node's call frame (a chunk's file, a browser function's name or V8's own entry)."""
    url, name = call_frame.get("url", ""), call_frame.get("functionName", "")
    if not url:
        return NATIVE.get(name, "other DOM calls")
    chunk = url.rsplit("/", 1)[-1]
    if chunk.startswith("PlotlyChart"):
        return "plotly.js"
    if chunk.startswith("react-dom"):
        return "React"
    if any(part in chunk for part in STYLES):
        return "styles (emotion)"
    if any(part in chunk for part in MARKDOWN):
        return "markdown + KaTeX"
    return "Streamlit frontend, other"


def self_times(profile: dict) -> dict[str, float]:
    """Milliseconds of self time per group in a ``Profiler.stop`` profile (a sample's time is the delta to the next)."""
    nodes = {node["id"]: group(node["callFrame"]) for node in profile["nodes"]}
    totals: dict[str, float] = collections.defaultdict(float)
    deltas = profile["timeDeltas"][1:] + [0]
    for sample, delta in zip(profile["samples"], deltas):
        totals[nodes[sample]] += delta / 1000
    return dict(totals)


def profiled(context, page, action, presses: int) -> dict[str, float]:
    """Run ``action()`` ``presses`` times while sampling ``page``'s main thread; ms per press by group."""
    cdp = context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": SAMPLING_US})
    cdp.send("Profiler.start")
    try:
        for _ in range(presses):
            action()
    finally:
        profile = cdp.send("Profiler.stop")["profile"]
        cdp.detach()
    return {name: ms / presses for name, ms in self_times(profile).items()}


def table(rows: list[tuple[str, str, dict[str, dict[str, float]]]]) -> str:
    """Markdown: one row per page, setting and side; ms a press per group; busy = all but idle."""
    head = "| page | settings | side | busy | " + " | ".join(GROUPS) + " |"
    lines = [head, "|---" * (head.count("|") - 1) + "|"]
    for page, setting, sides in rows:
        for side, times in sides.items():
            busy = sum(ms for name, ms in times.items() if name != "idle")
            lines.append(f"| {page} | {setting} | {side} | {busy:.0f} | "
                         + " | ".join(f"{times.get(g, 0):.1f}" for g in GROUPS) + " |")
    return "\n".join(lines)
