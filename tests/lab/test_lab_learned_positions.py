"""Issue 30 part 2 in the lab: the selective_copy task's exact format, FIRE and CoPE as lab schemes (their hooks,
lab-only), and one shipped cell of each reproduced bit for bit by ``python -m posenc.lab run``."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import posenc
from lab_machines import assert_reproduces
from posenc.lab import results
from posenc.lab.model import LabModel
from posenc.lab.names import BOS, PAD, SCHEME_LABELS, SCHEMES, SEP, TASKS, VOCAB
from posenc.lab.recipe import DEFAULT, Recipe
from posenc.lab.schemes import POSITIONS, ContextualBias, LengthBias, Sizes
from posenc.lab.shipped import RESULTS_PATH
from posenc.lab.tasks import DRAWS, TARGETS, fixed_length_batch, make_batch, target
from posenc.modules import ContextualPositions, FIREBias

ROOT = Path(__file__).resolve().parents[2]
SIZES = Sizes(d_model=64, heads=4, head_dim=16, max_tokens=50, train_tokens=18)


def test_every_task_has_its_target_and_its_draw():
    assert set(TARGETS) == set(TASKS) == set(DRAWS)
    assert "selective_copy" in TASKS and VOCAB == 13  # no new token: every model's initial weights stay


def test_selective_copy_puts_the_non_zero_digits_first_in_order_then_the_blanks():
    tokens, mask = fixed_length_batch("selective_copy", 6, 3, 1)
    assert tokens.tolist() == [[BOS, 5, 6, 1, 0, 8, 2, SEP, 5, 6, 1, 8, 2, 0],
                               [BOS, 0, 6, 9, 1, 0, 4, SEP, 6, 9, 1, 4, 0, 0],
                               [BOS, 2, 9, 0, 0, 0, 0, SEP, 2, 9, 0, 0, 0, 0]]
    assert mask.tolist() == [[False] * 7 + [True] * 6 + [False]] * 3  # scored on the n targets, as copy
    assert target("selective_copy", torch.tensor([[3, 0, 0, 7, 0, 5]])).tolist() == [[3, 7, 5, 0, 0, 0]]
    assert target("selective_copy", torch.tensor([[0, 0, 0]])).tolist() == [[0, 0, 0]]


def test_selective_copy_blanks_half_the_digits_and_pads_as_the_other_tasks():
    tokens, mask = make_batch("selective_copy", torch.tensor([2, 8, 5]), torch.Generator().manual_seed(0))
    assert tokens.shape == mask.shape == (3, 18) and tokens[0, 6:].eq(PAD).all()
    x, _ = fixed_length_batch("selective_copy", 24, 2000, 7)
    digits = x[:, 1:25]
    assert 0.48 < float((digits == 0).double().mean()) < 0.52
    assert torch.equal(torch.sort(digits, dim=1).values, torch.sort(x[:, 26:50], dim=1).values)  # the same digits


def test_copy_and_reverse_draw_their_digits_as_before():
    generator, again = torch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    tokens, _ = make_batch("reverse", torch.full((4,), 5), generator)
    digits = torch.randint(0, 10, (4, 5), generator=again)  # the one draw of the shipped set
    assert torch.equal(tokens[:, 1:6], digits) and torch.equal(tokens[:, 7:12], digits.flip(-1))


def test_fire_and_cope_are_lab_schemes_only():
    assert SCHEMES[-2:] == ("fire", "cope") and (SCHEME_LABELS["fire"], SCHEME_LABELS["cope"]) == ("FIRE", "CoPE")
    assert "fire" not in posenc.SCHEMES and "cope" not in posenc.SCHEMES


def test_fires_entry_is_a_length_bias_whose_threshold_is_a_quarter_of_the_training_sequence():
    positions = POSITIONS["fire"].layer(SIZES, 0)
    assert isinstance(positions, LengthBias) and isinstance(positions.module, FIREBias)
    assert float(positions.module.threshold.detach()) == 18 / 4
    logits, q = torch.randn(2, 4, 6, 6), torch.randn(2, 4, 6, 16)
    assert torch.equal(positions.bias(logits, q, 0.25), logits + positions.module(6))


def test_copes_entry_adds_q_e_of_the_count_on_the_causally_masked_logits():
    positions = POSITIONS["cope"].layer(SIZES, 0)
    assert isinstance(positions, ContextualBias) and isinstance(positions.cope, ContextualPositions)
    assert positions.cope.embeddings.shape == (18, 16)
    torch.manual_seed(0)
    logits, q = torch.randn(2, 4, 6, 6), torch.randn(2, 4, 6, 16)
    assert torch.equal(positions.bias(logits, q, 0.25), logits)  # a zero table: CoPE starts as NoPE
    with torch.no_grad():
        positions.cope.embeddings.normal_()
    masked = logits.masked_fill(torch.ones(6, 6, dtype=torch.bool).triu(1), -torch.inf)
    assert torch.equal(positions.bias(logits, q, 0.25), logits + positions.cope(q, masked))
    xt = pytest.importorskip("x_transformers.x_transformers")
    reference = xt.CoPE(16, 4, 18)
    with torch.no_grad():
        reference.pos_emb.copy_(positions.cope.embeddings)
    assert torch.equal(positions.bias(logits, q, 0.25), logits + reference(q, masked))


@pytest.mark.parametrize("scheme", ["fire", "cope"])
def test_a_model_of_the_new_schemes_reads_every_test_length(scheme):
    recipe = Recipe(d_model=32, layers=1, heads=2, steps=1, warmup_steps=1, train_max_length=4, test_max_length=8)
    torch.manual_seed(0)
    model = LabModel(scheme, recipe, seed=0)
    tokens, _ = fixed_length_batch("selective_copy", 8, 2, 0)
    logits, maps = model(tokens[:, :-1], return_attention=True)
    assert logits.shape == (2, 17, VOCAB) and bool(torch.isfinite(logits).all())
    assert torch.allclose(maps[0].sum(-1), torch.ones(2, 2, 17)) and bool((maps[0].triu(1) == 0).all())


def test_the_new_cells_are_learned_in_distribution_by_every_seed():
    """The issue's bar for each new cell, on each seed alone: mean exact match over lengths 1…L ≥ 0.95."""
    per_seed: dict[tuple[str, str, int], list[float]] = {}
    for r in results.load_records():
        if r["test_length"] <= r["train_max_length"] and (r["task"] == "selective_copy" or r["scheme"] in ("fire", "cope")):
            per_seed.setdefault((r["task"], r["scheme"], r["seed"]), []).append(r["accuracy"])
    assert len(per_seed) == (len(SCHEMES) + 2 * 2) * 3
    below = {cell: round(sum(v) / len(v), 3) for cell, v in per_seed.items() if sum(v) / len(v) < 0.95}
    assert below == {}


@pytest.mark.parametrize("cell", [("copy", "fire", 2), ("selective_copy", "cope", 1)])
def test_the_command_reproduces_a_shipped_cell_of_each_new_scheme_and_the_new_task(cell):
    """The default recipe, trained in a fresh process (about 30 s of one core), prints the shipped lines (or, on
    another CPU kind, exactly what that kind printed when recorded: tests/helpers/lab_machines.py)."""
    shipped = [line for line in RESULTS_PATH.read_text().splitlines()
               if (json.loads(line)["task"], json.loads(line)["scheme"], json.loads(line)["seed"]) == cell]
    result = subprocess.run([sys.executable, "-m", "posenc.lab", "run", "--task", cell[0], "--scheme", cell[1],
                             "--seed", str(cell[2])], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(shipped) == DEFAULT.test_max_length
    assert_reproduces("run {} {} {}".format(*cell), shipped, result.stdout.splitlines())
