"""Exact match per test length, and the attention maps of a trained model.

Scoring is teacher-forced: one forward pass over the whole sequence, the argmax at each target
position. A string counts as right when every target token is the argmax; then greedy decoding
would have produced exactly the same tokens (each step's input is the previous correct token), so
this exact match equals greedy decoding's exact match.
"""

from __future__ import annotations

import numpy as np
import torch

from posenc.checks import check_int
from posenc.lab.model import LabModel
from posenc.lab.tasks import fixed_length_batch
from posenc.lab.train import deterministic_torch


def _check_model(model: object) -> LabModel:
    if not isinstance(model, LabModel):
        raise ValueError(f"model must be a trained posenc.lab LabModel; got {type(model).__name__}.")
    return model


def test_seed(recipe_eval_seed: int, length: int) -> int:
    """The seed of the test strings of one length: the same for every scheme and training seed."""
    return recipe_eval_seed + 1000 * length


@torch.no_grad()
def exact_match(model: LabModel, task: str, length: int, examples: int, seed: int) -> float:
    """The fraction of ``examples`` strings of ``length`` digits whose whole target is right."""
    tokens, mask = fixed_length_batch(task, length, examples, seed)
    logits = model(tokens[:, :-1])
    right = (logits.argmax(-1) == tokens[:, 1:]) | ~mask[:, :-1]
    return float(right.all(dim=1).double().mean())


def evaluate(model: LabModel, task: str, seed: int, lengths: list[int] | None = None) -> list[dict[str, object]]:
    """One record per test length 1…recipe.test_max_length (or ``lengths``), keys posenc.lab.results.RECORD_KEYS.

    ``seed`` is the training seed, written in the records; the test strings depend only on
    recipe.eval_seed and the length.
    """
    model = _check_model(model)
    recipe = model.recipe
    lengths = list(range(1, recipe.test_max_length + 1)) if lengths is None else [
        check_int(n, "test_length", minimum=1, maximum=recipe.test_max_length, meaning="a test string length")
        for n in lengths]
    records = []
    with deterministic_torch():
        model.eval()
        for n in lengths:
            accuracy = exact_match(model, task, n, recipe.examples, test_seed(recipe.eval_seed, n))
            records.append({"task": task, "scheme": model.scheme, "seed": int(seed),
                            "train_max_length": recipe.train_max_length, "test_length": n,
                            "accuracy": round(accuracy, 6), "examples": recipe.examples})
    return records


@torch.no_grad()
def attention_maps(model: LabModel, task: str, length: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(probabilities [layers, heads, T, T] float32, tokens [T]) of one test string of ``length`` digits.

    T = 2·length + 1 (the sequence without its last token, as the model reads it when scoring).
    The string is the first of the test set drawn from ``seed``.
    """
    model = _check_model(model)
    length = check_int(length, "length", minimum=1, maximum=model.recipe.test_max_length,
                       meaning="the digits of the string shown")
    tokens, _ = fixed_length_batch(task, length, 1, check_int(seed, "seed", minimum=0, maximum=2**63 - 1,
                                                              meaning="the seed of the string"))
    with deterministic_torch():
        model.eval()
        _, maps = model(tokens[:, :-1], return_attention=True)
    probabilities = torch.stack([m[0] for m in maps]).float().numpy()
    return probabilities, tokens[0, :-1].numpy()
