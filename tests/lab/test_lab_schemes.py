"""The lab's one table of what each scheme does in the model (issue 29): complete, and each hook as documented."""

import pytest
import torch

import posenc
from posenc.lab.model import LabModel
from posenc.lab.names import LAB_ONLY_SCHEMES, SCHEME_LABELS, SCHEMES
from posenc.lab.recipe import Recipe
from posenc.lab.schemes import POSITIONS, Positions, Rotary, Sizes

SMALL = Recipe(d_model=32, layers=1, heads=2, steps=1, warmup_steps=1, train_max_length=4, test_max_length=8)
SIZES = Sizes(d_model=32, heads=2, head_dim=16, max_tokens=18, train_tokens=10)


def test_the_table_has_an_entry_for_every_lab_scheme_and_nothing_else():
    assert set(POSITIONS) == set(SCHEMES)


def test_the_lab_schemes_are_the_registry_s_then_its_own():
    """The lab's list is the registry's, in its order, then DroPE, FIRE and CoPE (no second copy of the keys)."""
    assert SCHEMES == (*posenc.SCHEMES, *LAB_ONLY_SCHEMES) and not set(LAB_ONLY_SCHEMES) & set(posenc.SCHEMES)
    assert tuple(LAB_ONLY_SCHEMES) == ("drope", "fire", "cope")
    assert SCHEME_LABELS == {key: scheme.short_label for key, scheme in posenc.SCHEMES.items()} | LAB_ONLY_SCHEMES
    assert [SCHEME_LABELS[key] for key in SCHEMES] == [
        "Sinusoidal", "Learned", "NoPE", "RoPE", "xPos", "Shaw", "T5 bias", "ALiBi", "KERPLE", "Transformer-XL",
        "DroPE", "FIRE", "CoPE"]


def test_only_drope_drops_its_positions():
    assert [key for key, entry in POSITIONS.items() if entry.drops] == ["drope"]
    with pytest.raises(ValueError, match="only a DroPE model drops its positions; this one is 'rope'"):
        LabModel("rope", SMALL).drop_positions()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_entry_builds_positions_whose_hooks_keep_the_shapes(scheme):
    torch.manual_seed(0)
    positions = POSITIONS[scheme].layer(SIZES, 0)
    assert isinstance(positions, Positions)
    q, k = torch.randn(3, 2, 5, 16), torch.randn(3, 2, 5, 16)
    q2, k2 = positions.rotate(q, k)
    assert q2.shape == q.shape and k2.shape == k.shape
    logits = positions.bias(positions.scores(q2, k2, 0.25), q2, 0.25)
    lower = torch.ones(5, 5, dtype=torch.bool).tril()  # causal biases may put −inf above the diagonal
    assert logits.shape == (3, 2, 5, 5) and bool(torch.isfinite(logits[..., lower]).all())
    assert POSITIONS[scheme].embedding(SIZES, 0)(torch.zeros(3, 5, 32)).shape == (3, 5, 32)


def test_nope_is_the_plain_scaled_product_and_a_dropped_rotation_is_nope():
    q, k = torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16)
    nope = POSITIONS["nope"].layer(SIZES, 0)
    assert torch.equal(nope.bias(nope.scores(*nope.rotate(q, k), 0.25), q, 0.25), (q @ k.transpose(-1, -2)) * 0.25)
    rotary = POSITIONS["drope"].layer(SIZES, 0)
    assert isinstance(rotary, Rotary) and not torch.equal(rotary.rotate(q, k)[0], q)
    rotary.drop()
    assert rotary.dropped and rotary.rotate(q, k) == (q, k)
    with pytest.raises(ValueError, match="only a rotation is dropped"):
        nope.drop()
