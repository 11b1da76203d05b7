"""The embedded room store: one SQLite file (the standard library), for ``streamlit run app.py`` alone.

Persistence: every change is committed to the file before the call returns (WAL journal, ``synchronous=NORMAL``:
a crash or kill of the app loses nothing committed; a power cut may lose the last transactions). A new process on
the same file sees every room, its key hash, followers and answers. Rooms idle for 12 hours are purged when the
store is next used (every open, and at most once a minute on other writes); reads never return an expired room.

One connection per store, shared by the app's threads under a lock (SQLite serializes writers anyway); changes are
announced to this process's subscribers only (a second process on the same file reads the same rooms but is not
called back: the hall, with replicas, uses Redis).
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from posenc.rooms.model import Limits, Room, RoomError, room_of
from posenc.rooms.store import Callback, Callbacks, log

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY, lecture TEXT NOT NULL, slide INTEGER NOT NULL, revealed INTEGER NOT NULL,
    version INTEGER NOT NULL, opened_at REAL NOT NULL, updated_at REAL NOT NULL, active_at REAL NOT NULL,
    closed INTEGER NOT NULL, key_hash TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS rooms_active ON rooms (active_at);
CREATE INDEX IF NOT EXISTS rooms_live ON rooms (closed, active_at);
CREATE TABLE IF NOT EXISTS opens (opener TEXT NOT NULL, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS opens_opener ON opens (opener, at);
CREATE INDEX IF NOT EXISTS opens_at ON opens (at);
CREATE TABLE IF NOT EXISTS followers (code TEXT NOT NULL, follower TEXT NOT NULL, PRIMARY KEY (code, follower))
    WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS answers (code TEXT NOT NULL, slide INTEGER NOT NULL, follower TEXT NOT NULL,
    value TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (code, slide, follower)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS answer_log (follower TEXT NOT NULL, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS answer_log_follower ON answer_log (follower, at);
CREATE INDEX IF NOT EXISTS answer_log_at ON answer_log (at);
"""
_COLUMNS = "lecture, slide, revealed, version, opened_at, updated_at, active_at, closed, key_hash"
PURGE_EVERY = 60.0
UNAVAILABLE = "The room store cannot be used right now: try again in a moment."


