"""Streamlit's hashed front-end files (URL /static/...), gzip'd once by zlib at level 9, from memory.

    python deploy/assets.py --host 127.0.0.1 --port 8502     # prints "ready http://HOST:PORT/ ..."

HAProxy (deploy/haproxy.cfg, backend front_end) sends a browser's GETs under /static/ here and keeps
the answers in its cache. HAProxy 2.6 compresses with libslz, a fast but loose deflate: a new
browser got 3.9 MB through it, 2.7 MB with these files gzip'd by zlib at level 9 (BENCHMARKS.md,
issue 28). Each file is compressed once, when this server starts, so the best level costs no
student anything.

What it serves is what Streamlit 1.67's server serves for the same URL (streamlit/web/server/
starlette/starlette_static_routes.py, Starlette's FileResponse), taken from the installed package's
streamlit/static/static/ directory:

- Content-Type as Starlette guesses it (``mimetypes.guess_type``, "; charset=utf-8" after a text/
  type), Last-Modified the file's mtime, ETag ``"md5(f'{st_mtime}-{st_size}')"``, Cache-Control
  "public, immutable, max-age=31536000" (the files are named by their hash);
- gzip'd, to a client whose Accept-Encoding names gzip, for the types deploy/haproxy.cfg's
  ``listen gzip`` compresses (scripts, stylesheets, SVG, JSON, text; not woff2 fonts and PNGs,
  compressed already) when gzip makes the file smaller (not a few scripts of under 200 bytes,
  which are sent as they are), as HAProxy's compression answers: "Content-Encoding: gzip",
  "Vary: Accept-Encoding", the ETag made weak (W/"...": another representation of the same file);
- to any other client the file as it is (read from disk: such clients are rare, and HAProxy
  sends them to the replicas anyway), with "Vary: Accept-Encoding" where a gzip'd variant exists;
- a conditional GET whose If-None-Match names the ETag (weak comparison) or whose
  If-Modified-Since is not older than the file gets 304, as Starlette's StaticFiles answers.

It differs from Streamlit on purpose in three ways: a path that names no file of that directory is
404 (Streamlit answers its index.html there, a fallback meant for page URLs: under /static/ a
browser asks only for names its page gave it); a Range header is ignored (the whole file, 200;
no Accept-Ranges is sent); and the Server header names this server.

Bounded: read-only, GET and HEAD only; it answers only the paths of a table built at start-up from
the regular files under that directory (a request's path is looked up in the table, never joined to
a directory, so "..", encoded or not, and symlinks out of it name nothing); a connection idle for
30 s is closed. GET /_assets/health answers 200 "ok" (HAProxy's health check). Standard library
only: the image's Python runs it (deploy/compose.yaml, service "assets").
"""

from __future__ import annotations

import argparse
import email.utils
import gzip
import hashlib
import http.server
import importlib.util
import mimetypes
import os
import resource
import signal
import sys
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

HEALTH = "/_assets/health"
CACHE_CONTROL = "public, immutable, max-age=31536000"  # Streamlit's STATIC_ASSET_CACHE_MAX_AGE_SECONDS: a year
# The types deploy/haproxy.cfg's "listen gzip" compresses (its "compression type" line).
COMPRESSIBLE = ("text/html", "text/css", "text/javascript", "application/javascript", "application/json",
                "application/manifest+json", "image/svg+xml", "text/plain")
LEVEL = 9
# streamlit/web/bootstrap.py's _initialize_mimetypes, which runs before Streamlit serves anything: the
# system's /etc/mime.types (Debian: text/javascript for .js) does not decide these.
STREAMLIT_TYPES = {".html": "text/html", ".js": "application/javascript", ".mjs": "application/javascript",
                   ".css": "text/css", ".webp": "image/webp"}


def streamlit_static_dir() -> Path:
    """The installed streamlit package's static/ directory, found without importing streamlit."""
    spec = importlib.util.find_spec("streamlit")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("streamlit is not installed")
    return Path(spec.submodule_search_locations[0]) / "static"


@dataclass(frozen=True)
class Asset:
    """One file: its path on disk, Streamlit's header values for it, and its gzip'd bytes (or None)."""

    path: Path
    content_type: str
    etag: str
    last_modified: str
    mtime: float
    size: int
    plain: bytes | None  # kept in memory when no gzip'd variant exists (fonts, images)
    gzipped: bytes | None


def content_type(path: Path) -> str:
    """Starlette's FileResponse: ``mimetypes.guess_type`` or text/plain, "; charset=utf-8" after text/
    (with Streamlit's own registrations, STREAMLIT_TYPES, first)."""
    media_type = STREAMLIT_TYPES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0] or "text/plain"
    return media_type + "; charset=utf-8" if media_type.startswith("text/") else media_type


def load(path: Path, level: int = LEVEL) -> Asset:
    """A file's Asset: Starlette's ETag and Last-Modified from its stat, gzip'd once if compressible."""
    stat = path.stat()
    data = path.read_bytes()
    kind = content_type(path)
    gzipped = None
    if kind.split(";", 1)[0] in COMPRESSIBLE:
        packed = gzip.compress(data, compresslevel=level, mtime=0)
        gzipped = packed if len(packed) < len(data) else None
    etag = '"' + hashlib.md5(f"{stat.st_mtime}-{stat.st_size}".encode(), usedforsecurity=False).hexdigest() + '"'
    return Asset(path, kind, etag, email.utils.formatdate(stat.st_mtime, usegmt=True), stat.st_mtime, stat.st_size,
                 data if gzipped is None else None, gzipped)


