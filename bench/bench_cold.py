"""Cold server time and memory of every page under every scheme at the caps (Streamlit AppTest).

Run from the repository root (about 3 minutes on 2 cores):

    python bench/bench_cold.py [--page pages/properties.py ...] [--scheme rope ...]

For each page and scheme, at d_model=1024 and length=4096, once with the scheme's default options
and once with every numeric option at its maximum (e.g. 64 ALiBi heads, a 4096-row learned table):
every Streamlit cache is cleared, the page is run once (cold) and timed; then, cold again and
under tracemalloc, the memory still held after the run (caches and session state: what one link keeps) and the
peak during it. AppTest runs the script in this process, without a browser or websocket, so
these times are the script's own (a real server adds a few ms of messaging).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import posenc  # noqa: E402

PAGES = ["pages/heatmap.py", "pages/derivation.py", "pages/sinusoids.py", "pages/rotation.py", "pages/details.py",
         "pages/compare.py", "pages/properties.py", "pages/precision.py"]
CAPS = {"d_model": "1024", "length": "4096"}


def option_caps(key: str) -> dict[str, str]:
    """The URL of the scheme with every numeric option at its maximum."""
    return {f"{key}.{o.name}": str(o.maximum) for o in posenc.SCHEMES[key].options if not o.choices}


def cold_run(page: str, query: dict[str, str]) -> tuple[float, float, float, bool]:
    """(seconds, MB held after, MB peak, raised) of one cold run of ``page`` with ``query``."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update(query)
    at.run()  # AppTest opens the default page first
    clear()
    start = time.perf_counter()
    at.switch_page(page).run()
    seconds = time.perf_counter() - start
    clear()  # again, cold, under tracemalloc (which slows Python down, so not timed)
    tracemalloc.start()
    at.run()
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, held / 2**20, peak / 2**20, bool(at.exception)


def clear() -> None:
    st.cache_data.clear()
    st.cache_resource.clear()
    gc.collect()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", action="append", choices=PAGES)
    parser.add_argument("--scheme", action="append", choices=list(posenc.SCHEMES))
    args = parser.parse_args(argv)
    print("| page | scheme | options | cold s | held MB | peak MB |\n|---|---|---|---|---|---|")
    worst = (0.0, "")
    for page in args.page or PAGES:
        for key in args.scheme or posenc.SCHEMES:
            for label, extra in (("defaults", {}), ("maxima", option_caps(key))):
                if label == "maxima" and not extra:
                    continue
                seconds, held, peak, raised = cold_run(page, CAPS | {"scheme": key} | extra)
                worst = max(worst, (seconds, f"{page} {key} {label}"))
                print(f"| {page} | {key} | {label} | {seconds:.3f}{' (exception)' if raised else ''} "
                      f"| {held:.1f} | {peak:.1f} |", flush=True)
    print(f"\nslowest: {worst[1]}, {worst[0]:.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
