"""What the room tests share: a clock the test moves, the questions of a fake lecture, the stores, a real Redis.

The fake lecture "fake" has 5 slides: slide 2 asks a choice (3 choices, the answer "1"), slide 3 a number
(64 ± 0.5), the others nothing.
"""

from __future__ import annotations

import math
import socket
import subprocess
import time
from pathlib import Path

from posenc.rooms import SqliteStore

LECTURE = "fake"
SLIDES = 5
START = 1_800_000_000.0


class Clock:
    """Unix time that moves only when the test says so."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class ChoiceQuestion:
    kind = "choice"
    text = "Which choice?"
    choices = ("zero", "one", "two")
    correct = "1"
    tolerance = 0.0

    def accepts(self, value: str) -> str:
        if not isinstance(value, str):
            raise ValueError("An answer is text.")
        text = value.strip()
        if text not in {"0", "1", "2"}:
            raise ValueError("An answer to this question is a choice's number, 0 to 2.")
        return text


class NumberQuestion:
    kind = "number"
    text = "How many positions?"
    choices = ()
    correct = "64.0"
    tolerance = 0.5

    def accepts(self, value: str) -> str:
        if not isinstance(value, str):
            raise ValueError("An answer is text.")
        try:
            number = float(value.strip())
        except ValueError:
            raise ValueError("An answer to this question is a finite number.") from None
        if not math.isfinite(number):
            raise ValueError("An answer to this question is a finite number.")
        return repr(number)


QUESTIONS = {2: ChoiceQuestion(), 3: NumberQuestion()}


def questions(lecture: str, slide: int):
    """The fake lecture's questions (posenc.lectures.question_of's contract: ValueError past the end)."""
    if lecture != LECTURE or not 1 <= slide <= SLIDES:
        raise ValueError(f"{lecture} has slides 1 to {SLIDES}.")
    return QUESTIONS.get(slide)


def make_store(kind: str, folder: Path):
    if kind == "sqlite":
        return SqliteStore(folder / "rooms.sqlite3")
    import fakeredis

    from posenc.rooms import RedisStore

    return RedisStore(fakeredis.FakeRedis(server=fakeredis.FakeServer()))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """A redis-server of the test's own: ``--save '' --appendonly yes`` in ``folder``; :meth:`kill`, :meth:`start`."""

    def __init__(self, binary: str, folder: Path) -> None:
        self.binary, self.folder, self.port = binary, folder, free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        from posenc.rooms.redisstore import RedisStore

        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes",
             "--dir", str(self.folder), "--protected-mode", "no"],
            stdout=(self.folder / "redis.log").open("a"), stderr=subprocess.STDOUT)
        RedisStore.wait_ready(self.url)

    def kill(self) -> None:
        """SIGKILL, as a crash would: only what Redis wrote to its append-only file survives."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
            self.process = None




def wait_for(predicate, timeout: float = 2.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return predicate()
