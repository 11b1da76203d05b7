"""A lecture room followed by a hall of phones: how long a slide change takes to reach every follower (issue 34).

Each follower is a real Streamlit session over a websocket, as a phone's tab is (bench/loadtest.py's protocol,
spoken by bench/phone_socket.py: the phones' client shares the servers' two cores, so it is kept light):
it opens the slide's link with ``room=CODE`` (what ``/?room=CODE`` lands on), runs it to the end (the run joins
the room and watches it, posenc/ui/push.py), then sits idle with its websocket open. The lecturer's next slide is its page
load (its key in its cookie), which moves the room; each follower's server pushes it a rerun, which switches the
session to the new slide in place (posenc.ui.room.catch_up: no page load, the same websocket). Measured per
follower: the push (move -> its first message) and the new slide shown (move -> the run of the new slide's
address finished). Then 60 s of idle followers: the CPU the replicas (and Redis) use. Last, with the hall stopped,
this machine's speed: a run of one title and of the new slide, by one session alone (bench/cpu_per_run.py), to
read the figures against (this machine's speed moves from day to day by more than any change measured on it).
Then answers: each follower submits the slide's answer form over its websocket, as its Answer button does (the
radio's choice and the button's trigger, ids read from the form's elements in its run), all at once; the counts must
equal the answers given (the lecturer's chart reads the same counts).

    python bench/room_follow.py --followers 300                 # the hall: 2 replicas, HAProxy, Redis
    python bench/room_follow.py --followers 300 --one-server    # one `streamlit run app.py`, its SQLite file
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import phone_socket  # noqa: E402
from hall import HOST, Hall, http_get_cookie  # noqa: E402
from loadtest import MAX_MESSAGE_BYTES, rerun_message  # noqa: E402
from posenc import lectures  # noqa: E402
from streamlit_server import free_port, server_usage  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LECTURE = "sinusoidal"
# A page_info_changed (the new address, ~130 bytes) or a script_finished (~40) is never longer: a follower parses
# no longer message after the move, so that the 300 phones' client takes less of the servers' 2 cores.
STATUS_BYTES = 2048


@dataclass
class Follower:
    joined: float | None = None
    pushed: float | None = None  # seconds from the move to the new link received
    shown: float | None = None  # seconds from the move to the new slide's run finished
    errors: list[str] = field(default_factory=list)
    reconnected: int = 0  # its replica died and it came back through the hall
    back: float | None = None  # when its run after the reconnection finished
    form: dict = field(default_factory=dict)  # the answer form's widget ids, read from its first run's elements
    address: tuple[str, str] = ("", "")  # (page, query) it runs at
    sent: bool = False  # its answer sent (the form submitted over its websocket)
    answered: float | None = None  # seconds from the answers' start to the end of the run its answer started


def _split(link: str) -> tuple[str, str]:
    """'./sinusoids?a=1' -> ('sinusoids', 'a=1')."""
    parts = urllib.parse.urlsplit(link)
    return parts.path.rsplit("/", 1)[-1], parts.query


async def run_page(ws, query: str, page: str, timeout: float, drawn: list | None = None) -> list[bytes]:
    """Send a run of ``page?query`` and read until it finishes; the raw messages. ``drawn``, if given, gets the
    clock (time.perf_counter) of each element's arrival: what a browser shows as it comes."""
    await ws.send(rerun_message(query, page, {}))
    return await read_run(ws, timeout, drawn)


async def read_run(ws, timeout: float, drawn: list | None = None) -> list[bytes]:
    """Read a run's messages until it finishes (a run stopped early for a rerun is not its end); the raw messages."""
    seen = []
    async with asyncio.timeout(timeout):
        while True:
            raw = await ws.recv()
            seen.append(raw)
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            if drawn is not None and msg.WhichOneof("type") == "delta":
                drawn.append(time.perf_counter())
            if msg.WhichOneof("type") == "script_finished" and \
                    msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return seen


