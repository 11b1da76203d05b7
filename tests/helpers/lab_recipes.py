"""Small lab recipes shared by the tests of stretching RoPE (tests/lab/test_lab_extension*.py)."""

from posenc.lab.recipe import Recipe

STRETCH_TINY = Recipe(d_model=32, layers=1, heads=2, steps=20, batch=16, warmup_steps=2, train_max_length=3,
                      test_max_length=12, examples=20)
"""A 1-layer model on 1…3 digits tested to 4L = 12: a second of one core."""
