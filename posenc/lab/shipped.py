"""Where the shipped set lives and what it holds (no torch: results.py and the CLI share it)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from posenc.lab.names import SCHEMES, SEEDS, TASKS

HERE = Path(__file__).resolve().parent / "data"
"""The lab's shipped data (no module lives there): the results, the attention maps, the extension's records."""
RESULTS_PATH = HERE / "results.jsonl"
"""One JSON record per line: task, scheme, seed, train_max_length, test_length, accuracy, examples."""
ATTENTION_PATH = HERE / "attention.npz"
"""Attention maps of the seed-0 models at every test length 1 … 3L (stored_lengths): keys
``{task}/{scheme}/{length}/maps`` (float16 multiples of 1/MAP_STEPS, [layers, heads, T, T]) and
``{task}/{scheme}/{length}/tokens`` (int8, [T])."""
MAP_STEPS = 1024
"""A shipped weight is rounded to a multiple of 1/1024 (exact in float16; off by at most 0.0005, below the third
decimal the page shows): zlib then packs the maps of every length 1 … 24 (3 tasks × 13 schemes) into 5.7 MB."""
MAP_SEED = 0
"""The training seed whose models' attention maps are shipped."""


def map_lengths(train_max_length: int) -> tuple[int, int]:
    """The string lengths of the shipped maps: the longest training length L, and 1.5·L (past it)."""
    return train_max_length, train_max_length + max(train_max_length // 2, 1)


def animation_lengths(test_max_length: int) -> tuple[int, ...]:
    """The string lengths of the page's animation, one frame each: every test length 1 … test_max_length."""
    return tuple(range(1, test_max_length + 1))


def stored_lengths(train_max_length: int, test_max_length: int) -> tuple[int, ...]:
    """Every string length with a map in attention.npz: the animation's and the still pair's (map_lengths)."""
    return tuple(sorted(set(animation_lengths(test_max_length)) | set(map_lengths(train_max_length))))


def stored_map(probabilities: np.ndarray) -> np.ndarray:
    """Attention weights as attention.npz keeps them: float16 multiples of 1/MAP_STEPS."""
    return (np.round(np.asarray(probabilities, np.float64) * MAP_STEPS) / MAP_STEPS).astype(np.float16)


def cells() -> list[tuple[str, str, int]]:
    """(task, scheme, seed) of the shipped set, in the order regenerate trains them: seed 0 of every cell
    first (its maps too), then seeds 1 and 2."""
    return [(task, scheme, seed) for seed in SEEDS for task in TASKS for scheme in SCHEMES]


def read_jsonl(path: str | Path, keys: tuple[str, ...]) -> list[dict[str, object]]:
    """The records of a JSON-lines file (blank lines skipped), each checked to have exactly ``keys``, in order
    (ValueError naming the file and the line otherwise): results.jsonl's and extension.jsonl's reader."""
    records = []
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        if not line.strip():
            continue
        record = json.loads(line)
        if not isinstance(record, dict) or tuple(record) != keys:
            raise ValueError(f"{path}, line {number}: a record must have the keys {', '.join(keys)}, in order; "
                             f"got {line[:200]!r}.")
        records.append(record)
    return records
