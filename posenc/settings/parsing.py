"""Parameters from widgets and URLs, parsed and checked in one place.

A shared link carries the controls as query parameters (``?d_model=64&n=10000``).
:func:`parse_option` turns one raw string into the nearest valid value and, when
it had to change anything, the reason (a phrase that never repeats the raw text:
the app shows the raw text itself, escaped, next to it). :func:`parse_selection`
does the same for a list of choices (``?dims=4&dims=5``). :func:`code_span` makes
any text safe to show inside Markdown.

Caps: d_model ≤ 1024 and length ≤ 4096 keep the largest table at 4096 × 1024
(32 MiB in float64) and any computation behind one page under a second.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from posenc.schemes.scheme import Option

MAX_D_MODEL = 1024
MAX_LENGTH = 4096
MAX_BASE = 1e9
SHOWN_CHARACTERS = 40  # raw URL text is shortened to this many characters in messages

SHARED_CONTROLS: tuple[Option, ...] = (
    Option("d_model", "d_model", 128, 2, MAX_D_MODEL, help="Width of each encoding vector (512 in the paper)."),
    Option("n", "n (base)", 10000.0, 1.0, MAX_BASE, help="The base of the frequencies θ_i = n^(−2i/d_model); 10000 in the paper."),
    Option("length", "length", 100, 2, MAX_LENGTH, help="Number of positions 0 … length−1."),
)

Value = int | float | str


def number_text(value: Value) -> str:
    """A value as the app prints it: 64, 10000, 2.5, 1e+09, interleaved."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _whole(option: Option) -> bool:
    return isinstance(option.default, int) and not isinstance(option.default, bool)


def clamp(option: Option, value: float) -> Value:
    """``value`` inside [minimum, maximum], an int for a whole-number option (truncated toward
    zero, as Streamlit's own URL binding does, so the value announced is the value drawn)."""
    clamped = min(max(value, option.minimum), option.maximum)
    return int(clamped) if _whole(option) else float(clamped)


def parse_option(option: Option, raw: str | None) -> tuple[Value, str | None]:
    """The value ``raw`` asks for, made valid, and the reason when it had to change it.

    - missing: the default (itself clamped into a range that depends on other controls);
    - empty, a choice not in ``option.choices``, or not a number (NaN too): the default;
    - out of range (±inf included): the nearest bound;
    - a fraction for a whole-number option: the whole number toward zero.
    """
    if option.choices:
        if raw is None:
            return option.default, None
        if raw in option.choices:
            return raw, None
        # the choices are names, shown as code: some hold Markdown characters (transformer_xl)
        return option.default, "is empty" if raw == "" else f"is not one of {', '.join(map(code_span, option.choices))}"
    default = clamp(option, option.default)
    if raw is None:
        return default, None
    if raw.strip() == "":
        return default, "is empty"
    try:
        number = float(raw.strip())
    except ValueError:
        number = math.nan
    if math.isnan(number):
        return default, "is not a number"
    if not option.minimum <= number <= option.maximum:
        return clamp(option, number), (f"is outside {number_text(option.minimum)} … "
                                       f"{number_text(option.maximum)}")
    if _whole(option) and not number.is_integer():
        return clamp(option, number), "must be a whole number"
    return clamp(option, number), None


def parse_selection(raw: Sequence[str], choices: range, maximum: int) -> tuple[list[int], list[str]]:
    """Whole numbers in ``choices`` from repeated URL values (``?dims=4&dims=5``), in order, without
    repeats and at most ``maximum`` of them; and a reason for every value dropped."""
    chosen: list[int] = []
    reasons: list[str] = []
    valid = Option("", "", choices.start, choices.start, choices.stop - 1)
    for text in raw:
        value, reason = parse_option(valid, text)
        if reason is not None:
            reasons.append(f"{code_span(text)} is not a whole number in {choices.start} … {choices.stop - 1}")
        elif value in chosen:
            reasons.append(f"{code_span(text)} is repeated")
        elif len(chosen) >= maximum:
            reasons.append(f"{code_span(text)} is past the first {maximum}")
        else:
            chosen.append(int(value))
    return chosen, reasons


_BACKTICKS = re.compile("`+")


def code_span(text: str, limit: int = SHOWN_CHARACTERS) -> str:
    """``text`` as a Markdown code span that renders literally: no link, image, emphasis,
    directive or HTML. Unprintable characters (line breaks, controls) are shown escaped
    (``\\n``), so the span cannot be broken; long text is shortened to ``limit`` characters."""
    printable = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
    if len(printable) > limit:
        printable = printable[:limit] + "…"
    longest = max((len(run) for run in _BACKTICKS.findall(printable)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {printable} {fence}"  # one space each side is stripped by CommonMark
