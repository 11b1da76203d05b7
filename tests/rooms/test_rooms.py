"""posenc.rooms on both stores (SQLite in a file, fakeredis): open, move, reveal, close, join, answer, counts,
the CSV, subscribers, expiry on an injected clock, and the refusals' sentences."""

from __future__ import annotations

import csv
import io
import re
import threading

import pytest
from room_fakes import LECTURE, questions

from posenc.rooms import CODE_ALPHABET, IDLE, Room, RoomError, Rooms


def refusal(call, *args, **kwargs) -> str:
    """The sentence of the RoomError ``call`` raises."""
    with pytest.raises(RoomError) as caught:
        call(*args, **kwargs)
    message = str(caught.value)
    assert message.endswith(".") and "\n" not in message and "Traceback" not in message, message
    return message


def test_the_alphabet_has_no_look_alikes():
    assert not set(CODE_ALPHABET) & set("0O1IL5S2Z8BUV")
    assert len(set(CODE_ALPHABET)) == len(CODE_ALPHABET) == 23


def test_open_gives_a_code_and_a_key_and_stores_only_its_hash(rooms, store):
    room, key = rooms.open(LECTURE, 1, opener="session-1")
    assert re.fullmatch(f"[{CODE_ALPHABET}]{{5}}", room.code)
    assert len(key) >= 32 and re.fullmatch(r"[A-Za-z0-9_-]+", key)  # token_urlsafe(24): 192 bits
    assert room == Room(room.code, LECTURE, 1, False, 1, room.opened_at, room.opened_at)
    assert rooms.get(room.code) == room
    assert rooms.get(f" {room.code.lower()} ") == room  # as a student types it
    found, stored = store.load(room.code, rooms.clock(), rooms.limits)
    assert stored != key and len(stored) == 64 and key not in repr(found)


def test_two_rooms_have_two_codes_and_keys(rooms):
    (one, key1), (two, key2) = rooms.open(LECTURE, 1, opener="a"), rooms.open(LECTURE, 1, opener="a")
    assert one.code != two.code and key1 != key2
    refusal(rooms.move, one.code, key2, 2)


def test_move_reveal_close_bump_the_version(rooms, clock):
    room, key = rooms.open(LECTURE, 1, opener="s")
    clock.advance(5)
    moved = rooms.move(room.code, key, 2)
    assert (moved.slide, moved.version, moved.revealed, moved.updated_at) == (2, 2, False, clock.now)
    assert rooms.move(room.code, key, 2) == moved  # the same slide: nothing changes
    revealed = rooms.reveal(room.code, key)
    assert (revealed.revealed, revealed.version) == (True, 3)
    assert rooms.reveal(room.code, key) == revealed
    again = rooms.move(room.code, key, 3)
    assert (again.slide, again.revealed, again.version) == (3, False, 4)
    back = rooms.move(room.code, key, 2)
    assert not back.revealed  # a move hides the answer again
    rooms.close(room.code, key)
    assert "closed" in refusal(rooms.get, room.code)
    assert "closed" in refusal(rooms.move, room.code, key, 1)


def test_the_lecturer_key_is_needed(rooms):
    room, key = rooms.open(LECTURE, 1, opener="s")
    for wrong in ("", key[:-1] + ("A" if key[-1] != "A" else "B"), "x" * 64, "x" * 10_000_000, None, 42):
        for call in (lambda k: rooms.move(room.code, k, 2), lambda k: rooms.reveal(room.code, k),
                     lambda k: rooms.close(room.code, k), lambda k: rooms.answers_csv(room.code, k)):
            assert "lecturer" in refusal(call, wrong)
    assert rooms.get(room.code) == room


def test_slides_are_whole_numbers_within_the_lecture(rooms):
    room, key = rooms.open(LECTURE, 1, opener="s")
    for bad in (0, -1, 1.5, "2", True, None, 10**30):
        refusal(rooms.move, room.code, key, bad)
    assert "last is 5" in refusal(rooms.move, room.code, key, 6, max_slide=5)
    assert rooms.move(room.code, key, 5, max_slide=5).slide == 5
    for bad in (0, "1", 2.0):
        refusal(rooms.open, LECTURE, bad, opener="s")


def test_reveal_needs_a_question(rooms):
    room, key = rooms.open(LECTURE, 1, opener="s")
    assert "no question" in refusal(rooms.reveal, room.code, key)