async def follower(port: int, page: str, query: str, moved: dict, result: Follower, timeout: float,
                   slide: int) -> None:
    """A phone's tab: its session runs the slide, then waits for the push and the switch to ``slide``. When its
    replica dies (the websocket closes before the move), it reconnects through the hall and runs its address
    again, as Streamlit's page does: ``result.reconnected`` counts it."""
    cookie = ""
    try:
        while True:
            try:
                cookie = await http_get_cookie(HOST, port, f"/{page}?{query}", cookie, timeout) or cookie
                async with await phone_socket.connect(HOST, port, cookie=cookie, timeout=timeout,
                                                      max_size=MAX_MESSAGE_BYTES) as ws:
                    seen = await run_page(ws, query, page, timeout)
                    result.form = result.form or answer_form(seen)
                    result.address = (page, query)
                    result.joined = result.joined or time.perf_counter()
                    result.back = time.perf_counter() if result.reconnected else None
                    if await _follow(ws, moved, result, timeout, slide):
                        return
            except OSError:  # phone_socket.Closed among them: the connection ended or was refused
                if "t" in moved or result.joined is None or result.reconnected >= 20:
                    raise
                result.reconnected += 1
                cookie = ""  # the dead replica's affinity: HAProxy picks a live one
                await asyncio.sleep(0.5)
    except (TimeoutError, OSError, websockets.exceptions.WebSocketException) as error:
        result.errors.append(f"{type(error).__name__}: {error}"[:120])


def answer_form(messages: list[bytes]) -> dict:
    """The ids of the answer form's widgets in a run's messages: {"choice" or "number": id, "submit": id}, the
    radio's option texts ("choices") and the fragment the form is drawn in ("fragment", if it is in one)."""
    form = {}
    for raw in messages:
        msg = ForwardMsg()
        msg.ParseFromString(raw)
        if msg.WhichOneof("type") != "delta" or msg.delta.WhichOneof("type") != "new_element":
            continue
        element = msg.delta.new_element
        kind = element.WhichOneof("type")
        if kind == "radio" and element.radio.label == "Your answer":
            form["choice"], form["choices"] = element.radio.id, list(element.radio.options)
        elif kind == "text_input" and element.text_input.label.startswith("Your answer"):
            form["number"] = element.text_input.id
        elif kind == "button" and element.button.is_form_submitter and element.button.label == "Answer":
            form["submit"] = element.button.id
            if msg.delta.fragment_id:
                form["fragment"] = msg.delta.fragment_id
    return form


def answer_message(result: Follower, correct: str) -> bytes:
    """What the browser sends when the follower picks (or types) ``correct`` and presses Answer: a rerun of its
    address with the form's widget states, the submit button's trigger among them, and the form's fragment (the
    browser reruns only the fragment a pressed button is in)."""
    msg = BackMsg.FromString(rerun_message(result.address[1], result.address[0], {}))  # loadtest's rerun
    if "fragment" in result.form:
        msg.rerun_script.fragment_id = result.form["fragment"]
    states = msg.rerun_script.widget_states.widgets
    state = states.add()
    if "choice" in result.form:  # a radio's value is the text of its option, as the browser sends it
        state.id, state.string_value = result.form["choice"], result.form["choices"][int(correct)]
    else:
        state.id, state.string_value = result.form["number"], correct
    state = states.add()
    state.id, state.trigger_value = result.form["submit"], True
    return msg.SerializeToString()


async def _follow(ws, moved: dict, result: Follower, timeout: float, slide: int) -> bool:
    """Idle until the answers (its form submitted, as the Answer button does) and the push; then the switch to the
    new slide, on this websocket. True once it is shown."""
    at_new_slide = False
    while True:
        try:  # polled often only around the answers, when a follower sends its answer
            raw = ws.received()  # one already read off the socket: no timer for it
            if raw is None:
                async with asyncio.timeout(0.05 if "answers soon" in moved and not result.sent else 1.0):
                    raw = await ws.recv()  # (a timeout, unlike wait_for, makes no task per message)
        except TimeoutError:  # idle; after the move, at most ``timeout`` seconds
            if "t" in moved and time.perf_counter() - moved["t"] > timeout:
                raise
            if "answers" in moved and not result.sent and "submit" in result.form and len(result.form) > 1:
                result.sent = True
                await ws.send(answer_message(result, moved["correct"]))
            continue
        if result.sent and result.answered is None and "t" not in moved:
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            if msg.WhichOneof("type") == "script_finished" and \
                    msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                result.answered = time.perf_counter() - moved["answers"]
            continue
        if "t" not in moved:
            continue
        if result.pushed is None:
            result.pushed = time.perf_counter() - moved["t"]
        if len(raw) > STATUS_BYTES:  # an element: neither the new address nor the run's end
            continue
        msg = ForwardMsg()
        msg.ParseFromString(raw)
        kind = msg.WhichOneof("type")
        if kind == "page_info_changed" and f"slide={slide}" in msg.page_info_changed.query_string:
            at_new_slide = True  # the new run tells the browser the new slide's address
        elif kind == "script_finished" and at_new_slide and \
                msg.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY:
            result.shown = time.perf_counter() - moved["t"]
            return True


