"""Stretching RoPE past its training length (issue 30): the command's checks, the stretch itself, the fine-tune,
regeneration with resume, the shipped file (every cell, its base equal to results.jsonl's RoPE models, read
without torch, one cell reproduced bit for bit by the command) and the papers' claims built from the numbers."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from lab_machines import assert_reproduces
from lab_recipes import STRETCH_TINY
from posenc.lab import extension, extension_training
from posenc.lab.cli import main, regenerate_extension
from posenc.lab.extension import (
    CLAIMS,
    EXTENSION_KEYS,
    EXTENSION_PATH,
    FACTORS,
    FINETUNE_STEPS,
    METHODS,
    TASKS,
    check_claims,
    load_extension,
    read_extension,
    window_by_seed,
    window_mean,
)
from posenc.lab.extension_training import extension_records, finetune, stretched
from posenc.lab.model import LabModel
from posenc.lab.names import SEEDS
from posenc.lab.recipe import DEFAULT
from posenc.lab.results import load_records
from posenc.lab.train import train
from posenc.schemes.rope.scalings import ROPE_SCALINGS

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("arguments", "message"), [
    (["--task", "sort", "--method", "pi", "--factor", "2", "--finetune-steps", "0", "--seed", "0"],
     "task must be one of 'copy', 'reverse'"),
    (["--task", "copy", "--method", "rope", "--factor", "2", "--finetune-steps", "0", "--seed", "0"],
     "method must be one of 'none', 'pi', 'ntk', 'yarn', 'llama3'"),
    (["--task", "copy", "--method", "pi", "--factor", "8", "--finetune-steps", "0", "--seed", "0"],
     "--factor must be one of 2, 4"),
    (["--task", "copy", "--method", "pi", "--factor", "two", "--finetune-steps", "0", "--seed", "0"],
     "--factor must be one of 2, 4"),
    (["--task", "copy", "--method", "pi", "--factor", "2", "--finetune-steps", "1000", "--seed", "0"],
     "--finetune-steps must be one of 0, 50, 200"),
    (["--task", "copy", "--method", "pi", "--factor", "2", "--finetune-steps", "0", "--seed", "9"],
     "--seed must be one of 0, 1, 2 (the seeds of the shipped RoPE models)"),
])
def test_the_command_checks_its_arguments_before_training_with_a_sentence(arguments, message, capsys):
    assert main(["extend", *arguments]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("error: ") and message in captured.err


def test_a_method_is_one_of_posencs_own_rope_scalings_with_the_training_sequence_as_original_context():
    for scaling in METHODS.values():
        rope_type, params = scaling(4, 18)
        assert rope_type in ROPE_SCALINGS
        assert params.get("factor", 4.0) == 4.0 and params.get("original_max_position_embeddings", 18) == 18
    assert METHODS["pi"](2, 18) == ("linear", {"factor": 2.0})


def test_stretching_changes_the_rotation_alone_and_leaves_the_base_as_it_was():
    torch.manual_seed(0)
    base = LabModel("rope", STRETCH_TINY)
    before = [p.clone() for p in base.parameters()]
    pi = stretched(base, "pi", 2)
    assert all(torch.equal(a, b) for a, b in zip(before, base.parameters()))
    assert all(torch.equal(a, b) for a, b in zip(base.parameters(), pi.parameters()))
    base_freq = base.blocks[0].attention.positions.rope.inv_freq
    torch.testing.assert_close(pi.blocks[0].attention.positions.rope.inv_freq, base_freq / 2, rtol=0, atol=0)
    none = stretched(base, "none", 4)
    tokens = torch.tensor([[11, 1, 2, 3, 10, 1, 2]])
    assert torch.equal(none(tokens), base(tokens))  # plain extrapolation is the base model itself
    yarn = stretched(base, "yarn", 2).blocks[0].attention.positions.rope
    assert yarn.attention_scaling == pytest.approx(0.1 * np.log(2) + 1)  # YaRN's scale of cos and sin


def test_a_fine_tune_trains_at_the_stretched_lengths_and_is_deterministic():
    base = train("copy", "rope", 0, STRETCH_TINY)
    steps = []
    first = finetune(stretched(base, "pi", 2), "copy", 2, 5, 0, progress=lambda s, t: steps.append((s, t)))
    assert steps == [(s, 5) for s in range(1, 6)]
    second = finetune(stretched(base, "pi", 2), "copy", 2, 5, 0)
    assert all(torch.equal(a, b) for a, b in zip(first.parameters(), second.parameters()))
    assert not torch.equal(first.head.weight, base.head.weight)
    records = extension_records(base, "copy", "yarn", 4, 0, 0)
    assert [tuple(r) for r in records] == [EXTENSION_KEYS] * 12 and [r["test_length"] for r in records] == list(range(1, 13))
    assert {(r["method"], r["factor"], r["finetune_steps"], r["train_max_length"]) for r in records} == {("yarn", 4, 0, 3)}


def test_regenerate_extension_trains_each_base_once_and_resumes(tmp_path, monkeypatch):
    bases = []

    def tiny_base(task, seed, progress=None):
        bases.append((task, seed))
        return train(task, "rope", seed, STRETCH_TINY)

    monkeypatch.setattr(extension_training, "base_model", tiny_base)
    monkeypatch.setattr(extension, "FINETUNE_STEPS", (0, 2))
    monkeypatch.setattr("posenc.lab.cli._check_base", lambda records: None)  # STRETCH_TINY is not the shipped recipe
    log = tmp_path / "log.txt"
    with log.open("w") as stream:
        regenerate_extension(tmp_path, fresh=True, stream=stream, only=[("reverse", 1)])
    written = (tmp_path / "extension.jsonl").read_text().splitlines()
    assert bases == [("reverse", 1)] and len(written) == len(METHODS) * len(FACTORS) * 2 * 12
    assert "cell 20/20" in log.read_text() and "wrote" in log.read_text()
    (tmp_path / "extension.jsonl.partial").write_text("\n".join(written[:-12]) + "\n")  # one cell lost
    (tmp_path / "extension.jsonl").unlink()
    with log.open("w") as stream:
        regenerate_extension(tmp_path, stream=stream, only=[("reverse", 1)])
    assert bases == [("reverse", 1)] * 2 and (tmp_path / "extension.jsonl").read_text().splitlines() == written
    with log.open("w") as stream:
        regenerate_extension(tmp_path, stream=stream, only=[("reverse", 1)])
    assert bases == [("reverse", 1)] * 2  # complete: nothing trained


def _records(values: dict[tuple[str, int], float], task="copy", factor=2) -> list[dict]:
    return [{"task": task, "method": method, "factor": factor, "finetune_steps": steps, "train_max_length": 8,
             "seed": 0, "test_length": n, "accuracy": accuracy, "examples": 200}
            for (method, steps), accuracy in values.items() for n in range(1, 8 * factor + 1)]


def test_the_claims_are_decided_by_the_numbers():
    holding = _records({("pi", 200): 0.9, ("none", 200): 0.5, ("ntk", 0): 0.4, ("pi", 0): 0.1, ("yarn", 50): 0.895})
    assert [c["verdict"] for c in check_claims(holding)] == ["holds", "holds", "holds"]
    assert check_claims(holding)[2]["cases"] == [{"task": "copy", "factor": 2, "better": 0.895, "worse": 0.9,
                                                 "holds": True}]  # within MATCH_TOLERANCE
    failing = _records({("pi", 200): 0.5, ("none", 200): 0.5, ("ntk", 0): 0.1, ("pi", 0): 0.2, ("yarn", 50): 0.3})
    assert [c["verdict"] for c in check_claims(failing)] == ["does not hold"] * 3  # a tie does not beat
    mixed = holding + _records({("pi", 200): 0.2, ("none", 200): 0.5, ("ntk", 0): 0.4, ("pi", 0): 0.1,
                                ("yarn", 50): 0.9}, factor=4)
    assert [c["verdict"] for c in check_claims(mixed)] == ["holds in 1 of 2 cases", "holds", "holds"]
    assert [c["verdict"] for c in check_claims([])] == ["not measured"] * len(CLAIMS)


def test_a_case_is_a_finding_only_outside_the_seeds_spread():
    """Three seeds a side: beats when every seed beats every other seed, fails when none does, else no finding
    (None). The shipped numbers: PI 200 over extrapolation 200 held by the means in 2 of 4 cases, clearly in 1."""
    def seeded(values: dict[tuple[str, int], tuple[float, ...]], factor=2) -> list[dict]:
        return [r | {"seed": seed, "accuracy": accuracy} for (method, steps), by_seed in values.items()
                for seed, accuracy in enumerate(by_seed) for r in _records({(method, steps): 0.0}, factor=factor)]

    clear = seeded({("pi", 200): (0.6, 0.7, 0.8), ("none", 200): (0.3, 0.5, 0.55)})
    overlap = seeded({("pi", 200): (0.4, 0.7, 0.9), ("none", 200): (0.3, 0.5, 0.6)}, factor=4)
    behind = seeded({("pi", 200): (0.1, 0.2, 0.3), ("none", 200): (0.3, 0.5, 0.6)}, factor=8)
    checked = check_claims(clear + overlap + behind)[0]
    assert [c["holds"] for c in checked["cases"]] == [True, None, False]
    assert checked["verdict"] == "3 cases: holds in 1, does not hold in 1, seeds overlap in 1"
    assert check_claims(overlap)[0]["verdict"] == "within the seeds' spread"
    np.testing.assert_allclose(window_by_seed(overlap, "copy", "pi", 4, 200), [0.4, 0.7, 0.9])
    shipped = check_claims()
    assert [c["holds"] for c in shipped[0]["cases"]] == [True, None, None, None]
    assert shipped[0]["verdict"] == "4 cases: holds in 1, seeds overlap in 3" and shipped[1]["verdict"] == "holds"
    assert shipped[2]["verdict"] == "4 cases: does not hold in 1, seeds overlap in 3"


def test_the_window_is_the_stretched_context():
    records = _records({("pi", 0): 1.0}, factor=2)
    records += [dict(records[0], test_length=n, accuracy=0.0) for n in range(17, 33)]  # past 2L: not counted
    assert window_mean(records, "copy", "pi", 2, 0) == 1.0 and window_mean(records, "copy", "ntk", 2, 0) is None


def test_read_extension_refuses_a_record_with_other_keys(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"task": "copy", "method": "pi", "accuracy": 1.0}) + "\n")
    with pytest.raises(ValueError, match="must have the keys task, method, factor, finetune_steps"):
        read_extension(path)


# -- the shipped file ---------------------------------------------------------------------------------------

shipped = pytest.mark.skipif(not EXTENSION_PATH.exists(), reason="extension.jsonl is being regenerated")


@shipped
def test_the_shipped_file_has_every_cell_once_and_is_small():
    records = load_extension()
    assert all(tuple(r) == EXTENSION_KEYS for r in records)
    keys = [(r["task"], r["method"], r["factor"], r["finetune_steps"], r["seed"], r["test_length"]) for r in records]
    expected = {(t, m, f, s, seed, n) for t in TASKS for m in METHODS for f in FACTORS for s in FINETUNE_STEPS
                for seed in SEEDS for n in range(1, 4 * DEFAULT.train_max_length + 1)}
    assert len(keys) == len(set(keys)) and set(keys) == expected
    assert {r["examples"] for r in records} == {DEFAULT.examples}
    assert EXTENSION_PATH.stat().st_size < 1_000_000


@shipped
def test_the_base_models_are_the_shipped_rope_models():
    """Plain extrapolation without fine-tune is the base model: at 1…3L it equals results.jsonl's RoPE rows."""
    for task in TASKS:
        for seed in SEEDS:
            base = {r["test_length"]: r["accuracy"] for r in load_extension(task)
                    if (r["method"], r["finetune_steps"], r["seed"], r["factor"]) == ("none", 0, seed, 2)}
            rope = {r["test_length"]: r["accuracy"] for r in load_records(task, "rope") if r["seed"] == seed}
            assert rope and {n: base[n] for n in rope} == rope


@shipped
def test_reading_the_extension_loads_no_torch():
    check = ("import sys, posenc.lab.extension as e; e.check_claims(); e.curves(e.load_extension(), 'copy', 2, 0); "
             "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'streamlit', 'plotly', 'pandas'}))")
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


@shipped
def test_the_command_reproduces_a_shipped_cell_bit_for_bit():
    """The cheapest cell: zero-shot (one base training, about 25 s of one core, and one test), in a fresh process;
    on another CPU kind, what that kind printed when recorded (tests/helpers/lab_machines.py)."""
    cell = {"task": "reverse", "method": "yarn", "factor": 2, "finetune_steps": 0, "seed": 2}
    lines = [line for line in EXTENSION_PATH.read_text().splitlines()
             if all(json.loads(line)[k] == v for k, v in cell.items())]
    result = subprocess.run([sys.executable, "-m", "posenc.lab", "extend", "--task", "reverse", "--method", "yarn",
                             "--factor", "2", "--finetune-steps", "0", "--seed", "2"], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert_reproduces("extend reverse yarn 2 0 2", lines, result.stdout.splitlines())
