"""Rooms across processes: two replicas on a real Redis (Debian's redis-server, started here), a change heard
by the other replica within a second, a Redis killed and started again (append-only file), and an app restarted
on its SQLite file."""

from __future__ import annotations

import threading
import time

import pytest
from room_fakes import LECTURE, questions, wait_for

from posenc.rooms import Rooms, SqliteStore
from posenc.rooms.redisstore import RedisStore


@pytest.fixture
def replica(redis_server):
    """``replica()``: one app replica on the test's Redis, its own client (its own connections) and its own Rooms;
    every one made is closed after the test."""
    made: list[Rooms] = []

    def new() -> Rooms:
        made.append(Rooms(RedisStore(redis_server.url), questions=questions))
        return made[-1]

    yield new
    for rooms in reversed(made):
        rooms.store.close()


def snapshot(rooms: Rooms, code: str, key: str):
    return rooms.get(code), rooms.counts(code, 2), rooms.counts(code, 3), rooms.answers_csv(code, key), \
        rooms.following(code)


def test_two_replicas_see_one_room(replica):
    one, two = replica(), replica()
    room, key = one.open(LECTURE, 2, opener="lecturer")
    assert two.get(room.code) == room
    token = two.new_follower()
    assert one.join(room.code, token) == room  # a token made by one replica is good on the other
    two.answer(room.code, token, 2, "1")
    one.answer(room.code, one.new_follower(), 2, "2")
    assert one.counts(room.code) == two.counts(room.code) == {"1": 1, "2": 1}
    moved = two.move(room.code, key, 3)  # the key works on any replica
    assert one.get(room.code) == moved and moved.version == 2
    assert one.following(room.code) == two.following(room.code) == 1


def test_concurrent_moves_and_answers_lose_nothing(replica):
    lecturer, hall = replica(), replica()
    room, key = lecturer.open(LECTURE, 2, opener="lecturer")
    tokens = [hall.new_follower() for _ in range(60)]
    errors = []

    def answer(chunk):
        for token in chunk:
            try:
                hall.answer(room.code, token, 2, str(len(token) % 3))
            except Exception as error:  # noqa: BLE001 - collected, asserted below
                errors.append(error)

    def move(slides):  # each thread alternates between two slides of its own: every move is a change
        for _ in range(5):
            for slide in slides:
                lecturer.move(room.code, key, slide)

    threads = [threading.Thread(target=answer, args=(tokens[i::3],)) for i in range(3)]
    threads += [threading.Thread(target=move, args=(slides,)) for slides in ((1, 2), (3, 4))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    final = lecturer.get(room.code)
    assert final.version == 1 + 2 * 2 * 5  # every move counted once, none lost to a race
    accepted = len(tokens) - len(errors)
    assert sum(lecturer.counts(room.code, 2).values()) == accepted
    assert all("slide" in str(error) for error in errors)  # refused only while the room was on slide 1


def test_subscribe_hears_another_replicas_move_within_a_second(replica):
    lecturer, follower_side = replica(), replica()
    room, key = lecturer.open(LECTURE, 1, opener="lecturer")
    heard = threading.Event()
    at = {}

    def hear(code):
        if code == room.code and follower_side.get(code).slide == 2:
            at["heard"] = time.perf_counter()
            heard.set()

    follower_side.subscribe(hear)
    started = time.perf_counter()
    lecturer.move(room.code, key, 2)
    assert heard.wait(1.0), "the other replica did not hear the move within 1 s"
    print(f"\nmove heard by the other replica after {1000 * (at['heard'] - started):.1f} ms")


def test_a_killed_redis_comes_back_with_its_rooms_and_answers(replica, redis_server):
    before = replica()
    room, key = before.open(LECTURE, 2, opener="lecturer")
    tokens = [before.new_follower() for _ in range(3)]
    for token, value in zip(tokens, ("0", "1", "1")):
        before.join(room.code, token)
        before.answer(room.code, token, 2, value)
    before.move(room.code, key, 3)
    before.answer(room.code, tokens[0], 3, "64")
    heard = []
    before.subscribe(heard.append)
    state = snapshot(before, room.code, key)

    redis_server.kill()  # SIGKILL: no shutdown, no final save
    with pytest.raises(Exception) as down:
        before.get(room.code)
    assert "cannot be reached" in str(down.value)  # a refusal, not a redis traceback
    redis_server.start()

    after = replica()
    assert snapshot(after, room.code, key) == state
    assert state[1] == {"0": 1, "1": 2} and state[2] == {"64.0": 1}
    after.answer(room.code, tokens[1], 3, "63")  # old tokens still good: the secret survived too
    assert after.counts(room.code) == {"64.0": 1, "63.0": 1}
    # the old replica reconnects by itself, and so does its subscriber
    assert before.get(room.code).slide == 3
    assert wait_for(lambda: before.store._listening.is_set(), timeout=10)
    heard.clear()
    after.move(room.code, key, 4)
    assert wait_for(lambda: room.code in heard, timeout=2), "the old replica's subscriber did not come back"


def test_an_app_restarted_on_its_sqlite_file_keeps_its_rooms(tmp_path):
    path = tmp_path / "state" / "rooms.sqlite3"
    path.parent.mkdir()
    first = Rooms(SqliteStore(path), questions=questions)
    room, key = first.open(LECTURE, 2, opener="lecturer")
    token = first.new_follower()
    first.join(room.code, token)
    first.answer(room.code, token, 2, "2")
    state = snapshot(first, room.code, key)
    first.store.close()  # the app stops

    second = Rooms(SqliteStore(path), questions=questions)  # the app starts again on the same file
    try:
        assert snapshot(second, room.code, key) == state
        assert second.answer(room.code, token, 2, "0") == "0"  # the follower's token is still good
        assert second.move(room.code, key, 3).version == 2
    finally:
        second.store.close()
