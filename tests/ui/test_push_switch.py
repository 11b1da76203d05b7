"""A push asks a follower still following its rerun at the lecturer's new slide itself (posenc.ui.push): its controls
forgotten first, as the switching run did, so that one run draws the slide; where that cannot stand in for the
switching run (the session is running, its pages lack the slide's page, the new link sets a parameter bound to a
control of the page it leaves), the old address is asked and posenc.ui.room.catch_up switches. The browser tests
(tests/browser/test_rooms_slides.py: every slide of both lectures followed in place, against a fresh tab of its
link) take both ways; bench/room_follow.py measures what it saves (BENCHMARKS.md)."""

from __future__ import annotations

from types import SimpleNamespace
from urllib.parse import parse_qsl

import pytest
from streamlit.runtime.app_session import AppSessionState
from streamlit.runtime.state.session_state import SessionState

from posenc import lectures
from posenc.ui import push
from posenc.ui.binding import DEFAULTS

MAIN, HEATMAP, ROTATION, DERIVATION = "main-hash", "heatmap-hash", "rotation-hash", "derivation-hash"
OLD = "pos=3&d_model=64&lecture=sinusoidal&slide=6&room=ABCDE"  # a follower on the derivation page


class FakeSession:
    """What the push reads of an AppSession: its state, pages, session state (Streamlit's own) and rerun."""

    def __init__(self, running: bool = False) -> None:
        self._state = AppSessionState.APP_IS_RUNNING if running else AppSessionState.APP_NOT_RUNNING
        self._pages_manager = SimpleNamespace(main_script_hash=MAIN,
                                              get_pages=lambda: {MAIN: {}, HEATMAP: {}, ROTATION: {}, DERIVATION: {}})
        self.session_state = SessionState()
        self.asked = []

    def request_rerun(self, client_state) -> None:
        self.asked.append((client_state.query_string, client_state.page_script_hash))


@pytest.fixture
def session(monkeypatch):
    fake = FakeSession()
    runtime = SimpleNamespace(_session_mgr=SimpleNamespace(get_active_session_info=lambda sid: SimpleNamespace(
        session=fake)))
    monkeypatch.setattr(push, "_PAGES", {"": HEATMAP, "rotation": ROTATION, "derivation": DERIVATION})
    monkeypatch.setattr(push, "_SWITCHES", {})
    monkeypatch.setattr(push, "_WATCHERS", {})
    state = fake.session_state
    state["d_model"], state["n"], state["pos"], state["_posenc_room_seen"] = 64, 10000.0, 3, ("ABCDE", ())
    state[DEFAULTS] = {"d_model": 128, "n": 10000.0, "pos": 0}
    state.query_params.bind_widget("d_model", "w-d_model", "int_value", MAIN)
    state.query_params.bind_widget("pos", "w-pos", "int_value", DERIVATION)
    fake.runtime = runtime
    return fake


def _slide(number: int, name: str = "sinusoidal") -> tuple[str, str]:
    room = SimpleNamespace(lecture=name, slide=number)
    return push._slide_address(room, "ABCDE")


def test_the_slide_address_is_the_slide_s_link_with_the_room():
    slide = lectures.load("sinusoidal").slides[2]
    page, query = _slide(3)
    assert page == slide.page
    assert parse_qsl(query) == [*slide.settings, ("lecture", "sinusoidal"), ("slide", "3"), ("room", "ABCDE")]
    assert push._slide_address(SimpleNamespace(lecture="sinusoidal", slide=99), "ABCDE") is None
    assert push._slide_address(SimpleNamespace(lecture="no-such-lecture", slide=1), "ABCDE") is None


def test_a_follower_is_asked_at_the_new_slide_its_controls_forgotten(session):
    page, query = "", "d_model=32&lecture=sinusoidal&slide=1&room=ABCDE"
    assert push._ask(session.runtime, "s1", OLD, DERIVATION, "ABCDE", (page, query))
    assert session.asked == [(query, HEATMAP)]
    state = session.session_state
    for key in ("d_model", "n", "pos"):  # every bound control, the old address's and the new one's: read the URL
        assert key not in state
    assert state.query_params.get_binding_for_param("d_model") is None
    assert state.query_params.get_binding_for_param("pos") is None
    assert state["_posenc_room_seen"] == ("ABCDE", ())  # not a control: the run's catch_up drops it
    assert push._SWITCHES == {"s1": (query, OLD)}  # what switched() tells that run


