"""bench/hall.py serve: two replicas of app.py behind HAProxy on loopback (about 15 s).

It prints one line ``ready URL`` once every replica is up through the balancer; the balancer pins
a browser to a replica with its cookie and answers the page and Streamlit's assets from its cache;
SIGTERM (and SIGINT) stops every process it started.
"""

from __future__ import annotations

import gzip
import http.client
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import psutil
import pytest
import streamlit

ROOT = Path(__file__).resolve().parents[2]
HAPROXY = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)
pytestmark = pytest.mark.skipif(HAPROXY is None, reason="haproxy is not installed (apt-get install -y haproxy; .ci/run does)")


BROWSER = "gzip, deflate, br, zstd"  # Chromium's Accept-Encoding


def answer(url: str, path: str, cookie: str = "", accept_encoding: str = "") -> http.client.HTTPResponse:
    """The balancer's answer to GET path (its body read, as it came: gzip'd if it came so)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    headers = {"Cookie": cookie} if cookie else {}
    if accept_encoding:
        headers["Accept-Encoding"] = accept_encoding
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    response.body = response.read()
    connection.close()
    return response


def server_cookie(response: http.client.HTTPResponse) -> str:
    """The SERVERID cookie the balancer set in this answer, or ''."""
    cookies = [c.split(";", 1)[0] for c in response.headers.get_all("Set-Cookie") or []]
    return next((c for c in cookies if c.startswith("SERVERID=")), "")


def get(url: str, path: str, cookie: str = "") -> tuple[int, str]:
    """(status, the SERVERID cookie the balancer set, or '')."""
    response = answer(url, path, cookie)
    return response.status, server_cookie(response)


def check_front_end_cache(url: str) -> None:
    """A browser gets the page and Streamlit's assets gzip'd from HAProxy's cache (an Age header, no
    cookie, the page still "no-cache" for browsers), the same bytes for every browser; a client that
    does not accept gzip gets them uncompressed from a replica; health answers and the websocket are
    never cached, and the websocket's 101 gives a tab that got everything from the cache its cookie."""
    page = answer(url, "/?d_model=32", accept_encoding=BROWSER)  # the lecturer's tab: a miss, stored
    assert page.status == 200 and page.getheader("Age") is None and not server_cookie(page)
    assert page.getheader("Content-Encoding") == "gzip" and page.getheader("Vary") == "Accept-Encoding"
    plain_page = answer(url, "/?d_model=32")
    assert plain_page.getheader("Content-Encoding") is None and plain_page.body == gzip.decompress(page.body)
    assets = re.findall(r'src="\./(static/js/[^"]+\.js)"', plain_page.body.decode())
    assert assets
    for path in ("/?d_model=32", "/" + assets[0]):
        first = answer(url, path, accept_encoding="gzip")
        again = answer(url, path, accept_encoding=BROWSER)
        assert again.status == 200 and again.getheader("Age") is not None and again.getheader("Set-Cookie") is None
        assert again.getheader("Content-Encoding") == "gzip" and again.body == first.body
        plain = answer(url, path)  # no gzip: never from the cache (which keeps the gzip'd copy), never gzip'd
        assert plain.getheader("Age") is None and plain.getheader("Content-Encoding") is None
        assert gzip.decompress(again.body) == plain.body and len(again.body) < len(plain.body) / 2
    assert answer(url, "/?d_model=32", accept_encoding=BROWSER).getheader("Cache-Control") == "no-cache"
    assert answer(url, "/" + assets[0], accept_encoding=BROWSER).getheader("Cache-Control").startswith("public")
    health = answer(url, "/_stcore/health")
    assert health.getheader("Age") is None and server_cookie(health)
    parts = urllib.parse.urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(b"GET /_stcore/stream HTTP/1.1\r\nHost: hall\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                     b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     b"Sec-WebSocket-Protocol: streamlit\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(4096)
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0].startswith("HTTP/1.1 101")
    assert any(line.lower().startswith("set-cookie: serverid=") for line in lines)


