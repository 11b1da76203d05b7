"""A lecture hall on one link: N Streamlit replicas of app.py behind HAProxy on loopback.

Run from the repository root (loopback only; everything is bounded and stops by itself):

    python bench/hall.py serve --replicas 2 --port 8080     # prints "ready http://127.0.0.1:8080/"
    python bench/hall.py run --sessions 300 --replicas 2     # one server against the hall, same run
    python bench/hall.py run --sessions 300 --replicas 2 --rounds 7   # alternating, the median ratio
    python bench/hall.py run --sessions 300 --replicas 2 --kill-after 4   # failover: kill a replica
    python bench/hall.py run --sessions 300 --replicas 2 --assets --versus uncompressed --rounds 6   # gzip or not
    python bench/hall.py run --sessions 300 --replicas 2 --assets --versus libslz --rounds 6   # the asset server or not

``serve`` starts N replicas (``streamlit run app.py``, one per core: replica i is pinned to core
i mod cores, all with the same ``server.cookieSecret``) and HAProxy with deploy/haproxy.cfg, the
file deploy/compose.yaml mounts: its ``server-template`` line (Docker's DNS) becomes one ``server``
line per loopback replica, every other directive stays. It prints one line ``ready URL`` once
HAProxy's own health checks see every replica up (its admin socket, ``show servers state``) and
the balancer answers /_stcore/health, and keeps everything up until SIGINT or SIGTERM, which stops
every process it started (they also get SIGKILL if this process dies: PR_SET_PDEATHSIG).

``run`` is the hall benchmark. The lecturer's tab opens one link (LINK below), then S sessions open
it at once and move the d_model slider once, as a hall of students does: first against one server
without the balancer, then through the balancer in front of N replicas, in the same run, printed
side by side. A session does what a browser tab does: GET the link's page over HTTP (through the
balancer it comes from HAProxy's cache once the lecturer's tab has loaded it), open the websocket
/_stcore/stream (its 101 sets the affinity cookie if the page did not), ask for the run of the URL
(first load: from the GET to the run's ``script_finished``), then send the slider's new value
(rerun). The protocol code is bench/loadtest.py's. Per replica: CPU seconds used and memory.
``--assets`` makes each session also fetch what a browser with nothing cached fetches before its
first run (the files the page names and the plotly chunk, ~60 files and 6.8 MB, over 6 kept-alive
connections; through the balancer, from HAProxy's cache once the lecturer's tab has filled it, gzip'd:
every GET says "Accept-Encoding: gzip, deflate, br" as a browser does); without it, a session GETs
only the page, as the issue's benchmark did. ``--versus uncompressed`` compares the hall with the
same hall without deploy/haproxy.cfg's compression (``haproxy_config(..., "off")``) instead of one
server, ``--versus libslz`` with the same hall without the asset server (listen gzip's libslz
compresses /static/ too), the two taking turns going first from round to round.

The hall has an asset server (deploy/assets.py, ``Hall(asset_server=True)``, the default), as
deploy/compose.yaml runs it: Streamlit's /static/ files gzip'd once by zlib at level 9, behind
HAProxy's cache; ``serve --no-asset-server`` leaves it out.
``--rounds R`` repeats one server then the hall R times, with fresh processes each time, and reports
every round's ratio and their median, with the median round's table: this machine's speed drifts by
tens of per cent within a minute (a fixed CPU-bound loop took 1.7 s to 2.4 s), so one round compares
two moments as much as two setups.

``--kill-after T`` kills (SIGKILL) the replica holding the most sessions T seconds into the hall
run, and the sessions stay connected until ``--hold`` seconds so that it hits sessions at rest as
well as runs in flight. A session whose websocket drops does what Streamlit's frontend does: it
reconnects (health check, then websocket, with its cookie; HAProxy redispatches it to a live
replica) and asks for its view again from its URL. Reported: sessions affected, time to recover
(drop to the re-rendered view), views lost (not re-rendered, or showing other values).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import ctypes
import gc
import os
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import streamlit
import websockets
import websockets.exceptions
import websockets.protocol
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadtest import (  # noqa: E402
    MAX_MESSAGE_BYTES,
    SessionResult,
    note_widget,
    percentile,
    problem_in,
    rerun_message,
)
from streamlit_server import free_port, sample_peak, server_usage  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
ASSET_SERVER = ROOT / "deploy" / "assets.py"
HOST = "127.0.0.1"
LINK = "d_model=128&length=256&scheme=sinusoidal"
MOVED = "d_model=64&length=256&scheme=sinusoidal"  # the slider moved once
SERVER_TEMPLATE = re.compile(r"^(\s*)server-template .*$", re.MULTILINE)


# ---------------------------------------------------------------------------------------------
# The hall: replicas and HAProxy


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL it if the process that started it dies (Linux)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


COMPRESSION_LINE = re.compile(r"^[ \t]*compression .*\n", re.MULTILINE)
COMPRESSION = ("cached", "off", "per-hit")
# backend front_end's lines that send /static/ to the asset server (deploy/assets.py)
ASSET_SERVER_LINE = re.compile(r"^[ \t]*(?:server assets |use-server assets |option httpchk GET /_assets/).*\n",
                               re.MULTILINE)
# The halls a benchmark can compare: name -> (haproxy_config's compression, asset server or not).
HALLS = {"assets": ("cached", True), "cached": ("cached", False), "off": ("off", False), "per-hit": ("per-hit", False)}
HALL_NAMES = {"assets": "hall, asset server", "cached": "hall, gzip cached", "off": "hall, gzip off",
              "per-hit": "hall, gzip per-hit"}


def haproxy_config(replica_ports: list[int], compression: str = "cached", asset_server: bool = True) -> str:
    """deploy/haproxy.cfg with each server-template line replaced by one server line per replica.

    ``compression``: "cached" is the file as it is (listen gzip compresses, the cache keeps the
    compressed answers); "off" drops its compression lines (the hall before issue 28: the same
    cache, nothing compressed); "per-hit" moves them into backend front_end, beside the cache, where
    HAProxy runs the cache first: it keeps the uncompressed answers and every hit is compressed again.
    ``asset_server``: False drops backend front_end's lines for deploy/assets.py (its server, the
    use-server rule and the health check), so that listen gzip (libslz) compresses /static/ too, as
    before the asset server."""
    text = HAPROXY_CFG.read_text()
    if compression not in COMPRESSION:
        raise ValueError(f"compression is one of {COMPRESSION}, not {compression!r}")
    if not asset_server:
        text = ASSET_SERVER_LINE.sub("", text)
    lines = "".join(COMPRESSION_LINE.findall(text))
    if compression != "cached":
        text = COMPRESSION_LINE.sub("", text)
    if compression == "per-hit":
        text = text.replace("\nbackend front_end\n", "\nbackend front_end\n" + lines, 1)
    if SERVER_TEMPLATE.search(text) is None:
        raise RuntimeError(f"{HAPROXY_CFG} has no server-template line to replace")

    def servers(match: re.Match) -> str:
        return "\n".join(f"{match.group(1)}server posenc{i + 1} {HOST}:{port}" for i, port in enumerate(replica_ports))

    return SERVER_TEMPLATE.sub(servers, text)


def http_get(url: str, timeout: float = 2.0) -> int:
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return answer.status


def stats_command(path: str, command: str) -> str:
    """One command on HAProxy's admin socket; its answer."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(2)
        sock.connect(path)
        sock.sendall(command.encode() + b"\n")
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks).decode()


