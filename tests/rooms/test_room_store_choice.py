"""Where rooms live: open_store's choice (POSENC_REDIS_URL, POSENC_ROOMS_DB, the default file, the fallback when
that cannot be written) and default_rooms, one per process whatever the threads."""

from __future__ import annotations

import os
import threading

import pytest

import posenc.rooms as rooms_module
from posenc.rooms import RedisStore, Rooms, SqliteStore, default_path, default_rooms, open_store


@pytest.fixture(autouse=True)
def environment(monkeypatch, tmp_path):
    for name in ("POSENC_REDIS_URL", "POSENC_ROOMS_DB", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(rooms_module, "_default", None)


def test_without_redis_rooms_live_in_the_state_folders_sqlite_file(tmp_path):
    assert default_path() == tmp_path / "home" / ".local" / "state" / "posenc" / "rooms.sqlite3"
    store = open_store()
    try:
        assert isinstance(store, SqliteStore) and store.path == str(default_path())
        assert default_path().exists()
    finally:
        store.close()


def test_posenc_rooms_db_and_xdg_state_home_choose_the_file(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert default_path() == tmp_path / "state" / "posenc" / "rooms.sqlite3"
    monkeypatch.setenv("POSENC_ROOMS_DB", str(tmp_path / "here" / "rooms.db"))
    store = open_store()
    try:
        assert store.path == str(tmp_path / "here" / "rooms.db")
    finally:
        store.close()


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes anywhere")
def test_an_unwritable_folder_falls_back_to_the_temporary_directory(monkeypatch, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    monkeypatch.setenv("POSENC_ROOMS_DB", str(locked / "sub" / "rooms.sqlite3"))
    store = open_store()
    try:
        assert "posenc-rooms-" in store.path
    finally:
        store.close()


def test_a_file_that_cannot_be_a_database_falls_back(monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where a folder should be")
    monkeypatch.setenv("POSENC_ROOMS_DB", str(blocker / "rooms.sqlite3"))
    store = open_store()
    try:
        assert "posenc-rooms-" in store.path and isinstance(store, SqliteStore)
    finally:
        store.close()


def test_posenc_redis_url_chooses_redis(monkeypatch):
    monkeypatch.setenv("POSENC_REDIS_URL", "redis://127.0.0.1:1/0")  # made, not connected until used
    store = open_store()
    try:
        assert isinstance(store, RedisStore)
    finally:
        store.close()


def test_default_rooms_is_one_per_process(monkeypatch, tmp_path):
    monkeypatch.setenv("POSENC_ROOMS_DB", str(tmp_path / "rooms.sqlite3"))
    made = []
    threads = [threading.Thread(target=lambda: made.append(default_rooms())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(rooms) for rooms in made}) == 1 and isinstance(made[0], Rooms)
    made[0].store.close()
