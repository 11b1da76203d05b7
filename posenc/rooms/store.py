"""What a room store does: the few atomic operations :class:`posenc.rooms.Rooms` builds on.

Both stores (:class:`posenc.rooms.sqlite.SqliteStore`, :class:`posenc.rooms.redisstore.RedisStore`) implement this
protocol, each operation atomic (an SQLite ``BEGIN IMMEDIATE`` transaction, a Redis Lua script). The store checks
what must be checked at the moment of writing (the room still live, the slide still current, the key hash still
the room's, the bounds); :class:`~posenc.rooms.Rooms` checks the input (formats, lengths, the key in constant time,
the question) before it asks the store anything, and turns the statuses below into sentences.

Statuses: "ok"; "same" (nothing to change: a move to the current slide, a second reveal, a second join);
"gone" (no such room, or it expired); "closed"; "key" (not the room's key hash); "moved" (the room is no longer
on the slide the call was about); "revealed" (answers are closed); "opener", "full", "rate" (a bound);
"taken" (the code is in use: draw another).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from posenc.rooms.model import Limits, Room

log = logging.getLogger("posenc.rooms")

Callback = Callable[[str], None]


class Store(Protocol):
    def secret(self) -> bytes:
        """The server secret (32 random bytes, made once, shared by every replica on this store)."""

    def create(self, room: Room, key_hash: str, opener: str, now: float, limits: Limits) -> str:
        """Add ``room`` (its code new): "ok", "taken", "opener" (the opener's bound) or "full" (live rooms)."""

    def load(self, code: str, now: float, limits: Limits) -> tuple[Room, str] | None:
        """The room and its key hash, closed rooms included; None when there is none or it expired."""

    def change(self, code: str, key_hash: str, op: str, slide: int, now: float,
               limits: Limits) -> tuple[str, Room | None]:
        """``op`` "move" (to ``slide``), "reveal" (``slide``: the slide the caller saw) or "close"; the status and
        the room after it ("ok", "same") or None ("gone", "closed", "key", "moved")."""

    def join(self, code: str, follower: str, now: float, limits: Limits) -> tuple[str, Room | None]:
        """Add a follower: "ok", "same" (already following), "gone", "closed" or "full"."""

    def leave(self, code: str, follower: str, now: float, limits: Limits) -> None:
        """Remove a follower (nothing when the room is gone or closed, or they were not following)."""

    def following(self, code: str) -> int:
        """How many followers the room has."""

    def answer(self, code: str, follower: str, slide: int, value: str, now: float, limits: Limits,
               nonce: str) -> str:
        """Record (or replace) the follower's answer for ``slide`` if it is still the room's current slide and not
        revealed: "ok", "gone", "closed", "moved", "revealed", "rate" or "full"."""

    def counts(self, code: str, slide: int) -> dict[str, int]:
        """Answer -> how many followers gave it, on ``slide``."""

    def answers(self, code: str) -> list[tuple[int, str, str, float]]:
        """Every answer of the room: (slide, follower id, answer, answered at)."""

    def subscribe(self, callback: Callback) -> None:
        """Call ``callback(code)`` on every change of any room (from any replica for a shared store)."""

    def close(self) -> None:
        """Release the store's connections and threads."""


class Callbacks:
    """The subscribers of a store; :meth:`call` runs each, catching and logging what they raise."""

    def __init__(self) -> None:
        self._callbacks: list[Callback] = []

    def add(self, callback: Callback) -> None:
        self._callbacks = [*self._callbacks, callback]

    def __bool__(self) -> bool:
        return bool(self._callbacks)

    def call(self, code: str) -> None:
        for callback in self._callbacks:
            try:
                callback(code)
            except Exception:
                log.exception("a room subscriber failed on %s", code)
