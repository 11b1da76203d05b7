"""``python -m posenc.lab``: train one cell, or regenerate the shipped set.

    python -m posenc.lab run --task copy --scheme alibi --seed 0 [--train-max-length L] [--steps S]
        trains the default recipe and prints one JSON object per test length (keys task, scheme, seed,
        train_max_length, test_length, accuracy, examples), the same lines as posenc/lab/results.jsonl.
        With --train-max-length or --steps: the recipe of the page's "train your own" (live_recipe),
        within its bounds; the same numbers as the page shows for those settings.
    python -m posenc.lab regenerate [--fresh] [--only-seed N]
        trains every (task, scheme, seed) of the shipped set and writes posenc/lab/results.jsonl and
        posenc/lab/attention.npz, with a progress bar on stderr. Resumable: cells already in
        results.jsonl (same train_max_length) are kept unless --fresh. A seed-0 cell whose attention maps
        are missing (at any test length 1…3L) is retrained for them, and its records must come out equal
        to those written (else an error: the maps would belong to another model).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from posenc.lab.names import SCHEMES, TASKS


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m posenc.lab", description="posenc's length-generalization lab.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="train one cell of the default recipe and print its records as JSON lines")
    run.add_argument("--task", required=True, help=f"one of {', '.join(TASKS)}")
    run.add_argument("--scheme", required=True, help=f"one of {', '.join(SCHEMES)}")
    run.add_argument("--seed", required=True, help="the training seed, a whole number ≥ 0")
    run.add_argument("--train-max-length", default=None,
                     help="train on 1…L digits and test to 3L, as the page's 'train your own' (default: the recipe's)")
    run.add_argument("--steps", default=None, help="optimizer steps, as the page's 'train your own' (default: the recipe's)")
    regenerate = commands.add_parser("regenerate", help="regenerate results.jsonl and attention.npz")
    regenerate.add_argument("--fresh", action="store_true", help="retrain every cell, even those already written")
    regenerate.add_argument("--out", default=None, help="a folder to write into instead of posenc/lab/")
    return parser


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"seed must be a whole number ≥ 0; got {text!r}.") from None


def _whole(text: str | None, default: int, name: str) -> int:
    if text is None:
        return default
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"--{name} must be a whole number; got {text!r}.") from None


def run_cell(task: str, scheme: str, seed: int, recipe=None, progress=None):
    """(model, records) of one cell under ``recipe`` (default: DEFAULT)."""
    from posenc.lab.evaluate import evaluate
    from posenc.lab.recipe import DEFAULT
    from posenc.lab.train import train

    model = train(task, scheme, seed, DEFAULT if recipe is None else recipe, progress=progress)
    return model, evaluate(model, task, seed)


def _bar(done: float, total: int, width: int = 30) -> str:
    filled = int(width * done / total) if total else width
    return "[" + "#" * filled + "." * (width - filled) + "]"


def _check_same(label: str, retrained: list[dict], written: list[dict]) -> None:
    """A cell retrained only for its attention maps must give its written records exactly (training is
    deterministic bit for bit on one machine and torch build); otherwise its maps would not be its model's."""
    if retrained != written:
        differ = [(a["test_length"], b["accuracy"], a["accuracy"]) for a, b in zip(retrained, written) if a != b]
        raise ValueError(f"{label}: retrained for its attention maps, it gave other records than results.jsonl "
                         f"(test length, written, now: {differ[:5] or 'a different number of records'}); the maps "
                         "would not be those of the written model. Regenerate with --fresh on this machine.")


