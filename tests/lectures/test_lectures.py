"""Lecture files: read, checked slide by slide with messages that name the file and the slide, and the
command that checks a lecturer's own file."""

from pathlib import Path

import pytest

import posenc
from app_routes import page_paths
from posenc import lectures
from posenc.lectures.__main__ import main

GOOD = """title = "A lecture"

[[slide]]
title = "One"
view = "rotation?d_model=64&k=5"
note = "Say this."
"""


def write(tmp_path: Path, text: str, name: str = "mine.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_shipped_lectures_have_the_issue_s_slides_and_no_problem():
    assert lectures.names() == ["rope-to-128k", "sinusoidal"]
    sinusoidal, rope = lectures.load("sinusoidal"), lectures.load("rope-to-128k")
    assert sinusoidal.title == "Sinusoidal positional encoding from scratch" and len(sinusoidal.slides) >= 10
    assert rope.title == "From RoPE to 128k contexts" and len(rope.slides) >= 8
    for lecture in (sinusoidal, rope):
        assert lectures.problems(lecture) == []
        assert all(slide.title and slide.note for slide in lecture.slides)


def test_the_lectures_pages_are_the_app_s_pages():
    """PAGES lists app.py's routes: the url_path of each st.Page ('' for the default page)."""
    assert tuple(page_paths()) == lectures.PAGES


@pytest.mark.parametrize(("view", "page", "settings"), [
    ("rotation?d_model=64&k=5", "rotation", (("d_model", "64"), ("k", "5"))),
    ("/rotation?k=-3", "rotation", (("k", "-3"),)),
    ("http://localhost:8501/sinusoids?dims=1&dims=2", "sinusoids", (("dims", "1"), ("dims", "2"))),
    ("?matrix=Similarity", "", (("matrix", "Similarity"),)),
    ("https://host/app/", "", ()),
    ("properties", "properties", ()),
])
def test_a_view_is_an_address_as_copied_from_the_address_bar(view, page, settings):
    assert lectures.split_view(view) == (page, settings)


def test_a_slide_s_link_carries_its_view_and_the_lecture_s_keys():
    slide = lectures.read(lectures.FILES / "sinusoidal.toml").slides[7]
    assert slide.link(lecture="sinusoidal", slide="8") == "./rotation?pos=10&k=5&lecture=sinusoidal&slide=8"
    assert lectures.Slide("", (), "t", "").link() == "./"


def test_every_problem_is_named_with_the_file_and_the_slide(tmp_path):
    path = write(tmp_path, GOOD + """
[[slide]]
title = "Two"
view = "nowhere?d_model=4096"

[[slide]]
view = "rotation?scheme=rope&rope.factor=500&sinusoidal.layout=split&lecture=x"

[[slide]]
title = "Four"
view = "details?scheme=nosuch"

[[slide]]
title = "Five"
view = "rotation?scheme=rope&rope.rope_type=yarn&n=1&d_model=7&length=1&length=3"
""")
    found = lectures.problems(lectures.read(path))
    assert found[0].startswith("mine.toml, slide 2 (Two): its view's page 'nowhere' is not one of")
    assert "mine.toml, slide 2 (Two): d_model" in found[1] and "1024" in found[1]
    slide3 = [line for line in found if line.startswith("mine.toml, slide 3:")]
    assert any("has no title" in line for line in slide3)
    assert any("'lecture', which the lecture sets itself" in line for line in slide3)
    assert any("'sinusoidal.layout' is an option of sinusoidal, but the slide's scheme is rope" in line
               for line in slide3)
    assert any("rope.factor" in line and "64" in line for line in slide3)
    assert found.count(f"mine.toml, slide 4 (Four): its scheme 'nosuch' is not one of {', '.join(posenc.SCHEMES)}") == 1
    slide5 = [line for line in found if line.startswith("mine.toml, slide 5 (Five):")]
    assert any("'length' 2 times" in line for line in slide5)
    assert any(" n " in line or line.split(": ", 1)[1].startswith("n ") for line in slide5), slide5
    assert not [line for line in found if "slide 1 " in line]


@pytest.mark.parametrize(("text", "message"), [
    ("title = ", "cannot be read as TOML"),
    ("[[slide]]\nview = 'rotation'\n", "needs a title"),
    ("title = 'x'\n", "needs at least one [[slide]]"),
])
def test_a_file_that_cannot_be_read_says_why(tmp_path, text, message):
    with pytest.raises(lectures.LectureError, match=f"mine.toml: {message}".replace("[", r"\[").replace("]", r"\]")):
        lectures.read(write(tmp_path, text))


def test_the_command_names_every_problem_and_fails(tmp_path, capsys):
    good, bad = write(tmp_path, GOOD, "good.toml"), write(tmp_path, GOOD.replace("rotation?", "rotatoin?"), "bad.toml")
    assert main(["check", str(good)]) == 0
    assert "good.toml: 1 slides, no problem" in capsys.readouterr().out
    assert main(["check", str(good), str(bad), str(write(tmp_path, "x = [", "broken.toml"))]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("bad.toml, slide 1 (One): its view's page 'rotatoin' is not one of")
    assert out[2].startswith("broken.toml: cannot be read as TOML")
    assert main(["check"]) == 0  # the shipped lectures


def test_an_unknown_lecture_names_the_lectures():
    with pytest.raises(ValueError, match="the lectures are rope-to-128k, sinusoidal"):
        lectures.load("../etc/passwd")


@pytest.mark.parametrize("slide", [0, -1, 13, 99, True, 2.0, "2", None])
def test_slide_of_refuses_a_slide_the_lecture_lacks_with_a_sentence(slide):
    with pytest.raises(ValueError, match=r"^sinusoidal has slides 1 to 12; got .+\.$"):
        lectures.slide_of("sinusoidal", slide)


def test_slide_of_is_the_lecture_s_slide():
    lecture = lectures.load("rope-to-128k")
    assert [lectures.slide_of("rope-to-128k", n) for n in range(1, len(lecture.slides) + 1)] == list(lecture.slides)
    with pytest.raises(ValueError, match="there is no lecture"):
        lectures.slide_of("no-such-lecture", 1)
