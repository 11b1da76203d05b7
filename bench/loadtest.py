"""Load test of a Streamlit server on this machine: N websocket sessions at once speaking
Streamlit's protocol; rerun latency, errors, and the server's memory before/peak/after.

Run from the repository root (loopback only; everything is bounded and stops by itself):

    python bench/loadtest.py --start                    # start app.py on a free port, stop it after
    python bench/loadtest.py --start --waves 2 --page "" --page sinusoids --page rotation
    python bench/loadtest.py --port 8501                # a server that is already running
    python bench/loadtest.py --start --mix realistic --waves 2   # every page and scheme, caps included

A session does what a browser tab does: open ``ws://127.0.0.1:PORT/_stcore/stream`` with
subprotocol "streamlit" (streamlit 1.67 needs no XSRF token or cookie for the websocket;
the token guards uploads and auth cookies), then send R ``BackMsg.rerun_script`` one after
another, each with its page (``--page``) and a new query string (``--param``), also sent as
widget states for the URL-bound widgets seen so far. Latency: from sending to the
``script_finished`` ForwardMsg. Errors: exception elements, compile errors, unknown pages,
connection failures, timeouts. Memory: RSS of the server process and its children.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import ipaddress
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from streamlit_server import (
    free_port,
    listening_pid,
    sample_peak,
    server_usage,
    start_server,
    stop_server,
)

DEFAULT_PARAMS = ("d_model=32,64,128,256", "length=50,100,200,400")
# --mix realistic: every page, every scheme, defaults and caps (d_model 1024, length 4096) among the values
REALISTIC_PAGES = ("", "derivation", "sinusoids", "rotation", "details", "compare", "properties", "precision")
REALISTIC_PARAMS = ("scheme=sinusoidal,rope,alibi,learned,t5,shaw,nope", "d_model=128,64,1024,256,512",
                    "length=100,4096,400,1000,2048,50")
MAX_MESSAGE_BYTES = 2**28  # a page of plotly figures can exceed websockets' 1 MiB default
# Every connect passes proxy=None: websockets >= 14 otherwise looks up proxy settings (urllib.request.getproxies,
# a scan of os.environ) on each one, ~0.4 ms of the load generator per session that a browser does not spend.


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; refuses any host that is not an IPv4 loopback address."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1", help="IPv4 loopback address of the server")
    p.add_argument("--port", type=int, help="server port (default 8501, or a free port with --start)")
    p.add_argument("--start", action="store_true", help="start `streamlit run APP` and stop it at the end")
    p.add_argument("--app", default="app.py", help="script to run with --start")
    p.add_argument("--sessions", type=int, default=50, help="concurrent sessions per wave")
    p.add_argument("--reruns", type=int, default=5, help="reruns per session")
    p.add_argument("--waves", type=int, default=1, help="run the sessions this many times, one wave after another")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds allowed for one rerun (or connect)")
    p.add_argument("--deadline", type=float, default=600.0, help="seconds allowed for all waves together")
    p.add_argument("--after-wait", type=float, default=5.0, help="seconds to wait before the 'after' memory sample")
    p.add_argument("--param", action="append", help="KEY=V1,V2,... query values to cycle through (repeatable)")
    p.add_argument("--page", action="append", help="page url path, '' for the default page; sessions take turns (repeatable)")
    p.add_argument("--mix", choices=["realistic"], help="realistic: every page (sessions take turns) and every "
                   "scheme, d_model and length from defaults to the caps; replaces --page and --param")
    args = p.parse_args(argv)
    address = ipaddress.ip_address(args.host)
    if not (address.is_loopback and address.version == 4):
        p.error(f"--host must be an IPv4 loopback address such as 127.0.0.1, got {args.host}")
    if not (1 <= args.sessions <= 500 and 1 <= args.reruns <= 1000 and 1 <= args.waves <= 20):
        p.error("need 1 <= sessions <= 500, 1 <= reruns <= 1000, 1 <= waves <= 20")
    if args.mix == "realistic":
        args.param, args.page = list(REALISTIC_PARAMS), list(REALISTIC_PAGES)
    args.param = args.param or list(DEFAULT_PARAMS)
    args.page = args.page or [""]
    return args


def query_strings(params: list[str], session: int, reruns: int) -> list[str]:
    """One query string per rerun; sessions start at different points of the value grid."""
    grid = [(key, values.split(",")) for key, values in (p.split("=", 1) for p in params)]
    return [
        "&".join(f"{key}={values[(session * (j + 1) + r) % len(values)]}" for j, (key, values) in enumerate(grid))
        for r in range(reruns)
    ]


# How a browser reports a new value for each kind of URL-bound widget (WidgetState field).
WIDGET_SETTERS = {
    "slider": lambda state, raw: state.double_array_value.data.append(float(raw)),
    "number_input": lambda state, raw: setattr(state, "double_value", float(raw)),
    "selectbox": lambda state, raw: setattr(state, "string_value", raw),
}


@dataclass
class SessionResult:
    """What one websocket session saw, and the URL-bound widgets it learned (key -> (id, kind))."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    not_applied: int = 0
    widgets: dict[str, tuple[str, str]] = field(default_factory=dict)


