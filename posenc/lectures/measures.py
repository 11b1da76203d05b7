"""Measurements a lecture's question can ask for: the right answer computed from posenc's own tested code,
never typed into the file.

:data:`MEASURES` maps a name to a function of keyword arguments (a question's other keys) returning a
:class:`Measurement`: (value, tolerance, unit, sentence), the sentence saying what was computed and how.
A bad argument is a ValueError of one sentence. :func:`measure` checks the arguments' names and caches the
result (the same question is read again on every rerun of a slide; the files do not change while the server
runs).

``posenc.lectures`` and ``posenc.lab`` are independent siblings of one layer (pyproject.toml), so
``lab_exact_match`` reads the lab's shipped results file (``posenc/lab/data/results.jsonl``, one JSON record per
line) as data rather than through ``posenc.lab.results``; tests/lectures checks it equals that module's
``summarize`` for every task, scheme and length.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from posenc import models
from posenc.analysis import dropped_scaling as dropped
from posenc.checks import ArgumentTypeError, check_base, check_d_model, check_int
from posenc.schemes.rope.frequencies import rope_inv_freq
from posenc.schemes.sinusoidal import sinusoidal, wavelengths
from posenc.schemes.t5 import t5_relative_bucket

LAB_RESULTS = Path(__file__).resolve().parents[1] / "lab" / "data" / "results.jsonl"
"""The lab's shipped results: task, scheme, seed, train_max_length, test_length, accuracy, examples."""
MAX_SIMILARITY_OFFSET = 1 << 16
"""The largest offset ``similarity`` builds a table for (65,537 rows × d_model)."""


class Measurement(NamedTuple):
    """A measured right answer: the value, the tolerance a right answer may miss it by, the unit, and the
    sentence saying how it was computed."""

    value: float
    tolerance: float
    unit: str
    sentence: str


def _num(value: float) -> str:
    """54,410.1 / 1.208 / 0.0001250 / 64: four significant digits, thousands separated."""
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value:,.1f}".removesuffix(".0")
    return f"{value:.4g}" if abs(value) >= 1e-4 else f"{value:.4e}"


def _pair(pair: object, count: int, name: str = "pair") -> int:
    return check_int(pair, name, minimum=0, maximum=count - 1, meaning=f"a pair's 0-based index, 0 to {count - 1}")


def wavelength(d_model: int = 128, n: float = 10000.0, pair: int | None = None) -> Measurement:
    """λ_i = 2π·n^(2i/d_model) of sinusoidal pair i (default: the last), in positions; ± 5%."""
    lengths = wavelengths(check_d_model(d_model), check_base(n, "n"))  # (⌈d/2⌉,)
    i = len(lengths) - 1 if pair is None else _pair(pair, len(lengths))
    value = float(lengths[i])
    return Measurement(value, 0.05 * value, "positions",
                       f"The wavelength of pair {i} at d_model {d_model}, n {_num(float(n))}: "
                       f"2π·n^(2·{i}/{d_model}) = {_num(value)} positions (posenc.schemes.sinusoidal.wavelengths); "
                       f"right within 5%.")


def rope_theta(d: int = 128, n: float = 10000.0, pair: int = 0) -> Measurement:
    """RoPE's θ_i = n^(−2i/d) of pair i of a head of d rotated dimensions, in radians per position; ± 5%."""
    theta, _ = rope_inv_freq(check_d_model(d), check_base(n, "n"))
    i = _pair(pair, len(theta))
    value = float(theta[i])
    return Measurement(value, 0.05 * value, "radians per position",
                       f"RoPE's θ of pair {i} for a head of {d} dimensions, n {_num(float(n))}: n^(−2·{i}/{d}) = "
                       f"{_num(value)} radians per position (posenc.schemes.rope.rope_inv_freq); right within 5%.")


