"""What a browser with nothing cached receives before its first chart, measured in Debian's Chromium:
from one server straight and through the hall (bench/hall.py's replicas behind deploy/haproxy.cfg),
side by side; then what a reload of the same tab receives; and HAProxy's CPU per new browser.

Run from the repository root (loopback only; bounded; it stops what it starts):

    python bench/browser_bytes.py --browsers 5

Each new browser is a fresh Chromium context (nothing cached) that opens the link /?LINK and waits
for its first chart. Counted from Chromium's own network events (DevTools protocol): per HTTP
response the bytes its body took on the wire (``encodedDataLength`` of ``Network.loadingFinished``
less the response's header bytes: gzip'd size where the answer was compressed), its headers, and
the websocket's frames (Streamlit's messages: the run's figures, never compressed by HAProxy).
Before the hall's browsers, a lecturer's tab opens the link through the hall, as in a lecture, so
that HAProxy's cache holds the page and the front end. ``--halls`` names the halls measured, one
column each, in the same run (bench/hall.py ``HALLS``): "assets" is deploy/haproxy.cfg with the
asset server (deploy/assets.py: /static/ gzip'd by zlib at level 9), "cached" the same without it
(listen gzip's libslz compresses /static/ too), "off" without compression (the hall before issue
28), "per-hit" compression beside the cache, which then compresses every hit again.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "tests" / "helpers")]

from playwright.sync_api import sync_playwright  # noqa: E402

from hall import HALL_NAMES, HALLS, HOST, LINK, Hall, stats_command  # noqa: E402
from live_app import launch, wait_idle  # noqa: E402
from streamlit_server import free_port, server_usage  # noqa: E402

MB = 1e6


@dataclass
class Received:
    """What one tab received over the network, from Chromium's DevTools protocol (Network domain)."""

    total: dict[str, int] = field(default_factory=dict)  # request id -> bytes received (headers + body)
    headers: dict[str, int] = field(default_factory=dict)  # request id -> response header bytes
    urls: dict[str, str] = field(default_factory=dict)  # request id -> URL
    kinds: dict[str, str] = field(default_factory=dict)  # request id -> MIME type
    encodings: dict[str, str] = field(default_factory=dict)  # request id -> Content-Encoding ('' if none)
    servers: dict[str, str] = field(default_factory=dict)  # request id -> Server header (who answered)
    websocket: int = 0  # payload bytes of the websocket's frames received

    @property
    def bodies(self) -> dict[str, int]:
        """Request id -> body bytes on the wire (gzip'd if it came compressed), for answers that came
        over the network (not from the browser's cache)."""
        return {r: max(0, n - self.headers.get(r, 0)) for r, n in self.total.items() if n}

    @property
    def body_bytes(self) -> int:
        return sum(self.bodies.values())

    @property
    def wire_bytes(self) -> int:
        """Everything the tab received: bodies, response headers, websocket frames."""
        return sum(self.total.values()) + self.websocket

    def by_kind(self) -> list[tuple[str, int, int, bool]]:
        """(MIME type, answers, body bytes, gzip'd), the largest first."""
        rows: dict[tuple[str, bool], list[int]] = collections.defaultdict(lambda: [0, 0])
        for request, size in self.bodies.items():
            row = rows[self.kinds.get(request, "?"), bool(self.encodings.get(request))]
            row[0] += 1
            row[1] += size
        return sorted(((kind, n, size, gz) for (kind, gz), (n, size) in rows.items()), key=lambda r: -r[2])


def watch(context, page):
    """Count what ``page`` receives until the returned session is detached: (Received, session)."""
    received = Received()
    session = context.new_cdp_session(page)

    def on_response(event):
        headers = {k.lower(): v for k, v in event["response"].get("headers", {}).items()}
        received.urls[event["requestId"]] = event["response"]["url"]
        received.kinds[event["requestId"]] = event["response"].get("mimeType", "?")
        received.encodings[event["requestId"]] = headers.get("content-encoding", "")
        received.servers[event["requestId"]] = headers.get("server", "")

    def on_headers(event):  # the response's header block as it came on the wire
        received.headers[event["requestId"]] = len((event.get("headersText") or "").encode("latin-1", "replace"))

    def on_finished(event):
        received.total[event["requestId"]] = int(event["encodedDataLength"])

    def on_frame(event):
        payload = event["response"]["payloadData"]
        received.websocket += len(payload) * 3 // 4 if event["response"]["opcode"] == 2 else len(payload.encode())

    session.on("Network.responseReceived", on_response)
    session.on("Network.responseReceivedExtraInfo", on_headers)
    session.on("Network.loadingFinished", on_finished)
    session.on("Network.webSocketFrameReceived", on_frame)
    session.send("Network.enable")
    return received, session


