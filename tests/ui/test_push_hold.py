"""The lecturer's run comes first: a run that moves a room holds this process's pushes of it until the run ends
(posenc.ui.push.hold and release; posenc.ui.room calls them), so the projector's slide is drawn before the
followers on the same server rerun beside it. bench/room_follow.py measures the lecturer's run (BENCHMARKS.md)."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from posenc.ui import push


class FakeRooms:
    def __init__(self) -> None:
        self.version = 1

    def get(self, code: str):
        return SimpleNamespace(version=self.version, lecture="sinusoidal", slide=2)


def settled(calls: list, count: int) -> list:
    """``calls`` once it holds ``count`` reruns (a release pushes from a timer, push.AFTER_RUN later) and 50 ms more,
    or after 5 s (push.HOLD_SECONDS: a hold still held ends then)."""
    deadline = time.monotonic() + 5
    while len(calls) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)  # and no more come
    return calls


@pytest.fixture
def pushed(monkeypatch):
    """The reruns asked for, as (code, session ids); one follower watching room ABCDE at version 0."""
    calls = []
    monkeypatch.setattr(push, "_rerun", lambda sessions, code, slide=None: calls.append((code, sorted(sessions))))
    monkeypatch.setattr(push, "_WATCHERS", {"ABCDE": {"s1": ("follower", 0, "room=ABCDE", "page")}})
    monkeypatch.setattr(push, "_HELD", {})
    monkeypatch.setattr(push, "_PENDING", {})
    monkeypatch.setattr(push, "AFTER_RUN", 0.01)
    return calls


def test_a_change_is_pushed_at_once_when_nothing_holds_the_room(pushed):
    push._changed(FakeRooms(), "ABCDE")
    assert pushed == [("ABCDE", ["s1"])]


def test_a_change_during_a_hold_is_pushed_once_when_the_hold_ends(pushed):
    rooms = FakeRooms()
    token = push.hold("ABCDE")
    push._changed(rooms, "ABCDE")
    push._changed(rooms, "ABCDE")  # the move and an answer, say: one push for both
    assert pushed == []
    push.release("ABCDE", token)
    assert settled(pushed, 1) == [("ABCDE", ["s1"])]
    push.release("ABCDE", token)  # twice: nothing more
    push.release("ABCDE", (None,))  # a token never given (equal to one, not it): nothing
    assert settled(pushed, 1) == [("ABCDE", ["s1"])] and push._HELD == {} and push._PENDING == {}


def test_the_last_of_two_holds_releases_and_other_rooms_are_not_held(pushed):
    push._WATCHERS["FGHJK"] = {"s2": ("follower", 0, "room=FGHJK", "page")}
    first, second = push.hold("ABCDE"), push.hold("ABCDE")
    push._changed(FakeRooms(), "ABCDE")
    push._changed(FakeRooms(), "FGHJK")
    assert pushed == [("FGHJK", ["s2"])]
    push.release("ABCDE", first)
    assert settled(pushed, 1) == [("FGHJK", ["s2"])]
    push.release("ABCDE", second)
    assert settled(pushed, 2) == [("FGHJK", ["s2"]), ("ABCDE", ["s1"])]


def test_a_hold_never_released_ends_by_itself(pushed, monkeypatch):
    monkeypatch.setattr(push, "HOLD_SECONDS", 0.1)
    push.hold("ABCDE")
    push._changed(FakeRooms(), "ABCDE")
    assert pushed == []
    assert settled(pushed, 1) == [("ABCDE", ["s1"])] and push._HELD == {}


def test_the_session_that_held_the_room_is_not_rerun_when_it_releases(pushed, monkeypatch):
    """Its run, ending, drew the room it moved: a push back to it was a second run of the lecturer's page (85
    messages instead of 45 in bench/room_follow.py), beside the hall's runs."""
    import streamlit.runtime.scriptrunner as scriptrunner

    push._WATCHERS["ABCDE"] |= {"lecturer": ("lecturer", 1, "room=ABCDE", "page"),
                                "other tab": ("lecturer", 1, "room=ABCDE", "page")}
    monkeypatch.setattr(scriptrunner, "get_script_run_ctx", lambda: SimpleNamespace(session_id="lecturer"))
    token = push.hold("ABCDE")
    push._changed(FakeRooms(), "ABCDE")
    push.release("ABCDE", token)
    assert settled(pushed, 1) == [("ABCDE", ["other tab", "s1"])]
