"""Training a lab model: ``train(task, scheme, seed)`` under the default recipe, deterministic on CPU.

Determinism: the weights come from ``torch.manual_seed(seed)``, the training data from a
``torch.Generator`` seeded with ``seed``, torch runs on one thread with
``torch.use_deterministic_algorithms(True)`` (restored afterwards): the same arguments give the same
weights, bit for bit, on one machine and torch build.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator

import torch

from posenc.checks import check_int
from posenc.lab.model import LabModel
from posenc.lab.names import check_scheme, check_task
from posenc.lab.recipe import DEFAULT, Recipe
from posenc.lab.schemes import POSITIONS
from posenc.lab.tasks import make_batch


class TrainingCancelled(RuntimeError):
    """Raised by :func:`train` when ``should_stop()`` returned True; no model is returned."""


@contextlib.contextmanager
def deterministic_torch() -> Iterator[None]:
    """One thread and deterministic algorithms for the block; the previous settings restored after."""
    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(1)
    with contextlib.suppress(RuntimeError):  # only settable before the first parallel work of the process
        torch.set_num_interop_threads(1)
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(deterministic)
        torch.set_num_threads(threads)


def check_recipe(recipe: object) -> Recipe:
    if not isinstance(recipe, Recipe):
        raise ValueError(f"recipe must be a posenc.lab.recipe.Recipe; got {type(recipe).__name__}.")
    return recipe


def _check_callable(value: object, name: str) -> None:
    if value is not None and not callable(value):
        raise ValueError(f"{name} must be a function or None; got {type(value).__name__}.")


def _schedule(step: int, recipe: Recipe, total: int, warmup: int) -> float:
    """Linear warmup to recipe.lr, then cosine to 0 over the remaining steps."""
    if step < warmup:
        return recipe.lr * (step + 1) / warmup
    progress = (step - warmup) / max(total - warmup, 1)
    return recipe.lr * 0.5 * (1.0 + math.cos(math.pi * progress))


def run_steps(model: LabModel, task: str, recipe: Recipe, steps: int, warmup: int, generator: torch.Generator,
              tick: Callable[[], None], curriculum: int = 0) -> None:
    """``steps`` AdamW steps of ``model`` on ``task`` (cosine schedule after ``warmup``), batches drawn from
    ``generator``, ``tick()`` after each (training and the lab's fine-tuning share it)."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=recipe.lr, weight_decay=recipe.weight_decay,
                                  betas=(0.9, 0.98))
    model.train()
    for step in range(steps):
        for group in optimizer.param_groups:
            group["lr"] = _schedule(step, recipe, steps, warmup)
        longest = recipe.train_max_length
        if step < curriculum:
            longest = min(longest, 2 + (longest - 1) * step // curriculum)
        lengths = torch.randint(1, longest + 1, (recipe.batch,), generator=generator)
        tokens, mask = make_batch(task, lengths, generator)
        logits = model(tokens[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits[mask[:, :-1]], tokens[:, 1:][mask[:, :-1]])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), recipe.grad_clip)
        optimizer.step()
        tick()
    model.eval()


def step_counter(total: int, progress: Callable[[int, int], None] | None,
                 should_stop: Callable[[], bool] | None = None, what: str = "training") -> Callable[[], None]:
    """The tick :func:`run_steps` calls after each step: counts the steps done, reports ``progress(done, total)``
    and raises TrainingCancelled (naming ``what``) once ``should_stop()`` is True."""
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)
        if should_stop is not None and should_stop():
            raise TrainingCancelled(f"{what} cancelled at step {done} of {total}.")

    return tick


def train(task: str, scheme: str, seed: int, recipe: Recipe = DEFAULT,
          progress: Callable[[int, int], None] | None = None,
          should_stop: Callable[[], bool] | None = None) -> LabModel:
    """A model of ``scheme`` trained on ``task`` at string lengths 1…recipe.train_max_length.

    ``progress(step, total)`` is called after every optimizer step (total includes DroPE's
    recalibration); ``should_stop()`` is polled at every step and raises TrainingCancelled when True.
    DroPE trains with RoPE for recipe.steps, drops the rotation and recalibrates
    recipe.recalibration_steps more at the training lengths. The model returned is in eval mode.
    """
    task, scheme, recipe = check_task(task), check_scheme(scheme), check_recipe(recipe)
    seed = check_int(seed, "seed", minimum=0, maximum=2**31 - 1, meaning="the training seed")
    _check_callable(progress, "progress")
    _check_callable(should_stop, "should_stop")
    drops = POSITIONS[scheme].drops
    tick = step_counter(recipe.steps + (recipe.recalibration_steps if drops else 0), progress, should_stop,
                        f"training of {scheme} on {task}")
    with deterministic_torch():
        torch.manual_seed(seed)
        model = LabModel(scheme, recipe, seed)
        generator = torch.Generator().manual_seed(seed)
        run_steps(model, task, recipe, recipe.steps, min(recipe.warmup_steps, recipe.steps), generator, tick,
             curriculum=recipe.curriculum_steps)
        if drops and recipe.recalibration_steps:
            model.drop_positions()
            run_steps(model, task, recipe, recipe.recalibration_steps, min(recipe.warmup_steps, recipe.recalibration_steps),
                 generator, tick)
        elif drops:
            model.drop_positions()
    return model


def timed(function: Callable[[], object]) -> tuple[object, float]:
    """(result, seconds of process CPU time)."""
    start = time.process_time()
    result = function()
    return result, time.process_time() - start
