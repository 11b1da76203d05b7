"""What is wrong in a lecture file, slide by slide, in sentences that name the file and the slide.

Checked here, without running the app: every slide has a title and a view; the view's page is one of
the explorer's pages; the view does not set the lecture's own keys; the shared settings (scheme, d_model,
n, length and the scheme's options ``<scheme>.<option>``) are valid, alone and together, exactly as the
sidebar would read them from a link (posenc.settings); its question, if any (posenc.lectures.question): a
text, 2 to 6 choices and an answer index in range, or a finite number and a tolerance ≥ 0, or a known measure
whose arguments it accepts, and no key it does not know. A page's own settings (``k``, ``step``, ``dims``…)
depend on the page's code and on the shared settings: ``tests/lectures/test_lecture_views.py`` opens every
slide of every lecture file in the app (AppTest) and fails on any warning or unread key.
"""

from __future__ import annotations

from posenc.lectures.lecture import PAGES, RESERVED, Lecture, Slide
from posenc.schemes.registry import SCHEMES
from posenc.settings.constraints import valid_settings
from posenc.settings.parsing import SHARED_CONTROLS

SHARED = tuple(option.name for option in SHARED_CONTROLS)  # d_model, n, length


def slide_problems(slide: Slide) -> list[str]:
    """What is wrong in one slide's fields and shared settings (no file or slide named: see :func:`problems`)."""
    found = [] if slide.title.strip() else ["has no title"]
    found += [problem.removesuffix(".") for problem in slide.question_problems]
    if slide.page not in PAGES:
        pages = ", ".join(repr(page) for page in PAGES)
        found.append(f"its view's page {slide.page!r} is not one of the explorer's pages ({pages})")
    settings: dict[str, list[str]] = {}
    for key, value in slide.settings:
        settings.setdefault(key, []).append(value)
    found += [f"its view sets {key!r}, which the lecture sets itself" for key in RESERVED if key in settings]
    found += [f"its view gives {key!r} {len(settings[key])} times" for key in ("scheme", *SHARED)
              if len(settings.get(key, [])) > 1]
    scheme = settings.get("scheme", [next(iter(SCHEMES))])[-1]
    if scheme not in SCHEMES:
        return found + [f"its scheme {scheme!r} is not one of {', '.join(SCHEMES)}"]
    own = {option.name for option in SCHEMES[scheme].options}
    options = {}
    for key, values in settings.items():
        prefix, dot, name = key.partition(".")
        if dot and prefix in SCHEMES and name not in {option.name for option in SCHEMES[prefix].options}:
            found.append(f"{key!r} is not an option of {prefix}")
        elif dot and prefix in SCHEMES and prefix != scheme:
            found.append(f"{key!r} is an option of {prefix}, but the slide's scheme is {scheme}")
        elif dot and prefix == scheme and name in own:
            options[name] = values[-1]
    shared = {key: settings[key][-1] if key in settings else None for key in SHARED}
    defaults = {option.name: option.default for option in SHARED_CONTROLS}
    _, notes = valid_settings(scheme, *(defaults[key] if shared[key] is None else shared[key]
                                        for key in ("length", "d_model", "n")), options)
    return found + notes


def problems(lecture: Lecture) -> list[str]:
    """Every problem of the lecture, one sentence each: ``"sinusoidal.toml, slide 3 (M_k): …"``."""
    found = []
    for number, slide in enumerate(lecture.slides, start=1):
        where = f"{lecture.path.name}, slide {number}" + (f" ({slide.title})" if slide.title.strip() else "")
        found += [f"{where}: {problem}" for problem in slide_problems(slide)]
    return found
