"""Property-based tests of the torch modules: hostile arguments refused, valid ones equal to numpy.

Constructors and forward calls get valid arguments, or one replaced by a hostile value (see
library_fuzz.py, plus tensors of the wrong dtype or shape, NaN and ±inf). They must refuse
with a ValueError/TypeError sentence, or return finite tensors of the documented shape; for
valid input the numbers equal the numpy functions (integer results exactly).
"""

import numpy as np
import pytest
import torch
from hypothesis import example, given
from hypothesis import strategies as st

import posenc
from library_fuzz import HOSTILE_SCALARS, fuzz, outcome
from posenc.modules import (
    ALiBiBias,
    KerpleBias,
    LearnedPositionalEmbedding,
    NoPositionalEncoding,
    RotaryEmbedding,
    ShawRelativePositions,
    SinusoidalPositionalEncoding,
    T5RelativeBias,
    TransformerXLScores,
    XPos,
)
from posenc.modules.relative import relative_position_bucket
from posenc.modules.sinusoidal import sinusoidal_table

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

HOSTILE_TENSORS = [
    torch.ones(2, 3, 8, dtype=torch.int64), torch.ones(2, 3, 8, dtype=torch.bool), torch.full((2, 3, 8), float("nan")),
    torch.full((2, 3, 8), float("inf")), torch.ones(2, 3, 7), torch.ones(8), torch.ones(2, 3, 8, dtype=torch.complex64),
    torch.ones(0, 3, 8), torch.ones(2, 0, 8), torch.ones(2, 3, 8, dtype=torch.float16) * 6e4, np.ones((2, 3, 8)),
]


def tensors_or_hostile(valid):
    return st.one_of(valid, valid, st.sampled_from(HOSTILE_TENSORS), st.sampled_from(HOSTILE_SCALARS))


def finite_tensor(result, shape=None):
    assert isinstance(result, torch.Tensor) and result.is_floating_point()
    assert bool(torch.isfinite(result).all()), "a non-finite number"
    if shape is not None:
        assert tuple(result.shape) == tuple(shape), (tuple(result.shape), shape)
    return result


X = st.tuples(st.integers(1, 2), st.integers(1, 6)).map(lambda s: torch.randn(*s, 8, generator=torch.Generator().manual_seed(s[1])))


# --- constructors -------------------------------------------------------------------------------

test_sinusoidal_module = fuzz(SinusoidalPositionalEncoding,
                              dict(d_model=st.integers(1, 32), dropout=st.floats(0.0, 0.9), max_len=st.integers(1, 64),
                                   base=st.floats(1.0, 1e6)),
                              lambda r, a: isinstance(r, torch.nn.Module))
test_sinusoidal_table = fuzz(sinusoidal_table, dict(max_len=st.integers(0, 64), d_model=st.integers(1, 32),
                                                    base=st.floats(1.0, 1e6)),
                             lambda r, a: finite_tensor(r, (int(a["max_len"]), int(a["d_model"]))),
                             refuses=lambda a: a["max_len"] == 0)
test_learned_module = fuzz(LearnedPositionalEmbedding,
                           dict(table_size=st.integers(1, 64), d_model=st.integers(1, 32), seed=st.integers(0, 99),
                                std=st.floats(1e-3, 1.0), dtype=st.sampled_from([torch.float32, torch.float64])),
                           lambda r, a: finite_tensor(r.table.detach(), (int(a["table_size"]), int(a["d_model"]))))
test_shaw_module = fuzz(ShawRelativePositions, dict(max_relative_position=st.integers(0, 8), d_head=st.integers(1, 16),
                                                    seed=st.integers(0, 99), std=st.floats(1e-3, 1.0)),
                        lambda r, a: isinstance(r, torch.nn.Module))
test_t5_module = fuzz(T5RelativeBias, dict(num_heads=st.integers(1, 8), num_buckets=st.just(32),
                                           max_distance=st.integers(17, 500), bidirectional=st.booleans(),
                                           seed=st.integers(0, 99), std=st.floats(1e-3, 1.0)),
                      lambda r, a: isinstance(r, torch.nn.Module))
test_kerple_module = fuzz(KerpleBias, dict(num_heads=st.integers(1, 8), r1=st.floats(0.01, 10.0), r2=st.floats(0.01, 2.0),
                                           variant=st.sampled_from(["log", "power"]), causal=st.booleans()),
                          lambda r, a: isinstance(r, torch.nn.Module))
test_transformer_xl_module = fuzz(TransformerXLScores,
                                  dict(d_head=st.integers(1, 16), d_model=st.integers(1, 16).map(lambda h: 2 * h),
                                       base=st.floats(1.0, 1e6), seed=st.integers(0, 99), causal=st.booleans()),
                                  lambda r, a: isinstance(r, torch.nn.Module))
test_alibi_module = fuzz(ALiBiBias, dict(num_heads=st.integers(1, 64), causal=st.booleans()),
                         lambda r, a: isinstance(r, torch.nn.Module))


