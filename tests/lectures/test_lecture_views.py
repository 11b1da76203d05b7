"""Every slide of every lecture file opens its view in the app (AppTest): the slide's page, its settings
read by the page's controls, no warning, no error. A lecturer's new file in posenc/lectures/files/ is
checked here too. Also: the note only with notes=true, bad slide numbers and lecture names, and a file
with a bad slide (a clear message naming the file and the slide; the other slides work)."""

import pytest
from streamlit.testing.v1 import AppTest

from app_routes import ROUTES
from apptest_helpers import APP
from posenc import lectures

SLIDES = [(lecture, number) for lecture in lectures.names()
          for number in range(1, len(lectures.load(lecture).slides) + 1)]


def open_lecture(**query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def page_title(page: str, settings) -> str:
    """The title the slide's page shows when opened by its own link (not through the lecture)."""
    at = AppTest.from_file(APP, default_timeout=90)
    for key, value in settings:
        at.query_params[key] = value
    at.run()
    at.switch_page(ROUTES[page]).run()
    return at.title[0].value


def same(held, text: str) -> bool:
    try:
        return float(held) == float(text)
    except (TypeError, ValueError):
        return str(held) == text


def bar(at: AppTest) -> str:
    return next(element.proto.body for element in at.get("html") if 'class="posenc-lecture"' in element.proto.body)


@pytest.mark.parametrize(("name", "number"), SLIDES)
def test_every_slide_opens_its_view(name, number):
    lecture = lectures.load(name)
    slide = lecture.slides[number - 1]
    at = open_lecture(lecture=name, slide=str(number))
    assert not at.warning, [w.value for w in at.warning]
    assert at.title[0].value == page_title(slide.page, slide.settings)
    given: dict[str, list[str]] = {}
    for key, value in slide.settings:
        given.setdefault(key, []).append(value)
    for key, values in given.items():
        assert key in at.session_state, f"{name} slide {number}: {key} is read by no control of the page"
        if key in at.query_params:
            shown = at.query_params[key]
            assert (shown if isinstance(shown, list) else [shown]) == values
        else:  # a value equal to the control's default is left out of the address, as Streamlit does
            held = at.session_state[key]
            assert [str(v) for v in held] == values if isinstance(held, list) else same(held, values[-1]), key
    assert at.query_params["lecture"] == name and at.query_params["slide"] == str(number)
    body = bar(at)
    assert f"slide {number} of {len(lecture.slides)}" in body and slide.title.replace("&", "&amp;") in body
    assert not any(slide.note[:30] in info.value for info in at.info)  # students never get the note


def test_the_note_is_shown_with_notes_true_and_carried_from_slide_to_slide():
    at = open_lecture(lecture="sinusoidal", slide="2", notes="true")
    slide = lectures.load("sinusoidal").slides[1]
    assert any(info.value == slide.note for info in at.info)
    assert 'href="./sinusoids?curves=Wavelengths&amp;length=512&amp;lecture=sinusoidal&amp;slide=3&amp;notes=true"' in bar(at)


@pytest.mark.parametrize(("raw", "used", "message"), [
    ("0", 1, "is outside 1 … 12: using 1"), ("99", 12, "is outside 1 … 12: using 12"),
    ("two", 1, "is not a whole number: using 1"), ("<b>x</b>", 1, "is not a whole number"),
])
def test_a_bad_slide_number_becomes_the_nearest_with_a_warning(raw, used, message):
    at = open_lecture(lecture="sinusoidal", slide=raw)
    warnings = [w.value for w in at.warning]
    assert any(message in text and "` slide `" in text for text in warnings), warnings
    assert f"slide {used} of 12" in bar(at)
    assert f"` {raw} `" in " ".join(warnings)  # URL text is shown as a code span, never rendered


def test_an_unknown_lecture_names_the_lectures_and_shows_no_bar():
    at = open_lecture(lecture="<script>", slide="1")
    assert any("` <script> ` is not one of ` rope-to-128k `, ` sinusoidal `" in w.value for w in at.warning)
    assert not [e for e in at.get("html") if 'class="posenc-lecture"' in e.proto.body]


def test_a_bad_slide_is_named_and_the_other_slides_work(tmp_path, monkeypatch):
    (tmp_path / "lecturer-own.toml").write_text("""title = "Mine"
[[slide]]
title = "Good"
view = "rotation?k=4"
[[slide]]
title = "Bad"
view = "rotatoin?d_model=5000"
""")
    monkeypatch.setattr(lectures.lecture, "FILES", tmp_path)
    good = open_lecture(lecture="lecturer-own", slide="1")
    assert not good.warning and good.session_state["k"] == 4
    bad = open_lecture(lecture="lecturer-own", slide="2")
    warnings = [w.value for w in bad.warning]
    assert any(text.startswith("lecturer-own.toml, slide 2 (Bad): its view's page 'rotatoin' is not one of")
               for text in warnings), warnings
    assert any(text.startswith("lecturer-own.toml, slide 2 (Bad): d_model") for text in warnings), warnings
    assert "slide 2 of 2" in bar(bad)


def test_a_link_with_settings_of_its_own_opens_as_it_is():
    """A student moved k on slide 8 and shared the address: the lecture does not send it back to the slide."""
    at = AppTest.from_file(APP, default_timeout=90)
    for key, value in {"lecture": "sinusoidal", "slide": "8", "k": "7", "pos": "3"}.items():
        at.query_params[key] = value
    at.switch_page("pages/rotation.py").run()
    assert not at.exception and not at.warning
    assert at.session_state["k"] == 7 and at.session_state["pos"] == 3
    assert "slide 8 of 12" in bar(at)
