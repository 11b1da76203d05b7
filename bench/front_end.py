"""What a browser with nothing cached fetches before its first run, and who serves it: a replica
straight, or HAProxy's cache (deploy/haproxy.cfg, "cache front_end") in front of it.

Run from the repository root (loopback only; bounded; it stops what it starts):

    python bench/front_end.py --browsers 20

A new tab GETs the link's page, then every script and stylesheet the page names (about 60 files
under /static/), then, once its chart is drawn, Streamlit's plotly chunk. This script does that
for B browsers one after another, first from a replica without a balancer, then through HAProxy
(after the lecturer's tab has loaded the link once), and prints side by side the CPU each process
spent per browser and the bytes sent (gzip'd by HAProxy: each GET says "Accept-Encoding: gzip" as
a browser does; /static/ gzip'd by the asset server, deploy/assets.py). ``--halls assets cached off
per-hit`` adds columns: HAProxy without the asset server (libslz for /static/ too), without
deploy/haproxy.cfg's gzip, and with gzip beside the cache (every hit compressed again). The hall benchmark GETs only the
page unless it is given ``--assets`` (bench/hall.py run --assets: 300 such browsers at once).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hall import BROWSER_CONNECTIONS, HALLS, HOST, LINK, Hall, fetch_front_end, front_end_files  # noqa: E402
from streamlit_server import free_port, server_usage  # noqa: E402


def fetch_all(port: int, paths: list[str]) -> int:
    """One browser's fetch of ``paths`` (bench/hall.py's, over its kept-alive connections); bytes received."""
    return asyncio.run(fetch_front_end(port, paths, "", timeout=60))


def measure(port: int, pids: dict[str, int], browsers: int) -> tuple[int, int, float, dict[str, float]]:
    """(files, bytes per browser, seconds per browser, CPU ms per browser of each named process)."""
    paths = ["/?" + LINK, *front_end_files(port)]
    fetch_all(port, paths)  # the lecturer's tab: a balancer's cache is filled, a replica warmed
    before = {name: server_usage(pid)[1] for name, pid in pids.items()}
    start = time.perf_counter()
    received = sum(fetch_all(port, paths) for _ in range(browsers))
    elapsed = (time.perf_counter() - start) / browsers
    cpu = {name: (server_usage(pid)[1] - before[name]) * 1000 / browsers for name, pid in pids.items()}
    return len(paths), received // browsers, elapsed, cpu


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--browsers", type=int, default=20, help="tabs with nothing cached, one after another")
    p.add_argument("--halls", nargs="+", choices=list(HALLS), default=["assets"],
                   help="halls, one column each (bench/hall.py HALLS): assets = deploy/haproxy.cfg with the asset "
                   "server, cached = without it (libslz), off = without gzip, per-hit = gzip beside the cache")
    args = p.parse_args(argv)
    if not 1 <= args.browsers <= 200:
        p.error("need 1 <= browsers <= 200")
    columns = []
    for name in args.halls:
        compression, asset_server = HALLS[name]
        with Hall(1, free_port(HOST), compression=compression, asset_server=asset_server) as hall:
            replica = hall.servers[0].pid
            if not columns:
                columns.append(("replica straight", *measure(hall.ports[0], {"replica": replica}, args.browsers)))
            columns.append((f"HAProxy, {name}",
                            *measure(hall.port, {"replica": replica, "HAProxy": hall.haproxy.pid}, args.browsers)))
    print(f"{args.browsers} browsers with nothing cached, one after another, each GETs {columns[0][1]} files "
          f"(the page /?{LINK}, what it names, the plotly chunk; Accept-Encoding: gzip, as a browser)")
    rows = [("", *(name for name, *_ in columns)),
            ("bytes per browser", *(f"{size / 1e6:.2f} MB" for _, _, size, _, _ in columns)),
            ("time per browser", *(f"{wall * 1000:.0f} ms" for _, _, _, wall, _ in columns)),
            ("replica CPU per browser", *(f"{cpu['replica']:.1f} ms" for *_, cpu in columns)),
            ("HAProxy CPU per browser", *(f"{cpu['HAProxy']:.1f} ms" if "HAProxy" in cpu else "-" for *_, cpu in columns))]
    for label, *cells in rows:
        print(label.ljust(26) + "".join(c.ljust(24) for c in cells))
    print(f"each browser: {BROWSER_CONNECTIONS} kept-alive connections, each its share of the files one after another; "
          "every process on this machine")
    return 0


if __name__ == "__main__":
    sys.exit(main())
