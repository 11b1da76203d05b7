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
gone mid-run) ends after :data:`TURN_SECONDS`. A lecturer's rerun (the live counts) takes no turn. While followers
wait or run, Python's automatic collections are held (posenc.ui.collector.pause): a full one, mid-burst, stalled every
follower behind it for 0.1-0.2 s; they run when the last turn ends.

A follower still following is asked its rerun at the lecturer's new slide itself (its page and link, as the room
holds it), not at the address it shows: its run draws the new slide at once (posenc.ui.room.catch_up sees the
switch, :func:`switched`), where a rerun at the old address read the room and switched in a second run (a run
stopped, a session message, two room reads: ~2 ms of a follower's ~13 ms of CPU on a hall's replica). Before it
asks, the push forgets the session's controls (:func:`forget_controls`, what the switching run did first), on the
event loop, which also handles every message of the session's browser, while no run of it runs. Where that cannot
stand in for the switching run, the old address is asked and catch_up switches as before: the session is running,
Streamlit does not list the slide's page for it, or the new link sets a parameter bound to a control of the page it
leaves (Streamlit drops those on a page change; catch_up unbinds them before the switch).

Sessions are held by id only (a session gone is dropped at the next change); nothing here is per request.
"""

from __future__ import annotations

import collections
import functools
import logging
import threading
import time
from urllib.parse import parse_qsl, urlencode

import streamlit as st

from posenc import lectures
from posenc.ui import collector
from posenc.ui.binding import DEFAULTS

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
_PAGES: dict[str, str] = {}  # a page's url path -> its script hash (app.py makes the same pages in every session)
KEPT = frozenset({"lecture", "slide", "room", "notes", "present", "qr"})  # what a switch never forgets
_SWITCHES: dict[str, tuple[str, str]] = {}  # session id -> (the new slide's address its rerun was asked at, the
# address it showed): the push's switch, taken by that run's catch_up (:func:`switched`)
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
        room = rooms.get(code)
        version = room.version
    except ValueError:  # closed or expired: everyone watching it reruns once to say so
        room = version = None
    behind = {sid: (query, page, role) for sid, (role, seen, query, page) in watchers.items()
              if sid != skip and (role == "lecturer" or version is None or seen != version)}
    if behind:  # (an answer moves no version: the lecturer's counts alone, no slide to find)
        following = room is not None and any(role == "follower" for _, _, role in behind.values())
        _rerun(behind, code, _slide_address(room, code) if following else None)


def follower_params(room, code: str) -> dict[str, str]:
    """What a follower's address adds to the settings of the room's slide: the room's lecture and slide, and its
    code (``lecture=…&slide=…&room=…``). The landing, the push, catch_up and the follower's link all write these."""
    return {"lecture": room.lecture, "slide": str(room.slide), "room": code}


def _slide_address(room, code: str) -> tuple[str, str] | None:
    """(page url path, query) of the room's slide as a follower shows it; None for a slide the lecture files do not
    hold (then the follower's own run says so: posenc.ui.room)."""
    try:
        slide = lectures.slide_of(room.lecture, room.slide)
    except ValueError:
        return None
    return slide.page, slide.query(**follower_params(room, code))


def _loop():
    """(Streamlit's runtime, its event loop), or None without a running server (AppTest, a notebook)."""
    try:
        from streamlit.runtime import Runtime

        runtime = Runtime.instance()
        return runtime, runtime._get_async_objs().eventloop
    except Exception:
        return None


def _rerun(sessions: dict[str, tuple[str, str, str]], code: str, slide: tuple[str, str] | None = None) -> None:
    server = _loop()
    if server is not None:  # else nothing to push to
        server[1].call_soon_threadsafe(_rerun_now, server[0], sessions, code, slide)


def _rerun_now(runtime, sessions: dict[str, tuple[str, str, str]], code: str,
               slide: tuple[str, str] | None = None) -> None:
    """On the event loop: a lecturer's session reruns now; followers wait for their turn (one already waiting keeps
    its place, with the new address). ``slide``: the room's slide, where a follower still following is switched."""
    for sid, (query, page, role) in sessions.items():
        if role == "lecturer":
            _ask(runtime, sid, query, page, code)
        else:
            with _LOCK:
                _WAITING[sid] = (query, page, code, slide if role == "follower" else None)
    if any(role != "lecturer" for _, _, role in sessions.values()):
        collector.pause()  # no collection stalls the followers' turns: they run once the last turn ends
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
                done = not _WAITING and not _TURNS
                break
            sid, (query, page, code, slide) = _WAITING.popitem(last=False)
            _TURNS[sid] = now + TURN_SECONDS
        if not _ask(runtime, sid, query, page, code, slide):
            with _LOCK:
                _TURNS.pop(sid, None)
    if done:  # the burst is over: the collections held meanwhile may run
        collector.resume()
    if overdue is not None and not _WAKE:  # followers wait: if no run gives its turn back, the first to end frees one
        _WAKE.append(runtime._get_async_objs().eventloop.call_later(max(overdue - now, 0.0) + 0.01, _woken, runtime))


