"""A follower's Answer reruns the answer form alone, not the phone's whole page (issue 34: 300 answers within 5 s).

posenc.ui.room draws the form in an ``st.fragment``: pressing Answer sends the fragment's id with the form's state,
and the server reruns that function only (the form, the note of a refusal, the answer kept), not the sidebar, the
slide's view and its charts. bench/room_follow.py measured a follower's answer at 48-51 ms of the server's CPU as a
run of the page and 7-8 ms as the fragment's (BENCHMARKS.md).

One `streamlit run app.py` with its SQLite rooms file; one follower's session over the websocket, as its phone's
tab (the benchmark's protocol and its light client, bench/phone_socket.py): its first run of the slide, then its
answer as the Answer button sends it.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from urllib.parse import urlencode

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import phone_socket  # noqa: E402
import room_follow  # noqa: E402
from loadtest import MAX_MESSAGE_BYTES  # noqa: E402
from posenc import lectures  # noqa: E402
from posenc.rooms import Rooms, SqliteStore  # noqa: E402
from streamlit_server import free_port, start_server, stop_server  # noqa: E402

HOST = "127.0.0.1"
SLIDE = 2  # the sinusoidal lecture's slide 2 asks a choice


def elements(messages: list[ForwardMsg]) -> list[ForwardMsg]:
    return [m for m in messages if m.WhichOneof("type") == "delta" and m.delta.WhichOneof("type") == "new_element"]


async def follow_and_answer(port: int, page: str, query: str, correct: str):
    """The follower's first run of the slide, then its answer: (the first run's messages, the form's ids, the
    answer's run's messages)."""
    async with await phone_socket.connect(HOST, port, timeout=60, max_size=MAX_MESSAGE_BYTES) as ws:
        seen = await room_follow.run_page(ws, query, page, 60)
        follower = room_follow.Follower(form=room_follow.answer_form(seen), address=(page, query))
        await ws.send(room_follow.answer_message(follower, correct))
        answered = await room_follow.read_run(ws, 60)
    return ([ForwardMsg.FromString(raw) for raw in seen], follower.form,
            [ForwardMsg.FromString(raw) for raw in answered])


def test_an_answer_reruns_the_form_alone_and_is_counted_once(tmp_path, monkeypatch):
    database = tmp_path / "rooms.sqlite3"
    monkeypatch.setenv("POSENC_ROOMS_DB", str(database))  # the server's rooms: this test's file
    monkeypatch.delenv("POSENC_REDIS_URL", raising=False)
    port = free_port(HOST)
    server = start_server(str(ROOT / "app.py"), HOST, port, tmp_path / "server.log")
    try:
        rooms = Rooms(SqliteStore(database))
        room, _ = rooms.open(room_follow.LECTURE, SLIDE, opener="test")
        slide = lectures.load(room_follow.LECTURE).slides[SLIDE - 1]
        question = lectures.question_of(room_follow.LECTURE, SLIDE)
        query = urlencode([*slide.settings, ("lecture", room_follow.LECTURE), ("slide", str(SLIDE)),
                           ("room", room.code)])
        first, form, answer = asyncio.run(follow_and_answer(port, slide.page, query, question.correct))
        counts = rooms.counts(room.code)
    finally:
        stop_server(server)

    assert form.get("fragment"), f"the answer form is not drawn in a fragment: {form}"
    assert answer[-1].script_finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
    drawn = elements(answer)
    assert all(m.delta.fragment_id == form["fragment"] for m in drawn), "the answer redrew more than its form"
    assert len(drawn) <= 6 < len(elements(first)) // 4, (len(drawn), len(elements(first)))
    captions = [m.delta.new_element.markdown.body for m in drawn if m.delta.new_element.WhichOneof("type") == "markdown"]
    assert any(body.startswith("Your answer:") for body in captions), captions
    assert sum(counts.values()) == 1 and counts.get(question.correct) == 1, counts
