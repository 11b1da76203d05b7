"""The verdicts of seed 001's criteria ("✔ …", "≈ …", "✘ …"), from the numbers posenc.analysis.properties measures."""

from __future__ import annotations

import numpy as np

UNIQUE_TOLERANCE = 1e-9  # two encodings closer than this count as the same
STEADY_GROWTH, FAST_GROWTH = 1.01, 1.5  # max|value| at 2L over max|value| at L: steady, slow, fast


def unique_verdict(distance: float, sharing: int, count: int, what: str, note: str) -> str:
    """Criterion 1: ✘ if fewer than two encodings, any shared bit for bit, or closer than UNIQUE_TOLERANCE."""
    if np.isnan(distance):
        return f"✘ fewer than two {what}s have an encoding ({note})"
    if sharing:
        return f"✘ not unique: {sharing} of {count} {what}s share an encoding with another ({note})"
    if distance <= UNIQUE_TOLERANCE:
        return f"✘ not unique to 1e-9: min distance {distance:.3g} ({note})"
    return f"✔ unique: min distance {distance:.3g} ({note})"


def consistent_verdict(change: float, spread: float, scale: float) -> str:
    """Criterion 2: ✔ when neither the change from L to L/2 nor the spread over p exceeds the tolerance."""
    if np.isnan(scale):
        return "✘ nothing to compare: no two of the positions measured have an encoding"
    tolerance = UNIQUE_TOLERANCE * max(1.0, scale)
    problems = []
    if change > tolerance:
        problems.append(f"changes with the length: up to {change:.3g} between L and L/2")
    if spread > tolerance:
        problems.append(f"depends on the position, not only the offset: spread {spread:.3g}")
    if problems:
        return "✘ " + "; ".join(problems)
    if scale == 0:
        return "✔ trivially: every distance is 0"
    return f"✔ depends on the offset only (spread {spread:.2g}, change with length {change:.2g})"


def bounded_verdict(at_length: float, at_double: float, drawn: bool = False) -> str:
    """Criterion 3: max |value| at 2L over max |value| at L: ✔ steady, ≈ a little larger, ✘ fast growth. ``drawn``: the
    rows are random draws (an untrained learned table), so a larger maximum at 2L is the largest of more draws."""
    ratio = at_double / at_length if at_length > 0 else (1.0 if at_double == 0 else np.inf)
    numbers = f"max |value| {at_length:.4g} at L, {at_double:.4g} at 2L"
    if ratio <= STEADY_GROWTH:
        return f"✔ does not grow: {numbers}"
    if drawn:
        return (f"≈ ×{ratio:.3g} at 2L, the largest of more random rows (the untrained table's draws), not a "
                f"growth with position: {numbers}")
    if ratio < FAST_GROWTH:
        # two lengths give no growth law: a bounded curve (Transformer-XL's) meets new extremes, a log kernel grows
        return f"≈ a little larger at 2L (×{ratio:.3g}): {numbers}"
    return f"✘ grows ×{ratio:.3g} when the length doubles: {numbers}"


def past_verdict(fraction: float, built: int, reason: str, sampled: int) -> str:
    """Criterion 5: how much of [L_built, 2·L_built) (offsets, for a bias) has a finite encoding."""
    if reason == "offsets":
        window = f"the offsets {built} ≤ |Δ| < {2 * built} in the directions attended"
        if fraction == 1:
            return f"✔ a bias for every one of {window}"
        return f"✘ only {fraction:.0%} of {window} have a bias"
    window = f"[{built}, {2 * built})" + (f", {sampled} positions sampled" if sampled < built else "")
    if fraction == 0:
        return f"✘ no encoding past position {built - 1} (none in {window})"
    if fraction < 1:
        return f"✘ only {fraction:.0%} of {window} has an encoding"
    if reason == "trained":
        return f"≈ defined past the trained length {built} (all of {window}), but extrapolates to unseen angles"
    return f"✔ defined at every position: all of {window} finite"