def new_browser(browser, url: str) -> tuple[Received, Received]:
    """A tab with nothing cached opens url to its first chart, then reloads; what each received."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        first, session = watch(context, page)
        page.goto(url)
        wait_idle(page, charts=1)
        page.wait_for_timeout(500)  # late answers (fonts, lazy chunks) finish
        session.detach()
        again, session = watch(context, page)
        page.reload()
        wait_idle(page, charts=1)
        page.wait_for_timeout(500)
        session.detach()
        return first, again
    finally:
        context.close()


@dataclass
class Column:
    name: str
    first: list[Received] = field(default_factory=list)
    reload: list[Received] = field(default_factory=list)
    cpu_ms: dict[str, float] = field(default_factory=dict)  # process -> CPU ms per new browser
    compressed: float | None = None  # answers HAProxy compressed per new browser


def compressions(stats: str | None) -> int:
    """Answers HAProxy has compressed so far (``show stat``: comp_rsp of every backend), or 0."""
    if stats is None:
        return 0
    header, *rows = stats_command(stats, "show stat").splitlines()
    names = header.lstrip("# ").split(",")
    records = [dict(zip(names, row.split(","))) for row in rows if row]
    return sum(int(r["comp_rsp"] or 0) for r in records if r.get("svname") == "BACKEND")


def measure(browser, name: str, url: str, pids: dict[str, int], browsers: int, stats: str | None = None) -> Column:
    """``browsers`` new browsers one after another, after one that is not counted: through the hall it
    is the lecturer's tab, which fills HAProxy's cache; straight, the server's first run (imports)."""
    column = Column(name)
    new_browser(browser, url)
    before = {process: server_usage(pid)[1] for process, pid in pids.items()}
    compressed = compressions(stats)
    for _ in range(browsers):
        first, again = new_browser(browser, url)
        column.first.append(first)
        column.reload.append(again)
    column.cpu_ms = {process: (server_usage(pid)[1] - before[process]) * 1000 / browsers for process, pid in pids.items()}
    column.compressed = (compressions(stats) - compressed) / browsers if stats else None
    return column


def median(values) -> float:
    return statistics.median(values) if values else float("nan")


def report(columns: list[Column], browsers: int) -> str:
    rows = [("", [c.name for c in columns])]

    def row(label, cell):
        rows.append((label, [cell(c) for c in columns]))

    row("answers over the network", lambda c: f"{median(len(r.bodies) for r in c.first):.0f}")
    row("HTTP bodies on the wire", lambda c: f"{median(r.body_bytes for r in c.first) / MB:.2f} MB")
    row("  of them gzip'd", lambda c: f"{median(sum(n for k, n in r.bodies.items() if r.encodings.get(k)) for r in c.first) / MB:.2f} MB")
    row("HTTP headers", lambda c: f"{median(sum(r.headers.values()) for r in c.first) / 1e3:.0f} KB")
    row("websocket frames", lambda c: f"{median(r.websocket for r in c.first) / 1e3:.0f} KB")
    row("all received", lambda c: f"{median(r.wire_bytes for r in c.first) / MB:.2f} MB")
    row("reload: answers over the network", lambda c: f"{median(len(r.bodies) for r in c.reload):.0f}")
    row("reload: HTTP bodies", lambda c: f"{median(r.body_bytes for r in c.reload) / 1e3:.1f} KB")
    row("reload: all received", lambda c: f"{median(r.wire_bytes for r in c.reload) / 1e3:.0f} KB")
    row("replica CPU per browser", lambda c: " + ".join(
        f"{v:.0f}" for k, v in c.cpu_ms.items() if k.startswith("replica")) + " ms")
    row("asset server CPU per browser", lambda c: f"{c.cpu_ms['asset server']:.1f} ms" if "asset server" in c.cpu_ms else "-")
    row("HAProxy CPU per browser", lambda c: f"{c.cpu_ms['HAProxy']:.1f} ms" if "HAProxy" in c.cpu_ms else "-")
    row("HAProxy compressions per browser", lambda c: f"{c.compressed:.1f}" if c.compressed is not None else "-")
    width = max(len(label) for label, _ in rows) + 2
    widths = [max(len(r[1][i]) for r in rows) + 3 for i in range(len(columns))]
    lines = [label.ljust(width) + "".join(c.ljust(w) for c, w in zip(cells, widths)) for label, cells in rows]
    lines.append(f"medians over {browsers} new browsers per column (fresh Chromium contexts, one after another); "
                 "CPU: each process's user+system time over them, divided by their number")
    for column in columns:
        kinds = column.first[len(column.first) // 2].by_kind()[:6]
        lines.append(f"{column.name}, largest bodies: " + ", ".join(
            f"{kind} {n} x {size / MB:.2f} MB" + (" gzip" if gz else "") for kind, n, size, gz in kinds))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--browsers", type=int, default=5, help="new browsers per column, one after another")
    p.add_argument("--replicas", type=int, default=2)
    p.add_argument("--halls", nargs="+", choices=list(HALLS), default=["assets", "cached"],
                   help="halls (bench/hall.py HALLS): assets = deploy/haproxy.cfg with the asset server, cached = "
                   "without it (libslz for /static/ too), off = without gzip (before issue 28), per-hit = gzip "
                   "beside the cache (every hit compressed)")
    args = p.parse_args(argv)
    if not 1 <= args.browsers <= 50:
        p.error("need 1 <= browsers <= 50")
    columns = []
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            for name in args.halls:
                compression, asset_server = HALLS[name]
                with Hall(args.replicas, free_port(HOST), compression=compression, asset_server=asset_server) as hall:
                    pids = {f"replica {i + 1}": p.pid for i, p in enumerate(hall.servers)}
                    if not columns:  # one server straight: replica 1, no balancer on the way
                        straight = f"http://{HOST}:{hall.ports[0]}/?{LINK}"
                        columns.append(measure(browser, "one server", straight, {"replica 1": pids["replica 1"]},
                                               args.browsers))
                    if hall.assets:
                        pids["asset server"] = hall.assets.pid
                    columns.append(measure(browser, HALL_NAMES[name], f"{hall.url}?{LINK}",
                                           {**pids, "HAProxy": hall.haproxy.pid}, args.browsers, hall.stats))
        finally:
            with contextlib.suppress(Exception):
                browser.close()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"{started}: a new browser opens /?{LINK} to its first chart, then reloads")
    print(report(columns, args.browsers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
