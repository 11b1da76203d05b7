"""The server hands freed memory back after runs, at most once a second (posenc/ui/memory.py)."""

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from posenc.ui import memory


def test_trim_runs_and_is_a_no_op_without_glibc(monkeypatch):
    memory.trim()  # glibc here: malloc_trim(0), now or soon
    monkeypatch.setattr(memory, "_throttled", None)
    memory.trim()  # elsewhere (no malloc_trim): nothing to do, no error


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="resident memory read from /proc")
def test_trim_returns_freed_heap_pages():
    def resident_mb() -> float:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * 4096 / 2**20

    blocks = [np.ones(8_000) for _ in range(5_000)]  # 64 KB each: below the mmap threshold, on the heap
    del blocks[:-1]  # the last block keeps the top of the heap in use, so free() alone cannot shrink it
    before = resident_mb()
    memory._TRIM(0)  # what a run does, unthrottled
    assert resident_mb() < before - 100  # ~320 MB freed inside the heap, returned by malloc_trim


def test_a_burst_of_runs_trims_once_now_and_once_after_the_interval():
    calls = []
    trim = memory.Throttled(lambda: calls.append(time.monotonic()), 0.2)
    start = time.monotonic()
    for _ in range(50):  # a burst: 50 runs in well under 0.2 s
        trim()
    assert len(calls) == 1  # the first, at once; the others only scheduled one more
    deadline = time.monotonic() + 5
    while len(calls) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(calls) == 2 and calls[1] - start >= 0.2  # the burst's last pages are returned, after the interval
    time.sleep(0.3)
    assert len(calls) == 2  # and nothing more without runs
    trim()
    assert len(calls) == 3  # the interval has passed: at once again


def test_the_server_trims_through_the_throttle(monkeypatch):
    calls = []
    monkeypatch.setattr(memory, "_throttled", lambda: calls.append(1))
    memory.trim()
    assert calls == [1]


ARENAS_CHILD = r"""
import ctypes, os, sys, tempfile, threading
sys.path.insert(0, os.getcwd())
from posenc.ui import memory
took = memory.limit_arenas() if sys.argv[1] == "limit" else None
threads, allocated, done = 12, threading.Barrier(13), threading.Event()
def work():
    block = ctypes.create_string_buffer(65_536)  # on this thread's malloc arena (below the mmap threshold)
    allocated.wait()
    done.wait()
for _ in range(threads):
    threading.Thread(target=work).start()
allocated.wait()  # every thread holds its block: none has given its arena back
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
path = tempfile.mktemp()
out = libc.fopen(path.encode(), b"w")
libc.malloc_info(0, ctypes.c_void_p(out))
libc.fclose(ctypes.c_void_p(out))
done.set()
heaps = open(path).read().count("<heap nr=")
os.remove(path)
print(took, heaps)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt and malloc_info")
@pytest.mark.parametrize("how", ["limit", "default", "environment"])
def test_the_server_keeps_two_malloc_arenas_as_the_docker_image_does(how):
    """memory.limit_arenas(), which app.py calls first: 12 threads started after it, each allocating, share 2
    arenas, as under the Docker image's MALLOC_ARENA_MAX=2 (glibc's default gives each its own, up to 8 per core);
    an environment that sets MALLOC_ARENA_MAX keeps its own value. (In the server, the arenas Streamlit's threads
    made before app.py first ran stay: 7, against 17 without the call, after 50 sessions at once.)"""
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    if how == "environment":
        env["MALLOC_ARENA_MAX"] = "3"
    child = subprocess.run([sys.executable, "-c", ARENAS_CHILD, "default" if how == "default" else "limit"],
                           capture_output=True, text=True, env=env, timeout=60, check=True)
    took, heaps = child.stdout.split()
    if how == "default":  # the main thread's arena and one for each thread, within glibc's 8 per core
        assert took == "None" and int(heaps) >= min(13, 8 * len(os.sched_getaffinity(0))), child.stdout
    else:
        assert (took, int(heaps)) == {"limit": ("True", 2), "environment": ("False", 3)}[how], child.stdout
