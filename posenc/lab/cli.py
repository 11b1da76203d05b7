"""``python -m posenc.lab``: train one cell, or regenerate the shipped set.

    python -m posenc.lab run --task copy --scheme alibi --seed 0 [--train-max-length L] [--steps S]
        trains the default recipe and prints one JSON object per test length (keys task, scheme, seed,
        train_max_length, test_length, accuracy, examples), the same lines as posenc/lab/data/results.jsonl.
        With --train-max-length or --steps: the recipe of the page's "train your own" (live_recipe),
        within its bounds; the same numbers as the page shows for those settings.
    python -m posenc.lab regenerate [--fresh] [--only-seed N]
        trains every (task, scheme, seed) of the shipped set and writes posenc/lab/data/results.jsonl and
        posenc/lab/data/attention.npz, with a progress bar on stderr. Resumable: cells already in
        results.jsonl (same train_max_length) are kept unless --fresh. A seed-0 cell whose attention maps
        are missing (at any test length 1…3L) is retrained for them, and its records must come out equal
        to those written (else an error: the maps would belong to another model).
    python -m posenc.lab extend --task copy --method pi --factor 2 --finetune-steps 200 --seed 0
        trains the shipped RoPE model of that task and seed, stretches it by the method (none, pi, ntk, yarn,
        llama3) to factor × L (2 or 4), fine-tunes it that many steps (0, 50 or 200) at lengths 1…factor·L and
        prints one JSON object per test length 1…4L (keys task, method, factor, finetune_steps,
        train_max_length, seed, test_length, accuracy, examples), the lines of posenc/lab/data/extension.jsonl.
    python -m posenc.lab regenerate-extension [--fresh]
        every cell of extension.jsonl, each base model trained once per (task, seed) and reused for every
        method, factor and fine-tune; progress on stderr, resumable (cells written are kept unless --fresh).
        Measured: 1,631 s (27 min) for all 180 cells on this machine's 2 shared cores (one thread; about 22 s a
        base model, 2.5 s a zero-shot test, 4–13 s a fine-tune and its test).
    python -m posenc.lab regenerate-extension-maps [--out DIR]
        posenc/lab/data/extension_attention.npz: the attention maps of the seed-0 RoPE models stretched by every method
        to 4L and fine-tuned 200 steps (extension.map_cells), both tasks, at every test length 1…4L, rounded as
        attention.npz's; each stretched model's exact match must equal extension.jsonl's first (else an error:
        the maps would belong to another model). Measured: 176 s for the 10 models (2.66 MB) on this machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from posenc.lab.extension import FACTORS, FINETUNE_STEPS, METHODS
from posenc.lab.extension import TASKS as EXTENSION_TASKS
from posenc.lab.names import SCHEMES, SEEDS, TASKS


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
    extend = commands.add_parser("extend", help="stretch a shipped RoPE model past its training length, print JSON lines")
    extend.add_argument("--task", required=True, help=f"one of {', '.join(EXTENSION_TASKS)}")
    extend.add_argument("--method", required=True, help=f"one of {', '.join(METHODS)}")
    extend.add_argument("--factor", required=True, help=f"one of {', '.join(map(str, FACTORS))}")
    extend.add_argument("--finetune-steps", required=True, help=f"one of {', '.join(map(str, FINETUNE_STEPS))}")
    extend.add_argument("--seed", required=True, help=f"one of {', '.join(map(str, SEEDS))} (the shipped models)")
    again = commands.add_parser("regenerate-extension", help="regenerate extension.jsonl")
    again.add_argument("--fresh", action="store_true", help="recompute every cell, even those already written")
    again.add_argument("--out", default=None, help="a folder to write into instead of posenc/lab/")
    maps = commands.add_parser("regenerate-extension-maps", help="regenerate extension_attention.npz")
    maps.add_argument("--out", default=None, help="a folder to write into instead of posenc/lab/")
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


def _resumed(path: Path, fresh: bool) -> tuple[Path, list[dict]]:
    """The ``.jsonl.partial`` file beside ``path`` and the records it holds. A run that stopped goes on from it;
    a run over a finished ``path`` starts from its records, so it trains only the cells it lacks; ``fresh``
    starts from none. Each cell's records are appended to the partial file as the cell ends."""
    partial = path.with_suffix(".jsonl.partial")
    if fresh:
        partial.unlink(missing_ok=True)
    elif path.exists() and not partial.exists():
        partial.write_text(path.read_text())
    records = [json.loads(line) for line in partial.read_text().splitlines() if line.strip()] if partial.exists() else []
    return partial, records


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
    if fresh:
        attention.unlink(missing_ok=True)
    partial, records = _resumed(results, fresh)
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