async def lecturer_moves(port: int, code: str, key: str, number: int, timeout: float, steps: dict) -> None:
    """The lecturer's next slide: its page load (the key in its cookie, as the lecturer's browser sends it) runs on
    a replica, which moves the room; the other replicas hear it through Redis, the same server in-process.
    ``steps``: seconds from the start to the page's HTML, the websocket open and the run finished."""
    slide = lectures.load(LECTURE).slides[number - 1]
    query = urllib.parse.urlencode([*slide.settings, ("lecture", LECTURE), ("slide", str(number)), ("notes", "true"),
                                    ("room", code)])
    cookie = f"posenc_room={code}.{key}"
    t0 = time.perf_counter()
    server = await http_get_cookie(HOST, port, f"/{slide.page}?{query}", cookie, timeout)  # HAProxy's, if any
    steps["page"] = time.perf_counter() - t0
    cookie = cookie if server in ("", cookie) else f"{cookie}; {server}"
    async with websockets.connect(f"ws://{HOST}:{port}/_stcore/stream", subprotocols=["streamlit"],
                                  open_timeout=timeout, max_size=MAX_MESSAGE_BYTES,
                                  additional_headers={"Cookie": cookie}, proxy=None, ping_interval=None) as ws:
        steps["websocket"] = time.perf_counter() - t0
        drawn: list[float] = []
        seen = await run_page(ws, query, slide.page, timeout, drawn)
        steps["run"] = time.perf_counter() - t0
        steps["drawn"] = drawn[-1] - t0 if drawn else float("nan")
        steps["messages"] = len(seen)


def _pids(hall: Hall | None, server: subprocess.Popen | None) -> list[int]:
    if hall is not None:
        return [p.pid for p in hall.servers] + ([hall.redis_process.pid] if hall.redis_process else [])
    return [server.pid]


def _cpu(pids: list[int]) -> float:
    return sum(server_usage(pid)[1] for pid in pids)


def _quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