class SqliteStore:
    """Rooms in the SQLite file ``path`` (``":memory:"``: in this process only, for tests)."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10.0)
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        self._callbacks = Callbacks()
        self._purged_at = float("-inf")

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r})"

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                log.error("room store %s: %s", self.path, error)
                raise RoomError(UNAVAILABLE) from None
            try:
                yield self._db
            except sqlite3.Error as error:
                self._db.execute("ROLLBACK")
                log.error("room store %s: %s", self.path, error)
                raise RoomError(UNAVAILABLE) from None
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _read(self, sql: str, parameters: tuple = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._db.execute(sql, parameters).fetchall()
            except sqlite3.Error as error:
                log.error("room store %s: %s", self.path, error)
                raise RoomError(UNAVAILABLE) from None

    def _announce(self, code: str) -> None:
        self._callbacks.call(code)

    def _purge(self, db: sqlite3.Connection, now: float, limits: Limits, *, force: bool = False) -> None:
        if not force and now - self._purged_at < PURGE_EVERY:
            return
        cut = now - limits.idle
        stale = "SELECT code FROM rooms WHERE active_at < ?"
        db.execute(f"DELETE FROM followers WHERE code IN ({stale})", (cut,))
        db.execute(f"DELETE FROM answers WHERE code IN ({stale})", (cut,))
        db.execute("DELETE FROM rooms WHERE active_at < ?", (cut,))
        db.execute("DELETE FROM opens WHERE at <= ?", (now - limits.open_window,))
        db.execute("DELETE FROM answer_log WHERE at <= ?", (now - limits.answer_window,))
        self._purged_at = now

    @staticmethod
    def _live_row(db: sqlite3.Connection, code: str, now: float, limits: Limits) -> dict[str, str] | None:
        row = db.execute(f"SELECT {_COLUMNS} FROM rooms WHERE code = ?", (code,)).fetchone()
        if row is None:
            return None
        fields = dict(zip(_COLUMNS.split(", "), row))
        if fields["active_at"] < now - limits.idle:
            return None
        return fields

    # --- the Store protocol -------------------------------------------------------------------------------

    def secret(self) -> bytes:
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO meta (name, value) VALUES ('secret', ?)", (secrets.token_hex(32),))
            (value,) = db.execute("SELECT value FROM meta WHERE name = 'secret'").fetchone()
        return bytes.fromhex(value)

    def create(self, room: Room, key_hash: str, opener: str, now: float, limits: Limits) -> str:
        with self._transaction() as db:
            self._purge(db, now, limits, force=True)
            (opened,) = db.execute("SELECT COUNT(*) FROM opens WHERE opener = ? AND at > ?",
                                   (opener, now - limits.open_window)).fetchone()
            if opened >= limits.opens_per_opener:
                return "opener"
            (live,) = db.execute("SELECT COUNT(*) FROM rooms WHERE closed = 0 AND active_at >= ?",
                                 (now - limits.idle,)).fetchone()
            if live >= limits.live_rooms:
                return "full"
            if db.execute("SELECT 1 FROM rooms WHERE code = ?", (room.code,)).fetchone():
                return "taken"
            db.execute(f"INSERT INTO rooms (code, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (room.code, room.lecture, room.slide, int(room.revealed), room.version, room.opened_at,
                        room.updated_at, now, int(room.closed), key_hash))
            db.execute("INSERT INTO opens (opener, at) VALUES (?, ?)", (opener, now))
        self._announce(room.code)
        return "ok"

    def load(self, code: str, now: float, limits: Limits) -> tuple[Room, str] | None:
        with self._lock:
            try:
                fields = self._live_row(self._db, code, now, limits)
            except sqlite3.Error as error:
                log.error("room store %s: %s", self.path, error)
                raise RoomError(UNAVAILABLE) from None
        return None if fields is None else (room_of(code, fields), fields["key_hash"])

    def change(self, code: str, key_hash: str, op: str, slide: int, now: float,
               limits: Limits) -> tuple[str, Room | None]:
        with self._transaction() as db:
            self._purge(db, now, limits)
            fields = self._live_row(db, code, now, limits)
            if fields is None:
                return "gone", None
            if fields["closed"]:
                return "closed", None
            if fields["key_hash"] != key_hash:
                return "key", None
            if op == "move":
                if fields["slide"] == slide:
                    return "same", room_of(code, fields)
                db.execute("UPDATE rooms SET slide = ?, revealed = 0, version = version + 1, updated_at = ?, "
                           "active_at = ? WHERE code = ?", (slide, now, now, code))
            elif op == "reveal":
                if fields["slide"] != slide:
                    return "moved", None
                if fields["revealed"]:
                    return "same", room_of(code, fields)
                db.execute("UPDATE rooms SET revealed = 1, version = version + 1, updated_at = ?, active_at = ? "
                           "WHERE code = ?", (now, now, code))
            elif op == "close":
                db.execute("UPDATE rooms SET closed = 1, version = version + 1, updated_at = ?, active_at = ? "
                           "WHERE code = ?", (now, now, code))
            else:
                raise ValueError(f"unknown change {op!r}")
            fields = self._live_row(db, code, now, limits)
        self._announce(code)
        return "ok", room_of(code, fields)

    def join(self, code: str, follower: str, now: float, limits: Limits) -> tuple[str, Room | None]:
        with self._transaction() as db:
            fields = self._live_row(db, code, now, limits)
            if fields is None:
                return "gone", None
            if fields["closed"]:
                return "closed", None
            if db.execute("SELECT 1 FROM followers WHERE code = ? AND follower = ?", (code, follower)).fetchone():
                return "same", room_of(code, fields)
            (count,) = db.execute("SELECT COUNT(*) FROM followers WHERE code = ?", (code,)).fetchone()
            if count >= limits.followers:
                return "full", None
            db.execute("INSERT INTO followers (code, follower) VALUES (?, ?)", (code, follower))
            db.execute("UPDATE rooms SET active_at = ? WHERE code = ?", (now, code))
        self._announce(code)
        return "ok", room_of(code, fields)

    def leave(self, code: str, follower: str, now: float, limits: Limits) -> None:
        with self._transaction() as db:
            fields = self._live_row(db, code, now, limits)
            if fields is None or fields["closed"]:
                return
            gone = db.execute("DELETE FROM followers WHERE code = ? AND follower = ?", (code, follower)).rowcount
            if not gone:
                return
            db.execute("UPDATE rooms SET active_at = ? WHERE code = ?", (now, code))
        self._announce(code)

    def following(self, code: str) -> int:
        return self._read("SELECT COUNT(*) FROM followers WHERE code = ?", (code,))[0][0]

    def answer(self, code: str, follower: str, slide: int, value: str, now: float, limits: Limits,
               nonce: str) -> str:
        with self._transaction() as db:
            self._purge(db, now, limits)
            fields = self._live_row(db, code, now, limits)
            if fields is None:
                return "gone"
            if fields["closed"]:
                return "closed"
            if fields["slide"] != slide:
                return "moved"
            if fields["revealed"]:
                return "revealed"
            (recent,) = db.execute("SELECT COUNT(*) FROM answer_log WHERE follower = ? AND at > ?",
                                   (follower, now - limits.answer_window)).fetchone()
            if recent >= limits.answers_per_window:
                return "rate"
            known = db.execute("SELECT 1 FROM answers WHERE code = ? AND slide = ? AND follower = ?",
                               (code, slide, follower)).fetchone()
            if not known:
                (count,) = db.execute("SELECT COUNT(*) FROM answers WHERE code = ? AND slide = ?",
                                      (code, slide)).fetchone()
                if count >= limits.followers:
                    return "full"
            db.execute("INSERT OR REPLACE INTO answers (code, slide, follower, value, at) VALUES (?, ?, ?, ?, ?)",
                       (code, slide, follower, value, now))
            db.execute("INSERT INTO answer_log (follower, at) VALUES (?, ?)", (follower, now))
            db.execute("UPDATE rooms SET active_at = ? WHERE code = ?", (now, code))
        self._announce(code)
        return "ok"

    def counts(self, code: str, slide: int) -> dict[str, int]:
        rows = self._read("SELECT value, COUNT(*) FROM answers WHERE code = ? AND slide = ? GROUP BY value "
                          "ORDER BY value", (code, slide))
        return dict(rows)

    def answers(self, code: str) -> list[tuple[int, str, str, float]]:
        rows = self._read("SELECT slide, follower, value, at FROM answers WHERE code = ? ORDER BY slide, at, follower",
                          (code,))
        return [(int(slide), follower, value, float(at)) for slide, follower, value, at in rows]

    def subscribe(self, callback: Callback) -> None:
        self._callbacks.add(callback)

    def close(self) -> None:
        with self._lock:
            self._db.close()
