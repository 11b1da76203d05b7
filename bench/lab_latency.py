"""Do live trainings slow the other sessions down? Rerun latency of S sessions on the default page, idle and
while trainings run (queued by T sessions that press "Train" on the Length generalization page), in one run.

Run from the repository root (loopback only; bounded; stops the server it starts):

    python bench/lab_latency.py                      # 10 sessions x 40 reruns, 8 trainers
    python bench/lab_latency.py --sessions 20 --trainers 24

Each rerun moves d_model (as tests/bench do); latency is from sending the rerun to ``script_finished``.
A trainer opens ``/generalization`` with its own settings (Transformer-XL, the slowest scheme, L = 8,
1,500 steps, a seed of its own, so no result is kept yet) and presses the button; the server queues the
trainings and runs one at a time in a child process. The busy phase starts once the server has a
training child using a core. Printed: p50/p95 idle and busy, their ratio (the issue's target: busy p95
within 1.5x idle), the training child's CPU during the busy phase, and the server's memory.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import psutil
import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadtest import MAX_MESSAGE_BYTES, SessionResult, one_rerun, percentile  # noqa: E402
from streamlit_server import free_port, server_usage, start_server, stop_server  # noqa: E402

HOST = "127.0.0.1"


def _children_cpu(pid: int) -> float:
    """CPU seconds of the server's child processes (the training children and their forkserver)."""
    total = 0.0
    for child in psutil.Process(pid).children(recursive=True):
        try:
            total += sum(child.cpu_times()[:2])
        except psutil.NoSuchProcess:
            pass
    return total


async def _phase(url: str, sessions: int, reruns: int) -> list[float]:
    async def session(n: int) -> list[float]:
        result = SessionResult()
        async with websockets.connect(url, subprotocols=["streamlit"], max_size=MAX_MESSAGE_BYTES, proxy=None) as ws:
            for r in range(reruns):
                d_model = (32, 64, 128, 256)[(n + r) % 4]
                result.latencies.append(await one_rerun(ws, f"d_model={d_model}&length=100", "", 60, result))
        assert not result.errors, result.errors
        return result.latencies

    return [t for times in await asyncio.gather(*(session(n) for n in range(sessions))) for t in times]


async def _trainer(url: str, seed: int, hold: asyncio.Event) -> None:
    """Open the lab page with these settings, press Train, keep the tab open until ``hold`` is set."""
    query = f"own_scheme=transformer_xl&own_length=8&own_steps=1500&own_seed={seed}"
    async with websockets.connect(url, subprotocols=["streamlit"], max_size=MAX_MESSAGE_BYTES, proxy=None) as ws:
        button = await _run(ws, query, None)
        await _run(ws, query, button)
        await hold.wait()


async def _run(ws, query: str, button: str | None) -> str | None:
    msg = BackMsg()
    msg.rerun_script.query_string = query
    msg.rerun_script.page_name = "generalization"
    msg.rerun_script.widget_states.SetInParent()
    if button:
        state = msg.rerun_script.widget_states.widgets.add()
        state.id, state.trigger_value = button, True
    await ws.send(msg.SerializeToString())
    found = None
    while True:
        answer = ForwardMsg()
        answer.ParseFromString(await ws.recv())
        if answer.WhichOneof("type") == "delta" and answer.delta.WhichOneof("type") == "new_element":
            element = answer.delta.new_element
            if element.WhichOneof("type") == "button" and element.button.id.endswith("own_train"):
                found = element.button.id
        if answer.WhichOneof("type") == "script_finished" and answer.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            return found


async def main_async(args: argparse.Namespace, pid: int) -> None:
    url = f"ws://{HOST}:{args.port}/_stcore/stream"
    await _phase(url, 4, 8)  # warm: every d_model of the phases, so neither phase pays a first run
    idle = await _phase(url, args.sessions, args.reruns)
    hold = asyncio.Event()
    trainers = [asyncio.create_task(_trainer(url, 1000 + n, hold)) for n in range(args.trainers)]
    deadline = time.monotonic() + 60
    while _children_cpu(pid) < 8.0 and time.monotonic() < deadline:  # a training child is at work
        await asyncio.sleep(0.5)
    before = _children_cpu(pid)
    start = time.monotonic()
    busy = await _phase(url, args.sessions, args.reruns)
    seconds = time.monotonic() - start
    trained = _children_cpu(pid) - before
    rss = server_usage(pid)[0]
    hold.set()
    await asyncio.gather(*trainers, return_exceptions=True)
    p50i, p95i, p50b, p95b = (percentile(idle, 50), percentile(idle, 95), percentile(busy, 50), percentile(busy, 95))
    print(f"{args.sessions} sessions x {args.reruns} reruns of the default page; {args.trainers} sessions pressed Train")
    print(f"{'':12}{'p50':>9}{'p95':>9}")
    print(f"{'idle':12}{p50i:9.3f}{p95i:9.3f}")
    print(f"{'training':12}{p50b:9.3f}{p95b:9.3f}")
    print(f"{'ratio':12}{p50b / p50i:9.2f}{p95b / p95i:9.2f}   (target: p95 ratio <= 1.5)")
    print(f"training children used {trained:.1f} s of CPU in the {seconds:.1f} s busy phase "
          f"({trained / seconds:.2f} cores); server and children RSS {rss:.0f} MB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--reruns", type=int, default=40)
    parser.add_argument("--trainers", type=int, default=8)
    args = parser.parse_args(argv)
    if not (1 <= args.sessions <= 100 and 1 <= args.reruns <= 100 and 1 <= args.trainers <= 30):
        parser.error("need 1 <= sessions <= 100, 1 <= reruns <= 100, 1 <= trainers <= 30")
    args.port = free_port(HOST)
    server = start_server("app.py", HOST, args.port, Path(tempfile.gettempdir()) / f"lab-latency-{args.port}.log")
    try:
        asyncio.run(main_async(args, server.pid))
    finally:
        stop_server(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
