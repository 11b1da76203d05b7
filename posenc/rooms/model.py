"""The room's record, the refusal, and the bounds every store enforces.

The bounds (:class:`Limits`, its defaults are the module's constants):

- ``OPENS_PER_OPENER`` = 10 rooms opened per opener (a session id) per ``OPEN_WINDOW`` = 1 hour;
- ``LIVE_ROOMS`` = 10,000 live rooms (open, not closed, not expired) in the store;
- ``FOLLOWERS`` = 5,000 followers per room, and as many answers per slide (one per follower);
- ``ANSWERS_PER_WINDOW`` = 10 answers per follower per ``ANSWER_WINDOW`` = 10 seconds;
- ``IDLE`` = 12 hours: a room with no change (open, move, reveal, close, join, answer) for that long expires;
- ``MAX_ANSWER_CHARS`` = 64 characters of answer text, checked before the question reads it;
- codes, keys, follower tokens, lecture names and opener ids of bounded length (``MAX_*_CHARS``), checked before
  anything is hashed or any store is asked.
"""

from __future__ import annotations

from dataclasses import dataclass

CODE_ALPHABET = "34679ACDEFGHJKMNPQRTWXY"
"""The characters of a room code: no look-alikes (no 0/O, 1/I/L, 5/S, 2/Z, 8/B, U/V)."""
CODE_LENGTH = 5

IDLE = 12 * 3600.0
OPENS_PER_OPENER = 10
OPEN_WINDOW = 3600.0
LIVE_ROOMS = 10_000
FOLLOWERS = 5_000
ANSWERS_PER_WINDOW = 10
ANSWER_WINDOW = 10.0

MAX_ANSWER_CHARS = 64
MAX_CODE_CHARS = 16
"""A code as typed, spaces included, before it is normalized (stripped, upper-cased) to its 5 characters."""
MAX_KEY_CHARS = 64
"""A lecturer key is ``secrets.token_urlsafe(24)``: 32 characters."""
MAX_TOKEN_CHARS = 64
"""A follower token is 16 + 1 + 22 = 39 characters."""
MAX_LECTURE_CHARS = 64
MAX_OPENER_CHARS = 256
MAX_SLIDE = 10_000
"""No lecture has more slides; the UI bounds a move by its lecture's length (``max_slide``)."""


class RoomError(ValueError):
    """A refusal: one sentence, ending with a period, no traceback text (the UI shows it as it is)."""


@dataclass(frozen=True)
class Limits:
    """The bounds a store enforces atomically (tests shrink some of them; the app uses the defaults)."""

    opens_per_opener: int = OPENS_PER_OPENER
    open_window: float = OPEN_WINDOW
    live_rooms: int = LIVE_ROOMS
    followers: int = FOLLOWERS
    answers_per_window: int = ANSWERS_PER_WINDOW
    answer_window: float = ANSWER_WINDOW
    idle: float = IDLE


@dataclass(frozen=True)
class Room:
    """A lecture room: its public code, the lecture and its current (1-based) slide.

    ``revealed``: the current slide's question's answer is shown (a move hides it again). ``version`` counts the
    changes (1 when opened, +1 on every move, reveal and close); ``opened_at``/``updated_at``: Unix times of the
    opening and of the last change.
    """

    code: str
    lecture: str
    slide: int
    revealed: bool
    version: int
    opened_at: float
    updated_at: float
    closed: bool = False


def room_of(code: str, fields: dict[str, str]) -> Room:
    """A :class:`Room` from a store's text fields (SQLite row or Redis hash)."""
    return Room(code=code, lecture=str(fields["lecture"]), slide=int(fields["slide"]),
                revealed=str(fields["revealed"]) == "1", version=int(fields["version"]),
                opened_at=float(fields["opened_at"]), updated_at=float(fields["updated_at"]),
                closed=str(fields["closed"]) == "1")


def sentence(text: object, fallback: str) -> str:
    """``text`` as one refusal sentence (one line, ending with a period), or ``fallback`` when it is not one."""
    if not isinstance(text, str):
        return fallback
    text = text.strip()
    if (not text or len(text) > 300 or "\n" in text or "\r" in text or "Traceback" in text
            or not text.isprintable()):
        return fallback
    if text[-1] in "!?":
        text = text[:-1]
    if not text.endswith("."):
        text += "."
    if ". " in text[:-1]:  # more than one sentence: keep the first
        text = text[: text.index(". ") + 1]
    return text[0].upper() + text[1:]
