"""Lecture rooms in the app: the hall follows the lecturer's slides and answers the lecture's questions.

- **The lecturer** (a slide opened with ``&notes=true``) presses **Open a room** under the lecture bar
  (posenc.rooms: a 5-character code, a key of 192 random bits). The key never reaches a link, the QR code or
  the screen: this session keeps it, and the browser keeps it in a cookie (``posenc_room``, SameSite=Strict,
  12 hours), so a reload, the clicker's next slide (a new page load) or a second tab of the lecturer's browser
  keeps control. The bar then shows the code and "n following", the QR code encodes ``/?room=CODE``, and every
  slide the lecturer opens (keys, clicker, buttons: each a link with ``room=CODE``) moves the room.
- **A follower** opens ``/?room=CODE``: the first run sends it to the room's slide, exactly the slide's link plus
  ``room``. When the lecturer moves, posenc.ui.push asks this session for a rerun, which switches it to the new
  slide's page and link in place (:func:`catch_up`: one run of the new slide, no page load); an idle follower runs
  nothing. A follower who moves a control (the address bar
  changes between two runs) stops following: the view is theirs, and a slim **Follow the lecturer (slide n)**
  button brings them back.
- **Questions** (a slide's ``[slide.question]``, posenc.lectures.question_of): followers answer on their phones,
  one answer each (a new one replaces theirs), identified by a token the server signs (cookie
  ``posenc_follower``) that the client cannot choose; the lecturer sees the live count, **Reveal** shows the
  right answer and the counts on every phone, and the answers download as CSV.

Text a link brings (a code) is shown only as a code span; a refusal from posenc.rooms is one sentence.
"""

from __future__ import annotations

import html
import json
from urllib.parse import quote

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import RerunException

from posenc import lectures
from posenc.figures.answers import answer_counts
from posenc.lectures.question import GIVEN
from posenc.settings.parsing import code_span
from posenc.ui import presenter, push
from posenc.ui.binding import DEFAULTS, warn

KEY_COOKIE, FOLLOWER_COOKIE = "posenc_room", "posenc_follower"
KEYS = "_posenc_room_keys"  # this session's lecturer keys: code -> key
FOLLOWER = "_posenc_follower"  # this session's follower token
SEEN = "_posenc_room_seen"  # a follower's address at the end of its last run (what it follows)
FOLLOWING = "_posenc_room_following"  # this run follows this room (remember() records the address)
LEFT = "_posenc_room_left"  # the code of the room a follower stopped following
RETRIED = "_posenc_room_retried"  # the room version a follower's run found moved after catch_up, rerun once
JOINED = "_posenc_room_joined"  # (code, token) this session joined as a follower: joined once, not on every run
SWITCHED = "_posenc_room_switched"  # this run follows a switch to the lecturer's new slide: tell the browser
RENEWED = "_posenc_room_renewed"  # slide number -> how many times its answer radio was drawn afresh (a bad state)
HELD = "_posenc_room_held"  # (code, token): this run moved the room; its pushes wait for the run's end
COOKIE_AGE = 12 * 3600


@st.cache_resource(show_spinner=False)
def rooms():
    """The process's rooms (posenc.rooms.default_rooms: Redis when POSENC_REDIS_URL is set, else an SQLite file)."""
    from posenc.rooms import default_rooms

    return default_rooms()


def _errors():
    from posenc.rooms import RoomError

    return RoomError


def code_in_url() -> str | None:
    code = st.query_params.get("room")
    return code if code else None


def key_for(code: str) -> str | None:
    """The lecturer's key of ``code``: this session's, else the browser's cookie; None for anyone else."""
    key = st.session_state.get(KEYS, {}).get(code)
    if key:
        return key
    held = str(st.context.cookies.get(KEY_COOKIE, "") if st.context.cookies else "")
    found, _, value = held.partition(".")
    return value if found == code and value else None


def _cookie(name: str, value: str, age: int) -> str:
    return (f"document.cookie = {json.dumps(f'{name}={quote(value)}; path=/; max-age={age}; SameSite=Strict')};")


def _script(body: str) -> None:
    st.html(f"<script>(() => {{ {body} }})();</script>", unsafe_allow_javascript=True)