def _woken(runtime) -> None:
    _WAKE.clear()
    _next_turns(runtime)


def _ask(runtime, sid: str, query: str, page: str, code: str, slide: tuple[str, str] | None = None) -> bool:
    """Ask session ``sid`` for a rerun at its address, or at ``slide`` (page url path, query) where its run can
    switch there itself; forget it if it is gone. Whether it was asked."""
    from streamlit.proto.ClientState_pb2 import ClientState

    info = runtime._session_mgr.get_active_session_info(sid)
    if info is None:
        with _LOCK:
            _WATCHERS.get(code, {}).pop(sid, None)
        return False
    target = _switch_target(info.session, slide) if slide is not None else None
    with _LOCK:
        if target is not None:
            _SWITCHES[sid] = (target[1], query)
        else:
            _SWITCHES.pop(sid, None)
    if target is not None:
        state = info.session.session_state  # not running (_switch_target): no run reads or writes it meanwhile
        forget_controls(state, state.query_params, _keys(query) | _keys(target[1]))
    try:
        info.session.request_rerun(ClientState(query_string=target[1], page_script_hash=target[0]) if target
                                   else ClientState(query_string=query, page_script_hash=page))
    except Exception:  # a session shutting down: it will not be asked again
        _LOG.debug("rerun of session %s refused", sid, exc_info=True)
        with _LOCK:
            _SWITCHES.pop(sid, None)
        return False
    return True


def _switch_target(session, slide: tuple[str, str]) -> tuple[str, str] | None:
    """(page script hash, query) to rerun ``session`` at the new slide directly, or None where it must go through its
    old address: it is running (its run may bind or move anything), its pages do not list the slide's page, or a
    parameter of the new link is bound to a control of another page than the slide's (Streamlit would drop it)."""
    from streamlit.runtime.app_session import AppSessionState

    path, query = slide
    with _LOCK:
        page = _PAGES.get(path)
    if page is None or getattr(session, "_state", None) is not AppSessionState.APP_NOT_RUNNING:
        return None
    try:
        if page not in session._pages_manager.get_pages():
            return None
        kept = {page, session._pages_manager.main_script_hash}
        address = session.session_state.query_params  # (not running: no run changes it meanwhile)
        bindings = [address.get_binding_for_param(key) for key in _keys(query)]
    except Exception:  # not a session as Streamlit 1.67 makes them: the old way
        _LOG.debug("no direct switch for a session", exc_info=True)
        return None
    if any(binding is not None and binding.script_hash not in kept for binding in bindings):
        return None
    return page, query


@functools.lru_cache(maxsize=64)
def _keys(query: str) -> frozenset[str]:
    """The parameters of a link: the same few links (a lecture's slides, its followers' addresses) for every
    follower of a push, parsed once each (~5 µs a parse, twice a follower)."""
    return frozenset(key for key, _ in parse_qsl(query, keep_blank_values=True))


def forget_controls(state, address, keys: set[str]) -> None:
    """Drop from session state ``state`` the value of every control a slide switch may set (``keys``, the old and
    the new address's, and every bound control's, binding.DEFAULTS; never :data:`KEPT`), and their bindings from
    the query parameters ``address``: a control with no value in the session reads the URL (posenc.ui.binding), so
    the new slide shows exactly what its link shows in a fresh tab; and Streamlit drops, on a page change, a key
    bound on the old page (the derivation's and the rotation check's ``pos``): unbound, the new page binds it."""
    keys = (keys | set(state[DEFAULTS] if DEFAULTS in state else {})) - KEPT
    for key in keys:
        if key in state:
            del state[key]
    for key in keys:
        binding = address.get_binding_for_param(key)
        if binding is not None:
            address.unbind_widget(binding.widget_id)


def know_pages(pages: list) -> None:
    """The app's pages (st.Page objects), by url path: the script hash a push asks a switched rerun at. Only in a run
    of a server's session (app.py also runs, bare, in a lab job's spawned process: its pages are not made there)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx() is None:
        return
    hashes = {page.url_path: page._script_hash for page in pages}
    with _LOCK:
        if _PAGES != hashes:
            _PAGES.clear()
            _PAGES.update(hashes)


def switched() -> str | None:
    """In a run: whether it is a push's switch to the lecturer's new slide (asked at that slide's page and link): the
    address the session showed before, else None. Told once, to the run asked."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None:
        return None
    with _LOCK:
        asked = _SWITCHES.pop(ctx.session_id, None)
    return asked[1] if asked is not None and asked[0] == ctx.query_string else None


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
