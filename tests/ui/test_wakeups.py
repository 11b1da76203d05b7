"""posenc.ui.wakeups: a session's callbacks reach the event loop in order, in batches, none lost."""

from __future__ import annotations

import asyncio
import threading

import pytest
from streamlit.runtime import app_session, runtime
from streamlit.runtime.runtime import AsyncObjects

from posenc.ui import wakeups


class _Session:
    """What the batching reads of an AppSession: its event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._event_loop = loop


@pytest.fixture
def installed():
    before, enqueued = app_session.AppSession._call_soon_on_event_loop, runtime.Runtime._enqueued_some_message
    wakeups.install()
    wakeups.install()  # twice: still one layer
    yield app_session.AppSession._call_soon_on_event_loop
    app_session.AppSession._call_soon_on_event_loop = before
    runtime.Runtime._enqueued_some_message = enqueued


@pytest.fixture
def loop():
    """An event loop running in a thread of its own, as Streamlit's server runs it; counts its wake-ups."""
    loop = asyncio.new_event_loop()
    wakes = []
    plain = loop.call_soon_threadsafe

    def counted(callback, *args, **kwargs):
        wakes.append(callback)
        return plain(callback, *args, **kwargs)

    loop.call_soon_threadsafe = counted
    loop.wakes = wakes
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield loop
    plain(loop.stop)
    thread.join(5)
    loop.close()


def _on_loop(loop, function) -> None:
    done = threading.Event()
    loop.call_soon_threadsafe(lambda: (function(), done.set()))
    assert done.wait(5)


def test_install_replaces_streamlit_s_method_once(installed):
    assert installed is wakeups._call_soon_batched
    assert wakeups._ORIGINAL is not wakeups._call_soon_batched
    assert runtime.Runtime._enqueued_some_message is wakeups._enqueued_on_loop


class _Runtime:
    """What Runtime._enqueued_some_message reads: its loop and the event its send loop waits on."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._async_objs = AsyncObjects(eventloop=loop, must_stop=asyncio.Event(), has_connection=asyncio.Event(),
                                        need_send_data=asyncio.Event(), started=loop.create_future(),
                                        stopped=loop.create_future())

    def _get_async_objs(self):
        return self._async_objs


def test_a_message_queued_on_the_loop_sets_the_send_event_in_place_and_from_a_thread_wakes_the_loop(installed, loop):
    """Every message a session's queue takes, on the loop, wrote to the loop's wake-up pipe to set an event the
    loop could set itself: now it is set in place (and left alone when set), with no wake-up; from a script's
    thread the loop is woken as before."""
    server = _Runtime(loop)
    event = server._async_objs.need_send_data
    before = len(loop.wakes)
    for _ in range(30):
        _on_loop(loop, lambda: runtime.Runtime._enqueued_some_message(server))
    assert event.is_set() and len(loop.wakes) - before == 30  # _on_loop's own, none of the messages'
    _on_loop(loop, event.clear)
    before = len(loop.wakes)
    runtime.Runtime._enqueued_some_message(server)  # from this thread: Streamlit's call_soon_threadsafe
    _on_loop(loop, lambda: None)
    assert event.is_set() and len(loop.wakes) - before == 2


def test_callbacks_queued_while_the_loop_is_busy_run_in_order_after_one_wake_up(installed, loop):
    session = _Session(loop)
    busy, ran = threading.Event(), []
    loop.call_soon_threadsafe(busy.wait)  # the loop is sending another session's messages meanwhile
    before = len(loop.wakes)
    for number in range(1000):
        app_session.AppSession._call_soon_on_event_loop(session, lambda number=number: ran.append(number))
    busy.set()
    _on_loop(loop, lambda: None)
    assert ran == list(range(1000))
    assert len(loop.wakes) - before == 1 + 1  # the batch's one wake-up, and _on_loop's own


def test_every_callback_runs_on_the_loop_thread_from_many_threads(installed, loop):
    session, ran, threads_seen = _Session(loop), [], set()

    def queue(start: int) -> None:
        for number in range(start, start + 500):
            app_session.AppSession._call_soon_on_event_loop(
                session, lambda number=number: (ran.append(number), threads_seen.add(threading.get_ident())))

    workers = [threading.Thread(target=queue, args=(start,)) for start in (0, 500, 1000)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    _on_loop(loop, lambda: None)
    assert sorted(ran) == list(range(1500))
    for start in (0, 500, 1000):  # each thread's own callbacks in the order it queued them
        assert [n for n in ran if start <= n < start + 500] == list(range(start, start + 500))
    assert len(threads_seen) == 1 and threading.get_ident() not in threads_seen


def test_a_callback_that_raises_is_reported_and_the_next_ones_still_run(installed, loop):
    session, ran, reported = _Session(loop), [], []
    loop.set_exception_handler(lambda _loop, context: reported.append(context["exception"]))
    busy = threading.Event()
    loop.call_soon_threadsafe(busy.wait)

    def boom() -> None:
        raise ValueError("a broken callback")

    for callback in (lambda: ran.append(1), boom, lambda: ran.append(2)):
        app_session.AppSession._call_soon_on_event_loop(session, callback)
    busy.set()
    _on_loop(loop, lambda: None)
    assert ran == [1, 2]
    assert [str(error) for error in reported] == ["a broken callback"]
    app_session.AppSession._call_soon_on_event_loop(session, lambda: ran.append(3))  # the queue still wakes
    _on_loop(loop, lambda: None)
    assert ran == [1, 2, 3]


def test_a_closed_loop_drops_the_callbacks_without_an_error(installed):
    loop = asyncio.new_event_loop()
    loop.close()
    session = _Session(loop)
    app_session.AppSession._call_soon_on_event_loop(session, lambda: None)
    app_session.AppSession._call_soon_on_event_loop(session, lambda: None)
    assert not session.__dict__[wakeups._QUEUE]  # nothing kept for a loop that will never run it