def rerun_message(query_string: str, page_name: str, widgets: dict[str, tuple[str, str]]) -> bytes:
    """A serialized BackMsg.rerun_script with this URL and page.

    Known URL-bound widgets also get the query's values as widget states, as when a user
    moves them: on a session's later runs an app may prefer its session state to the URL.
    """
    msg = BackMsg()
    msg.rerun_script.query_string = query_string
    msg.rerun_script.page_name = page_name
    msg.rerun_script.widget_states.SetInParent()
    for key, raw in urllib.parse.parse_qsl(query_string):
        if key in widgets:
            state = msg.rerun_script.widget_states.widgets.add()
            state.id, kind = widgets[key]
            WIDGET_SETTERS[kind](state, raw)
    return msg.SerializeToString()


def problem_in(msg: ForwardMsg, page: str) -> str | None:
    """A short description if this ForwardMsg reports an exception or a bad page, else None."""
    kind = msg.WhichOneof("type")
    if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
        element = msg.delta.new_element
        if element.WhichOneof("type") == "exception":
            return f"exception in app: {element.exception.type or '?'}: {element.exception.message[:80]}"
    if kind == "session_event" and msg.session_event.WhichOneof("type") == "script_compilation_exception":
        return "script compilation error"
    if kind == "page_not_found":
        return f"page not found: {page!r} (the app ran its default page)"
    return None


def note_widget(msg: ForwardMsg, wanted: dict[str, str], result: SessionResult) -> None:
    """Remember a URL-bound widget in this message; count it if it ignored the value we asked."""
    if msg.WhichOneof("type") != "delta" or msg.delta.WhichOneof("type") != "new_element":
        return
    kind = msg.delta.new_element.WhichOneof("type")
    widget = getattr(msg.delta.new_element, kind) if kind in WIDGET_SETTERS else None
    if widget is None or not widget.query_param_key:
        return
    result.widgets[widget.query_param_key] = (widget.id, kind)
    shown = list(widget.value)[:1] if kind == "slider" else [widget.value] if kind == "number_input" else []
    if shown and widget.query_param_key in wanted and float(wanted[widget.query_param_key]) != shown[0]:
        result.not_applied += 1


async def one_rerun(ws: websockets.ClientConnection, query: str, page: str, timeout: float, result: SessionResult) -> float:
    """Send one rerun and read until its run finishes; returns the seconds it took."""
    wanted = dict(urllib.parse.parse_qsl(query))
    start = time.perf_counter()
    await ws.send(rerun_message(query, page, result.widgets))
    async with asyncio.timeout(timeout):
        while True:
            msg = ForwardMsg()
            msg.ParseFromString(await ws.recv())
            if (problem := problem_in(msg, page)) is not None:
                result.errors.append(problem)
            note_widget(msg, wanted, result)
            # FINISHED_EARLY_FOR_RERUN: the app called st.rerun(); its next run answers us.
            if msg.WhichOneof("type") == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return time.perf_counter() - start


