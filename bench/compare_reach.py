"""The Comparison page at a model's real context against today's page at 4,096 positions, cold, side by side.

Run from the repository root (about a minute and a half on 2 cores):

    python bench/compare_reach.py [--repeats 15]

Each measurement is a fresh Python process (nothing imported or cached before): Streamlit's AppTest opens
the app, runs the default page once (imports, the sidebar), every Streamlit cache and posenc's figure caches
are cleared and the garbage collected (as bench/bench_cold.py: otherwise the full collection the warm-up has
made due, 60–100 ms, lands in whichever run allocates next), then the Comparison page runs once and is timed, and the bytes of its charts' specs (what the
browser receives and draws) are counted. The configurations alternate within each repeat, so a busy
machine slows them alike. Printed: the wall time's median and fastest run and the CPU time's median, each with
its ratio to today's page (issue 29 part 3's target: ≤ 1.0). On a shared machine single wall times vary by
2–3× with the other processes' load; the CPU time the page's script consumes varies far less.

- ``4096, no model``: today's page, ?length=4096 with Llama 3.1 8B's settings typed in by hand (d_model 128,
  n 500,000, RoPE llama3 ×8 from 8,192, half layout): every curve at the 8,191 offsets −4095 … 4095.
- ``llama-3.1-8b``: ?model=llama-3.1-8b, every curve to 131,072 positions (210 log-spaced distances) and the
  scaling's regions.
- ``llama-4-scout``: ?model=llama-4-scout, 10,485,760 positions.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TODAY = {"length": "4096", "d_model": "128", "n": "500000", "scheme": "rope", "rope.layout": "half",
         "rope.rope_type": "llama3", "rope.factor": "8", "rope.original_max_position_embeddings": "8192"}
CONFIGURATIONS = {"4096, no model": TODAY, "llama-3.1-8b": {"model": "llama-3.1-8b"},
                  "llama-4-scout": {"model": "llama-4-scout"}}


def child(name: str) -> None:
    """One cold run of the Comparison page under configuration ``name``: prints {seconds (wall), cpu (the process's
    CPU seconds: the script's thread works while AppTest's waits), bytes, problems}."""
    sys.path.insert(0, str(ROOT))
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from posenc.ui import cached_figures, real_lengths

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.query_params.update(CONFIGURATIONS[name])
    at.run()  # AppTest opens the default page first: imports and the sidebar, not timed
    st.cache_data.clear()
    st.cache_resource.clear()
    for builder in (cached_figures.comparison_figure, real_lengths.reach_figure, real_lengths.scaling_figure):
        builder.cache_clear()
    gc.collect()  # as bench_cold.py: a full collection due from the warm-up lands in neither run (60–100 ms)
    start, cpu = time.perf_counter(), time.process_time()
    at.switch_page("pages/compare.py").run()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    sent = sum(len(chart.proto.spec) for chart in at.get("plotly_chart"))
    problems = [str(e.value) for e in at.exception] + [str(w.value) for w in at.warning]
    print(json.dumps({"seconds": seconds, "cpu": cpu, "bytes": sent, "problems": problems}))


def measure(name: str) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", name], cwd=ROOT, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--child", choices=list(CONFIGURATIONS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
        return 0
    runs: dict[str, list[dict]] = {name: [] for name in CONFIGURATIONS}
    for _ in range(args.repeats):
        for name in CONFIGURATIONS:  # alternating: a busy moment slows every configuration alike
            runs[name].append(measure(name))
    today = {what: [r[what] for r in runs["4096, no model"]] for what in ("seconds", "cpu")}
    print("| Comparison page | wall s median | ratio | wall s fastest | ratio | CPU s median | ratio | chart bytes |\n"
          "|---|---|---|---|---|---|---|---|")
    for name, found in runs.items():
        wall, cpu = [r["seconds"] for r in found], [r["cpu"] for r in found]
        problems = sorted({p for r in found for p in r["problems"]})
        print(f"| {name} | {statistics.median(wall):.3f} | {statistics.median(wall) / statistics.median(today['seconds']):.2f} "
              f"| {min(wall):.3f} | {min(wall) / min(today['seconds']):.2f} "
              f"| {statistics.median(cpu):.3f} | {statistics.median(cpu) / statistics.median(today['cpu']):.2f} "
              f"| {found[-1]['bytes']:,} |" + (f" problems: {problems}" if problems else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
