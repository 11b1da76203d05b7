"""The websocket bytes one move of a page's own slider receives, in a fresh tab, for each checkout given.

    python bench/move_bytes.py PATH SLIDER KEY CHECKOUT [CHECKOUT ...]
    e.g. python bench/move_bytes.py generalization layer ArrowLeft /tmp/before /tmp/after

Each checkout's app is served on loopback; a headless Chromium opens PATH until it settles, presses KEY once on
the first slider named SLIDER, and counts the bytes received until the page settles again (bench_floor.py's
first load and press). The first move only: a move back to an earlier value finds its charts in Streamlit's
forward-message cache in any version (bench_floor.py's --move repeats a press and measures time as well).
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

import bench_floor
from live_app import launch


def main(argv: list[str]) -> int:
    path, slider, key, *checkouts = argv
    with sync_playwright() as playwright:
        browser = launch(playwright)
        for checkout in checkouts:
            server, url = bench_floor.start("app.py", Path(checkout))
            try:
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                page, _ = bench_floor.first_load(context, f"{url}/{path}")
                received = bench_floor.press(page, slider, key).bytes
                context.close()
                print(f"{checkout}: {path}, {slider} {key}: {received / 1e6:.2f} MB received", flush=True)
            finally:
                bench_floor.stop_server(server)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