def test_a_running_session_is_asked_at_its_old_address_and_keeps_its_controls(session):
    session._state = AppSessionState.APP_IS_RUNNING
    assert push._ask(session.runtime, "s1", OLD, DERIVATION, "ABCDE", ("", "d_model=32&slide=1"))
    assert session.asked == [(OLD, DERIVATION)]
    assert session.session_state["d_model"] == 64 and not push._SWITCHES


def test_a_page_the_session_does_not_list_goes_the_old_way(session, monkeypatch):
    monkeypatch.setattr(push, "_PAGES", {})  # no run of this process has told the pages yet
    push._ask(session.runtime, "s1", OLD, DERIVATION, "ABCDE", ("rotation", "k=5&slide=8"))
    assert session.asked == [(OLD, DERIVATION)]


def test_a_parameter_bound_on_the_page_left_goes_the_old_way(session):
    """The derivation's ``pos`` in the rotation check's link: Streamlit would drop it on the page change; catch_up's
    switch unbinds it first."""
    push._ask(session.runtime, "s1", OLD, DERIVATION, "ABCDE", ("rotation", "pos=10&k=5&slide=8"))
    assert session.asked == [(OLD, DERIVATION)]
    assert session.session_state["pos"] == 3
    push._ask(session.runtime, "s1", OLD, DERIVATION, "ABCDE", ("derivation", "pos=10&slide=7"))  # the same page
    assert session.asked[-1] == ("pos=10&slide=7", DERIVATION)


def test_a_follower_who_left_is_rerun_where_it_is(session, monkeypatch):
    """A follower who moved a control watches the room as "left": its rerun only redraws its Follow button."""
    monkeypatch.setattr(push, "_WAITING", type(push._WAITING)())
    monkeypatch.setattr(push, "_TURNS", {})
    push._rerun_now(session.runtime, {"s1": (OLD, DERIVATION, "left")}, "ABCDE", ("", "d_model=32&slide=1"))
    assert session.asked == [(OLD, DERIVATION)] and session.session_state["d_model"] == 64
    push._rerun_now(session.runtime, {"s2": (OLD, DERIVATION, "follower")}, "ABCDE", ("", "d_model=32&slide=1"))
    assert session.asked[-1] == ("d_model=32&slide=1", HEATMAP)


def test_switched_is_told_once_to_the_run_at_the_address_asked(monkeypatch):
    ctx = SimpleNamespace(session_id="s1", query_string="slide=2&room=ABCDE")
    monkeypatch.setattr("streamlit.runtime.scriptrunner.get_script_run_ctx", lambda: ctx)
    monkeypatch.setattr(push, "_SWITCHES", {"s1": ("slide=2&room=ABCDE", OLD)})
    assert push.switched() == OLD
    assert push.switched() is None  # once
    push._SWITCHES["s1"] = ("slide=3&room=ABCDE", OLD)  # another run than the one asked (the lecturer moved again)
    assert push.switched() is None and not push._SWITCHES


def test_forget_controls_keeps_the_room_s_own_parameters(session):
    state = session.session_state
    state["room"], state["lecture"] = "ABCDE", "sinusoidal"
    push.forget_controls(state, state.query_params, {"room", "lecture", "d_model"})
    assert state["room"] == "ABCDE" and state["lecture"] == "sinusoidal" and "d_model" not in state


def test_pages_are_known_only_in_a_session_s_run(monkeypatch):
    """app.py also runs bare, in a lab job's spawned process, where st.Page objects are not made whole: nothing to
    know there (tests/pages/test_generalization_page.py trains through such a process)."""
    monkeypatch.setattr(push, "_PAGES", {})
    broken = SimpleNamespace(url_path="derivation")  # no script hash: reading one would raise
    monkeypatch.setattr("streamlit.runtime.scriptrunner.get_script_run_ctx", lambda: None)
    push.know_pages([broken])
    assert push._PAGES == {}
    monkeypatch.setattr("streamlit.runtime.scriptrunner.get_script_run_ctx", lambda: SimpleNamespace())
    push.know_pages([SimpleNamespace(url_path="derivation", _script_hash=DERIVATION)])
    assert push._PAGES == {"derivation": DERIVATION}
