"""Lecture rooms in the app (AppTest, the embedded SQLite store): the lecturer opens a room, a follower lands on
the room's slide and answers, the lecturer's count says so, Reveal shows the answer on the follower's page, and a
follower cannot move the room. The pushed reruns and a real Redis: tests/browser/test_rooms_browser.py."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from apptest_helpers import APP
from posenc import lectures


@pytest.fixture(autouse=True)
def rooms_in(tmp_path, monkeypatch):
    """A fresh SQLite store per test (POSENC_ROOMS_DB), and the app's cached Rooms dropped."""
    import posenc.rooms
    from posenc.ui import room

    monkeypatch.setenv("POSENC_ROOMS_DB", str(tmp_path / "rooms.sqlite3"))
    monkeypatch.delenv("POSENC_REDIS_URL", raising=False)
    monkeypatch.setattr(posenc.rooms, "_default", None)
    room.rooms.clear()
    yield
    room.rooms.clear()


def _lecturer(slide: int = 2, name: str = "sinusoidal") -> AppTest:
    lecture = lectures.load(name)
    page, settings = lecture.slides[slide - 1].page, lecture.slides[slide - 1].settings
    at = AppTest.from_file(APP, default_timeout=90)
    for key, value in [*settings, ("lecture", name), ("slide", str(slide)), ("notes", "true")]:
        at.query_params[key] = value
    if page:
        at.switch_page(f"pages/{page}.py")
    return at.run()


