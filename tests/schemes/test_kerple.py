"""KERPLE (Chi et al. 2022, arXiv:2205.09921): pinned numbers, the paper's code, torch parity, registry, export."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
import torch

import posenc
from posenc.export import source as export
from posenc.modules import KerpleBias
from posenc.precision.tables import precision_table
from posenc.schemes.kerple import kerple_kernel
from posenc.schemes.offsets import toeplitz_view

KERPLE = posenc.SCHEMES["kerple"]


# --- the reference: chijames/KERPLE, megatron/mpu/layers.py (Apache-2.0), commit 73f1ee2 -----------
# The lines of ParallelKerpleLog.forward and ParallelKerplePower.forward that build the bias, verbatim
# but for ``self.`` (the parameters are passed in) and the device argument. bias_p, bias_a: (heads, 1, 1).


def kerple_reference_diff(seq_len_k):
    diff = torch.tril(
        torch.arange(seq_len_k).view(seq_len_k, 1).repeat(1, seq_len_k)
        + torch.arange(0, -seq_len_k, -1)
    )
    return diff.to(torch.float64)


def kerple_log_reference(seq_len_k, bias_p, bias_a):
    """ParallelKerpleLog: -p*log(1+a*|m-n|); p = r1, a = r2."""
    diff = kerple_reference_diff(seq_len_k)
    bias = -bias_p*torch.log(1+bias_a*diff) # log kernel
    return bias


def kerple_power_reference(seq_len_k, bias_a, bias_p):
    """ParallelKerplePower: -a*|m-n|^p; a = r1, p = r2."""
    diff = kerple_reference_diff(seq_len_k)
    bias = diff.pow(bias_p)
    bias = -bias*bias_a
    return bias


PAIRS = [(1.0, 1.0), (0.37, 0.05), (2.0, 1.9), (7.5, 0.6), (0.01, 2.0)]


@pytest.mark.parametrize(("r1", "r2"), PAIRS)
@pytest.mark.parametrize("variant", ["log", "power"])
def test_bias_equals_the_kerple_code_on_and_below_the_diagonal(r1, r2, variant):
    length = 37
    ours = posenc.kerple_bias(length, r1, r2, variant)
    heads = lambda value: torch.tensor([value], dtype=torch.float64)[:, None, None]
    reference = (kerple_log_reference if variant == "log" else kerple_power_reference)(length, heads(r1), heads(r2))
    seen = np.tril(np.ones((length, length), bool))  # the code's tril: j > i is left to the causal mask
    np.testing.assert_allclose(ours[seen], reference[0].numpy()[seen], rtol=1e-14, atol=1e-14)
    assert np.isneginf(ours[~seen]).all()


def test_pinned_numbers():
    log = posenc.kerple_bias(4, 1.0, 0.5)
    assert log[1, 0] == pytest.approx(-math.log(1.5), rel=1e-15)
    assert log[3, 0] == pytest.approx(-math.log(2.5), rel=1e-15)
    assert log[2, 2] == 0 and np.isneginf(log[0, 1])
    power = posenc.kerple_bias(4, 2.0, 1.5, "power", causal=False)
    np.testing.assert_allclose(power[0], [0, -2, -2 * 2**1.5, -2 * 3**1.5], rtol=1e-15)
    np.testing.assert_array_equal(power, power.T)  # |i − j| on both sides when not causal
    assert posenc.kerple_bias(0, 1.0, 1.0).shape == (0, 0)


def test_power_one_is_alibi_with_slope_r1():
    for heads in (1, 8):
        slope = posenc.alibi_slopes(heads)[0]
        np.testing.assert_array_equal(posenc.kerple_bias(30, slope, 1.0, "power"),
                                      posenc.alibi_bias(30, heads, causal=True)[0])


def test_log_kernel_is_small_distance_linear_and_grows_like_log():
    assert kerple_kernel(np.array([1e-9]), 3.0, 2.0)[0] == pytest.approx(-6e-9, rel=1e-8)  # log1p: no cancellation
    far = kerple_kernel(np.array([1e6, 1e7]), 1.0, 1.0)
    assert far[0] - far[1] == pytest.approx(math.log(10), rel=1e-5)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: posenc.kerple_bias(5, 0.0, 1.0), "r1 must be a finite number greater than 0"),
    (lambda: posenc.kerple_bias(5, -1.0, 1.0), "r1 must be"),
    (lambda: posenc.kerple_bias(5, math.nan, 1.0), "r1 must be"),
    (lambda: posenc.kerple_bias(5, 1.0, math.inf), "r2 must be"),
    (lambda: posenc.kerple_bias(5, 1.0, 0.0), "r2 must be a finite number greater than 0"),
    (lambda: posenc.kerple_bias(5, 1.0, 2.5, "power"), "r2 must be a finite number greater than 0 and at most 2"),
    (lambda: posenc.kerple_bias(5, 1.0, 1.0, "linear"), "variant must be one of 'log', 'power'"),
    (lambda: posenc.kerple_bias(5, 1.0, 1.0, causal="yes"), "causal must be True or False"),
    (lambda: posenc.kerple_bias(5, True, 1.0), "r1 must be a number"),
    (lambda: posenc.kerple_bias(2**20, 1.0, 1.0), "more than"),
    (lambda: kerple_kernel(np.array([1e5]), 1e300, 2.0, "power"), "not a finite number"),
    (lambda: kerple_kernel(np.array([-1]), 1.0, 1.0), "distances |i − j| ≥ 0"),
])
def test_bad_arguments_are_a_sentence(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
    assert posenc.kerple_bias(5, 1.0, 2.5).shape == (5, 5)  # r2 > 2 is fine for the log kernel


# --- the registry entry ----------------------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, {"r1": 3.0, "r2": 0.2}, {"r1": 0.5, "r2": 1.7, "variant": "power"}])
def test_registry_bias_is_the_causal_function(options):
    options = KERPLE.defaults() | options
    full = KERPLE.bias(40, 8, 1e4, **options)
    assert full.shape == (1, 40, 40)
    np.testing.assert_array_equal(full[0], posenc.kerple_bias(40, options["r1"], options["r2"], options["variant"]))
    offsets, values = KERPLE.offset_bias(40, 8, 1e4, **options)
    rows, cols = np.array([0, 5, 39]), np.array([1, 5, 30])
    np.testing.assert_array_equal(toeplitz_view(values, rows, cols), full[:, rows][:, :, cols])
    _, curve = KERPLE.offset_curve(40, 8, 1e4, **options)
    assert np.isnan(curve[offsets > 0]).all() and np.isfinite(curve[offsets <= 0]).all()


def test_formula_shows_the_numbers_computed_and_says_causal():
    log = KERPLE.formula(64, 1e4, r1=2.5, r2=0.125, variant="log")
    assert r"-2.5\,\ln\!\left(1 + 0.125\,(i-j)\right)" in log and r"-\infty & j > i" in log
    assert r"-3\,(i-j)^{1.5}" in KERPLE.formula(64, 1e4, r1=3.0, r2=1.5, variant="power")
    with pytest.raises(ValueError, match="at most 2"):
        KERPLE.formula(64, 1e4, r1=1.0, r2=3.0, variant="power")


def test_option_ranges_keep_every_value_finite():
    r1, r2 = (next(o for o in KERPLE.options if o.name == name) for name in ("r1", "r2"))
    assert r1.minimum > 0 and r2.minimum > 0 and r2.maximum <= 2
    for variant in ("log", "power"):
        _, values = KERPLE.offset_bias(4096 * 2, 8, 1e4, r1=r1.maximum, r2=r2.maximum, variant=variant)
        assert np.isfinite(values[:, : 4096 * 2]).all()


# --- torch --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["log", "power"])
def test_module_equals_numpy_for_every_head(variant):
    module = KerpleBias(num_heads=3, r1=1.7, r2=0.4, variant=variant, dtype=torch.float64)
    result = module(25).detach().numpy()
    assert result.shape == (3, 25, 25)
    for head in result:
        np.testing.assert_allclose(head, posenc.kerple_bias(25, 1.7, 0.4, variant), rtol=1e-15, atol=0)
    single = KerpleBias(r1=1.7, r2=0.4, variant=variant)(25).detach().double().numpy()[0]  # float32
    expected = posenc.kerple_bias(25, 1.7, 0.4, variant)
    np.testing.assert_array_equal(np.isneginf(single), np.isneginf(expected))
    seen = np.isfinite(expected)
    np.testing.assert_allclose(single[seen], expected[seen], rtol=1e-6, atol=1e-7)
    bidirectional = KerpleBias(r1=1.7, r2=0.4, variant=variant, causal=False, dtype=torch.float64)(6)
    np.testing.assert_allclose(bidirectional[0].detach().numpy(), posenc.kerple_bias(6, 1.7, 0.4, variant, causal=False))


def test_module_equals_the_kerple_code_per_head_after_training_steps():
    module = KerpleBias(num_heads=2, r1=1.0, r2=1.0, dtype=torch.float64)
    with torch.no_grad():
        module.r1.copy_(torch.tensor([0.3, 2.0]))
        module.r2.copy_(torch.tensor([1.5, 0.02]))
    reference = kerple_log_reference(12, module.r1.detach()[:, None, None], module.r2.detach()[:, None, None])
    seen = np.tril(np.ones((12, 12), bool))
    np.testing.assert_allclose(module(12).detach().numpy()[:, seen], reference.numpy()[:, seen], rtol=1e-15)


def test_module_keeps_r1_r2_in_range_as_the_kerple_code_and_learns():
    module = KerpleBias(num_heads=2, r1=1.0, r2=1.0, variant="power")
    with torch.no_grad():
        module.r1.copy_(torch.tensor([-1.0, 1.0]))
        module.r2.copy_(torch.tensor([0.5, 5.0]))
    module(4)
    np.testing.assert_allclose(module.r1.detach().numpy(), [0.01, 1.0])
    np.testing.assert_allclose(module.r2.detach().numpy(), [0.5, 2.0])
    bias = module(6)
    bias[torch.isfinite(bias)].sum().backward()
    assert module.r1.grad is not None and torch.isfinite(module.r1.grad).all() and (module.r1.grad != 0).all()
    assert torch.isfinite(module.r2.grad).all()  # d(Δ^r2)/dr2 at Δ = 0: no NaN
    assert "num_heads=2, variant='power', causal=True" in repr(module)


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(r1=0.001), "at least 0.01"), (dict(r2=3.0, variant="power"), "at most 2"), (dict(num_heads=0), "at least 1"),
    (dict(variant="cubic"), "variant must be"), (dict(causal=1), "causal must be True or False"),
    (dict(dtype=torch.int64), "floating dtype"),
])
def test_module_refuses_bad_settings(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        KerpleBias(**kwargs)


def test_module_refuses_an_overflowing_bias():
    with pytest.raises(ValueError, match="overflows"):
        KerpleBias(r1=1e35, r2=2.0, variant="power")(100)  # 1e35·99² > float32's 3.4e38


# --- precision, export ----------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["log", "power"])
def test_precision_table_computes_in_the_dtype(variant):
    result = precision_table("kerple", 300, 16, 1e4, "float32", r1=2.0, r2=0.7, variant=variant)
    computed = result.errors["computed in float32"]
    assert computed.shape == (300,) and computed[0] == 0 and 0 < computed.max() < 1e-6 * max(1, 2 * 299**0.7)
    half = precision_table("kerple", 300, 16, 1e4, "bfloat16", r1=2.0, r2=0.7, variant=variant)
    assert half.errors["computed in bfloat16"].max() > 1e-3 and not half.notes


def test_precision_says_when_float16_overflows():
    result = precision_table("kerple", 200, 16, 1e4, "float16", r1=10.0, r2=2.0, variant="power")
    assert result.notes == ("From distance 81 on the bias (there -6.561e+04) is past the largest finite float16, "
                            "65504: in float16 it is −inf, so those keys get no attention at all.",)


@pytest.mark.parametrize("options", [{"r1": 2.5, "r2": 0.3}, {"r1": 0.5, "r2": 1.7, "variant": "power"}])
def test_take_the_code_file_runs_alone_and_equals_posenc(options, tmp_path):
    path = tmp_path / export.file_name("kerple")
    path.write_text(export.module_source("kerple", 50, 16, 10000.0, **options))
    out = tmp_path / "out.pt"
    run = subprocess.run([sys.executable, "-I", str(path), str(out)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    np.testing.assert_allclose(torch.load(out).numpy(), export.reference_output("kerple", 50, 16, 1e4, **options),
                               rtol=1e-15)
    with pytest.raises(ValueError, match="0.01"):
        export.module_source("kerple", 50, 16, 10000.0, r1=0.005)
