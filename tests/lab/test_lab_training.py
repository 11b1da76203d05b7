"""Training in the lab: a tiny run learns copy within seconds, one seed gives the same numbers bit for bit,
every scheme trains and is tested past its training length, cancel and progress work, and one shipped cell
is reproduced by ``python -m posenc.lab run`` in a fresh process."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from lab_machines import assert_reproduces
from posenc.lab.cli import regenerate
from posenc.lab.evaluate import attention_maps, evaluate
from posenc.lab.names import BOS, SCHEMES, SEP
from posenc.lab.recipe import Recipe
from posenc.lab.shipped import RESULTS_PATH
from posenc.lab.train import TrainingCancelled, train

ROOT = Path(__file__).resolve().parents[2]
TINY = Recipe(d_model=32, layers=2, heads=2, steps=600, batch=32, lr=6e-3, warmup_steps=40, train_max_length=4,
              test_max_length=8, examples=200, recalibration_steps=100)
"""Strings of ≤ 4 digits, 600 steps of a 2-layer, 32-wide model: about 5 s of one core."""
SMOKE = TINY.replace(steps=3, warmup_steps=1, recalibration_steps=2, examples=8)


def test_a_tiny_run_learns_copy_at_lengths_up_to_four():
    model = train("copy", "learned", 0, TINY)
    records = evaluate(model, "copy", 0)
    inside = [r["accuracy"] for r in records if r["test_length"] <= 4]
    assert min(inside) >= 0.95, inside  # measured: 1.0, 1.0, 0.99, 0.985
    assert [r["test_length"] for r in records] == list(range(1, 9))
    assert {r["examples"] for r in records} == {200}


def test_one_seed_gives_the_same_numbers_bit_for_bit():
    recipe = TINY.replace(steps=60)
    first, second = train("reverse", "rope", 7, recipe), train("reverse", "rope", 7, recipe)
    for (name, a), (_, b) in zip(first.state_dict().items(), second.state_dict().items()):
        assert torch.equal(a, b), name
    assert evaluate(first, "reverse", 7) == evaluate(second, "reverse", 7)
    other = train("reverse", "rope", 8, recipe)
    assert not torch.equal(first.head.weight, other.head.weight)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_scheme_trains_and_is_tested_past_its_training_length(scheme):
    steps = []
    model = train("reverse", scheme, 0, SMOKE, progress=lambda step, total: steps.append((step, total)))
    total = SMOKE.steps + (SMOKE.recalibration_steps if scheme == "drope" else 0)
    assert steps == [(step, total) for step in range(1, total + 1)]
    assert model.positions_dropped == (scheme == "drope")
    records = evaluate(model, "reverse", 0)
    assert len(records) == SMOKE.test_max_length and all(0.0 <= r["accuracy"] <= 1.0 for r in records)


def test_should_stop_cancels_with_its_own_exception():
    seen = []
    with pytest.raises(TrainingCancelled, match="cancelled at step 5 of 600"):
        train("copy", "nope", 0, TINY, progress=lambda step, total: seen.append(step), should_stop=lambda: len(seen) >= 5)
    assert seen == [1, 2, 3, 4, 5]


def test_attention_maps_are_causal_probabilities_per_layer_and_head():
    model = train("copy", "t5", 0, SMOKE)
    maps, tokens = attention_maps(model, "copy", 6, seed=3)
    assert maps.shape == (SMOKE.layers, SMOKE.heads, 13, 13) and maps.dtype == np.float32
    assert np.allclose(maps.sum(-1), 1.0, atol=1e-5) and np.all(np.triu(maps, k=1) == 0)
    assert tokens[0] == BOS and tokens[7] == SEP and list(tokens[8:]) == list(tokens[1:6])  # copy: y = x
    with pytest.raises(ValueError, match="length must be at most 8"):
        attention_maps(model, "copy", 9)


def test_regenerate_writes_the_records_and_maps_and_resumes(tmp_path):
    cells = [("copy", "learned", 0), ("reverse", "drope", 1)]
    log = tmp_path / "log.txt"
    with log.open("w") as stream:
        regenerate(tmp_path, fresh=True, stream=stream, recipe=SMOKE, only=cells)
    first = (tmp_path / "results.jsonl").read_text()
    assert len(first.splitlines()) == 2 * SMOKE.test_max_length
    with np.load(tmp_path / "attention.npz") as maps:  # every test length, for the page's animation
        assert sorted(maps.files) == sorted(f"copy/learned/{n}/{kind}" for n in range(1, SMOKE.test_max_length + 1)
                                            for kind in ("maps", "tokens"))
    with log.open("w") as stream:
        regenerate(tmp_path, stream=stream, recipe=SMOKE, only=cells)
    assert "step" not in log.read_text()  # nothing retrained
    assert (tmp_path / "results.jsonl").read_text() == first


def test_the_command_reproduces_a_shipped_cell_bit_for_bit():
    """The default recipe, trained in a fresh process (about 25 s of one core), prints the shipped lines (or, on
    another CPU kind, exactly what that kind printed when recorded: tests/helpers/lab_machines.py)."""
    cell = ("copy", "alibi", 1)
    shipped = [line for line in RESULTS_PATH.read_text().splitlines()
               if json.loads(line)["task"] == cell[0] and json.loads(line)["scheme"] == cell[1]
               and json.loads(line)["seed"] == cell[2]]
    result = subprocess.run([sys.executable, "-m", "posenc.lab", "run", "--task", cell[0], "--scheme", cell[1],
                             "--seed", str(cell[2])], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert_reproduces("run copy alibi 1", shipped, result.stdout.splitlines())
