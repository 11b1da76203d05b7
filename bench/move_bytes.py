"""The websocket bytes one move of a page's own slider receives, in a fresh tab, for each checkout given.

    python bench/move_bytes.py PATH SLIDER KEY CHECKOUT [CHECKOUT ...]
    e.g. python bench/move_bytes.py generalization layer ArrowLeft /tmp/before /tmp/after

Each checkout's app is served on loopback; a headless Chromium opens PATH, waits until the page is idle, presses
KEY once on the first slider named SLIDER, and counts the bytes of the messages that arrive until the page is
idle again. The first move only: a move back to an earlier value finds its charts in Streamlit's forward-message
cache in any version (bench_floor.py's --move repeats a press and measures time as well).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "helpers"), str(ROOT / "bench")]

from playwright.sync_api import sync_playwright  # noqa: E402

from live_app import launch, wait_idle  # noqa: E402
from streamlit_server import free_port, stop_server, wait_healthy  # noqa: E402

COUNT = """(() => { window.__in = []; const Native = window.WebSocket;
  window.WebSocket = function (...args) { const ws = new Native(...args);
    ws.addEventListener('message', (e) => window.__in.push(e.data.byteLength ?? e.data.size ?? e.data.length));
    return ws; };
  window.WebSocket.prototype = Native.prototype; Object.assign(window.WebSocket, Native); })();"""


def first_move(browser, url: str, slider: str, key: str) -> int:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.add_init_script(COUNT)
    page.goto(url)
    page.get_by_role("slider", name=slider).first.wait_for(timeout=120_000)
    for _ in range(2):  # idle, and still idle a second later (late charts)
        wait_idle(page)
        time.sleep(1)
    page.evaluate("window.__in = []")
    page.get_by_role("slider", name=slider).first.focus()
    page.keyboard.press(key)
    time.sleep(1)
    wait_idle(page)
    time.sleep(1)
    wait_idle(page)
    received = sum(page.evaluate("window.__in"))
    page.close()
    return received


def main(argv: list[str]) -> int:
    path, slider, key, *checkouts = argv
    with sync_playwright() as playwright:
        browser = launch(playwright)
        for checkout in checkouts:
            port = free_port("127.0.0.1")
            server = subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true", f"--server.port={port}",
                 "--server.address=127.0.0.1", "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"],
                cwd=checkout, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                wait_healthy("127.0.0.1", port)
                received = first_move(browser, f"http://127.0.0.1:{port}/{path}", slider, key)
                print(f"{checkout}: {path}, {slider} {key}: {received / 1e6:.2f} MB received", flush=True)
            finally:
                stop_server(server)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