async def measure(port: int, rooms, pids: list[int], args) -> dict:
    lecture = lectures.load(LECTURE)
    start = 2  # the question of slide 2 is answered, then the lecturer moves on to slide 3
    room, key = rooms.open(LECTURE, start, opener="bench")
    slide = lecture.slides[start - 1]
    query = urllib.parse.urlencode([*slide.settings, ("lecture", LECTURE), ("slide", str(start)), ("room", room.code)])
    moved: dict = {}
    results = [Follower() for _ in range(args.followers)]
    tasks = []
    began = time.perf_counter()
    for result in results:  # arrivals spread over --arrive seconds, as a hall scanning a QR code
        tasks.append(asyncio.create_task(follower(port, slide.page, query, moved, result, args.timeout, start + 1)))
        await asyncio.sleep(args.arrive / max(1, args.followers))
    deadline = time.perf_counter() + args.timeout * 3
    while sum(r.joined is not None or bool(r.errors) for r in results) < args.followers and time.perf_counter() < deadline:
        await asyncio.sleep(0.2)
    joined = sum(r.joined is not None for r in results)
    arrived_in = time.perf_counter() - began
    await asyncio.sleep(2)
    # idle: every follower's tab open, nothing moves
    cpu0, t0 = _cpu(pids), time.perf_counter()
    await asyncio.sleep(args.idle)
    idle_cores = (_cpu(pids) - cpu0) / (time.perf_counter() - t0)
    # answers, all at once: each follower submits its answer form over its websocket, as the Answer button does
    question = lectures.question_of(LECTURE, start)
    moved["correct"] = question.correct
    moved["answers soon"] = True
    await asyncio.sleep(1.5)  # every follower polls its websocket often from now on
    cpu_a = _cpu(pids)
    a0 = moved["answers"] = time.perf_counter()
    while time.perf_counter() - a0 < args.timeout and any(r.joined and r.form and r.answered is None and not r.errors
                                                          for r in results):
        await asyncio.sleep(0.05)
    moved.pop("answers soon")
    answer_cpu = _cpu(pids) - cpu_a
    answer_times = [r.answered for r in results if r.answered is not None]
    answer_seconds = max(answer_times, default=float("nan"))
    accepted = len(answer_times)
    counted = sum(rooms.counts(room.code).values())
    killed, back, counted_after = None, [], None
    if args.kill is not None:  # a replica dies mid-lecture: its followers come back through the hall
        victim = args.kill.servers[0]
        victim.kill()
        victim.wait(timeout=20)
        killed = time.perf_counter()
        await asyncio.sleep(2)
        deadline = killed + args.settle
        while time.perf_counter() < deadline and any(r.reconnected and r.back is None and not r.errors
                                                     for r in results):
            await asyncio.sleep(0.2)
        back = [r.back - killed for r in results if r.back is not None]
        counted_after = sum(rooms.counts(room.code).values())
        pids = [p for p in pids if p != victim.pid]
    # the slide change
    cpu1, own1 = _cpu(pids), time.process_time()
    moved["t"] = time.perf_counter()
    steps: dict = {}

    async def watch_room() -> None:  # when the room's slide changes, as the store holds it (polled every 20 ms)
        while "t" in moved and rooms.get(room.code).slide == start:
            await asyncio.sleep(0.02)
        steps["moved"] = time.perf_counter() - moved["t"]

    watcher = asyncio.create_task(watch_room())
    await lecturer_moves(port, room.code, key, start + 1, args.timeout, steps)
    await watcher
    moved_in = time.perf_counter() - moved["t"]
    await asyncio.gather(*tasks)
    change_cpu, client_cpu = _cpu(pids) - cpu1, time.process_time() - own1
    pushed = [r.pushed for r in results if r.pushed is not None]
    shown = [r.shown for r in results if r.shown is not None]
    errors = [e for r in results for e in r.errors]
    return dict(followers=args.followers, joined=joined, arrived_in=arrived_in, idle_cores=idle_cores,
                answers=accepted, counted=counted, answer_seconds=answer_seconds, answer_times=answer_times,
                answer_cpu=answer_cpu, pushed=pushed, shown=shown,
                change_cpu=change_cpu, client_cpu=client_cpu, errors=errors, moved_in=moved_in, steps=steps, slide=rooms.get(room.code).slide,
                reconnected=sum(r.reconnected > 0 for r in results),
                counted_after=counted_after, back=back)


def report(name: str, m: dict, idle: float) -> None:
    n = m["followers"]
    print(f"\n{name}: {n} followers")
    print(f"  joined                       {m['joined']} of {n} (arrivals over the first seconds; all in {m['arrived_in']:.1f} s)")
    print(f"  idle {idle:.0f} s, CPU of replicas+Redis {m['idle_cores']:.3f} cores")
    times = m["answer_times"]
    print(f"  answers at once (the form)   {m['answers']} of {n} runs done, the last {m['answer_seconds']:.2f} s after "
          f"(median {_quantile(times, 0.5):.2f} s); counted {m['counted']}; CPU {m['answer_cpu']:.1f} s "
          f"({m['answer_cpu'] / max(1, m['answers']) * 1000:.0f} ms per answer)")
    print(f"  the lecturer's page load     moved the room to slide {m['slide']}, its run done in {m['moved_in']:.2f} s")
    steps = m["steps"]
    print(f"    its steps                  HTML {steps['page']:.2f} s, websocket open {steps['websocket']:.2f} s, "
          f"room moved {steps['moved']:.2f} s, last element {steps['drawn']:.2f} s, run finished {steps['run']:.2f} s "
          f"({steps['messages']} messages)")
    for label, values in (("move -> first message", m["pushed"]), ("move -> new slide shown", m["shown"])):
        print(f"  {label:28} {len(values)} of {n}; median {statistics.median(values) if values else float('nan'):.2f} s, "
              f"p95 {_quantile(values, 0.95):.2f} s, max {max(values, default=float('nan')):.2f} s")
    print(f"  CPU of the slide change      {m['change_cpu']:.1f} s ({m['change_cpu'] / n * 1000:.0f} ms per follower); "
          f"this client's own (the {n} phones' websockets, on the same cores): {m['client_cpu']:.2f} s")
    if m.get("counted_after") is not None:
        print(f"  replica 1 of 2 killed        {m['reconnected']} followers reconnected through the hall, "
              f"{len(m['back'])} back on the slide, the last {max(m['back'], default=float('nan')):.1f} s after the "
              f"kill; answers counted after it: {m['counted_after']}")
    if m["errors"]:
        print(f"  errors ({len(m['errors'])}): " + "; ".join(sorted(set(m["errors"]))[:5]))


