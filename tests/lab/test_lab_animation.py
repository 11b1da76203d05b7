"""The maps of the lab's animation: shipped at every test length 1 … 3L for every seed-0 cell, small, and
regenerated only from a model whose records equal the written ones."""

import json

import numpy as np
import pytest

from plotly_data import decode
from posenc.figures import generalization
from posenc.lab import results
from posenc.lab.cli import regenerate
from posenc.lab.names import SCHEMES, TASKS
from posenc.lab.recipe import DEFAULT, Recipe
from posenc.lab.shipped import ATTENTION_PATH, animation_lengths, map_lengths, stored_lengths

SMOKE = Recipe(d_model=32, layers=2, heads=2, steps=3, batch=32, lr=6e-3, warmup_steps=1, train_max_length=4,
               test_max_length=8, examples=8, recalibration_steps=2)


def test_the_lengths_of_the_animation_are_every_test_length():
    assert animation_lengths(24) == tuple(range(1, 25))
    assert stored_lengths(8, 24) == tuple(range(1, 25))
    assert set(map_lengths(8)) <= set(stored_lengths(8, 24))
    assert stored_lengths(4, 5) == (1, 2, 3, 4, 5, 6)  # the still pair (4, 6) past a short test range too


def test_every_cell_ships_maps_at_every_test_length_in_a_small_file():
    assert ATTENTION_PATH.stat().st_size < 6_000_000  # 5.71 MB for 3 tasks × 13 schemes: float16 multiples of 1/1024
    with np.load(ATTENTION_PATH) as archive:
        assert len(archive.files) == len(TASKS) * len(SCHEMES) * DEFAULT.test_max_length * 2
    for task in TASKS:
        for scheme in SCHEMES:
            for length in animation_lengths(DEFAULT.test_max_length):
                maps, tokens = results.load_attention(task, scheme, length)
                assert maps.shape == (DEFAULT.layers, DEFAULT.heads, 2 * length + 1, 2 * length + 1)
                assert np.allclose(maps.sum(-1), 1.0, atol=2e-2) and np.all(np.triu(maps, k=1) == 0)
                assert tokens[0] == 11 and tokens[length + 1] == 10  # ^ digits | …


def test_regenerate_retrains_a_cell_for_missing_maps_and_keeps_its_records(tmp_path):
    cells = [("copy", "alibi", 0)]
    regenerate(tmp_path, fresh=True, stream=open(tmp_path / "log", "w"), recipe=SMOKE, only=cells)
    written = (tmp_path / "results.jsonl").read_text()
    with np.load(tmp_path / "attention.npz") as archive:  # drop the maps past the training length, as before
        kept = {key: archive[key] for key in archive.files if int(key.split("/")[2]) in map_lengths(4)}
    np.savez_compressed(tmp_path / "attention.npz", **kept)
    regenerate(tmp_path, stream=open(tmp_path / "log", "w"), recipe=SMOKE, only=cells)
    assert (tmp_path / "results.jsonl").read_text() == written  # the same model: the same records
    with np.load(tmp_path / "attention.npz") as archive:
        assert sorted({int(key.split("/")[2]) for key in archive.files}) == list(range(1, 9))
        np.testing.assert_array_equal(archive["copy/alibi/4/maps"], kept["copy/alibi/4/maps"])


def test_regenerate_refuses_maps_from_a_model_whose_records_differ(tmp_path):
    cells = [("copy", "alibi", 0)]
    regenerate(tmp_path, fresh=True, stream=open(tmp_path / "log", "w"), recipe=SMOKE, only=cells)
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    records[2]["accuracy"] = 0.5 if records[2]["accuracy"] != 0.5 else 0.25  # as if written by another model
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (tmp_path / "attention.npz").unlink()
    with pytest.raises(ValueError, match="gave other records than results.jsonl"):
        regenerate(tmp_path, stream=open(tmp_path / "log", "w"), recipe=SMOKE, only=cells)


def test_the_lab_animation_has_a_frame_per_length_and_marks_the_training_length():
    maps = [results.load_attention("copy", "alibi", n)[0][2] for n in (1, 8, 24)]  # layer 3
    fig = generalization.attention_animation(maps, [1, 8, 24], ["a", "b", "c"], train_max_length=8, title="t")
    assert [f.name for f in fig.frames] == ["1", "8", "24"]
    assert [s.label for s in fig.layout.sliders[0].steps] == ["1", "8 ◂ L", "24"]
    assert fig.layout.updatemenus[0].buttons[0].args[1]["frame"]["redraw"] is True  # heatmaps redraw
    frame = fig.frames[2]
    np.testing.assert_array_equal(np.asarray(frame.data[3].z), maps[2][3].astype(np.float32))  # head 4 at 24 digits
    assert decode(fig.to_plotly_json()["data"][0]["z"]).shape == (3, 3)
    assert fig.layout.shapes[0].x1 == 16.5  # the 17 tokens of an 8-digit string
    assert fig.layout.xaxis.range == (-0.5, 48.5)  # the axes of the longest string: each map grows


def test_a_stored_weight_is_a_float16_multiple_of_1_over_1024():
    from posenc.lab.shipped import MAP_STEPS, stored_map

    stored = stored_map(np.array([0.0, 0.1234, 0.99999, 1.0, 1 / 3]))
    assert stored.dtype == np.float16 and MAP_STEPS == 1024
    np.testing.assert_array_equal(stored.astype(np.float64) * 1024, [0, 126, 1024, 1024, 341])
    maps, _ = results.load_attention("reverse", "rope", 17)
    assert np.all(maps * 1024 == np.round(maps * 1024))


@pytest.mark.parametrize("digits, every", [(5, 1), (8, 2), (12, 3)])
def test_the_attention_grid_labels_every_key_and_every_kth_query_beyond_twelve(digits, every):
    """Down a map a label needs a line of its own: 25 tokens down ~130 px (a phone) lay on each other; across,
    a label is a character wide and every token stays, so the string reads left to right."""
    string = [str(n % 10) for n in range(digits)]
    tokens = ["^", *string, "|", *string][:2 * digits + 1]  # what the query reads, up to the answer's last digit
    maps = [np.full((2, len(tokens), len(tokens)), 1 / len(tokens))]
    fig = generalization.attention_grid(maps, ["row"], [tokens], title="t")
    assert -(-len(tokens) // generalization.TOKEN_ROWS_LABELLED) == every
    assert list(fig.layout.xaxis.ticktext) == tokens and list(fig.layout.xaxis.tickvals) == list(range(len(tokens)))
    assert list(fig.layout.yaxis.ticktext) == tokens[::every]
    assert list(fig.layout.yaxis.tickvals) == list(range(len(tokens)))[::every]
    assert fig.data[0].customdata[-1][0] == f"{tokens[-1]} → {tokens[0]}"  # every cell's hover still names both
