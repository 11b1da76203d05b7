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

Followers rerun in turns, :data:`AT_ONCE` at a time per process, in the order they were pushed; a run that ends
gives its turn to the next (:func:`ran`, at the end of every run). Asked at once, 150 followers' reruns ran side by
side on the interpreter lock and on the event loop that sends their messages: every phone got its first message
only when nearly all had run (median 4.4 s, max 5.0 s, 300 followers on two replicas of a 2-core machine). In turns,
the first followers see the slide after one run and the last after them all. A turn not given back (a session
gone mid-run) ends after :data:`TURN_SECONDS`. A lecturer's rerun (the live counts) takes no turn.

Sessions are held by id only (a session gone is dropped at the next change); nothing here is per request.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
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
AT_ONCE = 2  # followers' reruns running at once in this process (a run waiting for Redis lets the other compute)
TURN_SECONDS = 3.0  # a turn not given back by then (its run never told its end) is given to the next
_WAITING: collections.OrderedDict[str, tuple[str, str, str]] = collections.OrderedDict()  # session id -> (address,
# page, room code), in the order pushed
_TURNS: dict[str, float] = {}  # session id -> when its turn ends (time.monotonic()), for the reruns running now
_WAKE: list[object] = []  # the event loop's timer that ends the first overdue turn, while one is set
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
    behind = {sid: (query, page, role) for sid, (role, seen, query, page) in watchers.items()
              if sid != skip and (role == "lecturer" or version is None or seen != version)}
    if behind:
        _rerun(behind, code)


def _loop():
    """(Streamlit's runtime, its event loop), or None without a running server (AppTest, a notebook)."""
    try:
        from streamlit.runtime import Runtime

        runtime = Runtime.instance()
        return runtime, runtime._get_async_objs().eventloop
    except Exception:
        return None


def _rerun(sessions: dict[str, tuple[str, str, str]], code: str) -> None:
    server = _loop()
    if server is not None:  # else nothing to push to
        server[1].call_soon_threadsafe(_rerun_now, server[0], sessions, code)


def _rerun_now(runtime, sessions: dict[str, tuple[str, str, str]], code: str) -> None:
    """On the event loop: a lecturer's session reruns now; followers wait for their turn (one already waiting keeps
    its place, with the new address)."""
    for sid, (query, page, role) in sessions.items():
        if role == "lecturer":
            _ask(runtime, sid, query, page, code)
        else:
            with _LOCK:
                _WAITING[sid] = (query, page, code)
    _next_turns(runtime)


def _next_turns(runtime) -> None:
    """On the event loop: give the free turns to the followers waiting, in order (and end the turns overdue)."""
    while True:
        with _LOCK:
            now = time.monotonic()
            for sid in [sid for sid, ends in _TURNS.items() if ends <= now]:
                del _TURNS[sid]
            if not _WAITING or len(_TURNS) >= AT_ONCE:
                overdue = min(_TURNS.values(), default=None) if _WAITING else None
                break
            sid, (query, page, code) = _WAITING.popitem(last=False)
            _TURNS[sid] = now + TURN_SECONDS
        if not _ask(runtime, sid, query, page, code):
            with _LOCK:
                _TURNS.pop(sid, None)
    if overdue is not None and not _WAKE:  # followers wait: if no run gives its turn back, the first to end frees one
        _WAKE.append(runtime._get_async_objs().eventloop.call_later(max(overdue - now, 0.0) + 0.01, _woken, runtime))


def _woken(runtime) -> None:
    _WAKE.clear()
    _next_turns(runtime)


def _ask(runtime, sid: str, query: str, page: str, code: str) -> bool:
    """Ask session ``sid`` for a rerun at its address; forget it if it is gone. Whether it was asked."""
    from streamlit.proto.ClientState_pb2 import ClientState

    info = runtime._session_mgr.get_active_session_info(sid)
    if info is None:
        with _LOCK:
            _WATCHERS.get(code, {}).pop(sid, None)
        return False
    try:
        info.session.request_rerun(ClientState(query_string=query, page_script_hash=page))
    except Exception:  # a session shutting down: it will not be asked again
        _LOG.debug("rerun of session %s refused", sid, exc_info=True)
        return False
    return True


def ran() -> None:
    """At the end of a run (one that no rerun follows at once): a follower's turn goes to the next one waiting."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is not None:
        _turn_ended(ctx.session_id)


def _turn_ended(sid: str) -> None:
    with _LOCK:
        if _TURNS.pop(sid, None) is None:
            return
    server = _loop()
    if server is not None:
        server[1].call_soon_threadsafe(_next_turns, server[0])


def session_id() -> str | None:
    """This run's session id (None outside a run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else st.session_state.get("_posenc_session_id")