def _follower(code: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["room"] = code
    at.run()  # lands on the room's slide (st.switch_page)
    return at


def _clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _open(at: AppTest) -> str:
    at.button(key="room_open").click().run()
    _clean(at)
    return at.query_params["room"]


def test_the_lecturer_opens_a_room_and_the_bar_shows_its_code_never_its_key():
    at = _lecturer()
    code = _open(at)
    assert len(code) == 5 and set(code) <= set("ACDEFGHJKMNPQRTWXY34679")
    line = next(m.value for m in at.markdown if m.value.startswith("**Room"))
    assert f"`{code}`" in line and "0 following" in line
    key = at.session_state["_posenc_room_keys"][code]
    shown = " ".join(str(getattr(e, "value", "")) for e in at.main if e.type != "html")  # the html: the cookie's script
    shown += " ".join(str(v) for v in at.query_params.values())
    assert key not in shown and len(key) >= 22  # 128 bits and more, never on the screen or in the link
    cookie_script = next(e.value for e in at.main if e.type == "html" and "document.cookie" in e.value)
    assert "SameSite=Strict" in cookie_script and "max-age=43200" in cookie_script


def test_a_follower_lands_on_the_slide_answers_and_the_lecturer_sees_the_count():
    lecturer = _lecturer()
    code = _open(lecturer)
    follower = _follower(code)
    _clean(follower)
    assert follower.query_params["slide"] == "2" and follower.query_params["room"] == code
    assert any("Following room" in c.value for c in follower.caption)
    question = lectures.question_of("sinusoidal", 2)
    assert any(question.text[:30] in m.value.replace("\\", "") for m in follower.markdown)
    follower.radio(key="room_choice_2").set_value(int(question.correct))
    follower.get("form_submit_button")[0].click().run()
    _clean(follower)
    assert any(c.value.startswith("Your answer:") for c in follower.caption), [c.value for c in follower.caption]
    lecturer.run()
    assert "1 following" in next(m.value for m in lecturer.markdown if m.value.startswith("**Room"))
    lecturer.button(key="room_reveal").click().run()
    _clean(lecturer)
    follower.run()
    revealed = " ".join(s.value for s in follower.success)
    assert "The answer:" in revealed, revealed


def test_the_lecturer_s_next_slide_moves_the_room_and_a_follower_cannot():
    lecturer = _lecturer(2)
    code = _open(lecturer)
    key = lecturer.session_state["_posenc_room_keys"][code]
    from posenc.ui import room as ui_room

    follower = _follower(code)
    # a follower's crafted link to another slide does not move the room
    crafted = AppTest.from_file(APP, default_timeout=90)
    for k, v in {"lecture": "sinusoidal", "slide": "5", "room": code, "notes": "true"}.items():
        crafted.query_params[k] = v
    crafted.run()
    _clean(crafted)
    assert ui_room.rooms().get(code).slide == 2
    # the lecturer's next slide is a new page load whose link carries the room (the key: its cookie)
    moved = _lecturer(3)
    moved.session_state["_posenc_room_keys"] = {code: key}
    moved.query_params["room"] = code
    moved.run()
    _clean(moved)
    assert ui_room.rooms().get(code).slide == 3
    from posenc.ui import push
    assert push._HELD == {} and "_posenc_room_held" not in moved.session_state  # its run ended: pushes go
    follower.run()  # the pushed rerun: the new slide, in place, its controls read from its link
    _clean(follower)
    assert follower.session_state["length"] == 512  # slide 3: ?curves=Wavelengths&length=512 (slide 2 has 64)
    assert any("Following room" in c.value for c in follower.caption)


def test_a_bad_code_gets_one_sentence():
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["room"] = "<b>x</b>"
    at.run()
    _clean(at)
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 1 and "<b>" not in warnings[0].replace("` <b>x</b> `", ""), warnings


def test_a_room_on_a_slide_the_lecture_files_lack_gets_a_sentence_and_follows_the_next_move():
    """A room outlives a restart (Redis, the SQLite file); a lecture file changed since may have fewer slides. The
    store takes any slide (the lecturer's page bounds it by the file it reads): slide 99 of a 12-slide lecture."""
    lecturer = _lecturer(2)
    code = _open(lecturer)
    key = lecturer.session_state["_posenc_room_keys"][code]
    from posenc.ui import room as ui_room

    follower = _follower(code)
    ui_room.rooms().move(code, key, 99)
    follower.run()  # following: the pushed rerun
    _clean(follower)
    said = " ".join(c.value for c in follower.caption)
    assert "the lecturer is on slide 99 of ` sinusoidal `, which has 12 slides here. This page follows" in said, said
    fresh = _follower(code)  # landing on /?room=CODE: the page at its defaults, and the same sentence
    _clean(fresh)
    assert dict(fresh.query_params) == {"room": code}
    assert any("the lecturer is on slide 99" in c.value for c in fresh.caption)
    ui_room.rooms().move(code, key, 3)
    follower.run()  # the next move reaches the follower, who shows it
    _clean(follower)
    assert follower.query_params["slide"] == "3" and follower.session_state["length"] == 512
    assert any("Following room" in c.value for c in follower.caption)


SLIDES = st.one_of(st.integers(1, 14), st.integers(1, 10_000))


@settings(max_examples=8, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(lecture=st.sampled_from(["sinusoidal", "rope-to-128k", "a-lecture-since-deleted"]), opened=SLIDES, moved=SLIDES)
def test_a_follower_of_any_stored_room_sees_its_slide_or_a_sentence_never_an_error(lecture, opened, moved):
    """Whatever lecture and slide a room holds (it outlives a restart; the lecture files may change meanwhile), a
    follower who landed on ``/?room=CODE`` before the move and one who lands after see its slide or a sentence."""
    from posenc.ui import room as ui_room

    def holds(slide: int) -> bool:
        return lecture in lectures.names() and slide <= len(lectures.load(lecture).slides)

    def shows(at: AppTest, slide: int) -> None:
        _clean(at)
        said = " ".join(c.value for c in at.caption)
        if holds(slide):
            assert (at.query_params["lecture"], at.query_params["slide"]) == (lecture, str(slide)), said
            assert "Following room" in said, said
        else:
            which = "a lecture not here" if lecture not in lectures.names() else "slides here"
            assert f"the lecturer is on slide {slide} of" in said and which in said, said

    store = ui_room.rooms()
    room, key = store.open(lecture, opened, opener="a session")
    follower = _follower(room.code)
    shows(follower, opened)
    store.move(room.code, key, moved)
    follower.run()  # the pushed rerun
    if holds(opened):  # (landed on a sentence, a follower has no slide to be moved from: it follows no one)
        shows(follower, moved)
    shows(_follower(room.code), moved)


def test_a_follower_who_moves_a_control_stops_following_and_a_button_brings_it_back():
    lecturer = _lecturer(2)
    code = _open(lecturer)
    follower = _follower(code)
    follower.sidebar.slider(key="d_model").set_value(64).run()
    _clean(follower)
    assert "room" not in follower.query_params and follower.session_state["d_model"] == 64  # the view is theirs
    button = next(e.value for e in follower.main if e.type == "html" and "posenc-follow" in e.value)
    assert f'href="./?room={code}"' in button and "Follow the lecturer (slide 2)" in button
    from posenc.ui import push
    assert ("left", lecturer_version(code)) in [entry[:2] for entry in push._WATCHERS[code].values()]  # still told of a move (the button's n)


def test_a_follower_on_a_page_that_ends_with_st_stop_who_moves_a_control_stops_following():
    """The rotation check under RoPE ends its page with st.stop() (rope-to-128k, slide 2). After st.stop(), Streamlit
    raises StopException at every later read of the session state, so app.py's end of run (the address the follower
    leaves, the correction of the address) was skipped: a follower who then moved a control went on following."""
    lecture = lectures.load("rope-to-128k")
    page, settings = lecture.slides[1].page, lecture.slides[1].settings
    assert page == "rotation" and ("scheme", "rope") in settings
    lecturer = _lecturer(2, "rope-to-128k")
    code = _open(lecturer)
    follower = _follower(code)
    assert follower.query_params["slide"] == "2"
    follower.run()  # a run of the slide, as it stands
    _clean(follower)
    follower.sidebar.slider(key="d_model").set_value(32).run()
    _clean(follower)
    assert "room" not in follower.query_params and follower.session_state["d_model"] == 32  # the view is theirs
    assert any(e.type == "html" and "Follow the lecturer (slide 2)" in e.value for e in follower.main)


def test_a_lecturer_s_move_onto_a_page_that_ends_with_st_stop_releases_its_hold():
    """The run that moves the room holds this server's pushes until it ends (posenc.ui.push.hold): on the rotation
    check under RoPE, whose page ends with st.stop() (rope-to-128k, slide 2), the hold is released all the same."""
    from posenc.ui import push
    from posenc.ui import room as ui_room

    first = _lecturer(1, "rope-to-128k")
    code = _open(first)
    moved = _lecturer(2, "rope-to-128k")  # the next slide: a new page load, the key in its cookie
    moved.session_state["_posenc_room_keys"] = {code: first.session_state["_posenc_room_keys"][code]}
    moved.query_params["room"] = code
    moved.run()
    _clean(moved)
    assert ui_room.rooms().get(code).slide == 2
    assert push._HELD == {} and "_posenc_room_held" not in moved.session_state


def lecturer_version(code: str) -> int:
    from posenc.ui import room

    return room.rooms().get(code).version



@pytest.mark.parametrize("forged", ["a number for the text", "a number out of range", "a text no choice has"])
def test_a_forged_answer_state_gets_the_form_back_not_an_error(monkeypatch, forged):
    """A client may send any widget state: the answer radio's read as a number made Streamlit raise inside the
    widget, an error box where the form was. The state is dropped and the form drawn again; the store refuses what
    is not a choice, and nothing is counted (a number that is a choice's index is that choice)."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState
    from streamlit.testing.v1.element_tree import Radio

    lecturer = _lecturer()
    code = _open(lecturer)
    follower = _follower(code)

    def state(self):
        ws = WidgetState()
        ws.id = self.id
        if forged == "a number for the text":
            ws.int_value = 1
        elif forged == "a number out of range":
            ws.int_value = 99
        else:
            ws.string_value = "<b>none of them</b>"
        return ws

    monkeypatch.setattr(Radio, "_widget_state", property(state))
    follower.get("form_submit_button")[0].click().run()
    _clean(follower)
    monkeypatch.undo()
    follower.run()
    _clean(follower)
    assert [radio.value for radio in follower.radio] == [None]  # the form, unchosen (one radio, drawn afresh if need be)
    answered = any(c.value.startswith("Your answer:") for c in follower.caption)
    assert answered == (forged == "a number for the text")  # the number 1 is choice 1's own index: an answer