def landing(lecture_pages: list) -> None:
    """A session's first run on ``/?room=CODE`` (nothing else in the address): send it to the room's slide, its
    view's link plus ``room``. A bad code gets a sentence (and the page at its defaults)."""
    code = code_in_url()
    if code is None or "lecture" in st.query_params:
        return
    try:
        room = rooms().get(code)
    except ValueError as refusal:
        warn(f"Room {code_span(code)}: {presenter.escaped(str(refusal))}")
        return
    slide = _slide_or_say(room, code, "Open the room's link again when the lecturer moves on.")
    target = next((page for page in lecture_pages if page.url_path == slide.page), None) if slide else None
    if target is None:
        return
    query: dict[str, list[str] | str] = {}
    for key, value in slide.settings:
        query.setdefault(key, []).append(value)
    query |= push.follower_params(room, code)
    st.switch_page(target, query_params=query)


def _slide_or_say(room, code: str, then: str):
    """The room's slide in this server's lecture files, or None and a sentence ending with ``then``: a room outlives
    a restart (Redis, the SQLite file), and a lecture file changed meanwhile may have lost its slide."""
    try:
        return lectures.slide_of(room.lecture, room.slide)
    except ValueError:
        known = room.lecture in lectures.names()
        which = f"which has {len(lectures.load(room.lecture).slides)} slides here" if known else "a lecture not here"
        st.caption(f"Room {code_span(code)}: the lecturer is on slide {room.slide} of {code_span(room.lecture)}, "
                   f"{which}. {then}")
        return None


def _address() -> tuple:
    """What the follower looks at: the address and the value of every control bound to it (binding.DEFAULTS lists
    them; a widget the follower moved changes its value before the run starts, whatever the address shows yet)."""
    query = sorted((k, v) for k in st.query_params for v in st.query_params.get_all(k))
    controls = sorted((k, repr(st.session_state.get(k))) for k in st.session_state.get(DEFAULTS, {}))
    return tuple(query), tuple(controls)


def remember(ended_by: BaseException | None = None) -> None:
    """At the end of every run (app.py's finally; ``ended_by``: what ended it, if not its end): a lecturer's run that
    moved the room lets its pushes go, unless a rerun follows at once (a first run's switch to the slide's page: the
    rerun draws it); a follower's records the address the run leaves, widgets' own writes included (a later run that
    starts from another address was the follower's own move)."""
    if not isinstance(ended_by, RerunException):
        push.ran()  # a follower's turn goes to the next (a rerun that follows at once, e.g. catch_up's switch, keeps it)
        if HELD in st.session_state:
            push.release(*st.session_state.pop(HELD))
    code = st.session_state.pop(FOLLOWING, None)
    if code is not None and not st.session_state.get(SWITCHED):
        st.session_state[SEEN] = (code, _address())
    if code is not None or code_in_url() or st.session_state.get(LEFT):
        push.settle_address()  # the address a push reruns it at (a follower who left: without the room)


def catch_up(pages: list) -> None:
    """Before anything is drawn: a follower whose lecturer moved is switched, in the same tab and session, to the
    new slide's page and link, every control read from that link as a fresh tab would (the rerun
    posenc.ui.push asked for costs a few milliseconds; the new slide is one run, no page load). Nothing for the
    lecturer, for a follower who moved a control (:func:`section` says so) or on a bad code. A follower the push
    asked to rerun at the new slide itself (posenc.ui.push.switched) is switched in this run: nothing to read."""
    if push.switched() is not None:  # this run is at the new slide's page and link, its controls forgotten
        for mark in (SEEN, FOLLOWING):
            st.session_state.pop(mark, None)
        st.session_state[SWITCHED] = True
        _tell_address()
        return  # (a lecturer who moved again meanwhile: the follower's section reads the room and reruns once)
    _tell_address()
    code = code_in_url()
    if code is None or "lecture" not in st.query_params or key_for(code):
        return
    push.know_pages(pages)  # a follower's run: the pages a push may switch this process's followers to
    seen = st.session_state.get(SEEN)
    if (seen is not None and seen[0] == code and seen[1] != _address()) or st.session_state.get(LEFT) == code:
        return
    try:
        room = rooms().get(code)
        if room.lecture == st.query_params.get("lecture") and str(room.slide) == st.query_params.get("slide"):
            return
        slide = lectures.slide_of(room.lecture, room.slide)
    except ValueError:  # a bad code, or a slide these files lack: the follower's section says so
        return
    target = next((page for page in pages if page.url_path == slide.page), None)
    if target is None:
        return
    _forget_controls({key for key, _ in slide.settings})
    for mark in (SEEN, FOLLOWING):  # the address it follows is the new slide's, recorded at the end of its run
        st.session_state.pop(mark, None)  # (an interrupted run may have left FOLLOWING set)
    _switch(target, slide.query(**push.follower_params(room, code)))


