"""A server freezes what its sessions share after a run, only while few sessions are open
(posenc/ui/collector.py)."""

from __future__ import annotations

import asyncio
import gc
import sys
import time
import types

import pytest

from live_app import running_app
from posenc.ui import collector


@pytest.fixture
def fresh(monkeypatch):
    """A collector that has frozen nothing yet; whatever a test freezes is unfrozen after it."""
    monkeypatch.setattr(collector, "_modules_frozen", 0)
    yield
    gc.unfreeze()


def test_freezes_after_a_run_with_few_sessions_and_again_only_after_new_imports(fresh, monkeypatch):
    assert collector.freeze_shared(lambda: 1)
    assert gc.get_freeze_count() > 0
    assert not collector.freeze_shared(lambda: 1)  # nothing imported since: one comparison, no freeze
    gc.unfreeze()
    monkeypatch.setitem(sys.modules, "posenc_test_new_module", types.ModuleType("posenc_test_new_module"))
    assert collector.freeze_shared(lambda: 1)  # another page's first visit imported a module
    assert gc.get_freeze_count() > 0


@pytest.mark.parametrize("sessions", [None, collector.MAX_SESSIONS + 1, 300])
def test_no_freeze_without_a_server_or_with_many_sessions_open(fresh, sessions):
    assert not collector.freeze_shared(lambda: sessions)
    assert gc.get_freeze_count() == 0
    assert collector.freeze_shared(lambda: collector.MAX_SESSIONS)  # later, once the room is quiet


def test_outside_a_server_there_are_no_sessions_to_count():
    assert collector.open_sessions() is None  # pytest, a notebook, AppTest: no Streamlit runtime


SCRIPT = """
import gc
import streamlit as st
from posenc.ui import collector
st.markdown(f"sessions={collector.open_sessions()} froze={collector.freeze_shared()} frozen={gc.get_freeze_count()}")
"""


async def _markdown_of_a_run(port: int) -> str:
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    async with websockets.connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"],
                                  proxy=None, open_timeout=30) as ws:
        msg = BackMsg()
        msg.rerun_script.query_string = ""
        msg.rerun_script.widget_states.SetInParent()
        await ws.send(msg.SerializeToString())
        async with asyncio.timeout(60):
            while True:
                forward = ForwardMsg()
                forward.ParseFromString(await ws.recv())
                if forward.WhichOneof("type") == "delta" and forward.delta.new_element.WhichOneof("type") == "markdown":
                    return forward.delta.new_element.markdown.body


def test_a_streamlit_server_counts_its_sessions_and_freezes(tmp_path):
    """Streamlit's session manager is private API: this pins that posenc reads it on the pinned Streamlit."""
    script = tmp_path / "count.py"
    script.write_text(SCRIPT)
    with running_app(script=script) as (url, _process):
        body = asyncio.run(_markdown_of_a_run(int(url.rsplit(":", 1)[1])))
    fields = dict(part.split("=") for part in body.split())
    assert fields["sessions"] == "1" and fields["froze"] == "True" and int(fields["frozen"]) > 10_000


@pytest.fixture
def collector_on():
    gc.enable()
    yield
    collector.resume()
    gc.enable()


def test_a_pause_holds_the_collections_until_resumed(collector_on):
    collector.pause()
    assert not gc.isenabled()
    collector.pause()  # a second pause moves its end: still one to resume
    collector.resume()
    assert gc.isenabled()
    collector.resume()  # resuming twice does nothing
    assert gc.isenabled()


def test_a_pause_ends_by_itself(collector_on):
    collector.pause(60)
    assert not gc.isenabled()
    collector.pause(0.05)  # a new pause moves the end (asserting "off" after a 50 ms timer would race a busy machine)
    deadline = time.monotonic() + 5
    while not gc.isenabled() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert gc.isenabled()


def test_a_superseded_timer_that_fires_late_does_not_end_the_new_pause(collector_on):
    collector.pause(60)
    old = collector._paused[0]
    collector.pause(60)  # cancels old; had old already been firing, its callback would run now:
    old.function()
    assert not gc.isenabled()
    collector.resume()
    assert gc.isenabled()


def test_a_collector_off_for_another_reason_stays_off(collector_on):
    gc.disable()
    collector.pause()
    collector.resume()
    assert not gc.isenabled()  # not this module's to turn on


def test_a_push_to_followers_pauses_the_collections_until_the_last_turn_ends(collector_on, monkeypatch):
    from types import SimpleNamespace

    from posenc.ui import push

    asked = []
    session = SimpleNamespace(request_rerun=lambda state: asked.append(state.query_string))
    runtime = SimpleNamespace(_session_mgr=SimpleNamespace(get_active_session_info=lambda sid: SimpleNamespace(
        session=session)), _get_async_objs=lambda: SimpleNamespace(eventloop=SimpleNamespace(
            call_later=lambda *args: "a timer")))  # (a turn not given back would end by it)
    monkeypatch.setattr(push, "_loop", lambda: (runtime, SimpleNamespace(call_soon_threadsafe=lambda f, *a: f(*a))))
    monkeypatch.setattr(push, "_WAITING", type(push._WAITING)())
    monkeypatch.setattr(push, "_TURNS", {})
    monkeypatch.setattr(push, "_WAKE", [])
    monkeypatch.setattr(push, "AT_ONCE", 1)
    push._rerun_now(runtime, {"a": ("at=a", "page", "follower"), "b": ("at=b", "page", "follower")}, "ABCDE")
    assert asked == ["at=a"] and not gc.isenabled()
    push._turn_ended("a")
    assert asked == ["at=a", "at=b"] and not gc.isenabled()
    push._turn_ended("b")
    assert gc.isenabled()