def check_asset_server_and_its_fallback(url: str, assets: psutil.Process) -> None:
    """/static/ comes gzip'd at zlib level 9 from deploy/assets.py through the cache, the page from a
    replica (listen gzip); with the asset server dead, /static/ still comes, from listen gzip (libslz)."""
    chunk = next((Path(streamlit.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js"))
    path = f"/static/js/{chunk.name}"
    first = answer(url, path, accept_encoding=BROWSER)
    assert first.getheader("Server") == "posenc-assets" and first.getheader("Content-Encoding") == "gzip"
    assert gzip.decompress(first.body) == chunk.read_bytes()
    assert first.body == gzip.compress(chunk.read_bytes(), compresslevel=9, mtime=0)
    assert answer(url, path, accept_encoding=BROWSER).getheader("Age") is not None  # the cache keeps it
    assert answer(url, "/?d_model=7", accept_encoding=BROWSER).getheader("Server") == "uvicorn"  # the page: a replica
    assert answer(url, path).getheader("Server") == "uvicorn"  # no gzip: a replica, as Streamlit answers
    assets.kill()  # hall.py reaps it only when it stops: until then, a zombie
    deadline = time.monotonic() + 10
    while assets.is_running() and assets.status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
        time.sleep(0.05)
    # a file the cache does not hold yet: the connection refused, the request redispatched to server gzip
    other = next(p for p in chunk.parent.glob("*.js") if p.stat().st_size > 20_000 and p != chunk)
    fallback = answer(url, f"/static/js/{other.name}", accept_encoding=BROWSER)
    assert fallback.status == 200 and fallback.getheader("Server") == "uvicorn"
    assert fallback.getheader("Content-Encoding") == "gzip" and gzip.decompress(fallback.body) == other.read_bytes()
    time.sleep(2.5)  # marked down by its health checks (inter 1s, fall 2), or at once (observe layer4)
    later = next(p for p in chunk.parent.glob("*.js") if p.stat().st_size > 20_000 and p not in (chunk, other))
    assert answer(url, f"/static/js/{later.name}", accept_encoding=BROWSER).getheader("Server") == "uvicorn"


@pytest.mark.parametrize("stop_with", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_serve_is_ready_pins_sessions_and_stops_everything(stop_with):
    process = subprocess.Popen([sys.executable, "bench/hall.py", "serve", "--replicas", "2"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()  # blocks until ready (or the process ends)
        assert line.startswith("ready http://127.0.0.1:") and line.endswith("/\n"), line + process.stderr.read()
        url = line.split()[1]
        children = psutil.Process(process.pid).children(recursive=True)
        names = sorted(next((n for n in ("haproxy", "assets.py", "redis-server") if n in " ".join(c.cmdline())),
                            "streamlit") for c in children)
        assert names == ["assets.py", "haproxy", "redis-server", "streamlit", "streamlit"]  # Redis: the lecture rooms
        assert get(url, "/?d_model=64") == (200, "")  # the front end needs no affinity: no cookie
        status, cookie = get(url, "/_stcore/health")  # the frontend's first request to a replica
        assert status == 200 and cookie.startswith("SERVERID=")
        # indirect: a browser that sends its cookie keeps it (no new one); a new browser may land elsewhere
        assert get(url, "/_stcore/health", cookie) == (200, "")
        second = {get(url, "/_stcore/health")[1] for _ in range(4)}
        assert len(second | {cookie}) == 2  # leastconn with idle servers alternates: both replicas serve
        check_front_end_cache(url)
        if stop_with == signal.SIGTERM:
            check_asset_server_and_its_fallback(url, next(c for c in children if "assets.py" in " ".join(c.cmdline())))
        process.send_signal(stop_with)
        assert process.wait(timeout=30) == 0
        time.sleep(0.5)
        assert not [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def test_run_measures_both_sides_and_a_failover_with_no_view_lost():
    """A small hall run: 8 sessions against one server, then through 2 replicas with one killed."""
    result = subprocess.run([sys.executable, "bench/hall.py", "run", "--sessions", "8", "--replicas", "2",
                             "--kill-after", "1", "--hold", "5", "--pause", "0", "--after-wait", "0"],
                            cwd=ROOT, capture_output=True, text=True, timeout=240)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert "one server" in out and "2 replicas + HAProxy" in out and "p95 first load, hall / one server" in out
    failover = next(line for line in out.splitlines() if "session(s) affected" in line)
    affected = int(failover.split("; ")[1].split()[0])
    assert affected >= 1 and f"{affected} recovered on another replica" in failover and failover.endswith("views lost 0")
    assert "HAProxy marked it down" in out


def test_front_end_bench_shows_the_cache_taking_the_assets_off_the_replica():
    """bench/front_end.py: a browser's page and assets cost the replica CPU straight, none behind the cache."""
    result = subprocess.run([sys.executable, "bench/front_end.py", "--browsers", "4"], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = {line[:26].strip(): line[26:].split() for line in result.stdout.splitlines()[2:]}
    straight, cached = float(rows["replica CPU per browser"][0]), float(rows["replica CPU per browser"][2])
    sent, gzipped = float(rows["bytes per browser"][0]), float(rows["bytes per browser"][2])
    assert sent > 6 and gzipped < sent / 2, result.stdout  # MB: the same files, gzip'd by HAProxy
    assert straight > 10 and cached < straight / 5, result.stdout


def test_run_with_assets_fetches_the_front_end_as_a_new_browser_does():
    """bench/hall.py run --assets: 4 tabs fetch the page's files through the balancer (its cache) with no error."""
    result = subprocess.run([sys.executable, "bench/hall.py", "run", "--sessions", "4", "--replicas", "2", "--assets",
                             "--hall-only", "--pause", "0", "--after-wait", "0"],
                            cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "--assets: each session first fetches" in result.stdout
    errors = next(line for line in result.stdout.splitlines() if line.startswith("errors"))
    assert errors.split() == ["errors", "0"]


def test_a_port_taken_while_the_hall_starts_is_tried_again_on_new_ports(monkeypatch):
    """CI once: a replica's port, free when the hall picked it, was taken before the replica bound it (another
    test's server on the other core), and the hall's start failed with only "exited (1)". Now the hall starts
    again on new ports (three attempts), and a failure names the end of the process's log."""
    sys.path.insert(0, str(ROOT / "bench"))
    import hall as hall_module

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    picks = [taken.getsockname()[1]]  # the first replica's port: someone listens on it already
    plain = hall_module.free_port
    monkeypatch.setattr(hall_module, "free_port", lambda host: picks.pop() if picks else plain(host))
    try:
        with hall_module.Hall(1, plain("127.0.0.1"), asset_server=False, redis=False, pin=False) as started:
            assert started.ports[0] != taken.getsockname()[1]
            assert hall_module.http_get(f"{started.url}_stcore/health") == 200
    finally:
        taken.close()
    failed = hall_module.StartFailed("replica exited (1)", None)
    assert not failed.port_taken and str(failed) == "replica exited (1)"