def similarity(d_model: int = 128, n: float = 10000.0, offset: int = 0) -> Measurement:
    """PE[0]·PE[offset] of the sinusoidal table (= Σ_i cos(offset·θ_i)); ± 1% of its largest value, d_model/2."""
    d_model, base = check_d_model(d_model), check_base(n, "n")
    offset = check_int(offset, "offset", minimum=0, maximum=MAX_SIMILARITY_OFFSET,
                       meaning="how many positions apart the two rows are")
    table = sinusoidal(offset + 1, d_model, base)  # (offset + 1, d_model)
    value = float(table[0] @ table[offset])
    tolerance = 0.01 * d_model / 2
    return Measurement(value, tolerance, "",
                       f"PE[p]·PE[p + {offset}] of the sinusoidal table at d_model {d_model}, n {_num(base)} "
                       f"(rows 0 and {offset} of posenc.schemes.sinusoidal.sinusoidal): {_num(value)}; right within "
                       f"{_num(tolerance)} (1% of d_model/2, the largest it can be).")


def attention_factor(rope_type: str, d: int = 128, n: float = 10000.0, **params: object) -> Measurement:
    """The factor a RoPE scaling multiplies cos and sin by (YaRN: 0.1·ln s + 1), for its HF parameters; ± 0.005."""
    _, factor = rope_inv_freq(check_d_model(d), check_base(n, "n"), rope_type=rope_type, **params)
    given = ", ".join(f"{key} {value}" for key, value in params.items())
    return Measurement(float(factor), 0.005, "",
                       f"The factor the {rope_type} scaling ({given}) multiplies cos and sin by, from "
                       f"posenc.schemes.rope.rope_inv_freq: {float(factor):.4f}; right within 0.005.")


def dropped_scaling(model: str, layer_type: str | None = None) -> Measurement:
    """The first whole distance at which one query-key score under a preset's declared RoPE scaling and with
    the scaling dropped differ by more than 1% of |q|·|k| (posenc.analysis.dropped_scaling, seed 0); ± 10%."""
    if not isinstance(model, str):
        raise ArgumentTypeError(f"model must be a preset's name ({', '.join(models.names())}); got {model!r:.40}.")
    preset = models.get(model)
    reach = min(int(preset.context_length), 65_536)
    scores = dropped.dropped_scaling_scores(preset, np.arange(reach), layer_type)
    first = scores.first_disagreement
    if first is None:
        raise ValueError(f"{preset.label}'s scores with and without its scaling agree within 1% at every "
                         f"distance up to {reach - 1:,}: there is no first distance to ask for.")
    return Measurement(float(first), 0.1 * first, "tokens",
                       f"{preset.label}'s {scores.rope_type} scaling dropped: one query and key (seed {scores.seed}), "
                       f"scored at every distance 0 … {reach - 1:,}, differ by more than 1% of |q|·|k| first at "
                       f"distance {first:,} (posenc.analysis.dropped_scaling); right within 10%.")


@functools.cache
def _lab_records() -> tuple[dict[str, object], ...]:
    try:
        lines = LAB_RESULTS.read_text(encoding="utf-8").splitlines()
        return tuple(json.loads(line) for line in lines if line.strip())
    except (OSError, ValueError) as error:
        raise ValueError(f"the lab's results ({LAB_RESULTS.name}) cannot be read ({error}).") from None


