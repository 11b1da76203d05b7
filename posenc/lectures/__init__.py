"""Lectures: slides that are views of the explorer, one small TOML file per lecture.

- :func:`names`, :func:`load`, :func:`read`: the shipped lectures (``posenc/lectures/files/``) and any file;
- :func:`problems`: what is wrong in a lecture, naming the file and the slide;
- ``python -m posenc.lectures check FILE…``: the same from the command line (exit status 1 on a problem).
"""

from posenc.lectures.check import problems, slide_problems
from posenc.lectures.lecture import FILES, PAGES, RESERVED, Lecture, LectureError, Slide, load, names, read, split_view

__all__ = ["FILES", "PAGES", "RESERVED", "Lecture", "LectureError", "Slide", "load", "names", "problems", "read",
           "slide_problems", "split_view"]