def _forget_controls(keys: set[str]) -> None:
    """Before a switch: forget the controls (posenc.ui.push.forget_controls) of this address and of ``keys``."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    with get_script_run_ctx().session_state.query_params() as address:
        push.forget_controls(st.session_state, address, keys | set(st.query_params))


def _switch(target, query: str) -> None:
    """Rerun this session at page ``target`` and the address ``query`` (as st.switch_page does, but the address
    may set controls bound to the URL, which st.switch_page refuses). The browser is told its new address by the
    new run (:func:`_tell_address`): Streamlit's clean-up between the two runs drops from the address bar the
    controls the stopped run did not draw."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData

    ctx = get_script_run_ctx()
    st.session_state[SWITCHED] = True
    raise RerunException(RerunData(query_string=query, page_script_hash=target._script_hash,
                                   cached_message_hashes=ctx.cached_message_hashes, context_info=ctx.context_info))


def _tell_address() -> None:
    """The first run after :func:`_switch`: the browser's address bar gets this run's address (a history entry
    replaced, as a page change's is)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if st.session_state.pop(SWITCHED, None) and ctx is not None:
        message = ForwardMsg()
        message.page_info_changed.query_string = ctx.query_string
        ctx.enqueue(message)


def section(lecture: lectures.Lecture, number: int, notes: bool) -> str | None:
    """Under the lecture bar: the lecturer's room controls (with ``notes``) or a follower's state and question.
    Returns the room code the QR code should encode (the lecturer's open room), else None."""
    code = code_in_url()
    RoomError = _errors()
    key = key_for(code) if code is not None else None
    if key:
        try:
            return _lecturer(lecture, number, code, key)
        except RoomError as refusal:
            warn(f"Room {code_span(code)}: {presenter.escaped(str(refusal))}")
            return None
    if notes:
        _cookie_pending()
        _open_button(lecture, number)
        return None
    if code is not None:
        try:
            _follower(lecture, number, code)
        except RoomError as refusal:
            warn(f"Room {code_span(code)}: {presenter.escaped(str(refusal))}")
    elif st.session_state.get(LEFT):
        _follow_button(st.session_state[LEFT])
    return None


NOTE = "_posenc_room_note"  # a refusal from a button's callback, shown by the next run


def _refusal(code: str | None, refusal: ValueError) -> None:
    where = f"Room {code_span(code)}: " if code else ""
    st.session_state[NOTE] = where + presenter.escaped(str(refusal))


def _show_note() -> None:
    note = st.session_state.pop(NOTE, None)
    if note:
        warn(note)


def _open_room(lecture: str, number: int) -> None:
    """The button's callback (a callback runs before the run, whatever reruns follow)."""
    try:
        room, key = rooms().open(lecture, number, opener=push.session_id() or "anonymous")
    except _errors() as refusal:
        _refusal(None, refusal)
        return
    st.session_state.setdefault(KEYS, {})[room.code] = key
    st.session_state["_posenc_room_cookie"] = f"{room.code}.{key}"
    st.query_params["room"] = room.code


def _open_button(lecture: lectures.Lecture, number: int) -> None:
    _show_note()
    st.button("Open a room", icon=":material/groups:", key="room_open", on_click=_open_room,
              args=(lecture.name, number),
              help="Students who open the room's link (the QR code) follow your slides and answer its questions.")


def _close_room(code: str, key: str) -> None:
    try:
        rooms().close(code, key)
    except _errors() as refusal:
        _refusal(code, refusal)
        return
    st.session_state.get(KEYS, {}).pop(code, None)
    st.session_state["_posenc_room_cookie"] = ""
    st.query_params.pop("room", None)


def _reveal(code: str, key: str) -> None:
    try:
        rooms().reveal(code, key)
    except _errors() as refusal:
        _refusal(code, refusal)


def _lecturer(lecture: lectures.Lecture, number: int, code: str, key: str) -> str:
    """The lecturer's line: code, followers, Close; the room moved to this slide; the question's live count."""
    box = rooms()
    room = box.get(code)
    if room.lecture != lecture.name:
        warn(f"Room {code_span(code)} follows the lecture {code_span(room.lecture)}, not this one: open a new room "
             "for this lecture.")
        return code
    if room.slide != number:
        _hold(code)
        room = box.move(code, key, number, max_slide=len(lecture.slides))
    push.watch(box, code, "lecturer", room.version)
    _cookie_pending()
    _show_note()
    left, right = st.columns([4, 1], vertical_alignment="center")
    left.markdown(f"**Room `{room.code}`** · {box.following(code)} following · students open "
                  f"`/?room={room.code}` (the QR code)")
    right.button("Close the room", icon=":material/close:", key="room_close", on_click=_close_room, args=(code, key))
    question = lectures.question_of(lecture.name, number)
    if question is not None:
        st.markdown(f"**Question:** {presenter.escaped(question.text)}")
        _question_results(question, box.counts(code), room.revealed, key="room_counts")
        cols = st.columns(2)
        if not room.revealed:
            cols[0].button("Reveal the answer", icon=":material/visibility:", key="room_reveal", on_click=_reveal,
                           args=(code, key))
        cols[1].download_button("Answers (CSV)", box.answers_csv(code, key), file_name=f"posenc-room-{code}.csv",
                                mime="text/csv", icon=":material/download:", key="room_csv", on_click="ignore")
    return code


def _hold(code: str) -> None:
    """This session's runs are drawn before this server's followers of ``code`` rerun (posenc.ui.push.hold): the
    hold ends with the last of its runs (:func:`remember`), one hold at a time."""
    held = st.session_state.get(HELD)
    if held is not None and held[0] == code:
        return
    if held is not None:
        push.release(*held)
    st.session_state[HELD] = (code, push.hold(code))


def _cookie_pending() -> None:
    """Write the lecturer's key cookie (or clear it, after Close) that a callback left for this run."""
    pending = st.session_state.pop("_posenc_room_cookie", None)
    if pending is not None:
        _script(_cookie(KEY_COOKIE, pending, COOKIE_AGE if pending else 0))


def _follower(lecture: lectures.Lecture, number: int, code: str) -> None:
    """A follower: the slide of the room (catch_up switched it when the lecturer moved), the question, the answer."""
    box = rooms()
    room = box.get(code)
    address = _address()
    seen = st.session_state.get(SEEN)
    if st.session_state.get(LEFT) == code or (seen is not None and seen[0] == code and seen[1] != address):
        # the follower moved a control (or did before): the view is theirs
        if st.session_state.get(LEFT) != code and st.session_state.get(FOLLOWER):
            box.leave(code, st.session_state[FOLLOWER])  # no longer counted as following
        st.session_state[LEFT] = code
        st.session_state.pop(SEEN, None)
        st.session_state.pop(JOINED, None)
        del st.query_params["room"]
        _follow_button(code)
        return
    token = _follower_token(box)
    if st.session_state.get(JOINED) != (code, token):  # a write: once a session, not on each of its runs (each
        box.join(code, token)  # slide change and answer of 300 phones is a run)
        st.session_state[JOINED] = (code, token)
    push.watch(box, code, "follower", room.version)
    st.session_state[FOLLOWING] = code  # remember(), at the end of this run, keeps the address it leaves
    if room.lecture != lecture.name or room.slide != number:  # the lecturer moved since catch_up read the room:
        if st.session_state.get(RETRIED) != room.version:  # once a move: a rerun, which catch_up switches
            st.session_state[RETRIED] = room.version
            st.session_state.pop(FOLLOWING, None)
            st.rerun()
        slide = _slide_or_say(room, code, "This page follows the lecturer's next slide.")  # (it could not: the link)
        if slide is not None:
            link = slide.link(**push.follower_params(room, code))
            st.html(f'<a class="posenc-follow" href="{html.escape(link)}">The lecturer is on slide {room.slide}</a>')
        return
    st.caption(f"Following room {code_span(code)}: this page shows the lecturer's slide.")
    question = lectures.question_of(lecture.name, number)
    if question is not None:
        _answer_box(box, code, number, token, question, room.revealed)


def _follow_button(code: str) -> None:
    """The slim button back to the lecturer's slide; the session stays told of moves (its slide number)."""
    try:
        room = rooms().get(code)
    except _errors():
        st.session_state.pop(LEFT, None)
        return
    push.watch(rooms(), code, "left", room.version)
    href = f"./?room={quote(code)}"
    st.html(f'<a class="posenc-follow" href="{html.escape(href)}">Follow the lecturer (slide {room.slide})</a>'
            "<style>.posenc-follow { display: inline-block; padding: 0.2rem 0.8rem; border-radius: 1rem;"
            " border: 1px solid rgba(128,128,128,0.5); font-weight: 600; text-decoration: none; }</style>")


def _follower_token(box) -> str:
    token = st.session_state.get(FOLLOWER) or (st.context.cookies or {}).get(FOLLOWER_COOKIE)
    if not token:
        token = box.new_follower()
        _script(_cookie(FOLLOWER_COOKIE, token, COOKIE_AGE))
    st.session_state[FOLLOWER] = token
    return token


def _answered(code: str, number: int) -> str:
    return f"_posenc_answered_{code}_{number}"


def _send_answer(code: str, number: int, token: str, kind: str) -> None:
    """The form's callback: the answer given, checked by posenc.rooms against the room's current question."""
    if kind == "choice":
        picked = st.session_state.get(choice_key(number))
        value = None if picked is None else str(picked)
    else:
        value = str(st.session_state.get(f"room_number_{number}") or "").strip() or None
    if value is None:
        st.session_state[NOTE] = "Choose or type an answer first."
        return
    try:
        st.session_state[_answered(code, number)] = rooms().answer(code, token, number, value)
    except _errors() as refusal:
        _refusal(code, refusal)


def choice_key(number: int) -> str:
    """The key of slide ``number``'s answer radio: ``room_choice_<n>``, and a new one each time it is drawn afresh."""
    renewed = st.session_state.get(RENEWED, {}).get(number, 0)
    return f"room_choice_{number}" + (f".{renewed}" if renewed else "")


def _choices(question, number: int) -> None:
    """The question's choices as a radio. A state the radio cannot read (not one its page sends: a forged message
    with a number for its text) made Streamlit raise inside the widget, an error box in place of the form: the radio
    is drawn again, unchosen, under a new key (a new widget, to which the state sent for the old one does not
    belong), once a run at most."""
    def radio():
        st.radio("Your answer", range(len(question.choices)), index=None,
                 format_func=lambda i: question.choices[i], key=choice_key(number))
    try:
        radio()
    except (TypeError, ValueError, IndexError):
        renewed = st.session_state.setdefault(RENEWED, {})
        renewed[number] = renewed.get(number, 0) + 1
        try:
            radio()
        except (TypeError, ValueError, IndexError):  # not expected: a fresh widget has no state from the client
            st.info("Your answer could not be read: reload the page to answer.", icon=":material/info:")


def _answer_box(box, code: str, number: int, token: str, question, revealed: bool) -> None:
    st.markdown(f"**Question:** {presenter.escaped(question.text)}")
    if revealed:
        _question_results(question, box.counts(code), True, key="room_counts")
        return
    _answer_form(code, number, token, question)


@st.fragment
def _answer_form(code: str, number: int, token: str, question) -> None:
    """The answer form, the note of a refused answer and the answer kept, as a fragment: pressing Answer reruns this
    alone, not the phone's whole page (its sidebar, the slide's view and charts): an answer costs the server 7-8 ms
    of CPU instead of 48-51 ms (bench/room_follow.py, BENCHMARKS.md). A refusal is shown here; a reveal or a move of
    the lecturer reruns the whole page (posenc.ui.push)."""
    _show_note()
    with st.form(key=f"room_answer_{number}", border=False):
        if question.kind == "choice":
            _choices(question, number)
        else:
            st.text_input(f"Your answer{f' ({question.unit})' if question.unit else ''}", max_chars=64,
                          key=f"room_number_{number}")
        st.form_submit_button("Answer", icon=":material/send:", on_click=_send_answer,
                              args=(code, number, token, question.kind))
    kept = st.session_state.get(_answered(code, number))
    if kept is not None:
        shown = question.choices[int(kept)] if question.kind == "choice" else kept
        st.caption(f"Your answer: {presenter.escaped(shown)}. You can change it until the lecturer reveals the answer.")


def _wrapped(label: str, width: int = 26) -> str:
    """A choice's text in lines of about ``width`` characters (plotly breaks at <br>): legible beside its bar on
    a phone. The text is escaped for plotly's few HTML tags."""
    words, lines, line = html.escape(label).split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return "<br>".join([*lines, line][:4])


def _question_results(question, counts: dict[str, int], revealed: bool, *, key: str) -> None:
    """The live count (the lecturer) or the revealed answer and counts (everyone): a chart in the projector's style."""
    if question.kind == "choice":
        labels = list(question.choices)
        values = [counts.get(str(i), 0) for i in range(len(labels))]
        right = [str(i) == question.correct for i in range(len(labels))] if revealed else None
    else:
        ranked = sorted(counts.items(), key=lambda item: (-item[1], float(item[0])))[:12]
        labels = [f"{float(value):g}" for value, _ in ranked] or ["no answer yet"]
        values = [count for _, count in ranked] or [0]
        right = [question.is_right(value) for value, _ in ranked] if revealed and ranked else None
    title = "Answers" if not revealed else "Answers: the right one is marked ✓"
    presenter.chart(answer_counts([_wrapped(label) for label in labels], values, right, title=title), key=key,
                    name="answers")
    if revealed:
        how = "" if question.source == GIVEN else f" {question.source[:1].upper()}{question.source[1:]}"
        st.success(f"The answer: {presenter.escaped(question.answer)}.{presenter.escaped(how)}",
                   icon=":material/check_circle:")
