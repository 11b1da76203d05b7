"""One wake-up of the server's event loop per batch of a session's messages, not one per message.

A run's script thread hands each message it makes (every element, every status) to Streamlit's event
loop with ``call_soon_threadsafe``: a write to the loop's wake-up pipe, the loop woken, the interpreter
lock passed to it and back, 35 times in a run of a lecture slide. With 150 followers of a room rerun
at once on one replica, the pipe write was the most sampled frame of the script threads (py-spy; the
samples include waits for the lock, so they overstate its CPU: see the measurement below).

:func:`install` makes ``AppSession._call_soon_on_event_loop`` append the callback to the session's own
queue and wake the loop only when that queue was empty; the loop then runs the session's callbacks in
the order they were queued, those added meanwhile included, in one go. Nothing else changes: the same
callbacks, in the same order, on the same loop. A callback that raises is reported to the loop's
exception handler (as asyncio does for a plain callback) and the ones after it still run. A closed
loop drops the callbacks, as Streamlit's own method does.

Measured (BENCHMARKS.md, "A run's messages wake the event loop once a batch"): a lecture slide's run, 20
sessions on a server pinned to one core, five alternating rounds: median 9.4 -> 8.7 ms of CPU (4 rounds of 5
lower). On the rooms' benchmark the gain is within this machine's noise (pairs of runs went both ways).

The loop then wrote to its own wake-up pipe once more per message, from itself: each message it puts in a
session's queue tells Streamlit's Runtime, whose ``_enqueued_some_message`` sets the "data to send" event with
``call_soon_threadsafe`` from whatever thread it is on (a write to the pipe, the loop woken to read it, and a
callback to run). :func:`install` also makes it set the event directly when it is on the loop's own thread, as
``call_soon`` would a moment later (setting a set event changes nothing: the loop clears it before it sends
what every queue holds). From another thread it goes the old way.
"""

from __future__ import annotations

import asyncio
import collections
import threading
from collections.abc import Callable

from streamlit.runtime import app_session, runtime

_LOCK = threading.Lock()  # guards every session's queue (held for an append or a pop only)
_QUEUE = "_posenc_waiting_callbacks"
_ORIGINAL = getattr(app_session.AppSession, "_call_soon_on_event_loop", None)
_ORIGINAL_ENQUEUED = getattr(runtime.Runtime, "_enqueued_some_message", None)


def install() -> None:
    """Batch the session callbacks of this process and set the send event in place on the loop (idempotent; a
    Streamlit without these methods is left as is)."""
    if _ORIGINAL is not None and app_session.AppSession._call_soon_on_event_loop is _ORIGINAL:
        app_session.AppSession._call_soon_on_event_loop = _call_soon_batched
    if _ORIGINAL_ENQUEUED is not None and runtime.Runtime._enqueued_some_message is _ORIGINAL_ENQUEUED:
        runtime.Runtime._enqueued_some_message = _enqueued_on_loop


def _enqueued_on_loop(self) -> None:
    """Runtime._enqueued_some_message: a message waits in a session's queue; the loop must send it."""
    objects = self._async_objs
    if objects is not None and asyncio._get_running_loop() is objects.eventloop:  # on the loop's own thread
        objects.need_send_data.set()
        return
    _ORIGINAL_ENQUEUED(self)


def _call_soon_batched(session, callback: Callable[[], None]) -> None:
    """Queue ``callback`` for the session's event loop; wake the loop only if nothing was waiting."""
    with _LOCK:
        waiting = session.__dict__.get(_QUEUE)
        if waiting is None:
            waiting = session.__dict__[_QUEUE] = collections.deque()
        was_empty = not waiting
        waiting.append(callback)
    if was_empty:
        _ORIGINAL(session, lambda: _run_waiting(session, waiting))
        if session._event_loop.is_closed():  # dropped: nothing will run them
            with _LOCK:
                waiting.clear()


def _run_waiting(session, waiting: collections.deque) -> None:
    """On the event loop: the session's callbacks in order, until none waits."""
    while True:
        with _LOCK:
            if not waiting:
                return
            callback = waiting.popleft()
        try:
            callback()
        except Exception as error:  # as asyncio reports a callback's exception, and goes on
            session._event_loop.call_exception_handler(
                {"message": "Exception in a session callback", "exception": error})
