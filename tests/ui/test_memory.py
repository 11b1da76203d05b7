"""The server hands freed memory back after each run (posenc/ui/memory.py)."""

import sys

import numpy as np
import pytest

from posenc.ui import memory


def test_trim_runs_and_is_a_no_op_without_glibc(monkeypatch):
    memory.trim()  # glibc here: malloc_trim(0)
    monkeypatch.setattr(memory, "_TRIM", None)
    memory.trim()  # elsewhere: nothing to do, no error


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="resident memory read from /proc")
def test_trim_returns_freed_heap_pages():
    def resident_mb() -> float:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * 4096 / 2**20

    blocks = [np.ones(8_000) for _ in range(5_000)]  # 64 KB each: below the mmap threshold, on the heap
    del blocks[:-1]  # the last block keeps the top of the heap in use, so free() alone cannot shrink it
    before = resident_mb()
    memory.trim()
    assert resident_mb() < before - 100  # ~320 MB freed inside the heap, returned by malloc_trim