def test_codes_are_checked(rooms):
    for bad in ("", "ABCD", "ABCDEF", "A0CDE", "SSSSS", "x" * 10_000_000, None, 12345, "ACDE\n"):
        refusal(rooms.get, bad)
    assert "no room" in refusal(rooms.get, "ACDEF").lower()


def test_followers_join_leave_and_are_counted(rooms):
    room, _ = rooms.open(LECTURE, 1, opener="s")
    one, two = rooms.new_follower(), rooms.new_follower()
    assert one != two
    assert rooms.join(room.code, one) == room
    rooms.join(room.code, one)
    rooms.join(room.code, two)
    assert rooms.following(room.code) == 2
    rooms.leave(room.code, one)
    rooms.leave(room.code, one)
    assert rooms.following(room.code) == 1


def test_follower_tokens_are_signed_by_the_server(rooms, store, clock):
    room, _ = rooms.open(LECTURE, 1, opener="s")
    token = rooms.new_follower()
    follower, mac = token.split(".")
    forged = [follower + "." + mac[:-1] + ("A" if mac[-1] != "A" else "B"), "x" * 16 + "." + mac, follower,
              "", "a.b", token + "x", token * 1000, None]
    for bad in forged:
        assert "token" in refusal(rooms.join, room.code, bad)
    assert rooms.following(room.code) == 0
    # another Rooms on the same store (another replica) accepts the token: the secret is the store's
    assert Rooms(store, questions=questions, clock=clock).join(room.code, token) == room


def test_answers_one_per_follower_the_last_counts(rooms):
    room, key = rooms.open(LECTURE, 2, opener="s")
    a, b, c = (rooms.new_follower() for _ in range(3))
    assert rooms.answer(room.code, a, 2, " 1 ") == "1"
    assert rooms.answer(room.code, b, 2, "1") == "1"
    assert rooms.answer(room.code, c, 2, "0") == "0"
    assert rooms.counts(room.code) == {"0": 1, "1": 2}
    assert rooms.answer(room.code, a, 2, "2") == "2"  # a's new answer replaces theirs
    assert rooms.counts(room.code) == {"0": 1, "1": 1, "2": 1}
    assert rooms.counts(room.code, 2) == rooms.counts(room.code)
    rooms.move(room.code, key, 3)
    assert rooms.answer(room.code, a, 3, "64.2") == "64.2"
    assert rooms.counts(room.code) == {"64.2": 1}
    assert rooms.counts(room.code, 2) == {"0": 1, "1": 1, "2": 1}


def test_answers_only_to_the_current_unrevealed_question(rooms):
    room, key = rooms.open(LECTURE, 1, opener="s")
    token = rooms.new_follower()
    assert "no question" in refusal(rooms.answer, room.code, token, 1, "1")
    rooms.move(room.code, key, 2)
    assert "slide 2" in refusal(rooms.answer, room.code, token, 3, "1")
    assert "0 to 2" in refusal(rooms.answer, room.code, token, 2, "7")
    assert "64 characters" in refusal(rooms.answer, room.code, token, 2, "1" * 65)
    refusal(rooms.answer, room.code, token, 2, None)
    rooms.answer(room.code, token, 2, "1")
    rooms.reveal(room.code, key)
    assert "revealed" in refusal(rooms.answer, room.code, token, 2, "0")
    assert rooms.counts(room.code) == {"1": 1}
    rooms.move(room.code, key, 3)
    for bad in ("nan", "inf", "-inf", "1e999", "sixty-four", ""):
        refusal(rooms.answer, room.code, token, 3, bad)
    assert rooms.counts(room.code) == {}
    rooms.close(room.code, key)
    assert "closed" in refusal(rooms.answer, room.code, token, 3, "64")


def test_a_question_that_fails_is_a_refusal_not_a_crash(store, clock):
    class Broken:
        kind = "choice"
        text = "?"

        def accepts(self, value):
            raise KeyError("boom")

    rooms = Rooms(store, questions=lambda lecture, slide: Broken(), clock=clock)
    room, _ = rooms.open(LECTURE, 1, opener="s")
    assert refusal(rooms.answer, room.code, rooms.new_follower(), 1, "1") == "That answer is not one this question takes."
    rooms = Rooms(store, questions=lambda lecture, slide: 1 / 0, clock=clock)
    assert "no question" in refusal(rooms.answer, room.code, rooms.new_follower(), 1, "1")


