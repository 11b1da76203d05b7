"""Keep Python's cyclic garbage collector off what every session shares.

A server's full (generation-2) collections walk every object the process tracks: about 160,000 after
the first run of the default page (Streamlit, numpy, plotly, posenc: modules, classes, functions),
more than all its sessions' own. A burst of first loads triggers several, each ~100 ms with the GIL
held, in a process that holds 150 sessions (measured with gc.callbacks in bench/hall.py's replicas:
two per replica per burst, 80-140 ms each).

``gc.freeze()`` moves every tracked object to a permanent generation that collections skip. It is
done after a run, once the run's imports are in, and again whenever later runs imported more modules
(another page's first visit). What is frozen is never collected as cyclic garbage, so it is done only
while few sessions are open (``MAX_SESSIONS``): a frozen session's cycles outlive it. What that
leaves, at most, is MAX_SESSIONS sessions' cyclic state per freeze, and a freeze happens only when
the process has imported something new (a handful of times in its life). Measured (a server's
frozen objects unfrozen and collected once its sessions had closed): 113 objects, ~24 KB, when one
session was open at the freeze; 647 objects, ~0.4 MB, when four were, some of them mid-run.

A burst of reruns (a lecture room's push: 150 followers of a replica rerun in turns, posenc.ui.push) allocates
enough to trigger collections, a full one among them, that walk every session's objects with the GIL held: during a
300-follower slide change, 0.18 and 0.22 s of the two replicas' 3.4 s of CPU (gc.callbacks), one full collection
each, stalling every follower behind it. :func:`pause` holds the automatic collections while such a burst runs
(:data:`PAUSE_SECONDS` at most); :func:`resume`, at its end, lets them run then. Reference counting frees what it
always frees meanwhile; only cyclic garbage waits, for seconds.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable

from streamlit import runtime

MAX_SESSIONS = 4  # sessions open at most when shared objects are frozen (their cycles then leak)
PAUSE_SECONDS = 10.0  # automatic collections held at most this long by one pause

_lock = threading.Lock()
_modules_frozen = 0  # len(sys.modules) at the last freeze
_paused: list[threading.Timer] = []  # the timer that ends the pause, while this module holds the collector


def open_sessions() -> int | None:
    """Sessions this Streamlit server holds (open, or disconnected within their TTL); None without a
    server (a script, a notebook, AppTest) or if Streamlit's session manager cannot say."""
    if not runtime.exists():
        return None
    manager = getattr(runtime.get_instance(), "_session_mgr", None)
    count = getattr(manager, "num_sessions", None)
    return count() if callable(count) else None


def freeze_shared(sessions: Callable[[], int | None] = open_sessions) -> bool:
    """After a run: if modules were imported since the last freeze and at most MAX_SESSIONS sessions
    are open, collect the garbage there is and freeze the rest. True if it froze."""
    global _modules_frozen
    if len(sys.modules) <= _modules_frozen:  # the common case, one comparison per run
        return False
    with _lock:
        modules = len(sys.modules)
        open_now = sessions()
        if modules <= _modules_frozen or open_now is None or open_now > MAX_SESSIONS:
            return False
        gc.collect()
        gc.freeze()
        _modules_frozen = modules
        return True


def pause(seconds: float = PAUSE_SECONDS) -> None:
    """Hold Python's automatic collections until :func:`resume`, or ``seconds`` from now (a new pause moves that
    end). Nothing if the collector is off for another reason: only a pause of this module is resumed."""
    with _lock:
        if _paused:
            _paused.pop().cancel()
        elif not gc.isenabled():
            return
        gc.disable()
        timer = threading.Timer(seconds, lambda: _end(timer))
        timer.daemon = True
        _paused.append(timer)
    timer.start()


def resume() -> None:
    """End this module's pause, if one holds the collector: collections run again from the next allocation."""
    _end(None)


def _end(timer: threading.Timer | None) -> None:
    """End the pause: any (``None``, :func:`resume`) or only the one ``timer`` started. A timer already
    firing when a new pause cancelled it must not end that new pause."""
    with _lock:
        if not _paused or (timer is not None and _paused[0] is not timer):
            return
        _paused.pop().cancel()
        gc.enable()