def _one_of(text: str, name: str, allowed: tuple[int, ...], meaning: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value not in allowed:
        raise ValueError(f"--{name} must be one of {', '.join(map(str, allowed))} ({meaning}); got {text!r}.")
    return value


def _extend_arguments(args: argparse.Namespace) -> tuple[str, str, int, int, int]:
    """(task, method, factor, finetune_steps, seed), each checked with a sentence before any training."""
    from posenc.lab.extension import check_method, check_task

    return (check_task(args.task), check_method(args.method),
            _one_of(args.factor, "factor", FACTORS, "how many times the training length the context is stretched"),
            _one_of(args.finetune_steps, "finetune-steps", FINETUNE_STEPS, "the fine-tunes of the shipped set"),
            _one_of(args.seed, "seed", SEEDS, "the seeds of the shipped RoPE models"))


def regenerate_extension(out: Path | None = None, fresh: bool = False, stream=sys.stderr,
                         only: list[tuple[str, int]] | None = None) -> None:
    """Every cell of extension.jsonl missing from it, one base model per (task, seed) (``only``: a subset of
    those pairs, for the tests); the base's zero-shot extrapolation must equal results.jsonl's RoPE records."""
    from posenc.lab.extension import EXTENSION_PATH, cells
    from posenc.lab.extension_training import base_model, extension_records

    path = EXTENSION_PATH if out is None else Path(out) / EXTENSION_PATH.name
    path.parent.mkdir(parents=True, exist_ok=True)
    partial, records = _resumed(path, fresh)
    done = {_cell_of(r) for r in records}
    bases = [(task, seed) for seed in SEEDS for task in EXTENSION_TASKS] if only is None else list(only)
    todo = [cell for base in bases for cell in cells(*base)]
    start, finished = time.monotonic(), 0

    def show(label: str, fraction: float) -> None:
        stream.write(f"\r{_bar(finished + fraction, len(todo))} cell {finished + 1}/{len(todo)} {label:34s} "
                     f"{time.monotonic() - start:6.0f} s")
        stream.flush()

    for task, seed in bases:
        missing = [cell for cell in cells(task, seed) if cell not in done]
        finished += len(cells(task, seed)) - len(missing)
        if not missing:
            continue
        base_label = f"{task}/base RoPE model/seed {seed}"
        base = base_model(task, seed, progress=lambda step, total, label=base_label: None if step % 100 else show(label, 0.0))
        for cell in missing:
            _, method, factor, steps, _ = cell
            label = f"{task}/{method}/×{factor}/{steps} steps/seed {seed}"
            show(label, 0.0)
            cell_records = extension_records(base, task, method, factor, steps, seed)
            _check_base(cell_records)
            with partial.open("a") as handle:
                handle.writelines(json.dumps(r) + "\n" for r in cell_records)
            records += cell_records
            finished += 1
    wanted = set(todo)
    records = sorted((r for r in records if _cell_of(r) in wanted), key=_order)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    partial.unlink(missing_ok=True)
    stream.write(f"\rwrote {path} ({len(records)} records) in {time.monotonic() - start:.0f} s".ljust(100) + "\n")


def regenerate_extension_maps(out: Path | None = None, stream=sys.stderr,
                              only: list[tuple[str, str, int, int]] | None = None,
                              records: list[dict] | None = None) -> None:
    """The maps of every cell of extension.map_cells (``only``: a subset), one base model per task, each
    stretched model's exact match checked equal to ``records``' (default: extension.jsonl's) before its maps are
    kept; written in key order, as attention.npz, with the same rounding (shipped.stored_map)."""
    import numpy as np

    from posenc.lab.evaluate import attention_maps, evaluate
    from posenc.lab.extension import EXTENSION_ATTENTION_PATH, TEST_FACTOR, load_extension, map_cells, map_key
    from posenc.lab.extension_training import base_model, finetune, stretched
    from posenc.lab.shipped import MAP_SEED, stored_map

    path = EXTENSION_ATTENTION_PATH if out is None else Path(out) / EXTENSION_ATTENTION_PATH.name
    path.parent.mkdir(parents=True, exist_ok=True)
    records = load_extension() if records is None else records
    todo = map_cells() if only is None else list(only)
    maps, start = {}, time.monotonic()
    for task in dict.fromkeys(task for task, *_ in todo):
        base = base_model(task, MAP_SEED)
        for index, cell in enumerate(todo):
            if cell[0] != task:
                continue
            _, method, factor, steps = cell
            stream.write(f"\r{_bar(index, len(todo))} {task}/{method}/×{factor}/{steps} steps "
                         f"{time.monotonic() - start:6.0f} s")
            stream.flush()
            model = finetune(stretched(base, method, factor), task, factor, steps, MAP_SEED)
            _check_accuracy(cell, evaluate(model, task, MAP_SEED), records)
            for length in range(1, TEST_FACTOR * model.recipe.train_max_length + 1):
                probabilities, tokens = attention_maps(model, task, length, seed=model.recipe.eval_seed)
                maps[f"{map_key(*cell, length)}/maps"] = stored_map(probabilities)
                maps[f"{map_key(*cell, length)}/tokens"] = tokens.astype(np.int8)
    np.savez_compressed(path, **dict(sorted(maps.items())))
    stream.write(f"\rwrote {path} ({len(todo)} models, {path.stat().st_size:,} bytes) in "
                 f"{time.monotonic() - start:.0f} s".ljust(100) + "\n")


def _check_accuracy(cell: tuple[str, str, int, int], evaluated: list[dict], records: list[dict]) -> None:
    """The stretched model whose maps are kept must be extension.jsonl's: the same exact match at every length."""
    from posenc.lab.shipped import MAP_SEED

    task, method, factor, steps = cell
    written = {r["test_length"]: r["accuracy"] for r in records
               if (r["task"], r["method"], r["factor"], r["finetune_steps"], r["seed"]) == (*cell, MAP_SEED)}
    now = {r["test_length"]: r["accuracy"] for r in evaluated}
    if written != now:
        differ = [(n, written.get(n), now.get(n)) for n in sorted(set(written) | set(now)) if written.get(n) != now.get(n)]
        raise ValueError(f"{task}/{method}/×{factor}/{steps} steps/seed {MAP_SEED}: the stretched model's exact match "
                         f"is not extension.jsonl's (test length, written, now: {differ[:5]}); its maps would not be "
                         "those of the written model. Regenerate extension.jsonl on this machine first.")


def _cell_of(record: dict) -> tuple[str, str, int, int, int]:
    return record["task"], record["method"], record["factor"], record["finetune_steps"], record["seed"]


def _order(record: dict) -> tuple:
    return (EXTENSION_TASKS.index(record["task"]), list(METHODS).index(record["method"]), record["factor"],
            record["finetune_steps"], record["seed"], record["test_length"])


def _check_base(records: list[dict]) -> None:
    """Plain extrapolation without fine-tune is the base model itself: at lengths 1…3L its records must be the
    shipped RoPE model's (results.jsonl), else the base is not the shipped model."""
    from posenc.lab.extension import is_base_cell
    from posenc.lab.results import load_records

    if not records or not is_base_cell(records[0]):
        return
    first = records[0]
    shipped = {r["test_length"]: r["accuracy"] for r in load_records(first["task"], "rope") if r["seed"] == first["seed"]}
    differ = [(r["test_length"], shipped[r["test_length"]], r["accuracy"]) for r in records
              if r["test_length"] in shipped and r["accuracy"] != shipped[r["test_length"]]]
    if differ or not shipped:
        raise ValueError(f"the base RoPE model of {first['task']}, seed {first['seed']}, is not the shipped one "
                         f"(test length, results.jsonl, now: {differ[:5]}); regenerate results.jsonl on this machine.")


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
        elif args.command == "extend":
            from posenc.lab.extension_training import base_model, extension_records

            task, method, factor, steps, seed = _extend_arguments(args)
            for record in extension_records(base_model(task, seed), task, method, factor, steps, seed):
                print(json.dumps(record), flush=True)
        elif args.command == "regenerate-extension":
            regenerate_extension(args.out, args.fresh)
        elif args.command == "regenerate-extension-maps":
            regenerate_extension_maps(args.out)
        else:
            regenerate(args.out, args.fresh)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0
