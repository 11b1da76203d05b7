"""Reruns pushed to the sessions that watch a lecture room: how a hall follows the lecturer without polling.

A follower's page holds its websocket open and runs nothing while the room stands still: no timer, no
fragment that reruns every second. When a room changes (the lecturer moves the slide, reveals an answer or
closes the room; posenc.rooms calls back on every replica: in-process for the embedded store, Redis pub/sub
in the hall), this process reads the room once and asks a rerun of each session of its own that watches it
and is behind (its version is older), on Streamlit's event loop. An answer or a join changes no version: only
the lecturer's sessions rerun for it (the live counts), and Streamlit merges reruns asked while one runs, so
300 answers in 5 s cost the lecturer's session a handful of runs, not 300.

Sessions are held by id only (a session gone is dropped at the next change); nothing here is per request.
"""

from __future__ import annotations

import logging
import threading
from urllib.parse import urlencode

import streamlit as st

_LOCK = threading.Lock()
_WATCHERS: dict[str, dict[str, tuple[str, int, str, str]]] = {}  # room code -> session id -> (role, version seen,
# the address and the page to rerun it at)
_SUBSCRIBED: list[object] = []  # the Rooms this process subscribed to (once)
_LOG = logging.getLogger(__name__)


def watch(rooms, code: str, role: str, version: int) -> None:
    """This session watches room ``code`` as ``role`` ("lecturer", "follower" or "left"), having shown
    ``version``; the first call of a process subscribes to every room's changes."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None:
        return
    # The run a push asks for: this page at this address. (A session's own saved client state is not enough: it
    # may hold an older address, and None reruns the main page with none.)
    query = urlencode([(key, value) for key in st.query_params for value in st.query_params.get_all(key)])
    with _LOCK:
        if rooms not in _SUBSCRIBED:
            _SUBSCRIBED.append(rooms)
            rooms.subscribe(lambda changed: _changed(rooms, changed))
        for watchers in _WATCHERS.values():  # a session watches one room at a time
            watchers.pop(ctx.session_id, None)
        _WATCHERS.setdefault(code, {})[ctx.session_id] = (role, version, query, ctx.page_script_hash)


def settle_address() -> None:
    """At the end of a watching session's run: the address it leaves (widgets drop a value equal to their default
    from it during the run), the one a push reruns it at."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None:
        return
    query = urlencode([(key, value) for key in st.query_params for value in st.query_params.get_all(key)])
    with _LOCK:
        for watchers in _WATCHERS.values():
            if ctx.session_id in watchers:
                role, version, _, page = watchers[ctx.session_id]
                watchers[ctx.session_id] = (role, version, query, page)


def watching(code: str) -> int:
    """How many sessions of this process watch ``code`` (for tests and the benchmark)."""
    with _LOCK:
        return len(_WATCHERS.get(code, {}))


def _changed(rooms, code: str) -> None:
    """Called by posenc.rooms on any change of room ``code`` (any thread): rerun the sessions that are behind."""
    with _LOCK:
        watchers = dict(_WATCHERS.get(code, {}))
    if not watchers:
        return
    try:
        version = rooms.get(code).version
    except ValueError:  # closed or expired: everyone watching it reruns once to say so
        version = None
    behind = {sid: (query, page) for sid, (role, seen, query, page) in watchers.items()
              if role == "lecturer" or version is None or seen != version}
    if behind:
        _rerun(behind, code)


def _rerun(sessions: dict[str, tuple[str, str]], code: str) -> None:
    try:
        from streamlit.runtime import Runtime

        runtime = Runtime.instance()
        loop = runtime._get_async_objs().eventloop
    except Exception:  # no running server (AppTest, a notebook): nothing to push to
        return
    loop.call_soon_threadsafe(_rerun_now, runtime, sessions, code)


def _rerun_now(runtime, sessions: dict[str, tuple[str, str]], code: str) -> None:
    """On the event loop: ask each live session for a rerun at its address; forget the ones that are gone."""
    from streamlit.proto.ClientState_pb2 import ClientState

    for sid, (query, page) in sessions.items():
        info = runtime._session_mgr.get_active_session_info(sid)
        if info is None:
            with _LOCK:
                _WATCHERS.get(code, {}).pop(sid, None)
            continue
        try:
            info.session.request_rerun(ClientState(query_string=query, page_script_hash=page))
        except Exception:  # a session shutting down: it will not be asked again
            _LOG.debug("rerun of session %s refused", sid, exc_info=True)


def session_id() -> str | None:
    """This run's session id (None outside a run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else st.session_state.get("_posenc_session_id")
