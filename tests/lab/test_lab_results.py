"""The shipped results of the lab (posenc/lab/data/results.jsonl, attention.npz): complete, small, read without torch,
and meeting the in-distribution bar of issue 16 (mean exact match ≥ 0.95 at the training lengths)."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from posenc.lab import results
from posenc.lab.names import SCHEMES, SEEDS, TASKS
from posenc.lab.recipe import DEFAULT
from posenc.lab.shipped import ATTENTION_PATH, RESULTS_PATH, map_lengths

ROOT = Path(__file__).resolve().parents[2]


def test_the_results_file_has_exactly_the_keys_and_is_well_under_a_megabyte():
    assert RESULTS_PATH.stat().st_size < 500_000
    for line in RESULTS_PATH.read_text().splitlines():
        record = json.loads(line)
        assert tuple(record) == results.RECORD_KEYS
        assert isinstance(record["accuracy"], float) and 0.0 <= record["accuracy"] <= 1.0
        assert record["examples"] == DEFAULT.examples >= 200
        assert record["train_max_length"] == DEFAULT.train_max_length


def test_every_task_scheme_seed_and_test_length_is_shipped_once():
    keys = [(r["task"], r["scheme"], r["seed"], r["test_length"]) for r in results.load_records()]
    expected = [(t, s, seed, n) for t in TASKS for s in SCHEMES for seed in SEEDS
                for n in range(1, DEFAULT.test_max_length + 1)]
    assert sorted(keys) == sorted(expected)
    assert DEFAULT.test_max_length >= 2 * DEFAULT.train_max_length


def test_every_scheme_learns_every_task_in_distribution():
    table = results.in_distribution()
    below = {(task, scheme): round(cell["mean"], 3) for task, row in table.items() for scheme, cell in row.items()
             if cell["mean"] < 0.95}
    assert set(table) == set(TASKS) and all(set(row) == set(SCHEMES) for row in table.values())
    assert below == {}


def test_summary_gives_mean_min_max_over_the_seeds():
    summary = results.summarize()
    assert list(summary) == list(TASKS) and list(summary["copy"]) == list(SCHEMES)
    cell = summary["copy"]["alibi"][DEFAULT.train_max_length + 1]
    values = [r["accuracy"] for r in results.load_records("copy", "alibi")
              if r["test_length"] == DEFAULT.train_max_length + 1]
    assert cell["seeds"] == len(SEEDS) == len(values)
    assert cell["min"] == min(values) and cell["max"] == max(values)
    assert cell["mean"] == pytest.approx(np.mean(values))
    assert results.train_max_length() == DEFAULT.train_max_length


def test_the_attention_maps_are_shipped_for_every_cell_at_a_training_length_and_past_it():
    assert ATTENTION_PATH.stat().st_size < 6_000_000  # every test length 1 … 24 (posenc.lab.shipped.MAP_STEPS)
    assert results.attention_lengths() == map_lengths(DEFAULT.train_max_length)
    inside, past = results.attention_lengths()
    assert inside <= DEFAULT.train_max_length < past <= DEFAULT.test_max_length
    for task in TASKS:
        for scheme in SCHEMES:
            for length in (inside, past):
                maps, tokens = results.load_attention(task, scheme, length)
                tokens_seen = 2 * length + 1
                assert maps.shape == (DEFAULT.layers, DEFAULT.heads, tokens_seen, tokens_seen)
                assert tokens.shape == (tokens_seen,)
                assert np.allclose(maps.sum(-1), 1.0, atol=2e-2)  # float16 rows of probabilities
                assert np.all(np.triu(maps, k=1) == 0)  # causal: nothing above the diagonal


def test_load_attention_refuses_an_unshipped_length_with_a_sentence():
    with pytest.raises(ValueError, match="length must be one of"):
        results.load_attention("copy", "rope", DEFAULT.test_max_length + 1)
    with pytest.raises(ValueError, match="scheme must be one of"):
        results.load_attention("copy", "Rope", results.attention_lengths()[0])


def test_reading_the_results_loads_no_torch():
    check = ("import sys, posenc.lab.results as r; r.summarize(); r.load_attention('copy', 'nope', "
             "r.attention_lengths()[1]); print(sorted({m.split('.')[0] for m in sys.modules} & "
             "{'torch', 'streamlit', 'plotly', 'pandas'}))")
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_read_records_refuses_a_record_with_other_keys(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"task": "copy", "scheme": "nope", "accuracy": 1.0}) + "\n")
    with pytest.raises(ValueError, match="must have the keys task, scheme, seed"):
        results.read_records(path)


def test_beyond_by_seed_is_each_seed_s_mean_past_the_training_length():
    records = [dict(task="copy", scheme="rope", seed=seed, train_max_length=2, test_length=n, accuracy=acc, examples=1)
               for seed, accs in ((1, (1.0, 1.0, 0.5, 0.25, 0.0)), (0, (1.0, 1.0, 0.0, 0.5, 0.0)))
               for n, acc in zip(range(1, 6), accs)]
    assert results.beyond_by_seed(records)["copy"]["rope"].tolist() == [0.25, 0.375]  # seeds 0, 1: lengths 3 and 4
    shipped, length = results.beyond_by_seed(), results.train_max_length()
    for task, by_scheme in results.summarize().items():
        for scheme, per in by_scheme.items():
            assert len(shipped[task][scheme]) == len(SEEDS)
            np.testing.assert_allclose(shipped[task][scheme].mean(),
                                       np.mean([per[n]["mean"] for n in per if length < n <= 2 * length]))