def lab_exact_match(task: str, scheme: str, length: int) -> Measurement:
    """The lab's shipped exact match (%, mean over seeds) of ``scheme`` on ``task`` at test length ``length``;
    ± 5 percentage points."""
    records = _lab_records()
    tasks = sorted({str(r["task"]) for r in records})
    if task not in tasks:
        raise ValueError(f"the lab has no task {task!r:.40}; its tasks are {', '.join(tasks)}.")
    schemes = sorted({str(r["scheme"]) for r in records if r["task"] == task})
    if scheme not in schemes:
        raise ValueError(f"the lab has no scheme {scheme!r:.40} on {task}; its schemes are {', '.join(schemes)}.")
    mine = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    lengths = sorted({int(r["test_length"]) for r in mine})
    length = check_int(length, "length", minimum=lengths[0], maximum=lengths[-1], meaning="a tested string length")
    scores = [float(r["accuracy"]) for r in mine if int(r["test_length"]) == length]
    trained = int(mine[0]["train_max_length"])
    value = 100.0 * float(np.mean(scores))
    return Measurement(value, 5.0, "%",
                       f"The lab's shipped results (posenc/lab/data/results.jsonl): {scheme} on {task}, trained on lengths "
                       f"1 … {trained}, tested at length {length}: exact match {value:.1f}%, the mean over "
                       f"{len(scores)} seeds; right within 5 points.")


def t5_bucket(offset: int, num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True) -> Measurement:
    """T5's bucket of a relative position (key − query), as HF computes it; exact."""
    if not isinstance(bidirectional, bool):
        raise ArgumentTypeError(f"bidirectional must be true or false; got {bidirectional!r:.40}.")
    offset = check_int(offset, "offset", minimum=-(1 << 53) + 1, maximum=(1 << 53) - 1,
                       meaning="key − query, in positions")
    bucket = int(t5_relative_bucket(offset, bidirectional=bidirectional, num_buckets=num_buckets,
                                    max_distance=max_distance))
    kind = "bidirectional" if bidirectional else "causal"
    return Measurement(float(bucket), 0.0, "",
                       f"T5's bucket of key − query = {offset:,} ({kind}, {num_buckets} buckets, max_distance "
                       f"{max_distance}; posenc.schemes.t5.t5_relative_bucket): {bucket}.")


MEASURES: dict[str, Callable[..., Measurement]] = {
    "wavelength": wavelength,
    "rope_theta": rope_theta,
    "similarity": similarity,
    "attention_factor": attention_factor,
    "dropped_scaling": dropped_scaling,
    "lab_exact_match": lab_exact_match,
    "t5_bucket": t5_bucket,
}
"""name -> function(**arguments) -> Measurement."""


def measure(name: str, **arguments: object) -> Measurement:
    """The measure ``name`` with ``arguments`` (cached), or a ValueError of one sentence: an unknown name,
    missing or unexpected arguments, or the measure's own refusal."""
    if not isinstance(name, str) or name not in MEASURES:
        raise ValueError(f"there is no measure {name!r:.40}; the measures are {', '.join(MEASURES)}.")
    signature = inspect.signature(MEASURES[name])
    open_ended = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values())
    named = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    missing = [p.name for p in named if p.default is inspect.Parameter.empty and p.name not in arguments]
    unexpected = [] if open_ended else [key for key in arguments if key not in signature.parameters]
    if missing or unexpected:
        takes = ", ".join(p.name for p in named) + (" and the scaling's own parameters" if open_ended else "")
        raise ValueError(f"the measure {name!r} takes {takes}; missing {', '.join(missing) or 'nothing'}, "
                         f"unexpected {', '.join(unexpected) or 'nothing'}.")
    items = tuple(sorted((key, type(value).__name__, value) for key, value in arguments.items()))
    if all(isinstance(value, Hashable) for *_, value in items):
        return _cached(name, items)  # the type in the key: 1, 1.0 and True are equal keys otherwise
    return _checked(name, arguments)


@functools.lru_cache(maxsize=256)
def _cached(name: str, items: tuple[tuple[str, str, object], ...]) -> Measurement:
    return _checked(name, {key: value for key, _, value in items})


def _checked(name: str, arguments: dict[str, object]) -> Measurement:
    result = MEASURES[name](**arguments)
    value, tolerance = float(result.value), float(result.tolerance)
    if not (math.isfinite(value) and math.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"the measure {name!r} gave {value!r} ± {tolerance!r}, not a finite number.")
    return Measurement(value, tolerance, result.unit, result.sentence)
