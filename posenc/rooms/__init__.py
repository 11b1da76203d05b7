"""Lecture rooms: the hall follows the lecturer's slides and answers the slides' questions (issue 34).

- :class:`Rooms`: open a room (a public code of 5 characters without look-alikes, a lecturer key of 192 random
  bits), move it, reveal a question's answer, close it; followers join with a token the server signs, answer the
  current slide's question (one answer per follower, a new one replaces it); counts, the lecturer's CSV, and
  :meth:`Rooms.subscribe` for every change from any replica.
- :func:`open_store`, :func:`default_rooms`: where rooms live. ``POSENC_REDIS_URL`` set: Redis
  (:class:`RedisStore`, the hall: every replica sees the same rooms, changes arrive by pub/sub). Otherwise one
  SQLite file (:class:`SqliteStore`, ``streamlit run app.py`` alone): ``POSENC_ROOMS_DB``, else
  ``$XDG_STATE_HOME/posenc/rooms.sqlite3`` (``~/.local/state/posenc/rooms.sqlite3``), else a file in the
  temporary directory when that one cannot be written.

What persists, and how:

- SQLite: everything (rooms, the key's hash, followers, answers, the server secret) is committed to the file
  before a call returns, so rooms survive a restart of the app; an app on another machine does not see them.
- Redis: the same, in Redis, surviving a restart of any replica; surviving a restart of Redis itself needs
  Redis to write to disk, which the hall configures: ``appendonly yes`` (the append-only file; nothing lost
  on a kill of Redis, at most a second on a power cut) or RDB snapshots (``save 60 1``: the changes since the
  last snapshot are lost). Debian's default ``redis-server`` snapshots only; without either, a restart of
  Redis loses every room.
- Either store: the lecturer key itself is never stored (its SHA-256 is), and the follower tokens are not
  either (a random id and its HMAC with the store's secret; the store keeps the id). A room idle for 12 hours
  (no open, move, reveal, close, join or answer) expires with its answers: Redis EXPIREs its keys, SQLite purges
  it on the next use; neither returns it after that.

The bounds (:mod:`posenc.rooms.model`, measured in tests/rooms/test_bounds.py): 10 rooms opened per opener per
hour, 10,000 live rooms, 5,000 followers per room (and answers per slide), 10 answers per follower per 10 s,
answer text of 64 characters at most before its question reads it, codes of 16 characters, keys and tokens of
64 at most before anything is hashed or stored. Every refusal is a :class:`RoomError`, one sentence.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from posenc.rooms.model import (
    ANSWER_WINDOW,
    ANSWERS_PER_WINDOW,
    CODE_ALPHABET,
    CODE_LENGTH,
    FOLLOWERS,
    IDLE,
    LIVE_ROOMS,
    MAX_ANSWER_CHARS,
    OPEN_WINDOW,
    OPENS_PER_OPENER,
    Limits,
    Room,
    RoomError,
)
from posenc.rooms.rooms import Rooms
from posenc.rooms.sqlite import SqliteStore
from posenc.rooms.store import Store

if TYPE_CHECKING:
    from posenc.rooms.redisstore import RedisStore

__all__ = ["ANSWERS_PER_WINDOW", "ANSWER_WINDOW", "CODE_ALPHABET", "CODE_LENGTH", "FOLLOWERS", "IDLE", "LIVE_ROOMS",
           "MAX_ANSWER_CHARS", "OPENS_PER_OPENER", "OPEN_WINDOW", "Limits", "RedisStore", "Room", "RoomError", "Rooms",
           "SqliteStore", "Store", "default_path", "default_rooms", "open_store"]

log = logging.getLogger("posenc.rooms")


def __getattr__(name: str) -> object:
    if name == "RedisStore":  # redis-py is imported only where Redis is used
        from posenc.rooms.redisstore import RedisStore

        return RedisStore
    raise AttributeError(name)


def default_path() -> Path:
    """The embedded store's file: POSENC_ROOMS_DB, else $XDG_STATE_HOME (~/.local/state)/posenc/rooms.sqlite3."""
    if os.environ.get("POSENC_ROOMS_DB"):
        return Path(os.environ["POSENC_ROOMS_DB"]).expanduser()
    state = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(state) / "posenc" / "rooms.sqlite3"


def open_store() -> Store:
    """Redis at POSENC_REDIS_URL when it is set, else the SQLite file :func:`default_path` (its folders made; a file
    in the temporary directory when that one cannot be written)."""
    url = os.environ.get("POSENC_REDIS_URL")
    if url:
        from posenc.rooms.redisstore import RedisStore

        return RedisStore(url)
    path = default_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return SqliteStore(path)
    except (OSError, sqlite3.Error) as error:
        fallback = Path(tempfile.gettempdir()) / f"posenc-rooms-{os.getuid() if hasattr(os, 'getuid') else 0}.sqlite3"
        log.warning("rooms cannot be kept in %s (%s): keeping them in %s", path, error, fallback)
        return SqliteStore(fallback)


_default: Rooms | None = None
_default_lock = threading.Lock()


def default_rooms() -> Rooms:
    """The process's :class:`Rooms` on :func:`open_store` (made on first use, once, whatever the threads)."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Rooms(open_store())
    return _default
