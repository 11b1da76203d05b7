"""Runs per second of one Streamlit process: posenc's default page against the floor page, one run.

Run from the repository root (loopback only; bounded; about a minute):

    python bench/runs_per_second.py [--sessions 20] [--reruns 10] [--rounds 3] [--rev REV ...] [--json-engine]
                                    [--view "sinusoids?curves=Wavelengths&length=512"]

Each server (``streamlit run app.py`` and ``streamlit run bench/floor_app.py``, the same
.streamlit/config.toml) is pinned to core 0 and this load generator to the other cores, so a server
has one core to itself, as one replica of a hall does. A round: S websocket sessions at once on one
server, each asking for R runs of the default page at the defaults (or of ``--view``, a page and its query
as a lecture file writes them; the floor always runs its own page) one after another (the first is
the session's first load, the others reruns), the protocol of bench/loadtest.py. Rounds alternate
between the servers (posenc, floor, posenc, floor, ...), so both see the same machine.

Reported per server: runs per second (runs finished / wall time of the round, the server saturated),
server CPU milliseconds per run (its process's CPU time / runs: the number that does not depend on
what else the machine runs), and the ratios. ``--rev REV`` (repeatable) adds posenc as it was at git
revision REV (its tree exported with ``git archive`` to a temporary directory, nothing in this
checkout changes); ``--json-engine`` adds the first REV (or this tree) with plotly's pure-Python JSON
encoder instead of orjson, as the Docker image ran before orjson was in requirements.txt.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadtest import run_session  # noqa: E402
from streamlit_server import free_port, server_usage, stop_server, wait_healthy  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
JSON_ENGINE = ("import sys, plotly.io; plotly.io.json.config.default_engine = 'json'; "
               "from streamlit.web.cli import main; sys.argv = ['streamlit'] + sys.argv[1:]; main()")


def start(script: str, port: int, json_engine: bool = False, cwd: Path = ROOT) -> subprocess.Popen:
    """``streamlit run script`` on loopback, pinned to core 0; returns once healthy."""
    args = ["run", script, "--server.headless=true", f"--server.port={port}", f"--server.address={HOST}",
            "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"]
    command = [sys.executable, "-c", JSON_ENGINE, *args] if json_engine else [sys.executable, "-m", "streamlit", *args]
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, "MALLOC_ARENA_MAX": "2"})
    cores = sorted(os.sched_getaffinity(0))
    psutil.Process(process.pid).cpu_affinity(cores[:1])
    try:
        wait_healthy(HOST, port)
    except RuntimeError:
        stop_server(process)
        raise
    return process


async def one_round(port: int, sessions: int, reruns: int, timeout: float, view: str = "") -> tuple[int, int, float]:
    """(runs finished, errors, wall seconds) of S sessions of R runs each of ``view`` ("page?query"; "" is the
    default page at the defaults)."""
    url = f"ws://{HOST}:{port}/_stcore/stream"
    deadline = time.monotonic() + 300
    page, _, query = view.partition("?")
    started = time.perf_counter()
    results = await asyncio.gather(*(run_session(url, [query] * reruns, page, timeout, deadline)
                                     for _ in range(sessions)))
    return sum(len(r.latencies) for r in results), sum(len(r.errors) for r in results), time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sessions", type=int, default=20)
    p.add_argument("--reruns", type=int, default=10)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--rev", action="append", default=[], help="also posenc at this git revision (repeatable)")
    p.add_argument("--json-engine", action="store_true", help="also posenc (at the first REV) with plotly's json encoder")
    p.add_argument("--view", default="", help='the view posenc runs, "page?query" as a lecture file writes it '
                   '(default: the default page at the defaults)')
    args = p.parse_args(argv)
    if not (1 <= args.sessions <= 200 and 1 <= args.reruns <= 100 and 1 <= args.rounds <= 10):
        p.error("need 1 <= sessions <= 200, 1 <= reruns <= 100, 1 <= rounds <= 10")
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) > 1:
        psutil.Process().cpu_affinity(cores[1:])  # the load generator stays off the servers' core
    old = Path(tempfile.mkdtemp(prefix="posenc-revs-"))
    servers = {"posenc": ("app.py", False, ROOT)}
    for rev in args.rev:
        tree = old / rev.replace("/", "_")
        tree.mkdir()
        archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        servers[f"posenc at {rev}"] = ("app.py", False, tree)
    if args.json_engine:
        first = args.rev[0] if args.rev else None
        servers[f"posenc at {first or 'this tree'}, json"] = ("app.py", True, old / first.replace("/", "_") if first else ROOT)
    servers["floor"] = ("bench/floor_app.py", False, ROOT)
    views = {name: "" if name == "floor" else args.view for name in servers}
    processes: dict[str, subprocess.Popen] = {}
    ports: dict[str, int] = {}
    try:
        for name, (script, json_engine, cwd) in servers.items():
            ports[name] = free_port(HOST)
            processes[name] = start(script, ports[name], json_engine, cwd)
        load = os.getloadavg()
        print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {len(cores)} cores; servers on core {cores[0]}; "
              f"{args.sessions} sessions x {args.reruns} runs of {args.view or 'the default page'} per round", flush=True)
        for name in servers:  # warm-up: imports and caches of the first run are not counted
            asyncio.run(one_round(ports[name], 2, 2, args.timeout, views[name]))
        rates: dict[str, list[float]] = {name: [] for name in servers}
        cpu_ms: dict[str, list[float]] = {name: [] for name in servers}
        errors = 0
        for _ in range(args.rounds):
            for name in servers:
                cpu_before = server_usage(processes[name].pid)[1]
                runs, errs, wall = asyncio.run(one_round(ports[name], args.sessions, args.reruns, args.timeout,
                                                         views[name]))
                cpu = server_usage(processes[name].pid)[1] - cpu_before
                errors += errs
                rates[name].append(runs / wall)
                cpu_ms[name].append(1000 * cpu / max(runs, 1))
                print(f"  {name:28s} {runs:4d} runs in {wall:5.2f} s: {runs / wall:6.1f} runs/s, "
                      f"{1000 * cpu / max(runs, 1):5.1f} ms CPU/run, {errs} errors", flush=True)
        print()
        for name in servers:
            print(f"{name:28s} runs/s median {statistics.median(rates[name]):6.1f} (rounds: "
                  f"{', '.join(f'{r:.1f}' for r in rates[name])}), CPU/run median {statistics.median(cpu_ms[name]):5.1f} ms")
        names = list(servers)
        for i, name in enumerate(names):
            for other in names[i + 1:]:
                print(f"{name} / {other}: runs/s {statistics.median(rates[name]) / statistics.median(rates[other]):.2f}, "
                      f"CPU per run {statistics.median(cpu_ms[name]) / statistics.median(cpu_ms[other]):.2f}")
        print(f"errors {errors}")
        return 1 if errors else 0
    finally:
        for process in processes.values():
            stop_server(process)
        shutil.rmtree(old, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