LONGROPE_LISTS = (("short_factor", "ones"), ("long_factor", "geometric"))  # longrope: one factor per pair


def rotary(d, base, layout, rope_type, factor, original):
    params = {k: v for k, v in (("factor", factor), ("original_max_position_embeddings", original), *LONGROPE_LISTS)
              if k in posenc.schemes.rope.scalings.rope_scaling_parameters(rope_type)}
    return RotaryEmbedding(d, base, layout=layout, rope_type=rope_type, **params)


test_rotary_module = fuzz(rotary, dict(d=st.integers(2, 32).map(lambda h: 2 * h), base=st.floats(2.0, 1e6),
                                       layout=st.sampled_from(["interleaved", "half"]),
                                       rope_type=st.sampled_from(list(posenc.ROPE_SCALINGS)),
                                       factor=st.floats(1.0, 64.0), original=st.integers(16, 4096)),
                          lambda r, a: isinstance(r, torch.nn.Module))


# --- forward: hostile input refused, valid input equal to numpy ---------------------------------

@given(tensors_or_hostile(X.map(lambda x: x[None] if x.ndim == 2 else x)))
def test_sinusoidal_forward(x):
    module = SinusoidalPositionalEncoding(8, max_len=16)
    kind, result = outcome(lambda module=module: module(x))
    if kind == "ok":
        finite_tensor(result, x.shape)
        expected = x.double().numpy() + posenc.sinusoidal(x.shape[1], 8).astype(np.float32)
        tolerance = 2 * torch.finfo(x.dtype).eps * (1 + float(x.abs().amax()) if x.numel() else 1)  # added in x's dtype
        np.testing.assert_allclose(result.double().numpy(), expected, atol=max(tolerance, 1e-6))


@given(tensors_or_hostile(X))
def test_learned_and_nope_forward(x):
    for module in (LearnedPositionalEmbedding(16, 8), NoPositionalEncoding()):
        kind, result = outcome(lambda module=module: module(x))
        if kind == "ok":
            finite_tensor(result, x.shape)


@given(tensors_or_hostile(X), st.one_of(st.none(), st.floats(-1e5, 1e5), st.sampled_from(HOSTILE_SCALARS),
                                         st.just(torch.tensor([float("nan")])), st.just(torch.tensor([True]))),
       st.sampled_from(list(posenc.ROPE_SCALINGS)), st.sampled_from(["interleaved", "half"]))
@example(torch.full((2, 3, 8), 60000.0, dtype=torch.float16), 0.25, "linear", "interleaved")  # POSENC_FUZZ=long
def test_rotary_forward_equals_apply_rope(x, positions, rope_type, layout):
    """The module equals posenc.apply_rope, to 1e-4 of the input's size or, for a half-precision input, to two of
    its dtype's epsilons (the long run found float16 values near 60,000: the module returned the float16 nearest
    the exact value, 63616 for 63630.41, one rounding that 1e-4 × 60,000 = 6 cannot hold, where float16's
    spacing there is 32)."""
    params = {k: v for k, v in (("factor", 4.0), ("original_max_position_embeddings", 4), *LONGROPE_LISTS)
              if k in posenc.schemes.rope.scalings.rope_scaling_parameters(rope_type)}
    module = RotaryEmbedding(8, 500.0, layout=layout, rope_type=rope_type, **params)
    kind, result = outcome(lambda: module(x, positions))
    if kind == "ok":
        finite_tensor(result, x.shape)
        x64 = x.double().numpy()
        pos = None if positions is None else np.asarray(positions, dtype=np.float64)
        expected = posenc.apply_rope(x64, pos, 500.0, layout=layout, rope_type=rope_type, **params)
        relative = max(1e-4, 2 * torch.finfo(result.dtype).eps)  # float32 and float64: 1e-4, as before
        np.testing.assert_allclose(result.double().numpy(), expected, atol=relative * (1 + np.abs(x64).max(initial=0)))


test_xpos_module = fuzz(XPos, dict(head_dim=st.integers(1, 32).map(lambda h: 2 * h), scale_base=st.floats(1.0, 1e5),
                                    base=st.floats(1.0, 1e6)),
                        lambda r, a: isinstance(r, torch.nn.Module))


@given(tensors_or_hostile(X), st.one_of(st.integers(0, 10**4), st.sampled_from(HOSTILE_SCALARS)),
       st.one_of(st.booleans(), st.sampled_from(["False", 1, None])), st.sampled_from([16.0, 512.0]))
def test_xpos_forward_equals_apply_xpos(x, offset, downscale, scale_base):
    module = XPos(8, scale_base, base=500.0)
    kind, result = outcome(lambda: module(x, offset, downscale))
    if kind == "ok":
        finite_tensor(result, x.shape)
        x64, length = x.double().numpy(), x.shape[1]
        expected = posenc.apply_xpos(x64, int(offset) + np.arange(length), 500.0, scale_base=scale_base,
                                     downscale=bool(downscale))
        tolerance = 4 * torch.finfo(x.dtype).eps * (1 + np.abs(expected).max(initial=0))  # cast to x's dtype, 2 products
        np.testing.assert_allclose(result.double().numpy(), expected, rtol=0, atol=tolerance)


