"""The server's CPU per run of one page: N reruns in a row over one websocket, the server process's CPU before and
after (its script thread, its event loop and the kernel's work for it together).

    python bench/cpu_per_run.py --page sinusoids --query "curves=Wavelengths&length=512&lecture=sinusoidal&slide=3"
    python bench/cpu_per_run.py --app bench/reference_app.py --runs 200    # Streamlit's own cost: one title

Every app is served from the repository root, with posenc's .streamlit/config.toml (an app in bench/ served from
bench/ would get Streamlit's defaults, a full garbage collection after each run among them: 60-70 ms a run of the floor here).

A run is sent and read as a phone's tab does (bench/room_follow.py's run_page: until its script_finished);
the first ten are not counted (imports, caches). Printed: CPU and wall time per run, messages per run.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "bench"), str(ROOT)]

import psutil  # noqa: E402
import websockets  # noqa: E402

from hall import HOST  # noqa: E402
from loadtest import MAX_MESSAGE_BYTES  # noqa: E402
from room_follow import run_page  # noqa: E402
from streamlit_server import free_port, start_server, stop_server  # noqa: E402

WARM_UP = 10
TIMEOUT = 60.0  # s for one run, at most


async def measure(port: int, pid: int, page: str, query: str, runs: int) -> tuple[float, float, int]:
    """(CPU s per run, wall s per run, messages of a run) of ``runs`` reruns of ``page?query``. A first session
    runs the page once before: app.py's server patches are installed by the first run of the process, after that
    first session was made (it keeps what Streamlit gave it: posenc/ui/wakeups.py), as every later session does."""
    def session():
        return websockets.connect(f"ws://{HOST}:{port}/_stcore/stream", subprotocols=["streamlit"],
                                  max_size=MAX_MESSAGE_BYTES, proxy=None, ping_interval=None)

    async with session() as first:
        await run_page(first, query, page, TIMEOUT)
    async with session() as ws:
        for _ in range(WARM_UP):
            messages = len(await run_page(ws, query, page, TIMEOUT))
        server = psutil.Process(pid)
        cpu, started = sum(server.cpu_times()[:2]), time.perf_counter()
        for _ in range(runs):
            await run_page(ws, query, page, TIMEOUT)
        return (sum(server.cpu_times()[:2]) - cpu) / runs, (time.perf_counter() - started) / runs, messages


def cpu_per_run(app: str, page: str = "", query: str = "", runs: int = 200) -> tuple[float, float, int]:
    """(CPU s per run, wall s per run, messages of a run) of ``app`` (a path from the repository root), served
    on a free port of loopback from the root for this measurement alone."""
    port = free_port(HOST)
    server = start_server(str(ROOT / app), HOST, port, Path("/tmp/posenc_cpu_per_run.log"), cwd=ROOT)
    try:
        return asyncio.run(measure(port, server.pid, page, query, runs))
    finally:
        stop_server(server)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app", default="app.py", help="the script to serve, from the repository root")
    parser.add_argument("--page", default="", help="the page's url path ('' = the default page)")
    parser.add_argument("--query", default="", help="the page's query string")
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args(argv)
    cpu, wall, messages = cpu_per_run(args.app, args.page, args.query, args.runs)
    print(f"{args.app} /{args.page}?{args.query}: {1000 * cpu:.2f} ms of CPU a run, {1000 * wall:.2f} ms of wall, "
          f"{messages} messages ({args.runs} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
