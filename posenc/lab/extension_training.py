"""Stretching a trained RoPE model (torch): ``stretched(base, method, factor)``, ``finetune(...)`` and
``extension_records(...)``; the methods and the recipe are in :mod:`posenc.lab.extension` (no torch).

The base is the shipped RoPE model: :func:`base_model` trains it with the shipped recipe and seed (the test
lengths alone go to 4L, which changes nothing a RoPE model learns), so its records at 1…3L equal results.jsonl's.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import torch

from posenc.lab.evaluate import evaluate
from posenc.lab.extension import FINETUNE_LR, METHODS, TEST_FACTOR, check_factor, check_method, check_task
from posenc.lab.model import LabModel
from posenc.lab.recipe import DEFAULT
from posenc.lab.tasks import sequence_length
from posenc.lab.train import deterministic_torch, run_steps, step_counter, train

BASE_SCHEME = "rope"
"""The lab scheme every stretched model starts from."""

Progress = Callable[[int, int], None] | None


def base_model(task: str, seed: int, progress: Progress = None) -> LabModel:
    """The shipped RoPE model of ``task`` and ``seed`` (the default recipe), tested up to TEST_FACTOR·L digits."""
    recipe = DEFAULT.replace(test_max_length=TEST_FACTOR * DEFAULT.train_max_length)
    return train(check_task(task), BASE_SCHEME, seed, recipe, progress=progress)


def stretched(base: LabModel, method: str, factor: int) -> LabModel:
    """A copy of ``base`` whose rotations use ``method``'s scaling to factor·L, with the training sequence's
    token count L₀ = 2L + 2 as the original context (the base is left as it is)."""
    rope_type, params = METHODS[check_method(method)](check_factor(factor),
                                                       sequence_length(base.recipe.train_max_length))
    model = copy.deepcopy(base)
    for block in model.blocks:
        block.attention.positions.stretch(rope_type, **params)
    return model


def finetune(model: LabModel, task: str, factor: int, steps: int, seed: int, progress: Progress = None) -> LabModel:
    """``steps`` more optimizer steps (in place) on strings of 1…factor·L digits: AdamW from scratch, peak
    FINETUNE_LR, warmup a tenth of the steps then cosine to 0, the data from a generator seeded with ``seed``."""
    if steps == 0:
        return model
    recipe = model.recipe.replace(train_max_length=check_factor(factor) * model.recipe.train_max_length,
                                  steps=steps, warmup_steps=max(steps // 10, 1), lr=FINETUNE_LR)
    with deterministic_torch():
        run_steps(model, task, recipe, steps, recipe.warmup_steps, torch.Generator().manual_seed(seed),
                  step_counter(steps, progress))
    return model


def extension_records(base: LabModel, task: str, method: str, factor: int, steps: int, seed: int,
                      progress: Progress = None) -> list[dict[str, object]]:
    """The records (posenc.lab.extension.EXTENSION_KEYS) of ``base`` stretched by ``method`` to factor·L and
    fine-tuned ``steps`` steps, at test lengths 1…TEST_FACTOR·L."""
    model = finetune(stretched(base, method, factor), task, factor, steps, seed, progress)
    return [{"task": r["task"], "method": method, "factor": factor, "finetune_steps": steps,
             "train_max_length": r["train_max_length"], "seed": r["seed"], "test_length": r["test_length"],
             "accuracy": r["accuracy"], "examples": r["examples"]} for r in evaluate(model, task, seed)]
