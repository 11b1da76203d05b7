"""Bad arguments to the lab get a ValueError with a sentence, never a traceback from deep inside torch."""

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc.lab.evaluate import attention_maps, evaluate
from posenc.lab.names import SCHEMES, TASKS, check_scheme, check_task
from posenc.lab.recipe import DEFAULT, LIVE_BOUNDS, Recipe, live_recipe
from posenc.lab.train import train

ROOT = Path(__file__).resolve().parents[2]
anything = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=12),
                     st.lists(st.integers(), max_size=3))


@pytest.mark.parametrize(("arguments", "message"), [
    (("copying", "rope", 0), "task must be one of 'copy', 'reverse'"),
    (("copy", "RoPE", 0), "scheme must be one of 'sinusoidal'"),
    (("copy", "rope", -1), "seed must be at least 0"),
    (("copy", "rope", 1.5), "seed must be a whole number"),
    (("copy", "rope", "0"), "seed must be a whole number"),
])
def test_train_refuses_bad_arguments_before_training(arguments, message):
    with pytest.raises(ValueError, match=message):
        train(*arguments)


def test_train_refuses_a_recipe_that_is_not_one_and_callbacks_that_are_not_functions():
    with pytest.raises(ValueError, match="recipe must be a posenc.lab.recipe.Recipe"):
        train("copy", "nope", 0, recipe={"steps": 10})
    with pytest.raises(ValueError, match="progress must be a function or None"):
        train("copy", "nope", 0, progress=5)
    with pytest.raises(ValueError, match="should_stop must be a function or None"):
        train("copy", "nope", 0, should_stop="yes")


@pytest.mark.parametrize(("changes", "message"), [
    ({"steps": 0}, "steps must be at least 1"),
    ({"train_max_length": 33}, "train_max_length must be at most 32"),
    ({"train_max_length": 10, "test_max_length": 9}, "test_max_length must be at least train_max_length"),
    ({"d_model": 60, "heads": 4}, "d_model must be a multiple of 2·heads"),
    ({"lr": 0.0}, "lr must be a finite number greater than 0"),
    ({"lr": float("nan")}, "lr must be a finite number"),
    ({"stepz": 10}, "Unknown recipe setting"),
])
def test_recipe_refuses_out_of_bounds_settings(changes, message):
    with pytest.raises(ValueError, match=message):
        DEFAULT.replace(**changes)


def test_live_recipe_keeps_the_bounds_and_scales_the_test_lengths():
    low, high = LIVE_BOUNDS["train_max_length"]
    recipe = live_recipe(high, LIVE_BOUNDS["steps"][1])
    assert recipe.test_max_length == 3 * high and recipe.steps == LIVE_BOUNDS["steps"][1]
    assert live_recipe() == DEFAULT  # the defaults of "train your own" are the shipped recipe
    for length, steps, message in [(low - 1, 500, "train_max_length must be at least"),
                                   (high + 1, 500, "train_max_length must be at most"),
                                   (8, LIVE_BOUNDS["steps"][1] + 1, "steps must be at most"),
                                   (8, True, "steps must be a whole number"), ("8", 500, "must be a whole number")]:
        with pytest.raises(ValueError, match=message):
            live_recipe(length, steps)


@given(task=st.one_of(anything, st.sampled_from(TASKS)), scheme=st.one_of(anything, st.sampled_from(SCHEMES)))
def test_names_are_checked_with_a_sentence(task, scheme):
    for check, value, known in ((check_task, task, TASKS), (check_scheme, scheme, SCHEMES)):
        if isinstance(value, str) and value in known:
            assert check(value) == value
        else:
            with pytest.raises(ValueError, match="must be one of"):
                check(value)


@given(length=anything, steps=anything)
def test_live_recipe_accepts_its_bounds_and_refuses_the_rest_with_a_sentence(length, steps):
    (low_l, high_l), (low_s, high_s) = LIVE_BOUNDS["train_max_length"], LIVE_BOUNDS["steps"]
    fits = (type(length) is int and low_l <= length <= high_l and type(steps) is int and low_s <= steps <= high_s)
    if fits:
        assert isinstance(live_recipe(length, steps), Recipe)
    else:
        with pytest.raises(ValueError, match="must be"):
            live_recipe(length, steps)


@given(steps=st.integers(-5, 30000), length=st.integers(-2, 40), heads=st.integers(0, 9))
def test_recipe_is_built_or_refused_with_a_sentence(steps, length, heads):
    try:
        recipe = Recipe(steps=steps, train_max_length=length, test_max_length=max(length, 1) * 2, heads=heads)
    except ValueError as err:
        assert "must" in str(err)
    else:
        assert 1 <= recipe.steps <= 20000 and 1 <= recipe.train_max_length <= 32


def test_evaluate_and_attention_maps_refuse_what_is_not_a_lab_model():
    with pytest.raises(ValueError, match="model must be a trained posenc.lab LabModel"):
        evaluate(object(), "copy", 0)
    with pytest.raises(ValueError, match="model must be a trained posenc.lab LabModel"):
        attention_maps(None, "copy", 4)


@pytest.mark.parametrize(("arguments", "message"), [
    (["run", "--task", "copy", "--scheme", "rope", "--seed", "one"], "error: seed must be a whole number"),
    (["run", "--task", "sort", "--scheme", "rope", "--seed", "0"], "error: task must be one of"),
    (["run", "--task", "copy", "--scheme", "rotary", "--seed", "0"], "error: scheme must be one of"),
])
def test_the_command_says_what_is_wrong_without_a_traceback(arguments, message):
    result = subprocess.run([sys.executable, "-m", "posenc.lab", *arguments], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert message in result.stderr and "Traceback" not in result.stderr
