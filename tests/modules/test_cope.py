"""CoPE (arXiv:2405.18719): the contextual positions and the term pinned by hand, equal to x-transformers' CoPE
on the same weights (output and gradients; skipped when x-transformers is not installed), and the errors."""

import pytest
import torch

from posenc.modules import ContextualPositions


def _masked_logits(q: torch.Tensor, k: torch.Tensor, fill: float) -> torch.Tensor:
    length = q.shape[-2]
    logits = (q @ k.transpose(-1, -2)) / q.shape[-1] ** 0.5
    return logits.masked_fill(torch.ones(length, length, dtype=torch.bool).triu(1), fill)


def test_half_open_gates_count_half_a_position_per_key():
    cope = ContextualPositions(head_dim=1, npos_max=3)
    logits = _masked_logits(torch.zeros(1, 6, 1), torch.zeros(1, 6, 1), -torch.inf)  # z = 0: every gate σ(0) = 1/2
    p = cope.positions(logits)[0]
    assert [float(v) for v in p[5]] == [2.0, 2.0, 2.0, 1.5, 1.0, 0.5]  # 3.0 and 2.5 clamped to npos_max − 1 = 2
    assert [float(v) for v in p[1]] == [1.0, 0.5, 0.0, 0.0, 0.0, 0.0]  # a later key counts nothing
    with torch.no_grad():
        cope.embeddings.copy_(torch.tensor([[0.0], [1.0], [2.0]]))  # e[p] = p: the term is p·q
    term = cope(torch.full((1, 6, 1), 2.0), logits)[0].detach()
    assert torch.equal(term, 2.0 * p) and float(term[5, 3]) == 3.0  # 1.5, halfway between e[1] and e[2], times q = 2


def test_the_table_starts_at_zeros_so_a_fresh_cope_adds_nothing():
    cope = ContextualPositions(head_dim=8, npos_max=5)
    q, k = torch.randn(2, 3, 7, 8), torch.randn(2, 3, 7, 8)
    assert torch.equal(cope(q, _masked_logits(q, k, -torch.inf)), torch.zeros(2, 3, 7, 7))


@pytest.mark.parametrize(("npos_max", "length", "fill"), [(5, 7, -torch.inf), (16, 12, -3.4e38), (3, 9, -torch.inf)])
def test_equals_x_transformers_cope_on_the_same_weights(npos_max, length, fill):
    xt = pytest.importorskip("x_transformers.x_transformers")
    torch.manual_seed(0)
    heads, head_dim = 3, 8
    reference = xt.CoPE(head_dim, heads, npos_max)
    with torch.no_grad():
        reference.pos_emb.normal_()
    ours = ContextualPositions(head_dim, npos_max)
    with torch.no_grad():
        ours.embeddings.copy_(reference.pos_emb)
    q, k = torch.randn(2, heads, length, head_dim, requires_grad=True), torch.randn(2, heads, length, head_dim)
    expected, got = reference(q, _masked_logits(q, k, fill)), ours(q, _masked_logits(q, k, fill))
    assert torch.equal(got, expected)
    grad_expected = torch.autograd.grad(expected.square().sum(), (q, reference.pos_emb))
    grad_got = torch.autograd.grad(got.square().sum(), (q, ours.embeddings))
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(grad_got, grad_expected))


def test_bad_arguments_are_refused_with_a_sentence():
    with pytest.raises(ValueError, match="npos_max must be"):
        ContextualPositions(8, 0)
    with pytest.raises(ValueError, match="head_dim must be"):
        ContextualPositions(0, 4)
    cope = ContextualPositions(8, 4)
    with pytest.raises(ValueError, match="logits must have the shape"):
        cope(torch.randn(2, 5, 8), torch.randn(2, 5, 4))
    with pytest.raises(ValueError, match="query must have head_dim = 8"):
        cope(torch.randn(2, 5, 6), torch.randn(2, 5, 5))
