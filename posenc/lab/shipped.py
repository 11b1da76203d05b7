"""Where the shipped set lives and what it holds (no torch: results.py and the CLI share it)."""

from __future__ import annotations

from pathlib import Path

from posenc.lab.names import SCHEMES, SEEDS, TASKS

HERE = Path(__file__).resolve().parent
RESULTS_PATH = HERE / "results.jsonl"
"""One JSON record per line: task, scheme, seed, train_max_length, test_length, accuracy, examples."""
ATTENTION_PATH = HERE / "attention.npz"
"""Attention maps of the seed-0 models: keys ``{task}/{scheme}/{length}/maps`` (float16, [layers, heads, T, T])
and ``{task}/{scheme}/{length}/tokens`` (int8, [T])."""
MAP_SEED = 0
"""The training seed whose models' attention maps are shipped."""


def map_lengths(train_max_length: int) -> tuple[int, int]:
    """The string lengths of the shipped maps: the longest training length L, and 1.5·L (past it)."""
    return train_max_length, train_max_length + max(train_max_length // 2, 1)


def cells() -> list[tuple[str, str, int]]:
    """(task, scheme, seed) of the shipped set, in the order regenerate trains them: seed 0 of every cell
    first (its maps too), then seeds 1 and 2."""
    return [(task, scheme, seed) for seed in SEEDS for task in TASKS for scheme in SCHEMES]
