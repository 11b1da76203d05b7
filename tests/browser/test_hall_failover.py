"""Failover in a real browser: a tab on a 2-replica hall (bench/hall.py serve: HAProxy in front of two
``streamlit run app.py``) loses its replica (SIGKILL) and shows the same view again from the other.

Streamlit's frontend reconnects its websocket by itself; HAProxy sees that the cookie names a dead
replica and redispatches the tab (option redispatch); the new replica runs the page from the URL and
the widget states the tab sends, so the view is the one the student had, slider moves included.
The student's tab gets its page from HAProxy's cache (the lecturer's tab opened the link first), so
its affinity cookie comes from the first request that reached a replica. About 30 s.
"""

from __future__ import annotations

import re
import shutil
import socket
import time
from pathlib import Path

import psutil
import pytest

from live_app import require_chromium, running_hall, wait_idle

pytestmark = pytest.mark.browser
require_chromium()
if not (shutil.which("haproxy") or Path("/usr/sbin/haproxy").exists()):
    pytest.skip("haproxy is not installed (apt-get install -y haproxy; .ci/run does)", allow_module_level=True)


def show_stat(sock_path: str) -> dict[str, int]:
    """Current sessions (scur) of each server of the posenc backend, from HAProxy's admin socket."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(2)
        sock.connect(sock_path)
        sock.sendall(b"show stat\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    header, *rows = data.decode().splitlines()
    names = header.lstrip("# ").split(",")
    stats = [dict(zip(names, row.split(","))) for row in rows if row]
    return {s["svname"]: int(s["scur"] or 0) for s in stats if s.get("pxname") == "posenc" and s["svname"].startswith("posenc")}


@pytest.fixture(scope="module")
def hall():
    """(url, {server name: replica process}, admin socket) of a running 2-replica hall."""
    with running_hall(2) as (url, process):
        children = psutil.Process(process.pid).children()
        haproxy = next(c for c in children if "haproxy" in " ".join(c.cmdline()))
        config = Path(haproxy.cmdline()[haproxy.cmdline().index("-f") + 1])
        ports = dict(re.findall(r"^\s*server (posenc\d+) 127\.0\.0\.1:(\d+)", config.read_text(), re.MULTILINE))
        replicas = {name: next(c for c in children if f"--server.port={port}" in c.cmdline())
                    for name, port in ports.items()}
        yield url.rstrip("/"), replicas, str(config.parent / "haproxy.sock")


# The Sinusoids' chart drawn for length=51: its traces' lengths, or null while it shows anything else.
CHART_OF_51 = """() => { const p = document.querySelector('[data-testid=stPlotlyChart] .js-plotly-plot');
  const n = p && p.data ? p.data.map(t => (t.y._inputArray || t.y).length) : [];
  return n.length && n.every(k => k === 51) ? n : null; }"""


def test_a_tab_whose_replica_dies_shows_the_same_view_from_another(hall, browser):
    url, replicas, stats = hall
    link = f"{url}/sinusoids?d_model=24&length=50&n=100&scheme=sinusoidal"
    lecturer = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:  # the lecturer's tab opens the link first: HAProxy keeps the page and Streamlit's assets
        lecturer_page = lecturer.new_page()
        lecturer_page.goto(link)
        wait_idle(lecturer_page, charts=1)
    finally:
        lecturer.close()
    time.sleep(2.5)  # the lecturer's closed websocket no longer counts among the replicas' sessions
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    sockets = []
    page.on("websocket", lambda ws: sockets.append(ws) if "/_stcore/stream" in ws.url else None)
    try:
        response = page.goto(link)
        assert response.headers.get("age") is not None  # the page came from HAProxy's cache, not a replica
        wait_idle(page, charts=1)
        length = page.get_by_role("slider", name="length")
        length.focus()
        page.keyboard.press("ArrowRight")  # a move made in this tab, in its URL since (length=51)
        page.wait_for_function("() => location.search.includes('length=51')", timeout=30_000)
        page.wait_for_function(CHART_OF_51, timeout=30_000)  # the move's run drawn (the address changes first)
        wait_idle(page, charts=1)
        before = {name: page.get_by_role("slider", name=name).input_value() for name in ("d_model", "length")}
        before["n"] = page.get_by_label("n (base)", exact=True).input_value()
        assert before == {"d_model": "24", "length": "51", "n": "100"}
        serving = [name for name, count in show_stat(stats).items() if count > 0]
        assert len(serving) == 1, show_stat(stats)  # one tab, one websocket, on one replica
        # a page from the cache sets no cookie: the tab got it from the first request that reached a replica
        cookie = next(c["value"] for c in context.cookies() if c["name"] == "SERVERID")

        killed_at = time.monotonic()
        replicas[serving[0]].kill()
        deadline = time.monotonic() + 30
        while len(sockets) < 2 and time.monotonic() < deadline:
            page.wait_for_timeout(200)
        assert len(sockets) >= 2, "the page did not open a new websocket"
        page.wait_for_timeout(500)
        wait_idle(page, charts=1)
        # the chart of the new replica's run, waited for as a student's eyes would. CI once read 50 points here with
        # the sliders at 51 (not seen in 6 runs alone); the likely reading: the move's own chart was not waited for
        # before the kill, so the page still showed length 50's chart until the new replica's run drew
        traces = page.wait_for_function(CHART_OF_51, timeout=20_000).json_value()
        wait_idle(page, charts=1)
        recovered = time.monotonic() - killed_at

        after = {name: page.get_by_role("slider", name=name).input_value() for name in ("d_model", "length")}
        after["n"] = page.get_by_label("n (base)", exact=True).input_value()
        assert after == before
        assert "length=51" in page.url and "d_model=24" in page.url
        assert traces and all(n == 51 for n in traces)
        assert page.locator("[data-testid=stException]").count() == 0
        now = show_stat(stats)
        other = next(name for name in replicas if name != serving[0])
        assert now[other] >= 1, now  # the tab's websocket is on the live replica now
        new_cookie = next(c["value"] for c in context.cookies() if c["name"] == "SERVERID")
        assert new_cookie != cookie  # HAProxy gave the redispatched tab the live replica's cookie
        assert recovered < 20, f"{recovered:.1f} s to show the view again"
        print(f"recovered in {recovered:.1f} s")
    finally:
        context.close()