async def run_session(url: str, queries: list[str], page: str, timeout: float, deadline: float) -> SessionResult:
    """One browser-like session: connect, rerun once per query string, close."""
    result = SessionResult()
    try:
        async with websockets.connect(
            url, subprotocols=["streamlit"], open_timeout=timeout, max_size=MAX_MESSAGE_BYTES, proxy=None
        ) as ws:
            for query in queries:
                budget = min(timeout, deadline - time.monotonic())
                if budget <= 0:
                    result.errors.append("overall deadline reached")
                    break
                result.latencies.append(await one_rerun(ws, query, page, budget, result))
    except TimeoutError:
        result.errors.append("timeout")
    except (OSError, websockets.exceptions.WebSocketException) as exc:
        result.errors.append(f"connection: {type(exc).__name__}")
    return result


async def run_waves(args: argparse.Namespace, pid: int) -> tuple[list[SessionResult], float]:
    """All waves, one after another, while memory is sampled; returns results and peak MB."""
    url = f"ws://{args.host}:{args.port}/_stcore/stream"
    deadline = time.monotonic() + args.deadline
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_peak(pid, stop))
    results: list[SessionResult] = []
    for wave in range(args.waves):
        sessions = [wave * args.sessions + s for s in range(args.sessions)]
        results += await asyncio.gather(*(
            run_session(url, query_strings(args.param, s, args.reruns), args.page[s % len(args.page)],
                        args.timeout, deadline)
            for s in sessions
        ))
        if time.monotonic() >= deadline:
            break
    stop.set()
    return results, await sampler


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(q / 100 * len(ordered)) - 1))]


def report(args: argparse.Namespace, results: list[SessionResult], elapsed: float,
           cpu: tuple[float, float], memory: tuple[float, float, float]) -> str:
    """The summary printed at the end; ``cpu`` is (server, this client) seconds."""
    latencies = [t for r in results for t in r.latencies]
    errors = collections.Counter(e for r in results for e in r.errors)
    before, peak, after = memory
    lines = [
        f"{len(results)} sessions ({args.waves} wave(s) x {args.sessions} at once), "
        f"{len(latencies)}/{len(results) * args.reruns} reruns finished in {elapsed:.1f} s",
        "latency  " + ("no rerun finished" if not latencies else
                       f"p50 {percentile(latencies, 50):.3f} s   p95 {percentile(latencies, 95):.3f} s   "
                       f"max {max(latencies):.3f} s"),
        f"cpu      server {cpu[0]:.1f} s, load generator {cpu[1]:.1f} s (both on this machine)",
        f"widgets  {sum(r.not_applied for r in results)} URL-bound widget(s) showed another value than the one sent",
        f"errors   {sum(errors.values())}" + "".join(f"\n         {n} x {e}" for e, n in errors.most_common(5)),
        f"memory   server RSS before {before:.1f} MB, peak {peak:.1f} MB, "
        f"after {after:.1f} MB ({args.after_wait:g} s after the last session closed)",
        "note     closed sessions stay in memory for server.disconnectedSessionTTL (120 s by default; 15 s in this app's .streamlit/config.toml)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the load test; exit status 1 if any rerun failed."""
    args = parse_args(argv)
    args.port = args.port or (free_port(args.host) if args.start else 8501)
    log = Path(tempfile.gettempdir()) / f"loadtest-streamlit-{args.port}.log"
    try:
        server = start_server(args.app, args.host, args.port, log) if args.start else None
        pid = server.pid if server else listening_pid(args.port)
    except RuntimeError as err:
        print(f"loadtest: {err}", file=sys.stderr)
        return 2
    try:
        print(f"server pid {pid} on {args.host}:{args.port}" + (f", log {log}" if server else ""))
        (before, server_cpu), client_cpu, start = server_usage(pid), time.process_time(), time.perf_counter()
        results, peak = asyncio.run(run_waves(args, pid))
        elapsed = time.perf_counter() - start
        cpu = (server_usage(pid)[1] - server_cpu, time.process_time() - client_cpu)
        time.sleep(args.after_wait)
        print(report(args, results, elapsed, cpu, (before, peak, server_usage(pid)[0])))
        return 1 if any(r.errors for r in results) else 0
    finally:
        if server:
            stop_server(server)


if __name__ == "__main__":
    sys.exit(main())
