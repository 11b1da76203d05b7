"""Reruns pushed to the sessions that watch a lecture room: how a hall follows the lecturer without polling.

A follower's page holds its websocket open and runs nothing while the room stands still: no timer, no
fragment that reruns every second. When a room changes (the lecturer moves the slide, reveals an answer or
closes the room; posenc.rooms calls back on every replica: in-process for the embedded store, Redis pub/sub
in the hall), this process reads the room once and asks a rerun of each session of its own that watches it
and is behind (its version is older), on Streamlit's event loop. An answer or a join changes no version: only
the lecturer's sessions rerun for it (the live counts), and Streamlit merges reruns asked while one runs, so
300 answers in 5 s cost the lecturer's session a handful of runs, not 300.

The lecturer's own run comes first. Its page load moves the room before the page is drawn; the followers on the
same server, pushed at once, reran beside it on the one interpreter lock, and the projector showed the new slide
only when the hall had it (5.7 s with 300 followers on two replicas of a 2-core machine; 0.2-0.35 s now). So a
run that moves a room holds this process's pushes of that room (:func:`hold`) until its session's last run ends
(:func:`release`), then :data:`AFTER_RUN` for its last messages to leave: the followers start when the
projector's slide is drawn. A hold lasts :data:`HOLD_SECONDS` at most, whatever happens to that run. Other
servers' followers, told through Redis, are not held: they do not share its lock.

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
_HELD: dict[str, list[tuple[str | None]]] = {}  # room code -> the holds of runs that moved it and have not ended
_PENDING: dict[str, object] = {}  # room code -> its Rooms: a change heard while held, pushed on release
HOLD_SECONDS = 5.0  # a hold ends by then even if its run never reaches its end
AFTER_RUN = 0.1  # s from a hold's release to its push: the holding run's last messages leave first
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


def hold(code: str) -> tuple[str | None]:
    """Hold this process's pushes of room ``code`` until :func:`release` of the returned token (or
    :data:`HOLD_SECONDS`): called by the run about to move the room, so that it is drawn before its followers rerun.
    The token names the holding session: the push on release skips it (it has just drawn the room as it is)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    token = (ctx.session_id if ctx is not None else None,)  # a new tuple each hold: a token is its identity
    with _LOCK:
        _HELD.setdefault(code, []).append(token)
    timer = threading.Timer(HOLD_SECONDS, release, args=(code, token))
    timer.daemon = True
    timer.start()
    return token


def release(code: str, token: tuple[str | None]) -> None:
    """End a hold; the last one of a room pushes what changed meanwhile, :data:`AFTER_RUN` later (the run's own last
    messages leave first: pushed at once, they waited for the hall's runs), to every watcher but the session that held
    it (its run, now ending, drew the room it moved; an answer heard during the hold shows at the next change).
    Releasing twice does nothing."""
    with _LOCK:
        holds = _HELD.get(code, [])
        mine = [n for n, held in enumerate(holds) if held is token]
        if not mine:
            return
        del holds[mine[0]]
        if holds:
            return
        del _HELD[code]
        rooms = _PENDING.pop(code, None)
    if rooms is not None:  # the run's end (its last elements, script_finished) is still to leave the server
        timer = threading.Timer(AFTER_RUN, _changed, args=(rooms, code), kwargs={"skip": token[0]})
        timer.daemon = True
        timer.start()


def _changed(rooms, code: str, skip: str | None = None) -> None:
    """Called by posenc.rooms on any change of room ``code`` (any thread): rerun the sessions that are behind
    (but ``skip``, a session id)."""
    with _LOCK:
        if code in _HELD:  # a run of this process moved it and is still drawing: pushed when it ends
            _PENDING[code] = rooms
            return
        watchers = dict(_WATCHERS.get(code, {}))
    if not watchers:
        return
    try:
        version = rooms.get(code).version
    except ValueError:  # closed or expired: everyone watching it reruns once to say so
        version = None
    behind = {sid: (query, page) for sid, (role, seen, query, page) in watchers.items()
              if sid != skip and (role == "lecturer" or version is None or seen != version)}
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
