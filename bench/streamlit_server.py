"""The Streamlit server a benchmark measures: start one on loopback, find one, stop it, and
sample its memory and CPU (the process and its children). Used by bench/loadtest.py (which
re-exports these names) and bench/bench_floor.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil


def server_usage(pid: int) -> tuple[float, float]:
    """(RSS in MB, CPU seconds used so far) of the server and its children; zeros once it is gone."""
    rss = cpu = 0.0
    with contextlib.suppress(psutil.NoSuchProcess):
        root = psutil.Process(pid)
        for proc in [root, *root.children(recursive=True)]:
            with contextlib.suppress(psutil.NoSuchProcess):
                rss += proc.memory_info().rss
                cpu += sum(proc.cpu_times()[:2])
    return rss / 1e6, cpu


async def sample_peak(pid: int, stop: asyncio.Event, interval: float = 0.1) -> float:
    """Highest RSS seen every ``interval`` seconds until ``stop`` is set."""
    peak = server_usage(pid)[0]
    while not stop.is_set():
        peak = max(peak, (await asyncio.to_thread(server_usage, pid))[0])
        try:
            await asyncio.wait_for(stop.wait(), interval)
        except TimeoutError:
            pass
    return peak


def free_port(host: str) -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_healthy(host: str, port: int, timeout: float = 60.0) -> None:
    """Poll /_stcore/health until it answers "ok"; raise after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(f"http://{host}:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"no healthy server on {host}:{port} after {timeout:.0f} s")


def start_server(app: str, host: str, port: int, log: Path, cwd: Path | None = None) -> subprocess.Popen:
    """`streamlit run app` on host:port, its output in ``log``; returns once it is healthy.

    Run from ``cwd`` (default: the app's folder), whose .streamlit/config.toml Streamlit reads: an app in bench/
    served from the repository root gets posenc's settings (no full collection after each run among them).
    No file watcher, as in the Docker image (and edits made during the test cannot
    reload the app halfway through a run).
    """
    folder = Path(cwd) if cwd is not None else Path(app).resolve().parent
    cmd = [sys.executable, "-m", "streamlit", "run", str(Path(app).resolve().relative_to(folder.resolve())),
           "--server.headless=true",
           f"--server.port={port}", f"--server.address={host}", "--browser.gatherUsageStats=false",
           "--server.fileWatcherType=none"]
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=folder, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_healthy(host, port)
    except RuntimeError:
        stop_server(proc)
        raise
    return proc


def stop_server(proc: subprocess.Popen) -> None:
    """Terminate the server we started (this process only), killing it if it hangs."""
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


def listening_pid(port: int) -> int:
    """The pid of the process listening on ``port`` (the server we did not start)."""
    for conn in psutil.net_connections("tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.laddr.port == port and conn.pid:
            return conn.pid
    raise RuntimeError(f"no process listens on port {port} (or its pid is not visible to this user)")
