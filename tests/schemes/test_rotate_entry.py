"""The registry's ``rotate``: every rotary scheme has one, and its q'·k' is the scheme's own score curve."""

from __future__ import annotations

import numpy as np
import pytest

import posenc

ROTARY = [key for key, scheme in posenc.SCHEMES.items() if scheme.family == "rotary"]


def test_rotary_schemes_and_only_they_rotate():
    assert ROTARY == ["rope", "xpos"]
    for key, scheme in posenc.SCHEMES.items():
        assert (scheme.rotate is not None) == (scheme.family == "rotary"), key


@pytest.mark.parametrize("key", ROTARY)
@pytest.mark.parametrize("length, d_model, base", [(7, 8, 10000.0), (12, 6, 100.0), (5, 16, 2.5)])
def test_rotated_ones_give_the_offset_curve(key, length, d_model, base):
    """score(i, j) = rotate(1, i)·rotate(1, j, key=True) / d_model = offset_curve at j − i, for every i, j."""
    scheme = posenc.get_scheme(key)
    options = scheme.defaults()
    ones, positions = np.ones((length, d_model)), np.arange(length)
    q = scheme.rotate(ones, positions, base, seq_len=length, **options)
    k = scheme.rotate(ones, positions, base, key=True, seq_len=length, **options)
    offsets, values = scheme.offset_curve(length, d_model, base, **options)
    scores = q @ k.T / d_model
    expected = values[positions[None, :] - positions[:, None] + length - 1]
    np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=1e-12)


def test_rotate_is_apply_rope_and_apply_xpos():
    x = np.random.default_rng(3).normal(size=(2, 9, 8))
    positions = np.arange(9)
    rope = posenc.get_scheme("rope")
    np.testing.assert_array_equal(rope.rotate(x, positions, 500.0, **rope.defaults() | {"layout": "half"}),
                                  posenc.apply_rope(x, positions, 500.0, layout="half"))
    xpos = posenc.get_scheme("xpos")
    np.testing.assert_array_equal(xpos.rotate(x, positions, 500.0, key=True, seq_len=9, scale_base=64),
                                  posenc.apply_xpos(x, positions, 500.0, downscale=True, seq_len=9, scale_base=64))


def test_a_bad_option_is_named():
    with pytest.raises(ValueError, match="scale_base"):
        posenc.get_scheme("xpos").rotate(np.ones((2, 4)), np.arange(2), 10000.0, scale_base=-1)
    with pytest.raises(ValueError, match="no option"):
        posenc.get_scheme("rope").rotate(np.ones((2, 4)), np.arange(2), 10000.0, gamma=3)
