"""deploy/assets.py, the asset server: Streamlit's /static/ files gzip'd once by zlib at level 9.

Against a real ``streamlit run app.py`` (the ``app`` fixture) on the same files: the same header
values (Content-Type, Cache-Control, ETag, Last-Modified), the same bytes once decoded, gzip only
for a client that takes it (HAProxy's answer: weak ETag, Vary); only the files of that directory
(traversal, encoded or not, and symlinks out of it name nothing); 404 for an unknown file. About
15 s (the app's start, the asset server's compression).
"""

from __future__ import annotations

import gzip
import http.client
import importlib.util
import re
import socket
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "deploy" / "assets.py"
BROWSER = "gzip, deflate, br, zstd"  # Chromium's Accept-Encoding
SAME = ("content-type", "cache-control", "last-modified")  # as Streamlit sends them, whatever the encoding

spec = importlib.util.spec_from_file_location("deploy_assets", SERVER)  # deploy/ is not a package
assets = sys.modules["deploy_assets"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(assets)
STATIC = assets.streamlit_static_dir()


def start(*options: str) -> tuple[subprocess.Popen, str, str]:
    """deploy/assets.py on a free loopback port: (process, base URL, its ready line)."""
    process = subprocess.Popen([sys.executable, str(SERVER), "--host", "127.0.0.1", "--port", "0", *options],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if not line.startswith("ready "):
        process.kill()
        raise RuntimeError(line + process.stderr.read())
    return process, line.split()[1].rstrip("/"), line


@pytest.fixture(scope="module")
def server():
    process, url, line = start()
    try:
        yield url, line
    finally:
        process.terminate()
        process.wait(timeout=10)


def get(url: str, path: str, method: str = "GET", **headers: str) -> http.client.HTTPResponse:
    """The answer to METHOD path, its body read as it came (gzip'd if it came so)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    connection.request(method, path, headers={k.replace("_", "-"): v for k, v in headers.items()})
    response = connection.getresponse()
    response.body = response.read()
    connection.close()
    return response


def raw_get(url: str, target: str) -> bytes:
    """GET target sent as it is (no client normalises "..": http.client would not either, but be sure)."""
    parts = urllib.parse.urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode("latin-1"))
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def sample_files() -> list[str]:
    """A few files of each kind a browser fetches: the entry script, a stylesheet, the plotly chunk,
    an SVG, a woff2 font and a PNG."""
    root = STATIC / "static"
    pick = [next(root.glob("js/index.*.js")), next(root.glob("css/*.css")), next(root.glob("js/PlotlyChart.*.js")),
            next(root.glob("media/*.svg")), next(root.glob("media/*.woff2")), next(root.glob("media/*.png"))]
    return ["/static/" + p.relative_to(root).as_posix() for p in pick]


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.rsplit("/", 1)[-1].split(".")[0])
def test_headers_and_bytes_are_streamlits(app, server, path):
    url, _ = server
    streamlit = get(app, path)  # Streamlit never compresses /static/
    plain = get(url, path)
    gzipped = get(url, path, Accept_Encoding=BROWSER)
    assert streamlit.status == plain.status == gzipped.status == 200
    assert streamlit.getheader("Content-Encoding") is None and plain.getheader("Content-Encoding") is None
    for name in SAME:
        assert plain.getheader(name) == gzipped.getheader(name) == streamlit.getheader(name), name
    assert streamlit.getheader("Cache-Control") == "public, immutable, max-age=31536000"
    assert plain.getheader("ETag") == streamlit.getheader("ETag")
    assert plain.body == streamlit.body == (STATIC / path.removeprefix("/")).read_bytes()
    assert int(plain.getheader("Content-Length")) == len(plain.body)
    kind = streamlit.getheader("Content-Type").split(";")[0]
    if kind in ("font/woff2", "image/png"):  # compressed already: as they are, to every client
        assert gzipped.getheader("Content-Encoding") is None and gzipped.body == streamlit.body
        assert gzipped.getheader("ETag") == streamlit.getheader("ETag") and gzipped.getheader("Vary") is None
    else:  # as HAProxy's compression answers: gzip, Vary, the ETag made weak
        assert gzipped.getheader("Content-Encoding") == "gzip" and gzipped.getheader("Vary") == "Accept-Encoding"
        assert gzipped.getheader("ETag") == "W/" + streamlit.getheader("ETag")
        assert gzip.decompress(gzipped.body) == streamlit.body
        assert gzipped.body == gzip.compress(streamlit.body, compresslevel=9, mtime=0)  # zlib level 9, once
        assert int(gzipped.getheader("Content-Length")) == len(gzipped.body)


def test_the_plotly_chunk_is_packed_tighter_than_by_haproxys_libslz(server):
    """The reason for the server: HAProxy 2.6's libslz made the 4.72 MB chunk 2.17 MB (BENCHMARKS.md)."""
    url, _ = server
    chunk = get(url, sample_files()[2], Accept_Encoding="gzip")
    assert len(chunk.body) < 1.5e6 < 4.5e6 < len(gzip.decompress(chunk.body))


@pytest.mark.parametrize("encoding", ["", "identity", "gzip;q=0", "deflate, br", "br;q=1, gzip ;q=0.0", "*, gzip;q=0", "*;q=0"])
def test_a_client_that_does_not_take_gzip_gets_the_file_as_it_is(server, encoding):
    url, _ = server
    path = sample_files()[0]
    answer = get(url, path, Accept_Encoding=encoding) if encoding else get(url, path)
    assert answer.getheader("Content-Encoding") is None
    assert answer.body == (STATIC / path.removeprefix("/")).read_bytes()


@pytest.mark.parametrize("encoding", ["gzip", "GZIP", "deflate, gzip;q=0.5", "*"])
def test_a_client_that_takes_gzip_gets_it(server, encoding):
    url, _ = server
    assert get(url, sample_files()[0], Accept_Encoding=encoding).getheader("Content-Encoding") == "gzip"


def test_head_and_conditional_gets_answer_as_starlette(app, server):
    url, _ = server
    path = sample_files()[1]
    head = get(url, path, "HEAD", Accept_Encoding=BROWSER)
    full = get(url, path, Accept_Encoding=BROWSER)
    assert head.status == 200 and head.body == b"" and head.getheader("Content-Length") == full.getheader("Content-Length")
    etag = full.getheader("ETag")
    for headers in ({"If_None_Match": etag}, {"If_None_Match": etag.removeprefix("W/")}, {"If_None_Match": "*"},
                    {"If_Modified_Since": full.getheader("Last-Modified")}):
        again = get(url, path, Accept_Encoding=BROWSER, **headers)
        assert again.status == 304 and again.body == b"" and again.getheader("ETag") == etag, headers
        assert get(app, path, **headers).status == 304, headers  # Streamlit answers these 304 too
    assert get(url, path, Accept_Encoding=BROWSER, If_None_Match='"other"').status == 200


@pytest.mark.parametrize("target", [
    "/static/../../../../etc/passwd", "/static/js/../../index.html", "/static/%2e%2e/index.html",
    "/static/%2E%2E/%2E%2E/%2E%2E/etc/passwd", "/static/..%2f..%2f..%2fetc%2fpasswd", "/static//etc/passwd",
    "/static/js/..\\..\\index.html", "/static/%00", "/static/", "/static", "/../etc/passwd", "//etc/passwd",
    "/index.html", "/manifest.json", "/favicon.png", "/etc/passwd", "http://x/etc/passwd",
])
def test_paths_outside_the_hashed_files_are_refused(server, target):
    url, _ = server
    answer = raw_get(url, target)
    status = answer.split(b" ", 2)[1]
    assert status in (b"400", b"404"), answer[:200]
    assert b"root:" not in answer and b"<!doctype html>" not in answer.lower()


def test_an_unknown_file_is_404(server):
    url, _ = server
    for path in ("/static/js/index.nothere.js", "/static/js/", "/static/media/x.woff2", "/static/js/index.js"):
        answer = get(url, path, Accept_Encoding=BROWSER)
        assert answer.status == 404 and answer.getheader("Cache-Control") is None, path


def test_it_is_read_only(server):
    url, _ = server
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        answer = get(url, sample_files()[0], method)
        assert answer.status == 405 and answer.getheader("Allow") == "GET, HEAD", method


def test_health_and_start_up_line(server):
    url, line = server
    assert get(url, "/_assets/health").body == b"ok"
    files = sum(1 for p in (STATIC / "static").rglob("*") if p.is_file())
    match = re.search(r"(\d+) files, ([\d.]+) MB, ([\d.]+) MB kept \(gzip level 9\) in ([\d.]+) s; RSS (\d+) MB", line)
    assert match and int(match[1]) == files > 300, line
    assert float(match[3]) < float(match[2]) / 2 and int(match[5]) < 200, line


def test_only_regular_files_inside_the_directory_are_in_the_table(tmp_path):
    """A symlink out of static/static/ (or to a directory) names nothing; a file inside does."""
    static = tmp_path / "static"
    (static / "static" / "js").mkdir(parents=True)
    (static / "static" / "js" / "a.1.js").write_text("let a = 1;\n" * 100)
    (static / "index.html").write_text("<html></html>")  # beside static/static/: not served
    (tmp_path / "secret.txt").write_text("secret")
    (static / "static" / "js" / "out.js").symlink_to(tmp_path / "secret.txt")
    (static / "static" / "up").symlink_to(tmp_path)
    table = assets.build_table(static)
    assert list(table) == ["/static/js/a.1.js"]
    assert gzip.decompress(table["/static/js/a.1.js"].gzipped) == b"let a = 1;\n" * 100
    process, url, _ = start("--static", str(static))
    try:
        assert get(url, "/static/js/a.1.js").status == 200
        for path in ("/static/js/out.js", "/static/up/secret.txt", "/index.html", "/static/index.html"):
            assert get(url, path).status == 404, path
    finally:
        process.terminate()
        process.wait(timeout=10)
