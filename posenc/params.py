"""Parameters from widgets and URLs, parsed and checked in one place.

A shared link carries the controls as query parameters (``?d_model=64&n=10000``).
:func:`parse_option` turns one raw string into the nearest valid value and, when
it had to change anything, a sentence saying what it used instead, so a page can
show a warning rather than a traceback.

Caps: d_model ≤ 1024 and length ≤ 4096 keep the largest table at 4096 × 1024
(32 MiB in float64) and any computation behind one page under a second.
"""

from __future__ import annotations

import math

from posenc.scheme import Option

MAX_D_MODEL = 1024
MAX_LENGTH = 4096
MAX_BASE = 1e9

SHARED_CONTROLS: tuple[Option, ...] = (
    Option("d_model", "d_model", 128, 2, MAX_D_MODEL, help="Width of each encoding vector (512 in the paper)."),
    Option("n", "n (base)", 10000.0, 1.0, MAX_BASE, help="The base of the frequencies θ_i = n^(−2i/d_model); 10000 in the paper."),
    Option("length", "length", 100, 2, MAX_LENGTH, help="Number of positions 0 … length−1."),
)


def parse_option(option: Option, raw: str | None) -> tuple[int | float | str, str | None]:
    """The value ``raw`` asks for, made valid, and a warning when it had to change it.

    - missing: the default, no warning;
    - a choice not in ``option.choices``, or not a number: the default;
    - out of range (±inf included): the nearest bound;
    - a fraction for a whole-number option: the nearest whole number.
    """
    if raw is None:
        return option.default, None
    shown = raw if len(raw) <= 40 else raw[:40] + "…"
    if option.choices:
        if raw in option.choices:
            return raw, None
        return option.default, (
            f"{option.name}={shown!r} is not one of {', '.join(option.choices)}; using {option.default}."
        )
    try:
        number = float(raw.strip())
    except ValueError:
        number = math.nan
    if math.isnan(number):
        return option.default, f"{option.name}={shown!r} is not a number; using the default {option.default}."
    clamped = min(max(number, option.minimum), option.maximum)
    if clamped != number:
        clamped = int(clamped) if isinstance(option.default, int) else clamped
        return clamped, f"{option.name}={shown} is outside {option.minimum} … {option.maximum}; using {clamped}."
    if isinstance(option.default, int):
        if not number.is_integer():
            return round(number), f"{option.name}={shown} must be a whole number; using {round(number)}."
        return int(number), None
    return number, None
