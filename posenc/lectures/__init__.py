"""Lectures: slides that are views of the explorer, one small TOML file per lecture.

- :func:`names`, :func:`load`, :func:`read`: the shipped lectures (``posenc/lectures/files/``) and any file;
- :func:`slide_of`: a slide of a shipped lecture;
- :func:`question_of`: a slide's :class:`Question` (posenc.lectures.question; measured answers from
  posenc.lectures.measures);
- :func:`problems`: what is wrong in a lecture, naming the file and the slide;
- ``python -m posenc.lectures check FILE…``: the same from the command line (exit status 1 on a problem).
"""

from posenc.lectures.check import problems, slide_problems
from posenc.lectures.lecture import (
    FILES,
    PAGES,
    RESERVED,
    Lecture,
    LectureError,
    Slide,
    load,
    names,
    question_of,
    read,
    slide_of,
    split_view,
)
from posenc.lectures.measures import MEASURES, Measurement, measure
from posenc.lectures.question import Question, read_question

__all__ = ["FILES", "MEASURES", "PAGES", "RESERVED", "Lecture", "LectureError", "Measurement", "Question", "Slide",
           "load", "measure", "names", "problems", "question_of", "read", "read_question", "slide_of",
           "slide_problems", "split_view"]