def machine_line(slide_number: int = 3) -> str:
    """This machine's speed, measured after the hall has stopped: the CPU of a run of one title
    (bench/reference_app.py: Streamlit's own cost) and of the new slide's run (its address without the room), each
    by one session alone on one server (bench/cpu_per_run.py). The hall's figures scale with them: the same code
    measured 2.0-2.2 and 7.6-7.9 ms on 2026-11-30 and gave a p95 of 1.5-2.0 s then."""
    from cpu_per_run import cpu_per_run  # imports this module: here, not at the top

    slide = lectures.load(LECTURE).slides[slide_number - 1]
    query = urllib.parse.urlencode([*slide.settings, ("lecture", LECTURE), ("slide", str(slide_number))])
    reference = cpu_per_run("bench/reference_app.py", runs=200)[0]
    own = cpu_per_run("app.py", slide.page, query, runs=200)[0]
    return (f"  this machine                 a run of one title {reference * 1000:.1f} ms of CPU, of the new slide "
            f"{own * 1000:.1f} ms (one session alone; 2.0-2.2 and 7.6-7.9 ms on 2026-11-30)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--followers", type=int, default=300)
    p.add_argument("--replicas", type=int, default=2)
    p.add_argument("--one-server", action="store_true", help="one `streamlit run app.py` with its SQLite file")
    p.add_argument("--arrive", type=float, default=20.0, help="seconds over which the followers arrive")
    p.add_argument("--idle", type=float, default=60.0, help="seconds of idle followers measured")
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--kill-replica", action="store_true",
                   help="the hall: kill replica 1 after the answers, before the move (its followers reconnect)")
    p.add_argument("--settle", type=float, default=120.0, help="seconds given to reconnections after the kill, at most")
    args = p.parse_args(argv)
    if not 1 <= args.followers <= 500:
        p.error("need 1 <= followers <= 500")
    from posenc.rooms import Rooms, SqliteStore

    args.kill = None
    if args.one_server:
        folder = Path(tempfile.mkdtemp(prefix="posenc-rooms-"))
        port = free_port(HOST)
        env = {**os.environ, "POSENC_ROOMS_DB": str(folder / "rooms.sqlite3"), "PYTHONUNBUFFERED": "1"}
        env.pop("POSENC_REDIS_URL", None)
        log = open(os.environ.get("POSENC_BENCH_SERVER_LOG", os.devnull), "w")  # closed below, with the server
        server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
                                   f"--server.port={port}", f"--server.address={HOST}", "--server.fileWatcherType=none"],
                                  cwd=ROOT, env=env, stdout=log, stderr=log)
        try:
            for _ in range(300):
                with contextlib.suppress(OSError), urllib.request.urlopen(f"http://{HOST}:{port}/_stcore/health", timeout=1):
                    break
                time.sleep(0.2)
            rooms = Rooms(SqliteStore(folder / "rooms.sqlite3"))
            result = asyncio.run(measure(port, rooms, _pids(None, server), args))
        finally:
            server.terminate()
            server.wait(timeout=20)
            log.close()
        report("one server (streamlit run app.py, SQLite)", result, args.idle)
        print(machine_line())
        return 0
    with Hall(args.replicas, free_port(HOST)) as hall:
        from posenc.rooms import RedisStore

        rooms = Rooms(RedisStore(hall.redis_url))
        args.kill = hall if args.kill_replica else None
        result = asyncio.run(measure(hall.port, rooms, _pids(hall, None), args))
    killed = ", replica 1 killed before the move" if args.kill_replica else ""
    report(f"the hall ({args.replicas} replicas, HAProxy, Redis{killed})", result, args.idle)
    print(machine_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
