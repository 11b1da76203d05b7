"""T5 buckets: numpy equals the reference (Hugging Face's T5Attention._relative_position_bucket) exactly.

The reference (tests/t5_reference.py) is copied as transformers writes it (float32 torch
arithmetic). The grid test covers every num_buckets ≤ 128, max_distance ≤ 1024 and |r| ≤ 1000
(251,936 settings) at once; the hypothesis tests draw wider settings and the public function
itself (arrays and scalars).
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import example, given
from hypothesis import strategies as st

from posenc.modules.relative import relative_position_bucket
from posenc.schemes.t5 import _t5_log_bucket, t5_relative_bucket
from t5_reference import hf_relative_position_bucket

R = np.arange(-1000, 1001)


def reference_grid(distances, max_exact, per_side, max_distances, log=torch.log):
    """The reference's large bucket for every (max_distance, n) at once: (len(max_distances), len(distances)).

    The same float32 operations in the same order: dividing a float32 tensor by a Python float
    rounds the float to float32 first, so the divisors are a float32 column; .to(torch.long) of
    these positive values is torch.trunc (done in place, as float32, to keep the grid fast).
    test_grid_reference_is_the_reference checks it against hf_relative_position_bucket itself.
    ``log`` is torch's float32 ln, or :func:`rounded_log` (the same steps with ln correctly rounded).
    """
    log_range = torch.tensor([math.log(m / max_exact) for m in max_distances], dtype=torch.float32)[:, None]
    ratio = log(torch.as_tensor(distances).float() / max_exact)[None, :]
    large = (ratio / log_range).mul_(per_side - max_exact).trunc_().add_(max_exact)
    return large.clamp_(max=per_side - 1).numpy()


def rounded_log(x: torch.Tensor) -> torch.Tensor:
    """ln of a float32 tensor, correctly rounded to float32 (as posenc computes it)."""
    return torch.from_numpy(np.log(x.numpy().astype(np.float64)).astype(np.float32))


def settings():
    """(bidirectional, num_buckets, per_side, max_exact) of every num_buckets ≤ 128 with an exact bucket."""
    for bidirectional in (True, False):
        for num_buckets in range(2, 129):
            per_side = num_buckets // 2 if bidirectional else num_buckets
            if per_side // 2 >= 1:
                yield bidirectional, num_buckets, per_side, per_side // 2


def test_grid_reference_is_the_reference():
    for bidirectional, num_buckets, per_side, max_exact in list(settings())[::17]:
        max_distances = [max_exact + 1, 3 * max_exact + 7, 1024]
        grid = reference_grid(np.arange(max_exact, 1001), max_exact, per_side, max_distances)
        for row, max_distance in zip(grid, max_distances):
            full = hf_relative_position_bucket(torch.from_numpy(R), bidirectional, num_buckets, max_distance).numpy()
            sign = 1 if bidirectional else -1  # the large buckets sit at r = n (bidirectional) or r = −n (causal)
            offset = per_side if bidirectional else 0
            np.testing.assert_array_equal(full[sign * np.arange(max_exact, 1001) + 1000] - offset, row)


def test_numpy_equals_the_reference_on_every_setting_of_the_grid():
    """All 251,936 (direction, num_buckets, max_distance ≤ 1024) settings, |r| ≤ 1000.

    The large buckets depend on (B, e) only, and num_buckets = 2B and 2B + 1 (bidirectional) share
    B with the causal num_buckets = B: each distinct B is computed once, counted for each setting.
    """
    checked = 0
    shared: dict[int, int] = {}
    for _, _, per_side, _ in settings():
        shared[per_side] = shared.get(per_side, 0) + 1
    for per_side, count in shared.items():
        max_exact = per_side // 2
        max_distances = np.arange(max_exact + 1, 1025)
        distances = np.arange(max_exact, 1001)  # below max_exact the bucket is n itself, no log
        expected = reference_grid(distances, max_exact, per_side, max_distances)
        log_range = np.array([math.log(m / max_exact) for m in max_distances], dtype=np.float32)[:, None]
        actual = _t5_log_bucket(distances[None, :], max_exact, per_side, log_range)
        # torch's float32 ln is within 1 ulp, not always correctly rounded, and where it is off depends on
        # the CPU's kernels: equal bit for bit wherever it is correctly rounded; the reference's steps with
        # ln correctly rounded everywhere; one bucket apart at most where a 1-ulp ln crosses a boundary
        ratio = torch.as_tensor(distances).float() / max_exact
        torch_ln_rounded = (torch.log(ratio) == rounded_log(ratio)).numpy()
        np.testing.assert_array_equal(actual[:, torch_ln_rounded], expected[:, torch_ln_rounded])
        np.testing.assert_array_equal(actual, reference_grid(distances, max_exact, per_side, max_distances,
                                                             log=rounded_log))
        assert np.abs(actual - expected).max() <= 1
        checked += count * len(max_distances)
    assert checked == 251_936


@pytest.mark.parametrize(("bidirectional", "num_buckets", "max_distance"),
                         [(True, 32, 128), (False, 32, 128), (False, 10, 160), (True, 128, 1024), (True, 4, 3)])
def test_public_function_equals_the_reference(bidirectional, num_buckets, max_distance):
    expected = hf_relative_position_bucket(torch.from_numpy(R), bidirectional, num_buckets, max_distance).numpy()
    np.testing.assert_array_equal(t5_relative_bucket(R, bidirectional=bidirectional, num_buckets=num_buckets,
                                                     max_distance=max_distance), expected)


@st.composite
def bucket_settings(draw):
    bidirectional = draw(st.booleans())
    num_buckets = draw(st.integers(4 if bidirectional else 2, 128))
    per_side = num_buckets // 2 if bidirectional else num_buckets
    max_distance = draw(st.integers(per_side // 2 + 1, 4096))
    return bidirectional, num_buckets, max_distance


@given(bucket_settings(), st.lists(st.integers(-200_000, 200_000), min_size=1, max_size=64))
@example((False, 10, 160), [-20])
@example((True, 32, 128), [0, 1, -1, 8, -8, 127, 128, -10_000])
def test_numpy_torch_and_reference_agree_exactly(setting, relative):
    bidirectional, num_buckets, max_distance = setting
    tensor = torch.tensor(relative, dtype=torch.long)
    expected = hf_relative_position_bucket(tensor, bidirectional, num_buckets, max_distance).numpy()
    kwargs = dict(bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    np.testing.assert_array_equal(t5_relative_bucket(np.array(relative), **kwargs), expected)
    np.testing.assert_array_equal(relative_position_bucket(tensor, bidirectional, num_buckets, max_distance).numpy(),
                                  expected)
    assert t5_relative_bucket(relative[0], **kwargs) == expected[0]  # the scalar path
    assert isinstance(t5_relative_bucket(relative[0], **kwargs), int)
