"""Transformer-XL (Dai et al. 2019, arXiv:1901.02860): kimiyoung/transformer-xl's score, the four terms, torch, export."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
import torch

import posenc
from posenc.export import source as export
from posenc.modules import TransformerXLScores
from posenc.precision.tables import precision_table
from posenc.schemes.offsets import toeplitz_view
from posenc.schemes.shaw import shaw_query
from posenc.schemes.transformer_xl import (
    relative_sinusoid,
    transformer_xl_parameters,
    transformer_xl_position_bias,
)
from reference_precision import float64_default
from transformer_xl_reference import PositionalEmbedding, RelShift, attention_score, position_sequence

TXL = posenc.SCHEMES["transformer_xl"]


def reference_scores(q, k, u, v, w_r):
    """AC + BD of kimiyoung/transformer-xl for one head, batch 1, no memory: r_net(pos_emb(pos_seq)) with
    pos_seq = klen − 1 … 0, r_w_bias = u, r_r_bias = v, r_net.weight = w_r. Returns (qlen, klen)."""
    length, d_head = q.shape
    with float64_default():
        pos_emb = PositionalEmbedding(w_r.shape[1])(position_sequence(length, torch.from_numpy(q)))  # klen x 1 x d
        r_head_k = (pos_emb @ torch.from_numpy(w_r).T).view(length, 1, d_head)  # r_net(r).view(rlen, n_head, d_head)
        heads = lambda x: torch.from_numpy(x)[:, None, None, :]  # qlen x bsz x n_head x d_head
        score = attention_score(RelShift(), heads(q), heads(k), r_head_k, torch.from_numpy(u)[None],
                                torch.from_numpy(v)[None])
    return score[:, :, 0, 0].numpy()


def draw(seed, length, d_head, d_model, scale=1.0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(length, d_head)), rng.normal(size=(length, d_head)), rng.normal(scale=scale, size=d_head),
            rng.normal(scale=scale, size=d_head), rng.normal(scale=scale, size=(d_head, d_model)))


SHAPES = [(1, 1, 2), (2, 3, 2), (7, 5, 8), (16, 8, 64), (40, 16, 32), (65, 64, 128)]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("length", "d_head", "d_model"), SHAPES)
def test_scores_equal_the_transformer_xl_code_for_j_le_i(length, d_head, d_model, seed):
    q, k, u, v, w_r = draw(seed, length, d_head, d_model)
    ours = posenc.transformer_xl_scores(q, k, u, v, w_r)
    expected = reference_scores(q, k, u, v, w_r)
    seen = np.tril(np.ones((length, length), bool))
    np.testing.assert_allclose(ours[seen], expected[seen], rtol=1e-12, atol=1e-12 * max(1, np.abs(expected).max()))
    assert np.isneginf(ours[~seen]).all()


def test_the_reference_in_its_own_float32_agrees_to_float32():
    q, k, u, v, w_r = draw(5, 30, 8, 16)
    length = len(q)
    pos_emb = PositionalEmbedding(16)(position_sequence(length, torch.zeros(1)))  # float32, as the repository runs it
    r_head_k = (pos_emb @ torch.from_numpy(w_r).float().T).view(length, 1, 8)
    score = attention_score(RelShift(), torch.from_numpy(q).float()[:, None, None], torch.from_numpy(k).float()[:, None, None],
                            r_head_k, torch.from_numpy(u).float()[None], torch.from_numpy(v).float()[None])
    seen = np.tril(np.ones((length, length), bool))
    np.testing.assert_allclose(score[:, :, 0, 0].double().numpy()[seen], posenc.transformer_xl_scores(q, k, u, v, w_r)[seen],
                               atol=1e-4)


def test_terms_are_the_formula_entry_by_entry():
    q, k, u, v, w_r = draw(1, 6, 3, 10)
    base = 77.0
    terms = posenc.transformer_xl_terms(q, k, u, v, w_r, base)
    theta = base ** (-2 * np.arange(5) / 10)
    for i in range(6):
        for j in range(6):
            r = np.concatenate([np.sin((i - j) * theta), np.cos((i - j) * theta)])  # R_{i−j}, negative too
            assert terms.content[i, j] == pytest.approx(q[i] @ k[j], rel=1e-13)
            assert terms.content_position[i, j] == pytest.approx(q[i] @ (w_r @ r), rel=1e-12, abs=1e-13)
            assert terms.global_content[i, j] == pytest.approx(u @ k[j], rel=1e-13)
            assert terms.global_position[i, j] == pytest.approx(v @ (w_r @ r), rel=1e-12, abs=1e-13)
    full = posenc.transformer_xl_scores(q, k, u, v, w_r, base, causal=False)
    np.testing.assert_allclose(full, sum(terms), rtol=1e-15)


def test_what_each_term_depends_on():
    q, k, u, v, w_r = draw(2, 12, 4, 8)
    terms = posenc.transformer_xl_terms(q, k, u, v, w_r)
    rows = np.arange(12)
    for shift in range(-11, 12):  # (d) depends on i − j alone: constant along every diagonal
        diagonal = np.diagonal(terms.global_position, offset=shift)
        np.testing.assert_allclose(diagonal, diagonal[0], rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(terms.global_content, np.broadcast_to(terms.global_content[0], (12, 12)))  # key only
    other = posenc.transformer_xl_terms(q, k, 3 * u, -v, 2 * w_r)
    np.testing.assert_array_equal(other.content, terms.content)  # (a) ignores u, v, W_R
    same_query = posenc.transformer_xl_terms(np.tile(q[3], (12, 1)), k, u, v, w_r).content_position
    assert np.allclose(same_query[rows[:, None] - rows[None, :] == 2], same_query[2, 0])  # (b): q and i − j


def test_relative_sinusoid_is_all_sines_then_all_cosines():
    r = relative_sinusoid(np.array([0, 1, -1]), 6, 100.0)
    np.testing.assert_array_equal(r[0], [0, 0, 0, 1, 1, 1])
    theta = 100.0 ** (-2 * np.arange(3) / 6)
    np.testing.assert_allclose(r[1], np.concatenate([np.sin(theta), np.cos(theta)]), rtol=1e-15)
    np.testing.assert_allclose(r[2], r[1] * [-1, -1, -1, 1, 1, 1], rtol=1e-15)
    with float64_default():
        reference = PositionalEmbedding(64)(torch.arange(9, -1, -1.0))[:, 0].numpy()
    np.testing.assert_allclose(relative_sinusoid(np.arange(9, -1, -1), 64), reference, atol=1e-15)


@pytest.mark.parametrize(("args", "match"), [
    ((np.ones((3, 4)), np.ones((3, 4)), np.ones(4), np.ones(4), np.ones((4, 5))), "d_model must be even"),
    ((np.ones((3, 4)), np.ones((2, 4)), np.ones(4), np.ones(4), np.ones((4, 6))), "same shape"),
    ((np.ones((3, 4)), np.ones((3, 4)), np.ones(3), np.ones(4), np.ones((4, 6))), "u and v must have shape"),
    ((np.ones((3, 4)), np.ones((3, 4)), np.ones(4), np.ones(4), np.ones((5, 6))), "w_r"),
    ((np.full((3, 4), np.nan), np.ones((3, 4)), np.ones(4), np.ones(4), np.ones((4, 6))), "finite"),
    ((np.ones((3, 4), bool), np.ones((3, 4)), np.ones(4), np.ones(4), np.ones((4, 6))), "real numbers"),
    ((np.ones(4), np.ones(4), np.ones(4), np.ones(4), np.ones((4, 6))), "2 axes"),
    ((np.full((3, 4), 1e200), np.ones((3, 4)), np.ones(4), np.ones(4), np.ones((4, 6))), "size at most"),
    ((np.ones((3000, 4)), np.ones((3000, 4)), np.ones(4), np.ones(4), np.ones((4, 6))), "more than"),
])
def test_bad_arguments_are_a_sentence(args, match):
    with pytest.raises((ValueError, TypeError), match=match):
        posenc.transformer_xl_scores(*args)


def test_bad_base_and_flag():
    q, k, u, v, w_r = draw(0, 3, 2, 4)
    with pytest.raises(ValueError, match="base must be"):
        posenc.transformer_xl_scores(q, k, u, v, w_r, 0.5)
    with pytest.raises(TypeError, match="causal must be True or False"):
        posenc.transformer_xl_scores(q, k, u, v, w_r, causal="no")
    ints = posenc.transformer_xl_scores(q.astype(int), k.astype(int), u, v, w_r)  # integers: converted, computed
    assert ints.dtype == np.float64


# --- the registry entry: the positional part (b) + (d) for one fixed query --------------------------------


def test_offset_bias_is_terms_b_plus_d_over_sqrt_d_for_the_fixed_query():
    length, d_model, seed, base = 30, 16, 4, 500.0
    offsets, values = TXL.offset_bias(length, d_model, base, seed=seed)
    assert values.shape == (1, 2 * length - 1) and np.isneginf(values[0, offsets > 0]).all()
    u, v, w_r = transformer_xl_parameters(d_model, d_model, seed=seed)
    q = np.tile(shaw_query(d_model, seed=seed), (length, 1))  # the same query at every position
    terms = posenc.transformer_xl_terms(q, np.zeros_like(q), u, v, w_r, base)
    positional = (terms.content_position + terms.global_position) / math.sqrt(d_model)
    full = TXL.bias(length, d_model, base, seed=seed)[0]
    seen = np.tril(np.ones((length, length), bool))
    np.testing.assert_allclose(full[seen], positional[seen], rtol=1e-12, atol=1e-15)
    assert np.isneginf(full[~seen]).all()
    rows, cols = np.array([0, 9, 29]), np.array([0, 3, 20, 29])
    np.testing.assert_array_equal(toeplitz_view(values, rows, cols), full[None][:, rows][:, :, cols])


def test_a_distance_has_the_same_bits_at_every_length():
    long = transformer_xl_position_bias(3000, 64, seed=1)
    for length in (1, 2, 17, 1024, 1025, 2049):
        np.testing.assert_array_equal(transformer_xl_position_bias(length, 64, seed=1), long[:length])


def test_formula_shows_the_settings_and_refuses_an_odd_width():
    formula = TXL.formula(64, 500.0, seed=0)
    for part in (r"\sqrt{64}", r"\theta_s = 500^{-2s/64}", r"\cos(\Delta\theta_{31})]", r"W_R \in \mathbb{R}^{64 \times 64}",
                 r"-\infty & j > i", r"u \cdot k_j"):
        assert part in formula
    with pytest.raises(ValueError, match="d_model must be even"):
        TXL.formula(7, 1e4, seed=0)
    from posenc.settings.constraints import valid_settings

    settings, messages = valid_settings("transformer_xl", 64, 7, 1e4)
    assert settings["d_model"] == 6 and "Transformer-XL" in messages[0]


def test_parameters_follow_transformer_xls_init():
    u, v, w_r = transformer_xl_parameters(64, 128, seed=0)
    assert u.shape == v.shape == (64,) and w_r.shape == (64, 128)
    assert abs(w_r.std() - 0.02) < 0.001 and not np.array_equal(u, v)
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(u, rng.normal(0, 0.02, 64))  # u, v, W_R in that order from default_rng(seed)


# --- torch --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("length", "d_head", "d_model", "base"), [(1, 2, 2, 1e4), (9, 4, 8, 1e4), (33, 16, 24, 300.0)])
def test_module_equals_numpy(length, d_head, d_model, base):
    module = TransformerXLScores(d_head, d_model, base, seed=2, dtype=torch.float64)
    u, v, w_r = transformer_xl_parameters(d_head, d_model, seed=2)
    q, k = np.random.default_rng(9).normal(size=(2, length, d_head))
    got = module(torch.from_numpy(q), torch.from_numpy(k)).detach().numpy()
    expected = posenc.transformer_xl_scores(q, k, u, v, w_r, base)
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(expected))
    seen = np.isfinite(expected)
    np.testing.assert_allclose(got[seen], expected[seen], rtol=1e-12, atol=1e-13)
    for ours, theirs in zip(module.terms(torch.from_numpy(q), torch.from_numpy(k)),
                            posenc.transformer_xl_terms(q, k, u, v, w_r, base)):
        np.testing.assert_allclose(ours.detach().numpy(), theirs, rtol=1e-12, atol=1e-13)
    single = TransformerXLScores(d_head, d_model, base, seed=2)(torch.from_numpy(q).float(), torch.from_numpy(k).float())
    np.testing.assert_allclose(single.detach().double().numpy()[seen], expected[seen], rtol=1e-5, atol=1e-5)


def test_module_takes_batches_and_learns():
    module = TransformerXLScores(4, 8, causal=False)
    q, k = torch.randn(3, 2, 10, 4, generator=torch.Generator().manual_seed(0)).unbind(1)
    scores = module(q, k)
    assert scores.shape == (3, 10, 10) and torch.isfinite(scores).all()
    np.testing.assert_allclose(scores[1].detach().numpy(), module(q[1], k[1]).detach().numpy(), atol=1e-6)
    scores.sum().backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in module.parameters())
    assert "d_head=4, d_model=8, base=10000, causal=False" in repr(module)


@pytest.mark.parametrize(("call", "match"), [
    (lambda m: m(torch.ones(3, 4), torch.ones(3, 5)), "same shape"),
    (lambda m: m(torch.ones(3, 5), torch.ones(3, 5)), "width d_head = 4"),
    (lambda m: m(torch.ones(3, 4, dtype=torch.int64), torch.ones(3, 4)), "floating-point"),
    (lambda m: m(torch.full((3, 4), float("nan")), torch.ones(3, 4)), "finite"),
    (lambda m: m(torch.full((3, 4), 1e30), torch.full((3, 4), 1e30)), "overflows"),
    (lambda m: m(torch.ones(4), torch.ones(4)), "at least 2 axes"),
])
def test_module_refuses_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call(TransformerXLScores(4, 8))
    with pytest.raises(ValueError, match="d_model must be even"):
        TransformerXLScores(4, 7)


def test_module_with_the_reference_code_and_its_own_parameters():
    module = TransformerXLScores(8, 16, dtype=torch.float64)
    q, k = torch.randn(2, 12, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    with float64_default(), torch.no_grad():
        r_head_k = module.r_net(PositionalEmbedding(16)(position_sequence(12, q))).view(12, 1, 8)
        score = attention_score(RelShift(), q[:, None, None], k[:, None, None], r_head_k, module.r_w_bias[None],
                                module.r_r_bias[None])[:, :, 0, 0]
    seen = torch.ones(12, 12).tril().bool()
    torch.testing.assert_close(module(q, k).detach()[seen], score[seen], rtol=1e-12, atol=1e-12)


# --- precision, export ----------------------------------------------------------------------------------------


def test_precision_table_computes_in_the_dtype():
    result = precision_table("transformer_xl", 400, 32, 1e4, "bfloat16", seed=1)
    exact = transformer_xl_position_bias(400, 32, seed=1)
    assert result.x.shape == (400,) and not result.notes
    assert 0 < result.errors["rounded to bfloat16"].max() <= np.abs(exact).max() * 2**-8
    assert result.errors["computed in bfloat16"].max() > result.errors["rounded to bfloat16"].max()
    float32 = precision_table("transformer_xl", 400, 32, 1e4, "float32", seed=1)
    assert float32.errors["computed in float32"].max() < 1e-6


def test_take_the_code_file_runs_alone_and_its_scores_equal_posenc(tmp_path):
    path = tmp_path / export.file_name("transformer_xl")
    path.write_text(export.module_source("transformer_xl", 60, 16, 500.0, seed=3))
    out = tmp_path / "out.pt"
    run = subprocess.run([sys.executable, "-I", str(path), str(out)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    expected = export.reference_output("transformer_xl", 60, 16, 500.0, seed=3)
    got = torch.load(out).numpy()
    assert np.array_equal(np.isneginf(got), np.isneginf(expected))
    np.testing.assert_allclose(got[np.isfinite(expected)], expected[np.isfinite(expected)], atol=1e-8)
    namespace = export.load(export.module_source("transformer_xl", 60, 16, 500.0, seed=3))
    module = namespace["TransformerXLPositionBias"]()
    q, k = np.random.default_rng(0).normal(size=(2, 20, 16))
    weights = [p.detach().double().numpy() for p in (module.r_w_bias, module.r_r_bias, module.r_net.weight)]
    scores = module.scores(torch.from_numpy(q), torch.from_numpy(k)).detach().numpy()
    np.testing.assert_allclose(scores, posenc.transformer_xl_scores(q, k, *weights, 500.0) / 4.0, rtol=1e-12, atol=1e-12)