def regenerate(out: Path | None = None, fresh: bool = False, stream=sys.stderr, recipe=None,
               only: list[tuple[str, str, int]] | None = None) -> None:
    """Train every cell missing from results.jsonl, append its records, then write the file in canonical order.

    ``recipe`` and ``only`` (a subset of the cells) serve the tests; the shipped set uses neither."""
    import numpy as np

    from posenc.lab.evaluate import attention_maps
    from posenc.lab.recipe import DEFAULT as SHIPPED
    from posenc.lab.shipped import ATTENTION_PATH, MAP_SEED, RESULTS_PATH, cells, stored_lengths, stored_map

    DEFAULT = SHIPPED if recipe is None else recipe

    results = RESULTS_PATH if out is None else Path(out) / RESULTS_PATH.name
    attention = ATTENTION_PATH if out is None else Path(out) / ATTENTION_PATH.name
    results.parent.mkdir(parents=True, exist_ok=True)
    partial = results.with_suffix(".jsonl.partial")
    if fresh:
        partial.unlink(missing_ok=True)
        attention.unlink(missing_ok=True)
    elif results.exists() and not partial.exists():
        partial.write_text(results.read_text())
    records = [json.loads(line) for line in partial.read_text().splitlines() if line.strip()] if partial.exists() else []
    records = [r for r in records if r["train_max_length"] == DEFAULT.train_max_length]
    done = {(r["task"], r["scheme"], r["seed"]) for r in records}
    maps = dict(np.load(attention)) if attention.exists() else {}
    todo = cells() if only is None else list(only)
    lengths = stored_lengths(DEFAULT.train_max_length, DEFAULT.test_max_length)
    start = time.monotonic()
    for index, (task, scheme, seed) in enumerate(todo):
        needs_maps = seed == MAP_SEED and any(f"{task}/{scheme}/{n}/maps" not in maps for n in lengths)
        if (task, scheme, seed) in done and not needs_maps:
            continue
        label = f"{task}/{scheme}/seed {seed}"

        def progress(step: int, total: int, index: int = index, label: str = label) -> None:
            if step % 50 and step != total:
                return
            elapsed = time.monotonic() - start
            stream.write(f"\r{_bar(index + step / total, len(todo))} cell {index + 1}/{len(todo)} {label:28s} "
                         f"step {step:5d}/{total}  {elapsed:6.0f} s")
            stream.flush()

        model, cell_records = run_cell(task, scheme, seed, DEFAULT, progress=progress)
        if (task, scheme, seed) in done:  # retrained for its maps: the model must be the one of the records
            _check_same(label, cell_records, [r for r in records if (r["task"], r["scheme"], r["seed"]) == (task, scheme, seed)])
        else:
            with partial.open("a") as handle:
                for record in cell_records:
                    handle.write(json.dumps(record) + "\n")
            records += cell_records
            done.add((task, scheme, seed))
        if seed == MAP_SEED:
            for length in lengths:
                probabilities, tokens = attention_maps(model, task, length, seed=DEFAULT.eval_seed)
                maps[f"{task}/{scheme}/{length}/maps"] = stored_map(probabilities)
                maps[f"{task}/{scheme}/{length}/tokens"] = tokens.astype(np.int8)
            np.savez_compressed(attention, **dict(sorted(maps.items())))
        L = DEFAULT.train_max_length
        inside = [r["accuracy"] for r in cell_records if r["test_length"] <= L]
        stream.write(f"\r{label}: mean exact match at lengths 1…{L} = {sum(inside) / len(inside):.3f}".ljust(100) + "\n")
    order = {key: i for i, key in enumerate(todo)}
    records.sort(key=lambda r: (TASKS.index(r["task"]), SCHEMES.index(r["scheme"]), r["seed"], r["test_length"]))
    records = [r for r in records if (r["task"], r["scheme"], r["seed"]) in order]
    results.write_text("".join(json.dumps(r) + "\n" for r in records))
    partial.unlink(missing_ok=True)
    stream.write(f"wrote {results} ({len(records)} records) and {attention} in {time.monotonic() - start:.0f} s\n")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            recipe = None
            if args.train_max_length is not None or args.steps is not None:
                from posenc.lab.recipe import DEFAULT, live_recipe

                recipe = live_recipe(_whole(args.train_max_length, DEFAULT.train_max_length, "train-max-length"),
                                     _whole(args.steps, DEFAULT.steps, "steps"))
            _, records = run_cell(args.task, args.scheme, _seed(args.seed), recipe)
            for record in records:
                print(json.dumps(record), flush=True)
        else:
            regenerate(args.out, args.fresh)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0
