"""Start the app and drive Debian's Chromium with Playwright (shared by browser tests and bench/).

Only loopback traffic: the server listens on 127.0.0.1 at a free port and stops at the end.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"


def require_chromium() -> None:
    """At a browser test module's top: skip it where Chromium or Playwright is missing (an error in CI)."""
    import pytest

    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            raise RuntimeError(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium")
        pytest.skip(f"{CHROMIUM} not installed (apt-get install -y chromium)", allow_module_level=True)
    pytest.importorskip("playwright.sync_api")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_app(timeout: float = 60.0, script: Path = ROOT / "app.py"):
    """Yield the base URL of a fresh ``streamlit run app.py`` (or ``script``, which can import posenc) on
    loopback, and its process; stop it afterwards."""
    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless=true",
               f"--server.port={port}", "--server.address=127.0.0.1", "--browser.gatherUsageStats=false",
               "--server.fileWatcherType=none"]
    # The server's log goes to a file, read on failure: a pipe nobody reads fills (64 KiB) in a long run that
    # logs, and the server then blocks on its next write.
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(f"streamlit did not start: {log.read().decode()[-2000:]}") from None
                time.sleep(0.3)
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@contextlib.contextmanager
def running_hall(replicas: int):
    """Yield (the hall's URL as ``bench/hall.py serve`` prints it, its process) of a hall of ``replicas``
    replicas behind HAProxy on loopback; stop it (SIGTERM, then kill) afterwards."""
    import signal

    process = subprocess.Popen([sys.executable, "bench/hall.py", "serve", "--replicas", str(replicas)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("ready "), line + process.stderr.read()
        yield line.split()[1], process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def launch(playwright):
    """Debian's Chromium, headless, with no background traffic."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)


def launch_with_profile(playwright, profile: str, **options):
    """Debian's Chromium as :func:`launch` starts it, with a profile on disk (the directory ``profile``): the
    context it returns keeps its HTTP cache and V8's code cache from tab to tab, as a student's browser does,
    where a context of ``browser.new_context()`` is incognito and compiles Streamlit's front end anew in every tab
    (a new tab of a one-title app: 3.0 s of Chromium's CPU incognito, 1.6 s with the profile's caches, 2026-12-01).
    Its ``.browser`` makes incognito contexts as well."""
    return playwright.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=CHROMIUM_FLAGS,
                                                         **options)


# CSS animations and transitions take no time in the browser tests' tabs, as Playwright's screenshots take them
# (``animations="disabled"``): a finite one ends at once, an infinite one (Streamlit's skeletons pulse while a run
# loads, 750 ms a beat) stops. Headless Chromium composites each frame of the window in software: a page of posenc
# loading under Streamlit's pulse drew ~220 full frames, ~2 s of Chromium's CPU a load of RoPE's How it works, and
# ~110 frames, 0.15 s, without it (a trace of 3 loads each, 2026-12-01). Not the system setting
# prefers-reduced-motion: posenc hides the animations' Play under it (posenc/ui/motion.py), which the tests check
# both ways. The benchmarks (bench/) keep the motion, as a student's browser has it.
STILL_MOTION = """(() => {
  const add = () => {
    const style = document.createElement('style');
    style.textContent = '*, *::before, *::after { animation-duration: 0s !important; animation-delay: 0s !important;'
      + ' animation-iteration-count: 1 !important; transition-duration: 0s !important; transition-delay: 0s !important; }';
    (document.head || document.documentElement).appendChild(style);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', add); else add();
})();"""


def still_motion(browser):
    """``browser`` with every context it makes from now on given :data:`STILL_MOTION` (the browser tests')."""
    make = browser.new_context

    def new_context(**options):
        context = make(**options)
        context.add_init_script(STILL_MOTION)
        return context

    browser.new_context = new_context
    return browser


def wait_idle(page, charts: int = 0, timeout: float = 60_000) -> None:
    """Wait until Streamlit has finished the run: a title, no script running, at least
    ``charts`` charts, and every chart drawn."""
    page.wait_for_selector("h1", timeout=timeout)
    page.wait_for_selector(IDLE, timeout=timeout)
    page.wait_for_function(
        "(n) => { const c = [...document.querySelectorAll('[data-testid=stPlotlyChart]')];"
        " return c.length >= n && c.every(e => e.querySelector('.js-plotly-plot')"
        " && e.querySelector('.js-plotly-plot').data); }",
        arg=charts, timeout=timeout,
    )


def chart_data(page, index: int = 0) -> list[dict]:
    """The plotly traces of the index-th chart as the browser holds them (typed arrays as lists)."""
    return page.evaluate(
        """(i) => {
            const plot = document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot')[i];
            const plain = v => (v && v._inputArray ? plain(v._inputArray)
                : ArrayBuffer.isView(v) ? Array.from(v) : Array.isArray(v) ? v.map(plain) : v);
            return plot.data.map(t => ({name: t.name, x: plain(t.x), y: plain(t.y), z: plain(t.z)}));
        }""",
        index,
    )
