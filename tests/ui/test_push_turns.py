"""Followers rerun in turns (posenc.ui.push): AT_ONCE at a time, in the order pushed; a run's end gives its turn to
the next, a turn not given back ends by itself, a session gone passes its turn on, and a lecturer takes no turn.
bench/room_follow.py measures what turns give a hall (BENCHMARKS.md)."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from posenc.ui import push


class FakeLoop:
    """Streamlit's event loop, run in place: a callback runs at once, a timer on a thread."""

    def call_soon_threadsafe(self, callback, *args):
        callback(*args)

    def call_later(self, delay, callback, *args):
        timer = threading.Timer(delay, callback, args=args)
        timer.daemon = True
        timer.start()
        return timer


class FakeRuntime:
    def __init__(self) -> None:
        self.asked: list[str] = []  # session ids, in the order their reruns were asked
        self.gone: set[str] = set()
        self.loop = FakeLoop()
        self._session_mgr = self

    def _get_async_objs(self):
        return SimpleNamespace(eventloop=self.loop)

    def get_active_session_info(self, sid: str):
        if sid in self.gone:
            return None
        return SimpleNamespace(session=SimpleNamespace(request_rerun=lambda state: self.asked.append(sid)))


@pytest.fixture
def runtime(monkeypatch):
    fake = FakeRuntime()
    monkeypatch.setattr(push, "_loop", lambda: (fake, fake.loop))
    monkeypatch.setattr(push, "_WAITING", type(push._WAITING)())
    monkeypatch.setattr(push, "_TURNS", {})
    monkeypatch.setattr(push, "_WAKE", [])
    monkeypatch.setattr(push, "_WATCHERS", {})
    monkeypatch.setattr(push, "AT_ONCE", 2)
    return fake


def _followers(*ids: str, role: str = "follower") -> dict[str, tuple[str, str, str]]:
    return {sid: (f"room=ABCDE&at={sid}", "page", role) for sid in ids}


def test_followers_rerun_two_at_a_time_in_the_order_pushed(runtime):
    push._rerun(_followers("a", "b", "c", "d", "e"), "ABCDE")
    assert runtime.asked == ["a", "b"]
    push._turn_ended("b")
    assert runtime.asked == ["a", "b", "c"]
    push._turn_ended("b")  # twice, or a session that had no turn: nothing
    push._turn_ended("zzz")
    assert runtime.asked == ["a", "b", "c"]
    for sid in ("a", "c", "d"):
        push._turn_ended(sid)
    assert runtime.asked == ["a", "b", "c", "d", "e"] and not push._WAITING


def test_a_lecturer_reruns_at_once_and_takes_no_turn(runtime):
    push._rerun(_followers("a", "b", "c"), "ABCDE")
    push._rerun(_followers("lecturer", role="lecturer"), "ABCDE")
    assert runtime.asked == ["a", "b", "lecturer"] and set(push._TURNS) == {"a", "b"}


def test_a_follower_pushed_again_while_waiting_keeps_its_place_with_the_new_address(runtime):
    push._rerun(_followers("a", "b", "c", "d"), "ABCDE")
    push._rerun({"c": ("room=ABCDE&slide=new", "page", "follower")}, "ABCDE")
    assert list(push._WAITING) == ["c", "d"] and push._WAITING["c"][0] == "room=ABCDE&slide=new"


def test_a_session_gone_passes_its_turn_on_and_is_forgotten(runtime):
    push._WATCHERS["ABCDE"] = {"b": ("follower", 0, "room=ABCDE", "page")}
    runtime.gone.add("b")
    push._rerun(_followers("a", "b", "c"), "ABCDE")
    assert runtime.asked == ["a", "c"] and "b" not in push._WATCHERS["ABCDE"]


def test_a_turn_never_given_back_ends_by_itself(runtime, monkeypatch):
    """On a clock of the test's own and a timer it fires: a real 0.1 s timer could fire before the first
    assertion on a busy machine."""
    clock = [1000.0]
    monkeypatch.setattr(push, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    timers = []
    monkeypatch.setattr(runtime.loop, "call_later", lambda delay, callback, *args: timers.append(
        (delay, callback, args)))
    push._rerun(_followers("a", "b", "c"), "ABCDE")
    assert runtime.asked == ["a", "b"] and len(timers) == 1
    delay, callback, args = timers.pop()
    assert push.TURN_SECONDS <= delay <= push.TURN_SECONDS + 0.1  # woken as the first turn is overdue
    clock[0] += delay
    callback(*args)
    assert runtime.asked == ["a", "b", "c"] and not push._WAITING
