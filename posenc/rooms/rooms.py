"""Lecture rooms: the lecturer drives (a key), the hall follows and answers (tokens the server signs).

:class:`Rooms` checks every input before it asks the store anything (types, lengths, characters: a 10 MB key is
refused without being hashed), compares the lecturer key's hash in constant time, reads the slide's question,
and lets the store make each change atomically against the bounds of :mod:`posenc.rooms.model`. Every refusal is
a :class:`RoomError` of one sentence; nothing a caller passes makes it raise anything else.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import hmac
import io
import logging
import math
import re
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime

from posenc.rooms.model import (
    CODE_ALPHABET,
    CODE_LENGTH,
    MAX_ANSWER_CHARS,
    MAX_CODE_CHARS,
    MAX_KEY_CHARS,
    MAX_LECTURE_CHARS,
    MAX_OPENER_CHARS,
    MAX_SLIDE,
    MAX_TOKEN_CHARS,
    Limits,
    Room,
    RoomError,
    sentence,
)
from posenc.rooms.store import Store

log = logging.getLogger("posenc.rooms")

_CODE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")
_KEY = re.compile(r"[A-Za-z0-9_-]+")
_FOLLOWER_ID = re.compile(r"[A-Za-z0-9_-]{16}")
_MAC = re.compile(r"[A-Za-z0-9_-]{22}")
_LECTURE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
OPEN_ATTEMPTS = 8
"""Codes drawn before giving up on a free one (23**5 = 6.4 million codes for at most 10,000 live rooms)."""

Questions = Callable[[str, int], object]


def _lecture_questions(lecture: str, slide: int) -> object:
    """posenc.lectures.question_of, when posenc.lectures has it (else: no slide has a question)."""
    import posenc.lectures as lectures

    question_of = getattr(lectures, "question_of", None)
    return None if question_of is None else question_of(lecture, slide)


def key_hash(key: str) -> str:
    """What a store keeps of a lecturer key: its SHA-256, hex."""
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def _urlsafe(digest: bytes, chars: int) -> str:
    return base64.urlsafe_b64encode(digest).decode("ascii")[:chars]


class Rooms:
    """The rooms of one store. ``questions(lecture, slide)``: the slide's question or None (default:
    posenc.lectures.question_of); ``clock``: Unix time (tests inject theirs); ``limits``: the bounds."""

    def __init__(self, store: Store, *, questions: Questions | None = None, clock: Callable[[], float] = time.time,
                 limits: Limits | None = None) -> None:
        self.store = store
        self.questions = questions if questions is not None else _lecture_questions
        self.clock = clock
        self.limits = limits if limits is not None else Limits()
        self._secret: bytes | None = None

    def __repr__(self) -> str:
        return f"Rooms({self.store!r})"

    # --- input ----------------------------------------------------------------------------------------------

    @staticmethod
    def _code(code: object) -> str:
        if not isinstance(code, str) or len(code) > MAX_CODE_CHARS:
            raise RoomError(f"A room code is {CODE_LENGTH} letters and digits, such as {CODE_ALPHABET[-5:]}.")
        normalized = code.strip().upper()
        if not _CODE.fullmatch(normalized):
            raise RoomError(f"A room code is {CODE_LENGTH} letters and digits, such as {CODE_ALPHABET[-5:]}.")
        return normalized

    @staticmethod
    def _key_hash(key: object) -> str:
        if not isinstance(key, str) or not key:
            raise RoomError("Only the room's lecturer can do this: the lecturer key is missing.")
        if len(key) > MAX_KEY_CHARS or not _KEY.fullmatch(key):
            raise RoomError("Only the room's lecturer can do this: that is not the room's lecturer key.")
        return key_hash(key)

    @staticmethod
    def _slide(slide: object, max_slide: int | None = None) -> int:
        if type(slide) is not int or slide < 1:
            raise RoomError("A slide is a whole number from 1.")
        bound = MAX_SLIDE if max_slide is None else min(MAX_SLIDE, max_slide)
        if slide > bound:
            raise RoomError(f"This lecture has no slide {slide}: its last is {bound}." if slide <= MAX_SLIDE * 10
                            else "This lecture has no such slide.")
        return slide

    def _follower(self, token: object) -> str:
        """The follower id inside a token this server signed (RoomError for anything else)."""
        refusal = RoomError("This phone's follower token is not valid: reload the room's page.")
        if not isinstance(token, str) or len(token) > MAX_TOKEN_CHARS:
            raise refusal
        follower, dot, mac = token.partition(".")
        if not dot or not _FOLLOWER_ID.fullmatch(follower) or not _MAC.fullmatch(mac):
            raise refusal
        if not hmac.compare_digest(mac, self._mac(follower)):
            raise refusal
        return follower

    def _mac(self, follower: str) -> str:
        digest = hmac.new(self.secret(), b"follower:" + follower.encode("ascii"), hashlib.sha256).digest()
        return _urlsafe(digest, 22)

    def secret(self) -> bytes:
        """The store's server secret (read once, then kept)."""
        if self._secret is None:
            self._secret = self.store.secret()
        return self._secret

    # --- reading ------------------------------------------------------------------------------------------

    def _load(self, code: str, *, closed_ok: bool = False) -> tuple[Room, str]:
        found = self.store.load(code, self.clock(), self.limits)
        if found is None:
            raise RoomError(f"There is no room {code}: it may have expired after 12 idle hours, or the code is mistyped.")
        if found[0].closed and not closed_ok:
            raise RoomError(f"Room {code} was closed by its lecturer.")
        return found

    def _authorized(self, code: str, hashed: str, *, closed_ok: bool = False) -> Room:
        room, stored = self._load(code, closed_ok=closed_ok)
        if not hmac.compare_digest(hashed, stored):
            raise RoomError("Only the room's lecturer can do this: that is not the room's lecturer key.")
        return room

    def _question(self, lecture: str, slide: int) -> object:
        try:
            return self.questions(lecture, slide)
        except ValueError:  # question_of: an unknown lecture, a slide past its end
            return None
        except Exception:
            log.exception("the question of %s slide %d cannot be read", lecture, slide)
            return None

    def get(self, code: str) -> Room:
        """The room (RoomError for a malformed, unknown, expired or closed code)."""
        return self._load(self._code(code))[0]

    def following(self, code: str) -> int:
        """How many followers joined the room (and did not leave)."""
        code = self._code(code)
        self._load(code)
        return self.store.following(code)

    def counts(self, code: str, slide: int | None = None) -> dict[str, int]:
        """Normalized answer -> how many followers gave it, for the current slide by default (anyone may read)."""
        code = self._code(code)
        if slide is not None:
            slide = self._slide(slide)
        room, _ = self._load(code)
        return self.store.counts(code, room.slide if slide is None else slide)

    # --- the lecturer -------------------------------------------------------------------------------------

    def open(self, lecture: str, slide: int, *, opener: str) -> tuple[Room, str]:
        """A new room on ``lecture`` at ``slide`` and its lecturer key (shown to no one else: the store keeps its
        hash). ``opener`` (a session id) is allowed 10 rooms an hour; the store at most 10,000 live rooms."""
        if not isinstance(lecture, str) or len(lecture) > MAX_LECTURE_CHARS or not _LECTURE.fullmatch(lecture):
            raise RoomError("A room needs the name of a lecture file, such as sinusoidal.")
        slide = self._slide(slide)
        if not isinstance(opener, str) or not opener or len(opener) > MAX_OPENER_CHARS:
            raise RoomError("A room can only be opened from a session of the app.")
        opener_hash = hashlib.sha256(opener.encode("utf-8", "surrogatepass")).hexdigest()
        key = secrets.token_urlsafe(24)
        for _ in range(OPEN_ATTEMPTS):
            now = self.clock()
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            room = Room(code=code, lecture=lecture, slide=slide, revealed=False, version=1, opened_at=now,
                        updated_at=now)
            status = self.store.create(room, key_hash(key), opener_hash, now, self.limits)
            if status == "ok":
                return room, key
            if status == "opener":
                raise RoomError(f"You opened {self.limits.opens_per_opener} rooms in the last hour: close one, or "
                                "open another later.")
            if status == "full":
                raise RoomError("The server holds as many rooms as it can: try again later.")
        raise RoomError("No free room code was found: try again.")

    def _changed(self, code: str, status: str, room: Room | None) -> Room:
        if status in ("ok", "same") and room is not None:
            return room
        if status == "gone":
            raise RoomError(f"There is no room {code}: it may have expired after 12 idle hours, or the code is mistyped.")
        if status == "closed":
            raise RoomError(f"Room {code} was closed by its lecturer.")
        if status == "key":
            raise RoomError("Only the room's lecturer can do this: that is not the room's lecturer key.")
        if status == "moved":
            raise RoomError("The room moved to another slide meanwhile: try again on this one.")
        raise RoomError("The room could not be changed: try again.")

    def move(self, code: str, key: str, slide: int, *, max_slide: int | None = None) -> Room:
        """Take the room to ``slide`` (1 to ``max_slide``, the lecture's length); a new slide's answer is hidden.
        A move to the current slide changes nothing (same version)."""
        code, hashed, slide = self._code(code), self._key_hash(key), self._slide(slide, max_slide)
        self._authorized(code, hashed)
        return self._changed(code, *self.store.change(code, hashed, "move", slide, self.clock(), self.limits))

    def reveal(self, code: str, key: str) -> Room:
        """Show the current slide's right answer (and its counts) on every phone; answers close until a move."""
        code, hashed = self._code(code), self._key_hash(key)
        room = self._authorized(code, hashed)
        if self._question(room.lecture, room.slide) is None:
            raise RoomError(f"Slide {room.slide} has no question to reveal.")
        return self._changed(code, *self.store.change(code, hashed, "reveal", room.slide, self.clock(), self.limits))

    def close(self, code: str, key: str) -> None:
        """Close the room: followers are told it closed; its answers stay readable by the key until it expires."""
        code, hashed = self._code(code), self._key_hash(key)
        self._authorized(code, hashed)
        self._changed(code, *self.store.change(code, hashed, "close", 0, self.clock(), self.limits))

    def answers_csv(self, code: str, key: str) -> str:
        """Every answer of the room, the lecturer's: slide,question,follower,answer,answered_at (ISO 8601, UTC);
        the follower is a short hash, the same for one follower across slides, never the token."""
        code, hashed = self._code(code), self._key_hash(key)
        room = self._authorized(code, hashed, closed_ok=True)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["slide", "question", "follower", "answer", "answered_at"])
        texts: dict[int, str] = {}
        for slide, follower, value, at in self.store.answers(code):
            if slide not in texts:
                texts[slide] = str(getattr(self._question(room.lecture, slide), "text", "") or "")
            anonymous = hmac.new(self.secret(), b"csv:" + follower.encode("ascii"), hashlib.sha256).hexdigest()[:10]
            when = datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
            writer.writerow([slide, texts[slide], anonymous, value, when])
        return out.getvalue()

    # --- the hall -----------------------------------------------------------------------------------------

    def new_follower(self) -> str:
        """A follower token: a random id and its HMAC with the store's secret (the client cannot choose one)."""
        follower = secrets.token_urlsafe(12)
        return f"{follower}.{self._mac(follower)}"

    def join(self, code: str, follower: str) -> Room:
        """A follower opened the room: counted in :meth:`following` (at most 5,000 a room); the room."""
        code, follower_id = self._code(code), self._follower(follower)
        status, room = self.store.join(code, follower_id, self.clock(), self.limits)
        if status == "full":
            raise RoomError(f"Room {code} has {self.limits.followers:,} followers already, as many as it takes.")
        return self._changed(code, status, room)

    def leave(self, code: str, follower: str) -> None:
        """A follower left (nothing happens if they were not following, or the room is gone)."""
        code, follower_id = self._code(code), self._follower(follower)
        self.store.leave(code, follower_id, self.clock(), self.limits)

    def answer(self, code: str, follower: str, slide: int, value: str) -> str:
        """Record the follower's answer to ``slide``'s question, the room's current slide, before the reveal; a
        new answer replaces theirs. The normalized answer (as the question's ``accepts`` returns it)."""
        code, follower_id, slide = self._code(code), self._follower(follower), self._slide(slide)
        if not isinstance(value, str):
            raise RoomError("An answer is a text.")
        if len(value) > MAX_ANSWER_CHARS:
            raise RoomError(f"An answer is at most {MAX_ANSWER_CHARS} characters.")
        room, _ = self._load(code)
        if slide != room.slide:
            raise RoomError(f"The lecturer is on slide {room.slide}: answers to slide {slide} are closed.")
        if room.revealed:
            raise RoomError("The answer was revealed: answers to this question are closed.")
        question = self._question(room.lecture, room.slide)
        if question is None:
            raise RoomError(f"Slide {room.slide} has no question.")
        try:
            normalized = question.accepts(value)
        except (ValueError, TypeError, ArithmeticError) as refusal:
            raise RoomError(sentence(str(refusal), "That answer is not one this question takes.")) from None
        except Exception:
            log.exception("the question of %s slide %d failed on an answer", room.lecture, room.slide)
            raise RoomError("That answer is not one this question takes.") from None
        if (not isinstance(normalized, str) or not normalized or len(normalized) > MAX_ANSWER_CHARS
                or not normalized.isprintable() or _unencodable(normalized)
                or (getattr(question, "kind", None) == "number" and not _finite(normalized))):
            raise RoomError("That answer is not one this question takes.")
        status = self.store.answer(code, follower_id, slide, normalized, self.clock(), self.limits,
                                   secrets.token_hex(6))
        if status == "ok":
            return normalized
        if status == "moved":
            raise RoomError("The lecturer moved to another slide meanwhile: answers to this one are closed.")
        if status == "revealed":
            raise RoomError("The answer was revealed: answers to this question are closed.")
        if status == "rate":
            raise RoomError(f"At most {self.limits.answers_per_window} answers every "
                            f"{self.limits.answer_window:g} seconds: wait a moment.")
        if status == "full":
            raise RoomError(f"This question has {self.limits.followers:,} answers already, as many as it takes.")
        self._changed(code, status, None)
        raise AssertionError("unreachable")  # pragma: no cover

    def subscribe(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(code)`` on every change of any room (move, reveal, close, answer, join, leave), from
        any replica sharing the store. Keep it cheap (it runs on the store's thread); what it raises is logged."""
        if not callable(callback):
            raise RoomError("A subscriber is a function of a room code.")

        def safe(code: str) -> None:
            try:
                callback(code)
            except Exception:
                log.exception("a room subscriber failed on %s", code)

        self.store.subscribe(safe)


def _unencodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _finite(text: str) -> bool:
    try:
        return math.isfinite(float(text.replace(",", "")))
    except (ValueError, OverflowError):
        return True  # a number question's own format: its accepts already decided
