"""FIRE (arXiv:2310.04418): the normalized distance and the bias pinned by hand and by numpy, the threshold's
two regimes, the seeded initialisation, the learned c and L, and the errors."""

import math

import numpy as np
import pytest
import torch

from posenc.modules import FIREBias
from posenc.modules.fire import FIRE_EPSILON


def _numpy_bias(module: FIREBias, length: int) -> np.ndarray:
    """The paper's formula in float64 numpy from the module's parameters: (heads, length, length)."""
    c = float(module.c.detach())
    threshold = abs(float(module.threshold_scale.detach()) * float(module.initial_threshold))
    i, j = np.arange(length)[:, None], np.arange(length)[None, :]
    x = np.log(np.abs(c * (i - j)) + 1) / (np.log(np.abs(c * np.maximum(i, threshold)) + 1) + FIRE_EPSILON)
    w1, b1 = module.hidden.weight.detach().double().numpy(), module.hidden.bias.detach().double().numpy()
    w2, b2 = module.out.weight.detach().double().numpy(), module.out.bias.detach().double().numpy()
    hidden = np.maximum(x[..., None] * w1[:, 0] + b1, 0.0)  # (length, length, width)
    return (hidden @ w2.T + b2).transpose(2, 0, 1)


def test_the_normalized_distance_by_hand():
    fire = FIREBias(2, threshold=2.0, c=0.1)
    x = fire.normalized_distance(4).detach().double()
    # ψ(x) = log(0.1·x + 1); queries 0, 1 and 2 are normalized by ψ(L = 2) = log 1.2, query 3 by ψ(3) = log 1.3
    assert float(x[1, 0]) == pytest.approx(math.log(1.1) / math.log(1.2), rel=1e-5)
    assert float(x[2, 0]) == pytest.approx(1.0, rel=1e-5)
    assert float(x[3, 1]) == pytest.approx(math.log(1.2) / math.log(1.3), rel=1e-5)
    assert float(x[3, 0]) == pytest.approx(1.0, rel=1e-5)
    assert torch.all(torch.diagonal(x) == 0)


def test_a_hand_set_mlp_gives_the_formula():
    fire = FIREBias(1, threshold=2.0, mlp_width=1, c=0.1)
    with torch.no_grad():  # f(x) = 2·relu(x) + 0.5
        fire.hidden.weight.fill_(1.0), fire.hidden.bias.fill_(0.0), fire.out.weight.fill_(2.0), fire.out.bias.fill_(0.5)
    bias = fire(4).detach()
    assert bias.shape == (1, 4, 4)
    assert float(bias[0, 3, 1]) == pytest.approx(2 * math.log(1.2) / math.log(1.3) + 0.5, rel=1e-5)
    assert float(bias[0, 2, 2]) == pytest.approx(0.5)


@pytest.mark.parametrize(("heads", "threshold", "length"), [(4, 4.5, 50), (1, 512.0, 20), (3, 1.0, 9)])
def test_the_bias_equals_the_papers_formula_in_numpy(heads, threshold, length):
    fire = FIREBias(heads, threshold=threshold, seed=3)
    with torch.no_grad():
        fire.c.fill_(0.37), fire.threshold_scale.fill_(1.5)
    assert np.allclose(fire(length).detach().numpy(), _numpy_bias(fire, length), atol=1e-5)


def test_before_the_threshold_the_bias_depends_on_the_offset_alone_and_after_it_on_the_ratio():
    fire = FIREBias(2, threshold=10.0, seed=1)
    bias = fire(30).detach()
    for i in range(1, 10):  # queries before L: b(i, j) = b(i + 1, j + 1)
        assert torch.allclose(bias[:, i, : i + 1], bias[:, i + 1, 1 : i + 2])
    x = fire.normalized_distance(30).detach()
    assert float(x.tril().max()) <= 1.0 + 1e-6  # on and below the diagonal every distance is in [0, 1]
    assert torch.allclose(x[10:, 0], torch.ones(20), atol=1e-5)


def test_one_seed_gives_the_same_weights_drawn_as_nn_linear():
    first, second, other = FIREBias(4, seed=5), FIREBias(4, seed=5), FIREBias(4, seed=6)
    assert all(torch.equal(a, b) for a, b in zip(first.state_dict().values(), second.state_dict().values()))
    assert not torch.equal(first.out.weight, other.out.weight)
    assert float(first.hidden.weight.detach().abs().max()) <= 1.0  # U(−1/√1, 1/√1)
    assert float(first.out.weight.detach().abs().max()) <= 1 / math.sqrt(32)
    assert float(first.c.detach()) == pytest.approx(0.1) and float(first.threshold.detach()) == 512.0


def test_c_and_the_threshold_are_learned():
    fire = FIREBias(2, threshold=3.0)
    fire(8).sum().backward()
    assert fire.c.grad is not None and float(fire.c.grad) != 0.0
    assert fire.threshold_scale.grad is not None and float(fire.threshold_scale.grad) != 0.0


@pytest.mark.parametrize(("arguments", "message"), [
    ({"num_heads": 0}, "num_heads must be"),
    ({"num_heads": 2, "threshold": 0.0}, "threshold must be"),
    ({"num_heads": 2, "mlp_width": 0}, "mlp_width must be"),
    ({"num_heads": 2, "c": -1.0}, "c must be"),
    ({"num_heads": 2, "seed": -1}, "seed must be"),
])
def test_bad_arguments_are_refused_with_a_sentence(arguments, message):
    with pytest.raises(ValueError, match=message):
        FIREBias(**arguments)
    with pytest.raises(ValueError, match="length must be"):
        FIREBias(2)(-1)