def test_the_csv_has_every_answer_with_anonymous_followers(rooms, clock):
    room, key = rooms.open(LECTURE, 2, opener="s")
    a, b = rooms.new_follower(), rooms.new_follower()
    rooms.answer(room.code, a, 2, "1")
    clock.advance(1)
    rooms.answer(room.code, b, 2, "0")
    rooms.move(room.code, key, 3)
    clock.advance(1)
    rooms.answer(room.code, a, 3, "63.9")
    rows = list(csv.DictReader(io.StringIO(rooms.answers_csv(room.code, key))))
    assert [r["slide"] for r in rows] == ["2", "2", "3"]
    assert [r["answer"] for r in rows] == ["1", "0", "63.9"]
    assert [r["question"] for r in rows] == ["Which choice?", "Which choice?", "How many positions?"]
    assert rows[0]["follower"] == rows[2]["follower"] != rows[1]["follower"]
    assert all(re.fullmatch(r"[0-9a-f]{10}", r["follower"]) for r in rows)
    assert not any(r["follower"] in token for r in rows for token in (a, b))
    assert rows[0]["answered_at"] == "2027-01-15T08:00:00Z" and rows[2]["answered_at"] == "2027-01-15T08:00:02Z"
    rooms.close(room.code, key)
    assert rooms.answers_csv(room.code, key).count("\n") == 4  # the lecturer's record outlives the close


def test_subscribers_hear_every_change(rooms):
    heard, lock = [], threading.Lock()

    def hear(code):
        with lock:
            heard.append(code)

    def fail(code):
        raise RuntimeError("a subscriber's bug")

    rooms.subscribe(fail)
    rooms.subscribe(hear)
    room, key = rooms.open(LECTURE, 1, opener="s")
    token = rooms.new_follower()
    rooms.join(room.code, token)
    rooms.move(room.code, key, 2)
    rooms.answer(room.code, token, 2, "1")
    rooms.reveal(room.code, key)
    rooms.close(room.code, key)
    from room_fakes import wait_for

    assert wait_for(lambda: len(heard) >= 6), heard
    assert set(heard) == {room.code}
    refusal(rooms.subscribe, "not a function")


def test_rooms_idle_for_12_hours_expire(rooms, clock):
    room, key = rooms.open(LECTURE, 2, opener="s")
    token = rooms.new_follower()
    clock.advance(IDLE - 60)
    rooms.answer(room.code, token, 2, "1")  # an answer is activity: the 12 hours start again
    clock.advance(IDLE - 60)
    assert rooms.get(room.code).slide == 2
    clock.advance(61)
    assert "expired" in refusal(rooms.get, room.code)
    refusal(rooms.move, room.code, key, 3)
    refusal(rooms.answer, room.code, token, 2, "1")
    refusal(rooms.answers_csv, room.code, key)
    refusal(rooms.join, room.code, token)


def test_an_expired_code_can_be_drawn_again(store, clock):
    rooms = Rooms(store, questions=questions, clock=clock)
    room, key = rooms.open(LECTURE, 2, opener="s")
    rooms.answer(room.code, rooms.new_follower(), 2, "1")
    clock.advance(IDLE + 1)
    fresh = Room(room.code, LECTURE, 1, False, 1, clock.now, clock.now)
    assert store.create(fresh, "0" * 64, "other", clock.now, rooms.limits) == "ok"
    assert rooms.get(room.code) == fresh
    assert rooms.counts(room.code, 2) == {}  # nothing of the old room


def test_the_real_lectures_questions_when_there_are_some(store, clock):
    lectures = pytest.importorskip("posenc.lectures")
    if not hasattr(lectures, "question_of"):
        pytest.skip("posenc.lectures.question_of is not there yet")
    found = [(name, slide) for name in lectures.names() for slide in range(1, len(lectures.load(name).slides) + 1)
             if lectures.question_of(name, slide) is not None]
    if not found:
        pytest.skip("no shipped lecture has a question yet")
    name, slide = found[0]
    rooms = Rooms(store, clock=clock)  # the default questions: posenc.lectures.question_of
    room, key = rooms.open(name, slide, opener="s")
    question = lectures.question_of(name, slide)
    value = "0" if question.kind == "choice" else str(float(question.correct))
    assert rooms.answer(room.code, rooms.new_follower(), slide, value) == question.accepts(value)
    assert sum(rooms.counts(room.code).values()) == 1
    assert rooms.reveal(room.code, key).revealed
