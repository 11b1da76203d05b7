"""Learned absolute positions and NoPE: numbers, determinism, the end of the table, torch parity."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from posenc.modules.absolute import LearnedPositionalEmbedding, NoPositionalEncoding
from posenc.schemes.absolute import DEFAULT_TABLE_SIZE, SCHEMES, learned_absolute, nope
from posenc.schemes.offsets import offset_similarity

SCHEME = {s.key: s for s in SCHEMES}


def test_learned_first_values_are_the_seeded_normal_draw():
    table = learned_absolute(3, 4, seed=0)
    expected = np.random.default_rng(0).normal(0.0, 0.02, size=(3, 4))
    np.testing.assert_array_equal(table, expected)
    assert table[0, 0] == pytest.approx(0.02 * 0.12573022109, rel=1e-9)  # default_rng(0)'s first normal


def test_learned_is_deterministic_and_seed_dependent():
    np.testing.assert_array_equal(learned_absolute(20, 8, seed=3), learned_absolute(20, 8, seed=3))
    assert not np.allclose(learned_absolute(20, 8, seed=3), learned_absolute(20, 8, seed=4))


def test_learned_prefix_is_stable_whatever_the_length():
    long = learned_absolute(500, 16, seed=7)
    for length in (0, 1, 10, 499):
        np.testing.assert_array_equal(learned_absolute(length, 16, seed=7), long[:length])


def test_learned_has_no_encoding_past_the_table():
    table = learned_absolute(10, 4, table_size=6, seed=1)
    assert np.isnan(table[6:]).all()
    np.testing.assert_array_equal(table[:6], learned_absolute(6, 4, table_size=6, seed=1))
    assert not np.isnan(table[:6]).any()


def test_learned_default_table_size_is_bert_512():
    assert DEFAULT_TABLE_SIZE == 512
    table = learned_absolute(513, 2)
    assert not np.isnan(table[511]).any() and np.isnan(table[512]).all()


def test_learned_statistics_match_n_0_002():
    values = learned_absolute(512, 256, seed=0)
    assert values.std() == pytest.approx(0.02, rel=0.01)
    assert abs(values.mean()) < 3e-4


def test_learned_std_scales_the_same_draw():
    np.testing.assert_allclose(learned_absolute(5, 3, std=1.0) * 0.02, learned_absolute(5, 3), rtol=1e-12)


def test_nope_is_zeros():
    table = nope(7, 5)
    assert table.shape == (7, 5)
    assert not table.any()


def test_learned_curve_leaves_out_rows_past_the_table():
    offsets, values = SCHEME["learned"].offset_curve(10, 4, 10000.0, table_size=4, seed=2)
    assert np.isnan(values[np.abs(offsets) >= 4]).all()
    prefix = learned_absolute(4, 4, seed=2)
    close = {"rel": 1e-9, "abs": 1e-15}
    assert values[offsets == 0][0] == pytest.approx((prefix**2).sum(axis=1).mean(), **close)
    assert values[offsets == 3][0] == pytest.approx(prefix[0] @ prefix[3], **close)
    neighbours = np.mean([prefix[i] @ prefix[i + 1] for i in range(3)])
    assert values[offsets == -1][0] == pytest.approx(neighbours, **close)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: learned_absolute(-1, 4), "length must be at least 0"),
        (lambda: learned_absolute(4, 0), "d_model must be at least 1"),
        (lambda: learned_absolute(4, 4, table_size=0), "table_size must be at least 1"),
        (lambda: learned_absolute(4, 4, seed=-1), "seed must be at least 0"),
        (lambda: learned_absolute(4, 4, std=0.0), "std must be a finite number greater than 0"),
        (lambda: learned_absolute(4, 4, std=float("nan")), "std must be a finite number"),
        (lambda: learned_absolute(2.5, 4), "length must be a whole number"),
        (lambda: nope(3, -2), "d_model must be at least 1"),
    ],
)
def test_bad_arguments_raise_a_sentence(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_torch_learned_matches_numpy():
    module = LearnedPositionalEmbedding(64, 16, seed=5)
    np.testing.assert_allclose(module.table.detach().numpy(), learned_absolute(64, 16, seed=5), atol=1e-6)
    x = torch.randn(2, 30, 16)
    expected = x.numpy() + learned_absolute(30, 16, seed=5)
    np.testing.assert_allclose(module(x).detach().numpy(), expected, atol=1e-6)
    assert isinstance(module.table, torch.nn.Parameter)


def test_torch_learned_refuses_positions_past_the_table():
    module = LearnedPositionalEmbedding(8, 4)
    assert module(torch.zeros(8, 4)).shape == (8, 4)
    with pytest.raises(ValueError, match="only 8 rows"):
        module(torch.zeros(9, 4))


def test_torch_nope_is_identity():
    x = torch.randn(3, 5)
    assert torch.equal(NoPositionalEncoding()(x), x)


def test_registry_keys():
    assert [s.key for s in SCHEMES] == ["learned", "nope"]
    assert all(s.family == "absolute" and s.bias is None for s in SCHEMES)


@pytest.mark.parametrize("scheme", SCHEMES, ids=lambda s: s.key)
@pytest.mark.parametrize(("length", "d_model"), [(1, 1), (12, 8), (40, 6)])
def test_registry_entry_shapes(scheme, length, d_model):
    options = scheme.defaults()
    table = scheme.table(length, d_model, 10000.0, **options)
    assert table.shape == (length, d_model)
    offsets, values = scheme.offset_curve(length, d_model, 10000.0, **options)
    np.testing.assert_array_equal(offsets, np.arange(-(length - 1), length))
    assert values.shape == offsets.shape
    formula = scheme.formula(d_model, 10000.0, **options)
    assert isinstance(formula, str) and formula.strip()
    assert "arXiv:" in scheme.paper


def test_registry_learned_curve_is_the_table_similarity():
    scheme = SCHEME["learned"]
    options = {"table_size": 10, "seed": 3}
    _, values = scheme.offset_curve(16, 4, 10000.0, **options)
    _, expected = offset_similarity(learned_absolute(16, 4, table_size=10, seed=3))
    np.testing.assert_array_equal(values, expected)
    assert "10" in scheme.formula(4, 10000.0, **options)


def test_registry_nope_curve_is_zero():
    _, values = SCHEME["nope"].offset_curve(9, 4, 10000.0)
    assert not values.any()
