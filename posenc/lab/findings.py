"""When a gap between two schemes (or two stretching methods) is a finding: each trained with a few seeds, one
is ahead only if every seed of it is ahead of every seed of the other. Where the seeds overlap, the means may
still differ, but another seed could reverse them: that is no finding at the lab's scale."""

from __future__ import annotations

import numpy as np


def seeds_verdict(ours: np.ndarray, theirs: np.ndarray, tolerance: float = 0.0) -> bool | None:
    """True if every seed's score in ``ours`` beats every one in ``theirs`` (with ``tolerance`` > 0: is at least
    theirs − tolerance, "matches or beats"); False if none does; None if the seeds overlap (no finding).
    A tie does not beat: with tolerance 0, equal scores are False."""
    ours, theirs = np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64)
    if not ours.size or not theirs.size:
        raise ValueError("seeds_verdict needs at least one seed on each side.")
    if tolerance == 0:
        return True if ours.min() > theirs.max() else False if ours.max() <= theirs.min() else None
    return True if ours.min() >= theirs.max() - tolerance else False if ours.max() < theirs.min() - tolerance else None