def build_table(static: Path, level: int = LEVEL) -> dict[str, Asset]:
    """URL path ("/static/js/x.js") -> Asset, for every regular file under static/static/ whose real
    path stays inside it (a symlink out of it is left out)."""
    root = (static / "static").resolve(strict=True)
    table = {}
    for directory, _, names in os.walk(root):
        for name in sorted(names):
            path = Path(directory) / name
            real = path.resolve()
            if real.is_file() and real.is_relative_to(root):
                table["/static/" + path.relative_to(root).as_posix()] = load(real, level)
    return table


def accepts_gzip(header: str) -> bool:
    """Whether an Accept-Encoding value takes gzip: its "gzip" token (or, without one, "*") has q > 0."""
    weights = {}
    for item in header.split(","):
        token, *params = (part.strip() for part in item.split(";"))
        q = next((p[2:] for p in params if p.lower().startswith("q=")), "1")
        try:
            weights[token.lower()] = float(q)
        except ValueError:
            weights[token.lower()] = 0.0
    return weights.get("gzip", weights.get("*", 0.0)) > 0


def not_modified(asset: Asset, etag: str, if_none_match: str | None, if_modified_since: str | None) -> bool:
    """Starlette's StaticFiles.is_not_modified, on this representation's ETag."""
    if if_none_match:
        if if_none_match.strip() == "*":
            return True
        return etag.removeprefix("W/") in [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    if if_modified_since:
        try:
            since = email.utils.parsedate_to_datetime(if_modified_since).timestamp()
        except (TypeError, ValueError):
            return False
        return since >= int(asset.mtime)
    return False


class Handler(http.server.BaseHTTPRequestHandler):
    """GET and HEAD of the table's paths; everything else 404 or 405."""

    protocol_version = "HTTP/1.1"  # keep-alive: HAProxy reuses its connections
    server_version = "posenc-assets"
    timeout = 30  # seconds a connection may stay idle
    table: dict[str, Asset] = {}

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.answer(body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self.answer(body=False)

    def refuse(self) -> None:
        """Any other method: 405, as Streamlit's static files answer it."""
        self.close_connection = True
        self.reply(405, [("Content-Type", "text/plain; charset=utf-8"), ("Allow", "GET, HEAD")],
                   b"Method Not Allowed", body=True)

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = refuse  # noqa: N815

    def version_string(self) -> str:
        return self.server_version

    def answer(self, body: bool) -> None:
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        if path == HEALTH:
            self.reply(200, [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-cache")],
                       b"ok", body)
            return
        asset = self.table.get(path)
        if asset is None:
            self.reply(404, [("Content-Type", "text/plain; charset=utf-8")], b"Not Found", body)
            return
        compressed = asset.gzipped is not None and accepts_gzip(self.headers.get("Accept-Encoding", ""))
        etag = "W/" + asset.etag if compressed else asset.etag
        headers = [("Content-Type", asset.content_type), ("Last-Modified", asset.last_modified), ("ETag", etag),
                   ("Cache-Control", CACHE_CONTROL)]
        if asset.gzipped is not None:
            headers.append(("Vary", "Accept-Encoding"))
        if not_modified(asset, etag, self.headers.get("If-None-Match"), self.headers.get("If-Modified-Since")):
            self.reply(304, headers, b"", body)
            return
        if compressed:
            self.reply(200, [*headers, ("Content-Encoding", "gzip")], asset.gzipped, body)
        else:
            self.reply(200, headers, asset.plain if asset.plain is not None else asset.path.read_bytes(), body)

    def reply(self, status: int, headers: list[tuple[str, str]], content: bytes, body: bool) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        if body and status != 304:
            self.wfile.write(content)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's errors (405 for other methods, 400, 414), short and without an HTML page."""
        self.close_connection = True
        self.reply(code, [("Content-Type", "text/plain; charset=utf-8"), ("Connection", "close")],
                   (message or self.responses.get(code, ("",))[0]).encode(), self.command != "HEAD")

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's signature)
        """Quiet: HAProxy logs the requests; a server error still reaches stderr (log_error)."""

    def log_error(self, format: str, *args) -> None:  # noqa: A002
        sys.stderr.write(f"assets: {format % args}\n")


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64


def resident_mb() -> float:
    """This process's resident memory now (Linux: /proc/self/statm), or nan."""
    try:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return float("nan")


def stop(_signum, _frame) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8502)
    p.add_argument("--static", type=Path, default=None,
                   help="Streamlit's static/ directory (default: the installed streamlit package's)")
    args = p.parse_args(argv)
    start = time.perf_counter()
    table = build_table(args.static or streamlit_static_dir())
    seconds = time.perf_counter() - start
    Handler.table = table
    server = Server((args.host, args.port), Handler)
    # docker stop sends SIGTERM, which a container's pid 1 would otherwise ignore
    signal.signal(signal.SIGTERM, stop)
    plain = sum(a.size for a in table.values())
    kept = sum(len(a.gzipped or a.plain or b"") for a in table.values())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
    print(f"ready http://{args.host}:{server.server_address[1]}/ {len(table)} files, {plain / 1e6:.1f} MB, "
          f"{kept / 1e6:.1f} MB kept (gzip level {LEVEL}) in {seconds:.1f} s; RSS {resident_mb():.0f} MB "
          f"(peak {peak:.0f} MB)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