LENGTHS = st.one_of(st.integers(0, 12), st.sampled_from(HOSTILE_SCALARS), st.just(torch.tensor(3)))


@given(LENGTHS)
def test_relative_forward_equals_numpy(length):
    shaw, t5, alibi = ShawRelativePositions(3, 4), T5RelativeBias(2, max_distance=20), ALiBiBias(4, causal=True)
    for module in (shaw, t5, alibi):
        kind, result = outcome(lambda module=module: module(length))
        if kind != "ok":
            continue
        n = int(length)
        if module is shaw:
            table = posenc.shaw_embeddings(3, 4)
            expected = table[posenc.shaw_relative_positions(n, 3) + 3]
        elif module is t5:
            expected = posenc.t5_bias(n, 2, max_distance=20)
        else:
            expected = posenc.alibi_bias(n, 4, causal=True)
        got = result.detach().double().numpy()
        assert got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


@given(LENGTHS)
def test_kerple_forward_equals_numpy(length):
    for variant in ("log", "power"):
        kind, result = outcome(lambda variant=variant: KerpleBias(2, 1.5, 0.7, variant)(length))
        if kind == "ok":
            expected = posenc.kerple_bias(int(length), 1.5, 0.7, variant)
            got = result.detach().double().numpy()
            assert got.shape == (2, *expected.shape)
            np.testing.assert_allclose(got, np.broadcast_to(expected, got.shape), rtol=1e-6, atol=1e-6)


@given(tensors_or_hostile(X), tensors_or_hostile(X))
def test_transformer_xl_forward_equals_numpy(q, k):
    module = TransformerXLScores(8, 6, 500.0, seed=1)
    kind, result = outcome(lambda: module(q, k).detach())
    if kind == "ok":
        u, v, w_r = posenc.schemes.transformer_xl.transformer_xl_parameters(8, 6, seed=1)
        q64, k64 = q.double().numpy(), k.double().numpy()
        expected = np.empty((*q64.shape[:-1], q64.shape[-2]))
        for index in np.ndindex(q64.shape[:-2]):
            expected[index] = posenc.transformer_xl_scores(q64[index], k64[index], u, v, w_r, 500.0)
        assert np.array_equal(torch.isneginf(result).numpy(), np.isneginf(expected))  # j > i, masked
        got = finite_tensor(result.masked_fill(torch.isneginf(result), 0), expected.shape).double().numpy()
        seen = np.isfinite(expected)
        np.testing.assert_allclose(got[seen], expected[seen], atol=1e-4 * (1 + np.abs(expected[seen]).max(initial=0)))


@given(st.one_of(st.lists(st.integers(-10**6, 10**6), min_size=1).map(lambda r: torch.tensor(r)),
                 st.sampled_from([torch.ones(3), torch.ones(3, dtype=torch.bool), [1, 2], 3, None,
                                  torch.tensor([2**62])])),
       st.sampled_from([True, False, "False", 1, None]))
def test_torch_buckets_refuse_or_equal_numpy(relative, bidirectional):
    kind, result = outcome(lambda: relative_position_bucket(relative, bidirectional, 32, 128))
    if kind == "ok":
        expected = posenc.t5_relative_bucket(relative.numpy(), bidirectional=bidirectional)
        np.testing.assert_array_equal(result.numpy(), expected)


@pytest.mark.parametrize("module, shown", [
    (LearnedPositionalEmbedding(300, 16, seed=2), "table_size=300, d_model=16"),
    (ALiBiBias(12, causal=True), "num_heads=12, causal=True"),
    (KerpleBias(4, variant="power", causal=False), "num_heads=4, variant='power', causal=False"),
    (TransformerXLScores(8, 16, base=500.0), "d_head=8, d_model=16, base=500, causal=True"),
    (ShawRelativePositions(5, 8), "max_relative_position=5"),
    (T5RelativeBias(4, num_buckets=16, max_distance=64, bidirectional=False),
     "num_buckets=16, max_distance=64, bidirectional=False"),
    (SinusoidalPositionalEncoding(16, max_len=40, base=100.0), "d_model=16, max_len=40, base=100"),
    (XPos(64, 256, base=500.0), "head_dim=64, scale_base=256, base=500"),
])
def test_a_modules_repr_states_its_settings(module, shown):
    """The Encoding matrix page shows repr(module): it must say what the module was built with."""
    assert shown in repr(module)


def test_kerple_refuses_a_parameter_its_dtype_cannot_hold():
    """Found by the long property run: r1 just past float32's largest value raised torch's RuntimeError."""
    with pytest.raises(ValueError, match=r"r1 = 3.402823466385289e\+38 does not fit in torch.float32"):
        KerpleBias(r1=3.402823466385289e+38)
    with pytest.raises(ValueError, match=r"r2 = 70000.0 does not fit in torch.float16 \(its largest value is 65504.0\)"):
        KerpleBias(r2=70000.0, dtype=torch.float16)