def servers_up(path: str, backend: str = "posenc") -> dict[str, bool]:
    """Server name -> up (srv_op_state 2), from ``show servers state BACKEND``."""
    states = {}
    for line in stats_command(path, f"show servers state {backend}").splitlines():
        fields = line.split()
        if len(fields) > 5 and fields[0].isdigit():
            states[fields[3]] = fields[5] == "2"
    return states


ATTEMPTS = 3  # starts of a hall whose port was taken meanwhile
PORT_TAKEN = ("already in use", "address in use", "errno 98", "cannot bind", "is not available")  # lowercased: how
# a process says its port is taken (Streamlit: "Port 8501 is not available")


class StartFailed(RuntimeError):
    """A process of the hall exited (or Redis did not answer) while the hall started; the message ends with the
    end of its log (the working folder is removed when the hall stops), ``port_taken`` says whether its port was."""

    def __init__(self, what: str, log: Path | None) -> None:
        tail = ""
        with contextlib.suppress(OSError):
            tail = log.read_text(errors="replace")[-2000:] if log is not None else ""
        super().__init__(f"{what}; the end of its log:\n{tail}" if tail else what)
        self.port_taken = any(sign in tail.lower() for sign in PORT_TAKEN)


class Hall:
    """N replicas of app.py and HAProxy in front of them, on loopback; a context manager."""

    def __init__(self, replicas: int, port: int, timeout: float = 90.0, app: str = "app.py", pin: bool = True,
                 compression: str = "cached", asset_server: bool = True, redis: bool = True,
                 redis_dir: str | None = None) -> None:
        self.replicas, self.port, self.timeout, self.app, self.pin = replicas, port, timeout, app, pin
        # Lecture rooms and answers live in Redis (Debian's redis-server), so every replica sees the same room and a
        # replica's death loses nothing; append-only file (fsync every second) in redis_dir, kept across restarts
        # when it is given (serve --redis-dir), else in the hall's temporary folder.
        self.redis, self.redis_dir = redis, redis_dir
        self.compression = compression  # haproxy_config's: "cached" (deploy/haproxy.cfg), "off", "per-hit"
        # deploy/assets.py serves /static/ gzip'd at zlib level 9 (deploy/haproxy.cfg); False: listen gzip does
        self.asset_server = asset_server
        self.assets_port = 0
        self.cookie_secret = secrets.token_hex(32)
        self._fresh()

    def _fresh(self) -> None:
        """A new working folder and no process: the state before :meth:`start` (and before a second attempt)."""
        self.workdir = Path(tempfile.mkdtemp(prefix="posenc-hall-"))
        self.stats = str(self.workdir / "haproxy.sock")
        self.ports: list[int] = []
        self.servers: list[subprocess.Popen] = []
        self.haproxy: subprocess.Popen | None = None
        self.assets = None
        self.redis_process = None
        self.redis_port = 0
        self.logs: dict[int, Path] = {}  # a process's pid -> its log file

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/"

    def start_replica(self, index: int, port: int) -> subprocess.Popen:
        """``streamlit run app.py`` on HOST:port, pinned to one core, the hall's cookie secret."""
        command = [sys.executable, "-m", "streamlit", "run", self.app, "--server.headless=true",
                   f"--server.port={port}", f"--server.address={HOST}", "--browser.gatherUsageStats=false",
                   "--server.fileWatcherType=none"]
        env = {**os.environ, "STREAMLIT_SERVER_COOKIE_SECRET": self.cookie_secret, "MALLOC_ARENA_MAX": "2",
               "PYTHONUNBUFFERED": "1"}
        if self.redis:
            env["POSENC_REDIS_URL"] = self.redis_url
        log = (self.workdir / f"replica{index + 1}.log").open("w")
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env,
                                   preexec_fn=_die_with_parent)
        self.logs[process.pid] = Path(log.name)
        cores = sorted(os.sched_getaffinity(0))
        if self.pin:
            with contextlib.suppress(OSError, psutil.Error):
                psutil.Process(process.pid).cpu_affinity([cores[index % len(cores)]])
        return process

    @property
    def redis_url(self) -> str:
        return f"redis://{HOST}:{self.redis_port}/0"

    def start_redis(self) -> None:
        """redis-server on loopback: append-only (fsync every second), no RDB snapshots, 256 MB at most."""
        server = shutil.which("redis-server") or ("/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists()
                                                  else None)
        if server is None:
            raise RuntimeError("redis-server is not installed (apt-get install -y redis-server)")
        folder = Path(self.redis_dir) if self.redis_dir else self.workdir / "redis"
        folder.mkdir(parents=True, exist_ok=True)
        self.redis_port = free_port(HOST)
        log = (self.workdir / "redis.log").open("a")
        self.redis_process = subprocess.Popen(
            [server, "--bind", HOST, "--port", str(self.redis_port), "--dir", str(folder), "--appendonly", "yes",
             "--appendfsync", "everysec", "--save", "", "--maxmemory", "256mb", "--protected-mode", "yes"],
            stdout=log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(OSError), socket.create_connection((HOST, self.redis_port), timeout=1) as conn:
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith(b"+PONG"):
                    return
            if self.redis_process.poll() is not None or time.monotonic() > deadline:
                raise StartFailed("redis-server did not start", Path(log.name))
            time.sleep(0.1)

    def __enter__(self) -> Hall:
        """Start the hall. A port taken between free_port and the process binding it (another program on the
        machine, tests on two cores) fails a start: it is tried again on new ports, three times at most."""
        for attempt in range(ATTEMPTS):
            try:
                self.start()
                return self
            except StartFailed as failed:
                self.stop()
                if not failed.port_taken or attempt == ATTEMPTS - 1:
                    raise
                print(f"hall: {failed.args[0]}: a port was taken; starting again on new ports", file=sys.stderr)
                self._fresh()
            except BaseException:
                self.stop()
                raise
        raise AssertionError("unreachable")

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        haproxy = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)
        if haproxy is None:
            raise RuntimeError("haproxy is not installed (apt-get install -y haproxy)")
        if self.redis:
            self.start_redis()
        self.ports = [free_port(HOST) for _ in range(self.replicas)]
        self.servers = [self.start_replica(i, port) for i, port in enumerate(self.ports)]
        if self.asset_server:
            self.assets_port = free_port(HOST)
            log = (self.workdir / "assets.log").open("w")
            self.assets = subprocess.Popen([sys.executable, str(ASSET_SERVER), "--host", HOST, "--port",
                                            str(self.assets_port)], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                           preexec_fn=_die_with_parent)
            self.logs[self.assets.pid] = Path(log.name)
        config = self.workdir / "haproxy.cfg"
        config.write_text(haproxy_config(self.ports, self.compression, self.asset_server))
        env = {**os.environ, "HALL_PORT": f"{HOST}:{self.port}", "HALL_STATS_SOCKET": self.stats,
               "HALL_GZIP_SOCKET": str(self.workdir / "gzip.sock"), "HALL_ASSETS": f"{HOST}:{self.assets_port}",
               "POSENC_REPLICAS": str(self.replicas), "POSENC_COOKIE_KEY": self.cookie_secret}
        log = (self.workdir / "haproxy.log").open("w")
        self.haproxy = subprocess.Popen([haproxy, "-db", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT,
                                        env=env, preexec_fn=_die_with_parent)
        self.logs[self.haproxy.pid] = Path(log.name)
        self.wait_ready()

    def wait_ready(self) -> None:
        """Until HAProxy's health checks see every replica (and the asset server) up and the balancer
        answers its health route."""
        deadline = time.monotonic() + self.timeout
        while True:
            for process in [*self.servers, self.haproxy, *([self.assets] if self.assets else [])]:
                if process.poll() is not None:
                    raise StartFailed(f"{process.args[0]} exited ({process.returncode})", self.logs.get(process.pid))
            with contextlib.suppress(OSError):
                states = servers_up(self.stats)
                assets_up = not self.asset_server or servers_up(self.stats, "front_end").get("assets", False)
                if len(states) == self.replicas and all(states.values()) and assets_up and \
                        http_get(f"{self.url}_stcore/health") == 200:
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the hall was not ready after {self.timeout:.0f} s; logs in {self.workdir}")
            time.sleep(0.2)

    def assets_started(self) -> str:
        """The asset server's start-up line (files, MB kept, seconds, peak RSS), or ''."""
        if not self.asset_server:
            return ""
        return (self.workdir / "assets.log").read_text().partition("\n")[0].removeprefix("ready ").partition(" ")[2]

    def stop(self) -> None:
        """Stop HAProxy, the asset server and every replica this hall started (terminate, then kill)."""
        processes = [p for p in [self.haproxy, self.assets, *self.servers, self.redis_process] if p is not None]
        for process in processes:
            if process.poll() is None:
                process.terminate()
        end = time.monotonic() + 15
        for process in processes:
            try:
                process.wait(timeout=max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        shutil.rmtree(self.workdir, ignore_errors=True)


def serve(args: argparse.Namespace) -> int:
    """Start the hall, print ``ready URL``, wait for SIGINT or SIGTERM, stop everything."""
    state = {"ready": False, "signal": None}

    def on_signal(number, _frame):
        state["signal"] = number
        if not state["ready"]:  # still starting: unwind through Hall.__exit__, which stops what started
            raise SystemExit(128 + number)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        with Hall(args.replicas, args.port or free_port(HOST), asset_server=not args.no_asset_server,
                  redis=not args.no_redis, redis_dir=args.redis_dir) as hall:
            if hall.asset_server:
                print(f"hall: asset server (deploy/assets.py) {hall.assets_started()}", file=sys.stderr, flush=True)
            if hall.redis:
                where = hall.redis_dir or "the hall's temporary folder"
                print(f"hall: rooms in redis-server at {hall.redis_url} (append-only file in {where})",
                      file=sys.stderr, flush=True)
            print(f"ready {hall.url}", flush=True)
            state["ready"] = True
            while state["signal"] is None:
                if hall.haproxy.poll() is not None:
                    print("hall: haproxy exited", file=sys.stderr)
                    return 1
                time.sleep(0.2)
    except RuntimeError as err:
        print(f"hall: {err}", file=sys.stderr)
        return 2
    return 0


# ---------------------------------------------------------------------------------------------
# The hall benchmark


@dataclass
class HallSession:
    """One student: first load, the slider move, and what a replica's death did to it."""

    first_load: float | None = None
    rerun: float | None = None
    errors: list[str] = field(default_factory=list)
    affected: bool = False
    recoveries: list[float] = field(default_factory=list)
    lost: bool = False
    cookie: str = ""  # the affinity cookie of its first load: which replica HAProxy chose
    received: int = 0  # --assets: body bytes of the front end on the wire (gzip'd where HAProxy compressed)



async def http_get_cookie(host: str, port: int, target: str, cookie: str, timeout: float) -> str:
    """GET target over HTTP/1.1; returns the cookie to send from now on (Set-Cookie wins)."""
    async with asyncio.timeout(timeout):
        reader, writer = await asyncio.open_connection(host, port)
        try:
            headers = f"GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n{ACCEPT_ENCODING}"
            if cookie:
                headers += f"Cookie: {cookie}\r\n"
            writer.write((headers + "\r\n").encode())
            await writer.drain()
            answer = await reader.read()
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
    set_cookies = [value for name, value in response_fields(answer, "HTTP ") if name == "set-cookie"]
    return affinity_cookie(set_cookies) or cookie


def response_fields(answer: bytes, problem: str, status: str = "200") -> list[tuple[str, str]]:
    """The header fields (lower-case name, value) of an HTTP answer whose status is ``status``; else
    ConnectionError(problem + its status line)."""
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    if len(head[0].split()) < 2 or head[0].split()[1] != status:
        raise ConnectionError(problem + head[0])
    return [(name.strip().lower(), value.strip()) for name, _, value in (line.partition(":") for line in head[1:])]


def affinity_cookie(set_cookies: list[str]) -> str:
    """The ``SERVERID=…`` pair HAProxy set among these Set-Cookie values, or ''."""
    return next((v.strip().split(";", 1)[0] for v in set_cookies if v.strip().startswith("SERVERID=")), "")


FRONT_END_FILE = re.compile(r'(?:src|href)="\./(static/[^"]+\.(?:js|css))"')
BROWSER_CONNECTIONS = 6  # a browser's parallel HTTP/1.1 connections to one host
ACCEPT_ENCODING = "Accept-Encoding: gzip, deflate, br\r\n"  # as a browser asks: HAProxy answers gzip'd


def front_end_files(port: int) -> list[str]:
    """What a browser with nothing cached fetches after the link's page: every script and stylesheet
    the page names, and the plotly chunk its frontend loads to draw a chart (the page does not name it)."""
    request = urllib.request.Request(f"http://{HOST}:{port}/?{LINK}", headers={"Accept-Encoding": "identity"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        page = answer.read().decode()
    chunks = sorted((Path(streamlit.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js"))
    if not chunks:
        raise RuntimeError("no PlotlyChart chunk among this streamlit's static files")
    return [*dict.fromkeys("/" + path for path in FRONT_END_FILE.findall(page)), f"/static/js/{chunks[0].name}"]


async def get_kept_alive(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str, cookie: str) -> int:
    """GET path on an open HTTP/1.1 connection, as a browser asks (gzip accepted), and read the answer
    to its end, dropping it; its body's bytes on the wire (gzip'd if it came compressed)."""
    request = f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n{ACCEPT_ENCODING}"
    writer.write((request + (f"Cookie: {cookie}\r\n" if cookie else "") + "\r\n").encode())
    fields = dict(response_fields(await reader.readuntil(b"\r\n\r\n"), f"GET {path}: "))
    if "content-length" in fields:
        return await drop_body(reader, int(fields["content-length"]), path)
    if fields.get("transfer-encoding", "").lower() != "chunked":  # HAProxy's gzip'd answers are chunked
        raise ConnectionError(f"GET {path}: neither Content-Length nor chunked")
    size = 0
    while chunk := int((await reader.readuntil(b"\r\n")).split(b";", 1)[0], 16):
        size += await drop_body(reader, chunk, path)
        await reader.readexactly(2)  # the CRLF after a chunk
    while await reader.readuntil(b"\r\n") != b"\r\n":  # trailer fields, then the empty line
        pass
    return size


async def drop_body(reader: asyncio.StreamReader, size: int, path: str) -> int:
    """Read ``size`` bytes and drop them: 300 tabs at once would otherwise hold their 7 MB each."""
    remaining = size
    while remaining:
        chunk = await reader.read(min(remaining, 1 << 20))
        if not chunk:
            raise ConnectionError(f"GET {path}: closed after {size - remaining} of {size} bytes")
        remaining -= len(chunk)
    return size


async def fetch_front_end(port: int, files: list[str], cookie: str, timeout: float) -> int:
    """A browser's fetch of ``files``: BROWSER_CONNECTIONS kept-alive connections, each a share of
    them one after another; the bytes received."""
    async def one_connection(paths: list[str]) -> int:
        reader, writer = await asyncio.open_connection(HOST, port)
        try:
            return sum([await get_kept_alive(reader, writer, path, cookie) for path in paths])
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async with asyncio.timeout(timeout):
        shares = [files[i::BROWSER_CONNECTIONS] for i in range(BROWSER_CONNECTIONS)]
        return sum(await asyncio.gather(*(one_connection(share) for share in shares if share)))


async def run_to_finish(ws, query: str, widgets: SessionResult, timeout: float) -> list[str]:
    """Send the run of ``query`` and read until it finishes; the problems it showed (values included)."""
    wanted = dict(urllib.parse.parse_qsl(query))
    before = widgets.not_applied
    problems: list[str] = []
    await ws.send(rerun_message(query, "", widgets.widgets))
    async with asyncio.timeout(timeout):
        while True:
            msg = ForwardMsg()
            msg.ParseFromString(await ws.recv())
            if (problem := problem_in(msg, "")) is not None:
                problems.append(problem)
            note_widget(msg, wanted, widgets)
            if msg.WhichOneof("type") == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                if widgets.not_applied > before:
                    problems.append("a URL-bound widget showed another value than the URL's")
                return problems


DROPPED = (websockets.exceptions.ConnectionClosed, ConnectionError, OSError)


async def hall_session(port: int, timeout: float, hold_until: float, deadline: float,
                       files: list[str] | None = None) -> HallSession:
    """One student's tab: load the link (and ``files``, the front end of a browser with nothing cached),
    move the slider, stay until hold_until; reconnect if dropped."""
    result, widgets, cookie = HallSession(), SessionResult(), ""
    url = f"ws://{HOST}:{port}/_stcore/stream"
    steps = [LINK, MOVED]  # the view the tab shows after each step
    step, dropped_at, refused_at = 0, None, None
    start = time.perf_counter()
    while time.monotonic() < deadline:
        try:
            if step == 0 and dropped_at is None:
                cookie = result.cookie = await http_get_cookie(HOST, port, "/?" + LINK, cookie, timeout)
                if files:
                    try:
                        result.received = await fetch_front_end(port, files, cookie, timeout)
                    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:  # ConnectionError is an OSError
                        result.errors.append(f"front end: {type(exc).__name__}: {exc}"[:120])
                        return result
            elif dropped_at is not None:  # as Streamlit's frontend: health first, then the websocket
                cookie = await http_get_cookie(HOST, port, "/_stcore/health", cookie, timeout)
            headers = {"Cookie": cookie} if cookie else None
            async with websockets.connect(url, subprotocols=["streamlit"], open_timeout=timeout,
                                          max_size=MAX_MESSAGE_BYTES, additional_headers=headers, proxy=None) as ws:
                refused_at = None
                # A page from HAProxy's cache sets no cookie: the websocket's 101 then does (a browser keeps it).
                if server := affinity_cookie(ws.response.headers.get_all("Set-Cookie")):
                    cookie = server
                    result.cookie = result.cookie or cookie
                if dropped_at is not None:  # re-render the view the tab showed, from its URL
                    query = steps[max(0, step - 1)] if step else LINK
                    problems = await run_to_finish(ws, query, widgets, timeout)
                    result.recoveries.append(time.perf_counter() - dropped_at)
                    if problems:
                        result.lost = True
                        result.errors += problems
                    dropped_at = None
                while step < len(steps):
                    began = time.perf_counter()
                    problems = await run_to_finish(ws, steps[step], widgets, timeout)
                    result.errors += problems
                    if step == 0:
                        result.first_load = time.perf_counter() - start
                    else:
                        result.rerun = time.perf_counter() - began
                    step += 1
                # At rest, the tab open, sending nothing: a browser cannot send websocket pings. A replica
                # that dies closes the connection (HAProxy passes the close on), which ends the wait.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(ws.wait_closed(), max(0.0, hold_until - time.monotonic()))
                if ws.state is websockets.protocol.State.CLOSED:
                    raise ConnectionError("the connection closed while the tab was at rest")
                return result
        except TimeoutError:
            result.errors.append("timeout")
            if dropped_at is not None:
                result.lost = True
            return result
        except websockets.exceptions.InvalidStatus as exc:  # e.g. 503: the balancer had no replica up
            refused = f"websocket upgrade refused: HTTP {exc.response.status_code}"
            if refused not in result.errors:
                result.errors.append(refused)
            if refused_at is None:
                refused_at = time.perf_counter()
            if time.perf_counter() - (dropped_at if dropped_at is not None else refused_at) > timeout:
                result.lost = result.lost or dropped_at is not None
                return result
            await asyncio.sleep(0.2)  # the browser retries, showing "Connecting"
        except DROPPED as exc:
            if dropped_at is None:
                result.affected = True
                dropped_at = time.perf_counter()
            elif time.perf_counter() - dropped_at > timeout:
                result.errors.append(f"no reconnection: {type(exc).__name__}")
                result.lost = True
                return result
            await asyncio.sleep(0.2)  # Streamlit's frontend retries with a short backoff too
    result.errors.append("overall deadline reached")
    result.lost = result.lost or dropped_at is not None
    return result


@dataclass
class Side:
    """One column of the table: a server or a hall, its sessions and its processes' usage."""

    name: str
    sessions: list[HallSession] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # CPU s per server process during the run
    memory_peak: list[float] = field(default_factory=list)
    memory_after: list[float] = field(default_factory=list)
    balancer_cpu: float = 0.0
    client_cpu: float = 0.0  # CPU s of this load generator (one process, the same cores) during the run
    elapsed: float = 0.0
    killed: int | None = None
    kill_time: float | None = None
    marked_down: float | None = None  # seconds from the kill until HAProxy's checks took the replica out


def holding(pids: list[int]) -> int:
    """Index of the pid with the most established TCP connections (websockets) right now."""
    counts = []
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            counts.append(sum(c.status == psutil.CONN_ESTABLISHED for c in psutil.Process(pid).net_connections("tcp")))
            continue
        counts.append(-1)
    return max(range(len(pids)), key=counts.__getitem__)


async def measure(side: Side, port: int, pids: list[int], args: argparse.Namespace, hold: float,
                  kill_after: float | None = None, balancer: int | None = None, stats: str | None = None) -> None:
    """S sessions at once against port; usage of the server processes (pids) while they run."""
    for warm_port in args.warm_ports:  # a server is up before the lecture: its first run (imports) is not counted
        await hall_session(warm_port, args.timeout, 0.0, time.monotonic() + args.timeout)
    # The lecturer opens the link on the projector before the hall does: through the balancer, which
    # keeps the page (and, with --assets, the front end) in its cache; a single server runs it once more.
    files = await asyncio.to_thread(front_end_files, port) if args.assets else None
    await hall_session(port, args.timeout, 0.0, time.monotonic() + args.timeout, files)
    before = [server_usage(pid)[1] for pid in pids]
    balancer_before = server_usage(balancer)[1] if balancer else 0.0
    client_before = sum(os.times()[:2])
    stop = asyncio.Event()
    samplers = [asyncio.create_task(sample_peak(pid, stop)) for pid in pids]
    start = time.monotonic()
    deadline = start + args.deadline

    async def killer():
        await asyncio.sleep(kill_after)
        side.killed = holding(pids)
        side.kill_time = time.monotonic() - start
        with contextlib.suppress(psutil.Error):
            psutil.Process(pids[side.killed]).kill()
        killed_at = time.monotonic()
        while stats and time.monotonic() - killed_at < 30:
            with contextlib.suppress(OSError):
                if not (await asyncio.to_thread(servers_up, stats)).get(f"posenc{side.killed + 1}", True):
                    side.marked_down = time.monotonic() - killed_at
                    return
            await asyncio.sleep(0.05)

    kill_task = asyncio.create_task(killer()) if kill_after is not None else None
    # This process stands in for the students' browsers, each on its own machine: a collection of its
    # garbage would stop every session's clock at once (~40 ms, measured), so none runs until they end.
    gc.disable()
    try:
        side.sessions = await asyncio.gather(*(hall_session(port, args.timeout, start + hold, deadline, files)
                                               for _ in range(args.sessions)))
    finally:
        gc.enable()
    side.elapsed = time.monotonic() - start
    side.client_cpu = sum(os.times()[:2]) - client_before
    if kill_task:
        await kill_task
    stop.set()
    side.memory_peak = [await s for s in samplers]
    side.cpu = [server_usage(pid)[1] - b for pid, b in zip(pids, before)]
    side.balancer_cpu = server_usage(balancer)[1] - balancer_before if balancer else 0.0
    await asyncio.sleep(args.after_wait)
    side.memory_after = [server_usage(pid)[0] for pid in pids]


TARGET = " (target <= 0.5x)"


VERSUS = {"one-server": "hall / one server", "uncompressed": "hall / hall without gzip",
          "libslz": "hall / hall without the asset server"}


def ratio_label(sides: list[Side]) -> str:
    """'hall / one server', 'hall / hall without gzip' or 'hall / hall without the asset server'."""
    if sides[0].name == "one server":
        return VERSUS["one-server"]
    return VERSUS["uncompressed"] if sides[0].name.endswith("no gzip") else VERSUS["libslz"]


def fmt(values: list[float], q: float) -> str:
    return f"{percentile(values, q):.2f} s" if values else "-"


def table(sides: list[Side], args: argparse.Namespace) -> str:
    """The side-by-side report."""
    rows = [("", [s.name for s in sides])]

    def row(label, cell):
        rows.append((label, [cell(s) for s in sides]))

    loads = {s.name: [x.first_load for x in s.sessions if x.first_load is not None] for s in sides}
    reruns = {s.name: [x.rerun for x in s.sessions if x.rerun is not None] for s in sides}
    row("sessions (loaded / at once)", lambda s: f"{len(loads[s.name])} / {len(s.sessions)}")
    row("first load p50", lambda s: fmt(loads[s.name], 50))
    row("first load p95", lambda s: fmt(loads[s.name], 95))
    row("first load max", lambda s: f"{max(loads[s.name]):.2f} s" if loads[s.name] else "-")
    row("rerun p50", lambda s: fmt(reruns[s.name], 50))
    row("rerun p95", lambda s: fmt(reruns[s.name], 95))
    row("sessions per replica", lambda s: " + ".join(
        str(n) for _, n in sorted(collections.Counter(x.cookie for x in s.sessions).items())))
    row("errors", lambda s: str(sum(len(x.errors) for x in s.sessions)))
    if args.assets:
        row("front end per tab (median)", lambda s: f"{statistics.median(x.received for x in s.sessions) / 1e6:.2f} MB")
    row("server CPU s (per process)", lambda s: " + ".join(f"{c:.1f}" for c in s.cpu))
    row("memory peak MB (per process)", lambda s: " + ".join(f"{m:.0f}" for m in s.memory_peak))
    row(f"memory {args.after_wait:g} s after MB", lambda s: " + ".join(f"{m:.0f}" for m in s.memory_after))
    row("balancer CPU s", lambda s: f"{s.balancer_cpu:.1f}" if s.balancer_cpu else "-")
    row("load generator CPU s", lambda s: f"{s.client_cpu:.1f}")
    row("wall time s", lambda s: f"{s.elapsed:.1f}")
    width = max(len(label) for label, _ in rows) + 2
    cols = [max(len(r[1][i]) for r in rows) + 3 for i in range(len(sides))]
    lines = [label.ljust(width) + "".join(c.ljust(w) for c, w in zip(cells, cols)) for label, cells in rows]
    if len(sides) == 2 and loads[sides[0].name] and loads[sides[1].name]:
        ratio = percentile(loads[sides[1].name], 95) / percentile(loads[sides[0].name], 95)
        target = TARGET if sides[0].name == "one server" else ""
        lines.append(f"p95 first load, {ratio_label(sides)}: {ratio:.2f}x{target}")
    for side in sides:
        errors = collections.Counter(e for x in side.sessions for e in x.errors)
        for error, n in errors.most_common(5):
            lines.append(f"{side.name}: {n} x {error}")
        if side.killed is not None:
            affected = [x for x in side.sessions if x.affected]
            recoveries = [t for x in affected for t in x.recoveries]
            lines.append(f"failover: replica {side.killed + 1} killed (SIGKILL) {side.kill_time:.1f} s into the run; "
                         f"{len(affected)} session(s) affected, "
                         f"{sum(len(x.recoveries) for x in affected)} recovered on another replica, "
                         f"views lost {sum(x.lost for x in side.sessions)}")
            if side.marked_down is not None:
                lines.append(f"failover: HAProxy marked it down {side.marked_down:.2f} s after the kill "
                             "(health checks every 1 s, fall 2; or the first refused connection)")
            if recoveries:
                lines.append(f"failover: time to recover (drop to re-rendered view) p50 {percentile(recoveries, 50):.2f} s, "
                             f"p95 {percentile(recoveries, 95):.2f} s, max {max(recoveries):.2f} s")
    return "\n".join(lines)


def one_round(args: argparse.Namespace, hold: float, number: int = 0) -> list[Side]:
    """The baseline (one server, or with ``--versus uncompressed`` the hall without gzip), then the hall
    (fresh processes), S sessions each; returned in that order. Against the hall without gzip the two
    halls take turns going first (round 2 starts with the hall as it is), as the machine drifts."""
    plural = "s" if args.replicas > 1 else ""

    def baseline() -> Side:
        if args.versus == "uncompressed":
            return hall_side(args, hold, "off", f"{args.replicas} replica{plural} + HAProxy, no gzip", asset_server=False)
        if args.versus == "libslz":
            return hall_side(args, hold, "cached", f"{args.replicas} replica{plural} + HAProxy, libslz",
                             asset_server=False)
        with Hall(1, free_port(HOST), pin=not args.no_pin) as single:  # its replica, straight: no balancer on the way
            args.warm_ports = single.ports
            side = Side("one server")
            asyncio.run(measure(side, single.ports[0], [single.servers[0].pid], args, hold))
        return side

    def hall() -> Side:
        return hall_side(args, hold, "cached", f"{args.replicas} replica{plural} + HAProxy"
                         + (", asset server" if args.versus == "libslz" else ""))

    if args.hall_only:
        return [hall()]
    order = [baseline, hall] if args.versus == "one-server" or number % 2 == 0 else [hall, baseline]
    sides = {}
    for i, setup in enumerate(order):
        if i:
            time.sleep(args.pause)
        sides[setup] = setup()
        print(f"{sides[setup].name} done in {sides[setup].elapsed:.1f} s", flush=True)
    return [sides[baseline], sides[hall]]


def hall_side(args: argparse.Namespace, hold: float, compression: str, name: str, asset_server: bool = True) -> Side:
    """S sessions through HAProxy in front of the replicas, HAProxy configured as haproxy_config's
    ``compression``, with or without the asset server (deploy/assets.py) for /static/."""
    with Hall(args.replicas, free_port(HOST), pin=not args.no_pin, compression=compression,
              asset_server=asset_server) as hall:
        args.warm_ports = hall.ports
        side = Side(name)
        asyncio.run(measure(side, hall.port, [p.pid for p in hall.servers], args, hold,
                            kill_after=args.kill_after, balancer=hall.haproxy.pid, stats=hall.stats))
    return side


def p95_first_load(side: Side) -> float:
    return percentile([x.first_load for x in side.sessions if x.first_load is not None] or [float("nan")], 95)


def run(args: argparse.Namespace) -> int:
    """``--rounds`` rounds of one server then the hall; the table (of the median round); exit 1 on any
    error or lost view. This machine's speed drifts by tens of per cent within a minute, and one
    round compares two moments: rounds alternate the sides, and the median ratio is the figure."""
    hold = args.hold if args.hold is not None else ((args.kill_after + 10) if args.kill_after is not None else 0)
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores); "
          f"{args.sessions} sessions open /?{LINK} at once, then d_model -> 64", flush=True)
    if args.assets:
        print(f"--assets: each session first fetches, as a browser with nothing cached, every script and stylesheet "
              f"the page names and the plotly chunk, over {BROWSER_CONNECTIONS} kept-alive connections", flush=True)
    environment = os.environ.items()
    if options := sorted(f"{k}={v}" for k, v in environment if k.startswith("STREAMLIT_") and "SECRET" not in k):
        print("Streamlit options from the environment (every server): " + " ".join(options), flush=True)
    rounds: list[list[Side]] = []
    try:
        for number in range(args.rounds):
            if number:
                time.sleep(args.pause)
            rounds.append(one_round(args, hold, number))
            if len(rounds[-1]) == 2:
                one, hall = rounds[-1]
                print(f"round {number + 1}: p95 first load {p95_first_load(one):.2f} s {one.name}, "
                      f"{p95_first_load(hall):.2f} s {hall.name}: {p95_first_load(hall) / p95_first_load(one):.2f}x",
                      flush=True)
    except RuntimeError as err:
        print(f"hall: {err}", file=sys.stderr)
        return 2
    ratios = [p95_first_load(r[1]) / p95_first_load(r[0]) for r in rounds if len(r) == 2]
    shown = rounds[sorted(range(len(ratios)), key=ratios.__getitem__)[len(ratios) // 2]] if ratios else rounds[-1]
    load = os.getloadavg()
    if len(rounds) > 1:
        print(f"the median round ({len(rounds)} rounds):")
    print(table(shown, args))
    if len(ratios) > 1:
        print(f"p95 first load, {ratio_label(shown)}, per round: {', '.join(f'{r:.2f}x' for r in ratios)}; "
              f"median {statistics.median(ratios):.2f}x{TARGET if args.versus == 'one-server' else ''}")
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; the load generator runs on the same cores")
    bad = any(x.errors or x.lost for r in rounds for s in r for x in s.sessions)
    return 1 if bad else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="start the hall and keep it up until SIGINT or SIGTERM")
    s.add_argument("--replicas", type=int, default=2)
    s.add_argument("--port", type=int, default=0, help="balancer port (default: a free one)")
    s.add_argument("--no-asset-server", action="store_true", help="no deploy/assets.py: listen gzip (libslz) "
                   "compresses /static/ too, as before the asset server")
    s.add_argument("--no-redis", action="store_true", help="no redis-server: each replica keeps its own rooms "
                   "(an SQLite file), so followers on another replica do not see them")
    s.add_argument("--redis-dir", help="Redis's folder (its append-only file): rooms and answers survive a restart "
                   "of the hall (default: a temporary folder, removed at the end)")
    r = sub.add_parser("run", help="the hall benchmark: one server against the hall, in one run")
    r.add_argument("--replicas", type=int, default=2)
    r.add_argument("--sessions", type=int, default=300)
    r.add_argument("--timeout", type=float, default=90.0, help="seconds allowed for one step of a session")
    r.add_argument("--deadline", type=float, default=300.0, help="seconds allowed for one side's sessions")
    r.add_argument("--after-wait", type=float, default=5.0, help="seconds before the 'after' memory sample")
    r.add_argument("--pause", type=float, default=5.0, help="seconds between the two sides")
    r.add_argument("--kill-after", type=float, help="kill one replica this many seconds into the hall's run")
    r.add_argument("--hold", type=float, help="seconds every session stays open (default: kill-after + 10, or 0)")
    r.add_argument("--hall-only", action="store_true", help="skip the one-server side")
    r.add_argument("--rounds", type=int, default=1, help="rounds of one server then the hall; the median ratio")
    r.add_argument("--assets", action="store_true", help="each session also fetches the front end, as a browser "
                   "with nothing cached does (about 60 files, 6.8 MB); a first load then counts them too")
    r.add_argument("--versus", choices=list(VERSUS), default="one-server",
                   help="what the hall is compared with: one server (default), the same hall without "
                   "deploy/haproxy.cfg's gzip (before issue 28), or without the asset server (listen gzip's "
                   "libslz compresses /static/ too); against a hall the two take turns going first")
    r.add_argument("--no-pin", action="store_true", help="let the OS place the servers (compose's cpus: 1 is a quota, "
                   "not a core); by default replica i is pinned to core i mod cores")
    args = p.parse_args(argv)
    if not 1 <= args.replicas <= 8:
        p.error("need 1 <= replicas <= 8")
    if args.command == "run" and not 1 <= args.sessions <= 500:
        p.error("need 1 <= sessions <= 500")
    if args.command == "run" and not 1 <= args.rounds <= 15:
        p.error("need 1 <= rounds <= 15")
    if args.command == "run" and args.kill_after is not None and args.replicas < 2:
        p.error("--kill-after needs at least 2 replicas")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    return serve(args) if args.command == "serve" else run(args)


if __name__ == "__main__":
    sys.exit(main())
