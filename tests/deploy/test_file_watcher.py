"""`streamlit run app.py` as the README starts it, in a clone with its virtual environment inside: no file watcher.

Streamlit's default file watcher (watchdog on inotify) watches the app's folder and everything under it, for every
session. A clone with `.venv` inside holds ~5,000 folders once torch is installed; their events overflow inotify's
queue (16,384), the watcher walks the tree again to catch up, and that walk makes the next overflow: one open tab
kept a core busy as long as it stayed open (10.3 s of the server's CPU in 10 idle seconds, measured 2026-11-28).
.streamlit/config.toml turns the watcher off (``fileWatcherType = "none"``; readers never edit the code).

The test builds such a tree (the app's files and 6,000 empty folders under `.venv`), starts the server with no
flag, so only the config speaks, and keeps one session open over the websocket: the server holds no inotify watch
and uses under 1 s of CPU in 4 idle seconds (~4 s with the watcher). Linux only (inotify, /proc).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import websockets  # noqa: E402

import loadtest  # noqa: E402
from streamlit_server import free_port, stop_server, wait_healthy  # noqa: E402

pytestmark = pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(), reason="inotify and /proc are Linux's")

FOLDERS = 6_000  # under .venv: more than torch's install makes (the CI venv: ~5,400)
IDLE = 4.0  # s of one open, idle session
MAX_CPU = 1.0  # s of the server's CPU in IDLE; the watcher's loop takes all of it


def clone_with_a_venv(where: Path) -> Path:
    """The files `streamlit run app.py` reads, and FOLDERS empty folders under .venv."""
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copy(ROOT / "app.py", where / "app.py")
    for folder in ("posenc", "pages", ".streamlit"):
        shutil.copytree(ROOT / folder, where / folder, ignore=ignore)
    for n in range(FOLDERS):
        (where / ".venv" / "lib" / f"p{n // 100}" / f"m{n % 100}").mkdir(parents=True)
    return where


def inotify_watches(pid: int) -> int:
    """The inotify watches a process holds, over all its file descriptors."""
    count = 0
    for info in Path(f"/proc/{pid}/fdinfo").iterdir():
        try:
            count += sum(line.startswith("inotify") for line in info.read_text().splitlines())
        except OSError:  # a descriptor closed meanwhile
            pass
    return count


async def idle_session(url: str, measure) -> object:
    """Open a session, let its first run finish, then call ``measure()`` while it stays open."""
    async with websockets.connect(url, subprotocols=["streamlit"], open_timeout=60, proxy=None,
                                  max_size=loadtest.MAX_MESSAGE_BYTES) as ws:
        result = loadtest.SessionResult()
        await loadtest.one_rerun(ws, "", "", 60, result)
        assert not result.errors, result.errors
        return await asyncio.to_thread(measure)


def test_an_open_tab_costs_no_cpu_in_a_clone_with_its_venv_inside(tmp_path):
    app = clone_with_a_venv(tmp_path)
    port = free_port("127.0.0.1")
    log = tmp_path / "server.log"
    with log.open("w") as out:  # the README's command; the address and port only keep it on loopback
        server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.address=127.0.0.1",
                                   f"--server.port={port}"], cwd=app, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_healthy("127.0.0.1", port)
        process = psutil.Process(server.pid)

        def measure() -> tuple[int, float]:
            time.sleep(1.0)  # the session's watchers, if any, are set up by now
            before = sum(process.cpu_times()[:2])
            time.sleep(IDLE)
            return inotify_watches(server.pid), sum(process.cpu_times()[:2]) - before

        watches, cpu = asyncio.run(idle_session(f"ws://127.0.0.1:{port}/_stcore/stream", measure))
    finally:
        stop_server(server)
    assert watches == 0 and cpu < MAX_CPU, (
        f"one idle session: the server watches {watches} paths and used {cpu:.2f} s of CPU in {IDLE:.0f} s "
        f"(.streamlit/config.toml should say fileWatcherType = \"none\")\n{log.read_text()[-2000:]}")
