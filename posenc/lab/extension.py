"""Stretching the lab's RoPE models past their training length (issue 30): the methods, the recipe, the
shipped records and the papers' claims, read with numpy alone (no torch: the page opens on them at once).

A RoPE model trained on strings of 1…L digits (the shipped recipe, L = 8) is extended to F·L digits
(F = 2, 4) by one of posenc's own RoPE scalings (posenc.schemes.rope.scalings, the functions the app's
"Context-extension scaling" shows), with the training sequence's token count L₀ = 2L + 2 as the original
context, then tested zero-shot (0 steps) and after a short fine-tune at lengths 1…F·L, on 1…4L digits.
``python -m posenc.lab extend`` computes one cell, ``python -m posenc.lab regenerate-extension`` the set.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from posenc.checks import check_choice
from posenc.lab.findings import seeds_verdict
from posenc.lab.shipped import HERE, MAP_SEED, read_jsonl

EXTENSION_PATH = HERE / "extension.jsonl"
"""One JSON record per line (EXTENSION_KEYS): every (task, method, factor, finetune_steps, seed, test_length)."""

EXTENSION_KEYS = ("task", "method", "factor", "finetune_steps", "train_max_length", "seed", "test_length",
                  "accuracy", "examples")
"""The keys of one record, in order (the same as ``python -m posenc.lab extend`` prints)."""

TASKS: tuple[str, ...] = ("copy", "reverse")
"""The tasks of the experiment (issue 30: the two tasks of the lab when it was built); a task added to the lab
joins it by being added here and ``regenerate-extension`` run again."""

FACTORS: tuple[int, ...] = (2, 4)
"""How many times the training length the model is stretched to: 2L and 4L (16 and 32 digits)."""

FINETUNE_STEPS: tuple[int, ...] = (0, 50, 200)
"""0: zero-shot. 200: a short fine-tune, 13% of the 1,500 steps of training (Chen et al. fine-tune for 1,000
steps, a sliver of pre-training); 50: a quarter of that, to ask whether YaRN needs fewer steps than PI."""

FINETUNE_LR = 1e-3
"""Peak learning rate of the fine-tune (a third of training's 3e-3: the model is adapted, not retrained);
linear warmup over a tenth of the steps then cosine to 0, a fresh AdamW, as in training."""

TEST_FACTOR = 4
"""Every stretched model is tested on 1…4L digits, the longest extension."""


def _none(factor: int, original: int) -> tuple[str, dict[str, object]]:
    return "default", {}


def _factor_only(rope_type: str) -> Callable[[int, int], tuple[str, dict[str, object]]]:
    def scaling(factor: int, original: int) -> tuple[str, dict[str, object]]:
        return rope_type, {"factor": float(factor)}
    return scaling


def _with_original(rope_type: str) -> Callable[[int, int], tuple[str, dict[str, object]]]:
    def scaling(factor: int, original: int) -> tuple[str, dict[str, object]]:
        return rope_type, {"factor": float(factor), "original_max_position_embeddings": int(original)}
    return scaling


METHODS: dict[str, Callable[[int, int], tuple[str, dict[str, object]]]] = {
    "none": _none,  # plain extrapolation: the positions past L₀ are simply turned further
    "pi": _factor_only("linear"),  # position interpolation, Chen et al. 2023, arXiv:2306.15595
    "ntk": _factor_only("ntk"),  # NTK-aware base, /u/bloc97 2023
    "yarn": _with_original("yarn"),  # YaRN, Peng et al. 2023, arXiv:2309.00071
    "llama3": _with_original("llama3"),  # Llama 3.1's bands, arXiv:2407.21783
}
"""method → ``scaling(factor, original)`` → (rope_type, parameters) of posenc.schemes.rope.scalings.ROPE_SCALINGS,
named as the app's RoPE options name them (rope_type, factor, original_max_position_embeddings)."""

METHOD_LABELS: dict[str, str] = {"none": "Extrapolation", "pi": "PI", "ntk": "NTK-aware", "yarn": "YaRN",
                                 "llama3": "Llama 3"}

EXTENSION_ATTENTION_PATH = HERE / "extension_attention.npz"
"""Attention maps of the stretched seed-0 (MAP_SEED) RoPE models of MAP_CELLS at every test length 1…4L: keys
``{task}/{method}/{factor}/{finetune_steps}/{length}/maps`` (float16 multiples of 1/MAP_STEPS, as attention.npz,
[layers, heads, T, T]) and ``…/{length}/tokens`` (int8, [T]); ``python -m posenc.lab regenerate-extension-maps``."""

MAP_FACTOR, MAP_FINETUNE_STEPS = 4, 200
"""The stretch whose maps are shipped: to 4L, fine-tuned 200 steps (every method, both tasks, 1…32 digits:
2.7 MB). A second factor or fine-tune would double it, past the 4 MB the lab allows this view."""


def check_task(task: object) -> str:
    """One of the experiment's TASKS, or a ValueError listing them."""
    return check_choice(task, "task", TASKS)


def check_method(method: object) -> str:
    """One of METHODS, or a ValueError listing them."""
    return check_choice(method, "method", tuple(METHODS))


def check_factor(factor: object) -> int:
    """One of FACTORS, or a ValueError listing them."""
    if isinstance(factor, bool) or factor not in FACTORS:
        raise ValueError(f"factor must be one of {', '.join(map(str, FACTORS))} (the context is stretched to "
                         f"factor × the training length); got {factor!r}.")
    return int(factor)


def cells(task: str, seed: int) -> list[tuple[str, str, int, int, int]]:
    """(task, method, factor, finetune_steps, seed) of one base model, in the order they are computed."""
    return [(task, method, factor, steps, seed) for factor in FACTORS for method in METHODS for steps in FINETUNE_STEPS]


def is_base_cell(record: dict[str, object]) -> bool:
    """Whether a record is of the base model itself: the first method (plain extrapolation), no fine-tune."""
    return record["method"] == next(iter(METHODS)) and record["finetune_steps"] == 0


def read_extension(path: str | Path) -> list[dict[str, object]]:
    """The records of a JSON-lines file, each checked to have exactly EXTENSION_KEYS (ValueError otherwise)."""
    return read_jsonl(path, EXTENSION_KEYS)


@functools.cache
def _shipped() -> tuple[dict[str, object], ...]:
    return tuple(read_extension(EXTENSION_PATH)) if EXTENSION_PATH.exists() else ()


def load_extension(task: str | None = None) -> list[dict[str, object]]:
    """The shipped records (copies), optionally of one task."""
    task = None if task is None else check_task(task)
    return [dict(r) for r in _shipped() if task is None or r["task"] == task]


def curves(records: list[dict[str, object]], task: str, factor: int,
           finetune_steps: int) -> dict[str, dict[str, np.ndarray]]:
    """method → {"lengths", "mean", "min", "max", "seeds"} over the seeds, for one task, factor and fine-tune."""
    grouped: dict[tuple[str, int], list[float]] = {}
    for r in records:
        if (r["task"], r["factor"], r["finetune_steps"]) == (task, factor, finetune_steps):
            grouped.setdefault((str(r["method"]), int(r["test_length"])), []).append(float(r["accuracy"]))
    out: dict[str, dict[str, np.ndarray]] = {}
    for method in METHODS:
        lengths = sorted(n for m, n in grouped if m == method)
        if lengths:
            values = [np.asarray(grouped[(method, n)]) for n in lengths]
            out[method] = {"lengths": np.asarray(lengths), "mean": np.array([v.mean() for v in values]),
                           "min": np.array([v.min() for v in values]), "max": np.array([v.max() for v in values]),
                           "seeds": np.array([len(v) for v in values])}
    return out


def _in_window(records: list[dict[str, object]], task: str, method: str, factor: int,
               finetune_steps: int) -> list[dict[str, object]]:
    """The records of one stretched model over its stretched context, test lengths 1…factor·L, in their order."""
    return [r for r in records
            if (r["task"], r["method"], r["factor"], r["finetune_steps"]) == (task, method, factor, finetune_steps)
            and int(r["test_length"]) <= factor * int(r["train_max_length"])]


def window_mean(records: list[dict[str, object]], task: str, method: str, factor: int,
                finetune_steps: int) -> float | None:
    """The mean exact match over the stretched context, test lengths 1…factor·L, and the seeds (None if absent)."""
    values = [float(r["accuracy"]) for r in _in_window(records, task, method, factor, finetune_steps)]
    return float(np.mean(values)) if values else None


def window_by_seed(records: list[dict[str, object]], task: str, method: str, factor: int,
                   finetune_steps: int) -> np.ndarray:
    """Each seed's mean exact match over the stretched context, test lengths 1…factor·L, seeds ascending (empty if
    absent): the spread :func:`check_claims` tells a finding from noise by."""
    per_seed: dict[int, list[float]] = {}
    for r in _in_window(records, task, method, factor, finetune_steps):
        per_seed.setdefault(int(r["seed"]), []).append(float(r["accuracy"]))
    return np.array([np.mean(per_seed[seed]) for seed in sorted(per_seed)])


MATCH_TOLERANCE = 0.01
"""'Matches' in the YaRN claim: within 0.01 of exact match (2 strings in 200)."""


@dataclass(frozen=True)
class Claim:
    """A paper's claim as a comparison of two (method, fine-tune steps) over the stretched context 1…F·L:
    ``better`` beats ``worse`` (mean exact match strictly higher), or, with ``tolerance``, matches or beats it
    (higher or within the tolerance below)."""

    source: str
    statement: str
    better: tuple[str, int]
    worse: tuple[str, int]
    tolerance: float = 0.0


CLAIMS: tuple[Claim, ...] = (
    Claim("Chen et al. 2023, arXiv:2306.15595",
          f"PI with a short fine-tune ({FINETUNE_STEPS[-1]} steps) beats plain extrapolation fine-tuned as long",
          ("pi", FINETUNE_STEPS[-1]), ("none", FINETUNE_STEPS[-1])),
    Claim("Peng et al. 2023, arXiv:2309.00071, after /u/bloc97", "NTK-aware scaling beats PI zero-shot",
          ("ntk", 0), ("pi", 0)),
    Claim("Peng et al. 2023, arXiv:2309.00071",
          f"YaRN matches or beats PI with fewer steps ({FINETUNE_STEPS[1]} against {FINETUNE_STEPS[-1]})",
          ("yarn", FINETUNE_STEPS[1]), ("pi", FINETUNE_STEPS[-1]), tolerance=MATCH_TOLERANCE),
)
"""The papers' claims the extension experiment checks, each in every (task, factor)."""


def check_claims(records: list[dict[str, object]] | None = None) -> list[dict[str, object]]:
    """Each claim of CLAIMS checked on the records (default: the shipped ones): {"claim": Claim, "cases":
    [{"task", "factor", "better", "worse", "holds"}] (the means over 1…F·L and the seeds), "holds": how many
    cases hold, "verdict": "holds" (every case), "does not hold" (every case fails), "within the seeds'
    spread" (every case), "holds in k of n cases" (with how many fail and how many are within the spread), or
    "not measured" (the records lack one side)}.

    A case holds when every seed of ``better`` beats every seed of ``worse`` (matches it, within the claim's
    tolerance); it fails when none does; otherwise the seeds overlap and it is no finding: ``holds`` is None."""
    records = load_extension() if records is None else records
    present = sorted({(str(r["task"]), int(r["factor"])) for r in records},
                     key=lambda tf: (TASKS.index(tf[0]) if tf[0] in TASKS else len(TASKS), tf[1]))
    out = []
    for claim in CLAIMS:
        cases = []
        for task, factor in present:
            better = window_mean(records, task, claim.better[0], factor, claim.better[1])
            worse = window_mean(records, task, claim.worse[0], factor, claim.worse[1])
            if better is not None and worse is not None:
                ours = window_by_seed(records, task, claim.better[0], factor, claim.better[1])
                theirs = window_by_seed(records, task, claim.worse[0], factor, claim.worse[1])
                holds = seeds_verdict(ours, theirs, claim.tolerance)
                cases.append({"task": task, "factor": factor, "better": better, "worse": worse, "holds": holds})
        held = sum(case["holds"] is True for case in cases)
        failed = sum(case["holds"] is False for case in cases)
        spread = len(cases) - held - failed
        verdict = ("not measured" if not cases else "holds" if held == len(cases)
                   else "does not hold" if failed == len(cases) else "within the seeds' spread" if spread == len(cases)
                   else f"holds in {held} of {len(cases)} cases" if not spread
                   else f"{len(cases)} cases: " + ", ".join(part for count, part in (
                       (held, f"holds in {held}"), (failed, f"does not hold in {failed}"),
                       (spread, f"seeds overlap in {spread}")) if count))
        out.append({"claim": claim, "cases": cases, "holds": held, "verdict": verdict})
    return out


def map_cells() -> list[tuple[str, str, int, int]]:
    """(task, method, factor, finetune_steps) of the shipped maps, in the order they are computed."""
    return [(task, method, MAP_FACTOR, MAP_FINETUNE_STEPS) for task in TASKS for method in METHODS]


def map_key(task: str, method: str, factor: int, finetune_steps: int, length: int) -> str:
    """The prefix of one map's keys in extension_attention.npz (``…/maps``, ``…/tokens``)."""
    return f"{task}/{method}/{factor}/{finetune_steps}/{length}"


@functools.cache
def _shipped_maps() -> dict[str, np.ndarray]:
    if not EXTENSION_ATTENTION_PATH.exists():
        return {}
    with np.load(EXTENSION_ATTENTION_PATH) as archive:
        return {key: archive[key] for key in archive.files}


def has_maps(task: str, method: str, factor: int, finetune_steps: int) -> bool:
    """Whether the shipped maps hold that stretched model (at test length 1, the first of its frames)."""
    return f"{map_key(task, method, factor, finetune_steps, 1)}/maps" in _shipped_maps()


def load_extension_attention(task: str, method: str, factor: int, finetune_steps: int,
                             length: int) -> tuple[np.ndarray, np.ndarray]:
    """(probabilities [layers, heads, T, T] float32, tokens [T] int) of the stretched seed-0 RoPE model of
    (task, method, factor, finetune_steps) reading a string of ``length`` digits (T = 2·length + 1); a
    ValueError naming the command that writes them if the shipped maps lack it."""
    key = map_key(check_task(task), check_method(method), check_factor(factor), finetune_steps, length)
    maps = _shipped_maps()
    if f"{key}/maps" not in maps:
        raise ValueError(f"no shipped attention map of the stretched RoPE model {key} (task/method/factor/"
                         f"fine-tune steps/digits; shipped: {', '.join('/'.join(map(str, c)) for c in map_cells())}, "
                         f"seed {MAP_SEED}, 1…{TEST_FACTOR}L digits); run python -m posenc.lab regenerate-extension-maps.")
    return maps[f"{key}/maps"].astype(np.float32), maps[f"{key}/tokens"].astype(np.int64)


def seed_accuracy(task: str, method: str, factor: int, finetune_steps: int, seed: int = MAP_SEED) -> dict[int, float]:
    """test length → exact match of one stretched model (one seed) in the shipped records (empty if absent)."""
    return {int(r["test_length"]): float(r["accuracy"]) for r in _shipped()
            if (r["task"], r["method"], r["factor"], r["finetune_steps"], r["seed"])
            == (task, method, factor, finetune_steps, seed)}
