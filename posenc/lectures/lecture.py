"""A lecture: a list of slides, each a view of the explorer (a page and its URL settings), a title and a
speaker's note, read from one small TOML file per lecture (``posenc/lectures/files/<name>.toml``).

A slide's view is written as the explorer's own address, the way a lecturer copies it from the address
bar: ``view = "rotation?d_model=64&k=5"`` (a full ``http://host/...`` address works too; only its page and
query are kept). The file::

    title = "Sinusoidal positional encoding from scratch"

    [[slide]]
    title = "The formula"
    view = "derivation?step=1"
    note = "What the lecturer says here (shown only with &notes=true)."

    [slide.question]                 # optional: see posenc.lectures.question
    text = "What is PE at position 0?"
    choices = ["all zeros", "(0, 1, 0, 1, …)"]
    answer = 1
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

from posenc.lectures.question import Question, read_question

FILES = Path(__file__).resolve().parent / "files"
PAGES = ("", "derivation", "sinusoids", "rotation", "details", "compare", "properties", "precision",
         "generalization")
"""Every page's URL path, as app.py routes them ('' is the default page, the encoding matrix)."""
RESERVED = ("lecture", "slide", "notes", "qr", "present")
"""URL keys of the lecture itself and of presenter mode: a slide's view does not set them."""


@dataclass(frozen=True)
class Slide:
    """One slide: the page (its URL path), the view's URL settings in order, a title and a note; its
    question (None when it has none, or a bad one) and the problems found reading the question (sentences
    :func:`posenc.lectures.check.problems` reports with the file and the slide)."""

    page: str
    settings: tuple[tuple[str, str], ...]
    title: str
    note: str
    question: Question | None = None
    question_problems: tuple[str, ...] = ()

    def query(self, **extra: str) -> str:
        """The query of the slide's link: its settings, then ``extra`` (``k=5&lecture=…``)."""
        return urlencode(list(self.settings) + list(extra.items()))

    def link(self, **extra: str) -> str:
        """The slide's relative address: ``rotation?k=5&lecture=…`` (``./?…`` for the default page)."""
        query = self.query(**extra)
        return f"./{self.page}" + (f"?{query}" if query else "")


@dataclass(frozen=True)
class Lecture:
    """A lecture read from ``path``: its name (the file's stem), title and slides."""

    name: str
    path: Path
    title: str
    slides: tuple[Slide, ...]


class LectureError(ValueError):
    """A lecture file that cannot be read at all (not TOML, no title, no slide)."""


def split_view(view: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``"rotation?d_model=64&k=5"`` -> ``("rotation", (("d_model", "64"), ("k", "5")))``: the page's URL
    path (the last part of the address's path; none after a final ``/``: the default page, also under a
    base path such as ``https://host/app/``) and its query, repeated keys kept in order."""
    parts = urlsplit(view.strip())
    page = "" if parts.path.endswith("/") else parts.path.rsplit("/", 1)[-1]
    return page, tuple(parse_qsl(parts.query, keep_blank_values=True))


def read(path: Path) -> Lecture:
    """The lecture in ``path``; :class:`LectureError` naming the file when it cannot be read at all.
    Slides are read as written: :func:`posenc.lectures.check.problems` says what is wrong in them."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise LectureError(f"{Path(path).name}: cannot be read as TOML ({error})") from None
    if not isinstance(data.get("title"), str) or not data["title"].strip():
        raise LectureError(f"{Path(path).name}: needs a title (title = \"…\")")
    entries = data.get("slide")
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        raise LectureError(f"{Path(path).name}: needs at least one [[slide]]")
    slides = []
    for entry in entries:
        page, settings = split_view(str(entry.get("view", "")))
        question, question_problems = read_question(entry.get("question"))
        slides.append(Slide(page, settings, str(entry.get("title", "")), str(entry.get("note", "")), question,
                            question_problems))
    return Lecture(Path(path).stem, Path(path), data["title"].strip(), tuple(slides))


def names() -> list[str]:
    """The shipped lectures' names, sorted: the stems of ``posenc/lectures/files/*.toml``. (Listed again only
    when the folder changed: a lecture slide's every run asks, and a glob of the folder cost ~80 µs of it.)"""
    return list(_names(FILES, FILES.stat().st_mtime_ns))


@functools.lru_cache(maxsize=8)
def _names(files: Path, changed: int) -> tuple[str, ...]:
    return tuple(sorted(path.stem for path in files.glob("*.toml")))


def load(name: str) -> Lecture:
    """The shipped lecture ``name``; ValueError listing the names when there is none. Read again only when its
    file changed: a lecture room's push and every follower's run ask for the room's slide."""
    if name not in names():
        raise ValueError(f"there is no lecture {name!r}; the lectures are {', '.join(names())}")
    path = FILES / f"{name}.toml"
    return _loaded(path, path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _loaded(path: Path, changed: int) -> Lecture:
    return read(path)


def slide_of(lecture_name: str, slide: int) -> Slide:
    """Slide ``slide`` (1-based) of the shipped lecture ``lecture_name``; a ValueError, as a sentence, for an
    unknown lecture or a slide it does not have (a lecture room outlives a restart, and its lecture file may
    have lost the slide since)."""
    lecture = load(lecture_name)
    return lecture.slides[_slide_number(lecture_name, slide, len(lecture.slides)) - 1]


def _slide_number(lecture_name: str, slide: object, count: int) -> int:
    """``slide``, a slide of a lecture of ``count`` slides (1-based); else a ValueError naming the slides."""
    if isinstance(slide, bool) or not isinstance(slide, int) or not 1 <= slide <= count:
        raise ValueError(f"{lecture_name} has slides 1 to {count}; got {slide!r:.40}.")
    return slide


def question_of(lecture_name: str, slide: int) -> Question | None:
    """The question of slide ``slide`` (1-based) of the shipped lecture ``lecture_name``, None when the slide
    has none (or a bad one: ``python -m posenc.lectures check`` says what is wrong); a ValueError for an
    unknown lecture or a slide out of range. Cached: a lecture file is read (and its measures computed) once."""
    if not isinstance(lecture_name, str):
        raise ValueError(f"a lecture's name is text, one of {', '.join(names())}; got {type(lecture_name).__name__}.")
    questions = _questions(FILES, lecture_name)
    return questions[_slide_number(lecture_name, slide, len(questions)) - 1]


@functools.lru_cache(maxsize=64)
def _questions(files: Path, name: str) -> tuple[Question | None, ...]:
    if name not in names():
        raise ValueError(f"there is no lecture {name!r:.60}; the lectures are {', '.join(names())}.")
    return tuple(slide.question for slide in read(files / f"{name}.toml").slides)
