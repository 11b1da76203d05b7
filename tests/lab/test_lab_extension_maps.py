"""The stretched models' attention maps (issue 30 part 3): extension_attention.npz holds every cell of
extension.map_cells at every test length 1…4L, rounded as attention.npz, written only from a model whose exact
match equals extension.jsonl's, one cell reproduced bit for bit by the command; the animation marks L and F·L."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lab_machines import OTHER_MAPS, maps_digest
from lab_recipes import STRETCH_TINY
from posenc.figures import generalization
from posenc.lab import cli, extension, extension_training
from posenc.lab.cli import regenerate_extension_maps
from posenc.lab.extension import (
    EXTENSION_ATTENTION_PATH,
    MAP_FACTOR,
    MAP_FINETUNE_STEPS,
    METHODS,
    TASKS,
    TEST_FACTOR,
    load_extension_attention,
    map_cells,
    map_key,
)
from posenc.lab.extension_training import extension_records
from posenc.lab.recipe import DEFAULT
from posenc.lab.shipped import MAP_SEED, MAP_STEPS
from posenc.lab.train import train

ROOT = Path(__file__).resolve().parents[2]


def _tiny(monkeypatch, bases: list) -> None:
    def tiny_base(task, seed, progress=None):
        bases.append((task, seed))
        return train(task, "rope", seed, STRETCH_TINY)

    monkeypatch.setattr(extension_training, "base_model", tiny_base)


def test_the_maps_are_written_from_the_model_of_the_records_and_refused_otherwise(tmp_path, monkeypatch):
    bases = []
    _tiny(monkeypatch, bases)
    cells = [("reverse", "pi", 4, 5), ("reverse", "yarn", 4, 0)]
    base = train("reverse", "rope", 0, STRETCH_TINY)
    records = [r for _, method, factor, steps in cells
               for r in extension_records(base, "reverse", method, factor, steps, 0)]
    regenerate_extension_maps(tmp_path, stream=open(tmp_path / "log", "w"), only=cells, records=records)
    assert bases == [("reverse", 0)]  # one base per task
    with np.load(tmp_path / EXTENSION_ATTENTION_PATH.name) as archive:
        assert sorted(archive.files) == sorted(f"{map_key(*cell, n)}/{part}" for cell in cells
                                               for n in range(1, 13) for part in ("maps", "tokens"))
        maps, tokens = archive["reverse/pi/4/5/12/maps"], archive["reverse/pi/4/5/12/tokens"]
    assert maps.dtype == np.float16 and maps.shape == (1, 2, 25, 25) and tokens.dtype == np.int8
    assert np.all(maps.astype(np.float64) * MAP_STEPS == np.round(maps.astype(np.float64) * MAP_STEPS))
    assert "wrote" in (tmp_path / "log").read_text()
    records[3]["accuracy"] = 0.5 if records[3]["accuracy"] != 0.5 else 0.25  # as if written by another model
    with pytest.raises(ValueError, match="exact match is not extension.jsonl's"):
        regenerate_extension_maps(tmp_path, stream=open(tmp_path / "log", "w"), only=cells[:1], records=records)


# -- the shipped file ---------------------------------------------------------------------------------------

shipped = pytest.mark.skipif(not EXTENSION_ATTENTION_PATH.exists(), reason="extension_attention.npz is being regenerated")


def test_the_shipped_cells_are_every_method_of_both_tasks_at_4l_after_200_steps():
    assert map_cells() == [(task, method, 4, 200) for task in TASKS for method in METHODS]
    assert (MAP_FACTOR, MAP_FINETUNE_STEPS) == (4, 200)


@shipped
def test_the_shipped_maps_cover_every_cell_and_length_rounded_as_attention_npz():
    assert EXTENSION_ATTENTION_PATH.stat().st_size < 4_000_000
    lengths = range(1, TEST_FACTOR * DEFAULT.train_max_length + 1)
    with np.load(EXTENSION_ATTENTION_PATH) as archive:
        assert sorted(archive.files) == sorted(f"{map_key(*cell, n)}/{part}" for cell in map_cells() for n in lengths
                                               for part in ("maps", "tokens"))
    for cell in map_cells():
        for n in lengths:
            maps, tokens = load_extension_attention(*cell, n)
            tokens_read = 2 * n + 1
            assert maps.shape == (DEFAULT.layers, DEFAULT.heads, tokens_read, tokens_read)
            # each weight is off by at most 1/2048: a row of T weights sums to 1 within T/2048
            assert np.all(np.abs(maps.sum(-1) - 1.0) <= tokens_read / (2 * MAP_STEPS))
            assert np.all(np.triu(maps, k=1) == 0) and np.all(maps * MAP_STEPS == np.round(maps * MAP_STEPS))
            assert tokens[0] == 11 and tokens[n + 1] == 10  # ^ digits | …


@shipped
def test_a_missing_combination_is_refused_with_the_command_that_writes_it():
    assert extension.has_maps("copy", "yarn", 4, 200) and not extension.has_maps("copy", "yarn", 2, 200)
    with pytest.raises(ValueError, match="no shipped attention map of the stretched RoPE model copy/yarn/2/200/5"):
        load_extension_attention("copy", "yarn", 2, 200, 5)
    with pytest.raises(ValueError, match="regenerate-extension-maps"):
        load_extension_attention("copy", "pi", 4, 200, 33)
    with pytest.raises(ValueError, match="method must be one of"):
        load_extension_attention("copy", "rope", 4, 200, 5)


@shipped
def test_reading_the_maps_loads_no_torch():
    check = ("import sys, posenc.lab.extension as e; e.load_extension_attention('reverse', 'ntk', 4, 200, 32); "
             "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'streamlit', 'plotly', 'pandas'}))")
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


@shipped
def test_the_command_reproduces_a_shipped_cell_bit_for_bit(tmp_path, monkeypatch):
    """Plain extrapolation fine-tuned 200 steps on copy: one base training and one fine-tune (about 40 s of one
    core); its exact match checked against extension.jsonl's on the way. On another CPU kind, whose stretched model
    has another exact match (tests/helpers/lab_machines.py), the check is against that kind's recorded exact match
    and the maps against that kind's recorded digest: bit for bit on each kind, with one training."""
    cell = ("copy", "none", MAP_FACTOR, MAP_FINETUNE_STEPS)
    check, kinds = cli._check_accuracy, []

    def check_on_this_kind(checked, evaluated, records):
        now = [(r["test_length"], r["accuracy"]) for r in evaluated]
        kinds.extend(kind for kind, known in OTHER_MAPS.items() if checked == cell and known["accuracy"] == now)
        if kinds:  # this kind's recorded exact match, as the shipped kind's is extension.jsonl's
            records = [{"task": cell[0], "method": cell[1], "factor": cell[2], "finetune_steps": cell[3],
                        "seed": MAP_SEED, "test_length": length, "accuracy": accuracy}
                       for length, accuracy in OTHER_MAPS[kinds[0]]["accuracy"]]
        check(checked, evaluated, records)

    monkeypatch.setattr(cli, "_check_accuracy", check_on_this_kind)
    regenerate_extension_maps(tmp_path, stream=open(tmp_path / "log", "w"), only=[cell])
    with np.load(tmp_path / EXTENSION_ATTENTION_PATH.name) as fresh, np.load(EXTENSION_ATTENTION_PATH) as shipped_maps:
        assert len(fresh.files) == 2 * TEST_FACTOR * DEFAULT.train_max_length
        if kinds:
            assert maps_digest(fresh) == OTHER_MAPS[kinds[0]]["sha256"], kinds[0]
            return
        for key in fresh.files:
            np.testing.assert_array_equal(fresh[key], shipped_maps[key])


def test_the_animation_marks_the_training_and_the_stretched_length():
    maps = [np.full((2, 2 * n + 1, 2 * n + 1), 1 / (2 * n + 1)) for n in (1, 8, 16, 32)]
    fig = generalization.attention_animation(maps, [1, 8, 16, 32], ["a", "b", "c", "d"], train_max_length=8,
                                             extended_length=16, title="t")
    assert [s.label for s in fig.layout.sliders[0].steps] == ["1", "8 ◂ L", "16 ◂ 2L", "32"]
    trained, stretched = fig.layout.shapes[:2]  # head 1's squares
    assert (trained.x1, stretched.x1) == (16.5, 32.5) and trained.line.dash == "dash" and stretched.line.dash == "dot"
    assert len(fig.layout.shapes) == 4  # two squares per head
    plain = generalization.attention_animation(maps, [1, 8, 16, 32], ["a", "b", "c", "d"], train_max_length=8,
                                               title="t")
    assert len(plain.layout.shapes) == 2 and [s.label for s in plain.layout.sliders[0].steps][2] == "16"
