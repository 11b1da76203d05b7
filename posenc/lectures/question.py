"""A slide's question: a text and 2 to 6 choices with the right one, or a number with a tolerance, the right
number either given in the file or computed from posenc's own numbers (:mod:`posenc.lectures.measures`).

In a lecture file, under a ``[[slide]]``::

    [slide.question]                      # choices: answer is the 0-based index of the right one
    text = "What is PE at position 0?"
    choices = ["all zeros", "(0, 1, 0, 1, …)", "(1, 0, 1, 0, …)"]
    answer = 1

    [slide.question]                      # a number given in the file, right within ± tolerance (default 0)
    text = "…"
    answer = 64
    tolerance = 0.5
    unit = "positions"                    # optional

    [slide.question]                      # a number computed, never typed: a measure and its arguments
    text = "How many positions is the wavelength of the last pair?"
    measure = "wavelength"
    d_model = 128
    n = 10000
    pair = 63
    tolerance = 2000                      # optional: the measure has its own

:func:`read_question` turns that table into a :class:`Question` and the problems it found (one sentence
each); it never raises, so a lecture with a bad question still opens and the checker names what is wrong.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from posenc.lectures.measures import MEASURES, measure

MIN_CHOICES, MAX_CHOICES = 2, 6
MAX_ANSWER_CHARS = 64
"""The longest answer text :meth:`Question.accepts` reads (a number needs far fewer characters)."""
GIVEN = "given in the file"
"""The source of a right answer written in the lecture file."""

Kind = Literal["choice", "number"]
_COMMON = ("text",)
_CHOICE_KEYS = ("text", "choices", "answer")
_NUMBER_KEYS = ("text", "answer", "tolerance", "unit")
_MEASURE_KEYS = ("text", "measure", "tolerance")  # and the measure's own arguments


def _number_text(value: float) -> str:
    """A number as a person reads it: 54,410.1, 1.208, 0.000125, 64."""
    if value == 0 or 1e-4 <= abs(value) < 1e15:
        shown = f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.1f}".removesuffix(".0")
        return shown
    return f"{value:.4g}"


@dataclass(frozen=True)
class Question:
    """One slide's question.

    ``kind``: "choice" (``choices`` holds 2 to 6 texts, ``correct`` the right one's index as text, "0" … "5",
    ``tolerance`` 0) or "number" (no choices, ``correct`` the right value as ``repr(float)``, right within
    ± ``tolerance``). ``unit``: what the number counts (may be empty). ``source``: how the right answer was
    obtained, "given in the file" or the measurement's sentence.
    """

    text: str
    kind: Kind
    choices: tuple[str, ...]
    correct: str
    tolerance: float
    unit: str
    source: str

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip():
            raise ValueError("A question needs a text.")
        if self.kind == "choice":
            if not MIN_CHOICES <= len(self.choices) <= MAX_CHOICES or not all(
                    isinstance(c, str) and c.strip() for c in self.choices):
                raise ValueError(f"A choice question needs {MIN_CHOICES} to {MAX_CHOICES} non-empty choices.")
            if self.correct not in {str(i) for i in range(len(self.choices))} or self.tolerance != 0:
                raise ValueError("A choice question's right answer is a choice's index, with no tolerance.")
        elif self.kind == "number":
            if self.choices:
                raise ValueError("A number question has no choices.")
            if not (isinstance(self.tolerance, float) and math.isfinite(self.tolerance) and self.tolerance >= 0):
                raise ValueError("A number question's tolerance is a finite float of at least 0.")
            if _finite(self.correct) is None or repr(float(self.correct)) != self.correct:
                raise ValueError("A number question's right answer is a finite number written as repr(float).")
        else:
            raise ValueError("A question's kind is 'choice' or 'number'.")

    def accepts(self, value: str) -> str:
        """``value`` normalized (a choice's index "0" … "n−1"; a number as ``repr(float)``), or a ValueError
        in one sentence saying what an answer must be."""
        if not isinstance(value, str):
            raise ValueError(f"An answer is text; got {type(value).__name__}.")
        if len(value) > MAX_ANSWER_CHARS:
            raise ValueError(f"An answer is at most {MAX_ANSWER_CHARS} characters; got {len(value):,}.")
        text = value.strip()
        if self.kind == "choice":
            if text not in {str(i) for i in range(len(self.choices))}:
                raise ValueError(f"An answer to this question is a choice's number, 0 to {len(self.choices) - 1}.")
            return text
        number = _finite(text)
        if number is None:
            raise ValueError("An answer to this question is a finite number written with digits and a point "
                             "(such as 1234.5 or 1.2e3), without commas or spaces.")
        return repr(number)

    def is_right(self, normalized: str) -> bool:
        """Whether an answer (as :meth:`accepts` returned it) is right: the right choice, or a number within
        ± tolerance of the right one. A ValueError (one sentence) for text that is not an answer."""
        answer = self.accepts(normalized)
        if self.kind == "choice":
            return answer == self.correct
        return abs(float(answer) - float(self.correct)) <= self.tolerance

    @property
    def answer(self) -> str:
        """The right answer as shown when it is revealed: the choice's text, or the number, its tolerance and
        unit ("54,410.1 positions (± 2,720.5)")."""
        if self.kind == "choice":
            return self.choices[int(self.correct)]
        unit = "" if not self.unit else self.unit if self.unit == "%" else f" {self.unit}"
        spread = f" (± {_number_text(self.tolerance)})" if self.tolerance else ""
        return f"{_number_text(float(self.correct))}{unit}{spread}"


def _finite(text: str) -> float | None:
    """The finite float ``text`` writes (Python's syntax without underscores), None otherwise."""
    if not isinstance(text, str) or "_" in text or not text.strip():
        return None
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _real(value: object) -> float | None:
    """A TOML number (int or float, not a bool) as a finite float, None otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _shown(value: object) -> str:
    return repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "…"


def read_question(raw: object) -> tuple[Question | None, tuple[str, ...]]:
    """(the question, the problems found): the question is None when there is a problem (or no question:
    ``raw`` None). Problems are sentences without a subject, such as "its question has no text"; the checker
    puts the file and the slide in front."""
    if raw is None:
        return None, ()
    if not isinstance(raw, Mapping):
        return None, (f"its question must be a table ([slide.question] with text = …); got {_shown(raw)}.",)
    found: list[str] = []
    text = raw.get("text")
    if not isinstance(text, str) or not text.strip():
        found.append("its question has no text (text = \"…\").")
    if "measure" in raw:
        question, problems = _measured(raw, text)
    elif "choices" in raw:
        question, problems = _choice(raw, text)
    else:
        question, problems = _number(raw, text)
    found += problems
    return (question if not found else None), tuple(found)


def _unknown(raw: Mapping, known: tuple[str, ...], kind: str) -> list[str]:
    extra = [key for key in raw if key not in known]
    if not extra:
        return []
    return [f"its question has {', '.join(map(repr, extra))}, which {kind} does not take "
            f"(it takes {', '.join(known)})."]


def _choice(raw: Mapping, text: object) -> tuple[Question | None, list[str]]:
    found = _unknown(raw, _CHOICE_KEYS, "a choice question")
    choices, answer = raw.get("choices"), raw.get("answer")
    good = isinstance(choices, list) and all(isinstance(c, str) and c.strip() for c in choices)
    if not good:
        found.append("its question's choices must be a list of non-empty texts (choices = [\"…\", \"…\"]).")
    elif not MIN_CHOICES <= len(choices) <= MAX_CHOICES:
        found.append(f"its question has {len(choices)} choices; a question has {MIN_CHOICES} to {MAX_CHOICES}.")
    if "answer" not in raw:
        found.append("its question has no answer (answer = the 0-based index of the right choice).")
    elif isinstance(answer, bool) or not isinstance(answer, int):
        found.append(f"its question's answer must be the 0-based index of the right choice; got {_shown(answer)}.")
    elif good and not 0 <= answer < len(choices):
        found.append(f"its question's answer {answer} is not a choice's index (0 to {len(choices) - 1}).")
    if found or not isinstance(text, str) or not text.strip():
        return None, found
    return Question(text.strip(), "choice", tuple(c.strip() for c in choices), str(answer), 0.0, "", GIVEN), []


def _tolerance(raw: Mapping, found: list[str]) -> float | None:
    tolerance = _real(raw.get("tolerance", 0.0))
    if tolerance is None or tolerance < 0:
        found.append(f"its question's tolerance must be a finite number of at least 0; got {_shown(raw['tolerance'])}.")
    return tolerance


def _number(raw: Mapping, text: object) -> tuple[Question | None, list[str]]:
    found = _unknown(raw, _NUMBER_KEYS, "a number question")
    answer = _real(raw.get("answer"))
    if "answer" not in raw:
        found.append("its question has no answer: give choices and the right one's index, a number "
                     "(answer = …, tolerance = …) or a measure (measure = \"…\").")
    elif answer is None:
        found.append(f"its question's answer must be a finite number; got {_shown(raw['answer'])}.")
    tolerance = _tolerance(raw, found)
    unit = raw.get("unit", "")
    if not isinstance(unit, str):
        found.append(f"its question's unit must be text; got {_shown(unit)}.")
    if found or not isinstance(text, str) or not text.strip():
        return None, found
    return Question(text.strip(), "number", (), repr(answer), tolerance, unit.strip(), GIVEN), []


def _measured(raw: Mapping, text: object) -> tuple[Question | None, list[str]]:
    found = [f"its question has {key!r}, but a measure computes it: remove it." for key in ("answer", "choices")
             if key in raw]
    found += [f"its question has {key!r}, which a measured question does not take." for key in ("unit",)
              if key in raw]
    name = raw["measure"]
    if not isinstance(name, str) or name not in MEASURES:
        found.append(f"its question's measure {_shown(name)} is not one of {', '.join(MEASURES)}.")
        return None, found
    tolerance = _tolerance(raw, found) if "tolerance" in raw else None
    arguments = {key: value for key, value in raw.items() if key not in _MEASURE_KEYS}
    try:
        value, own_tolerance, unit, sentence = measure(name, **arguments)
    except (ValueError, TypeError, ArithmeticError) as error:
        reason = str(error).strip() or type(error).__name__
        found.append(f"its question's measure {name!r} cannot be computed: {reason}"
                     + ("" if reason.endswith(".") else "."))
        return None, found
    if found or not isinstance(text, str) or not text.strip():
        return None, found
    return Question(text.strip(), "number", (), repr(float(value)),
                    float(own_tolerance if tolerance is None else tolerance), unit, sentence), []
