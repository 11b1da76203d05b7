"""Fixtures of the room tests: a clock the test moves, questions of a fake lecture, both stores, a real Redis.

The fake lecture "fake" has 5 slides: slide 2 asks a choice (3 choices, the answer "1"), slide 3 a number
(64 ± 0.5), the others nothing. The stores: SQLite in a file of the test's own folder, and fakeredis (an
in-process Redis, the scripts run by lupa). ``redis_server``: Debian's redis-server on a free port with an
append-only file in a temporary folder, which a test can kill and start again.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from room_fakes import Clock, RedisServer, make_store, questions

from posenc.rooms import Rooms


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["sqlite", "fakeredis"])
def store(request, tmp_path):
    made = make_store(request.param, tmp_path)
    yield made
    made.close()


@pytest.fixture
def rooms(store, clock) -> Rooms:
    return Rooms(store, questions=questions, clock=clock)


@pytest.fixture
def redis_server(tmp_path):
    binary = shutil.which("redis-server") or ("/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists()
                                              else None)
    if binary is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server; .ci/run installs it)")
    folder = tmp_path / "redis"
    folder.mkdir()
    server = RedisServer(binary, folder)
    server.start()
    yield server
    server.stop()
