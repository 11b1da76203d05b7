"""Keep the server's memory low: few malloc arenas, and freed memory handed back after runs, at most once a second.

Streamlit runs every session's script in a thread of its own, and glibc gives threads their own malloc arenas
(up to 8 per core), each keeping its freed pages. The Docker image sets ``MALLOC_ARENA_MAX=2``: two arenas from
the start (238 MB after 100 sessions at large parameters, against 293-333 MB without; BENCHMARKS.md). Streamlit
Community Cloud and ``streamlit run app.py`` cannot set the environment before Python starts, so :func:`limit_arenas`
makes the setting from inside (``mallopt``) when app.py first runs: the arenas Streamlit's own threads made before
that stay (7 here), and no thread makes another (17 without, after 50 sessions at once). It bounds the arenas; the
variable, where it can be set, does better; an environment that sets ``MALLOC_ARENA_MAX`` is left as it is.

A cold run at the caps allocates and frees tens of MiB (tables, blocks of a measurement);
glibc keeps freed heap pages for reuse, so a server's resident memory stays near its peak
(measured: 669 MB after 100 load-test sessions). ``malloc_trim(0)`` returns them; it is a
no-op where the C library has no such call (macOS, musl).

It walks the whole heap (~0.1–0.3 ms), which at a hundred runs a second is a few per cent of a
server's CPU for nothing: the heap of the run before was trimmed a moment ago. So a run trims only
when the last trim is at least ``INTERVAL`` seconds old; otherwise one trim is scheduled for when
it will be, so the pages freed by the last run of a burst are returned within ``INTERVAL`` seconds.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
import time

_LIBC = ctypes.CDLL(ctypes.util.find_library("c") or None)
_TRIM = getattr(_LIBC, "malloc_trim", None)
_MALLOPT = getattr(_LIBC, "mallopt", None)  # glibc and musl (where it does nothing); not macOS
M_ARENA_MAX = -8  # glibc's <malloc.h>
ARENAS = 2  # as the Docker image's MALLOC_ARENA_MAX=2

INTERVAL = 1.0  # seconds between two trims of the process's heap, at most


class Throttled:
    """``call()`` at most once every ``interval`` seconds; a call refused schedules one for when it
    may run (one at a time), so the last of a burst is never dropped."""

    def __init__(self, call, interval: float) -> None:
        self._call, self.interval = call, interval
        self._lock = threading.Lock()
        self._last = float("-inf")  # time.monotonic() of the last call made
        self._pending: threading.Timer | None = None

    def _now(self) -> None:
        with self._lock:
            self._last, self._pending = time.monotonic(), None
        self._call()

    def __call__(self) -> None:
        with self._lock:
            wait = self._last + self.interval - time.monotonic()
            if wait > 0:
                if self._pending is None:
                    self._pending = threading.Timer(wait, self._now)
                    self._pending.daemon = True
                    self._pending.start()
                return
        self._now()


_throttled = Throttled(lambda: _TRIM(0), INTERVAL) if _TRIM is not None else None


def trim() -> None:
    """Return the free pages of glibc's heaps to the OS (Linux): now if the last trim is
    ``INTERVAL`` seconds old, else once, ``INTERVAL`` seconds after it."""
    if _throttled is not None:
        _throttled()


def limit_arenas(count: int = ARENAS) -> bool:
    """No new malloc arena in this process once it holds ``count`` (``mallopt(M_ARENA_MAX, count)``, what
    ``MALLOC_ARENA_MAX=count`` sets at start): whether the C library took the setting (glibc). Arenas made before
    stay. Nothing is done when the environment sets MALLOC_ARENA_MAX (glibc read it at start).

    glibc fixes its limit when a thread first needs a new arena past the eighth, so this must come before the
    sessions' threads: app.py calls it first thing (later calls change nothing and cost a microsecond)."""
    if _MALLOPT is None or "MALLOC_ARENA_MAX" in os.environ:
        return False
    return bool(_MALLOPT(M_ARENA_MAX, count))
