"""posenc.precision*: the dtypes' limits, rounding, repeated positions and residuals, pinned."""

import math

import numpy as np
import pytest

import posenc
from posenc.precision import dtypes as precision
from posenc.precision.dtypes import first_inexact_integer, first_repeated_row, max_abs_error, round_to
from posenc.precision.residuals import (
    rope_shift_residual,
    rotation_residual,
    sinusoidal_rotation_residuals,
    theta_forms,
)
from posenc.precision.tables import (
    PRECISION,
    ROPE_VARIANTS,
    Precision,
    annotated_sinusoidal,
    precision_of,
    precision_table,
    rope_cos_sin,
    rope_variants,
)

torch = pytest.importorskip("torch")

LIMITS = {"float32": 16_777_217, "float16": 2049, "bfloat16": 257}


@pytest.mark.parametrize(("dtype", "limit"), LIMITS.items())
def test_first_inexact_integer_is_what_torch_stores(dtype, limit):
    assert first_inexact_integer(dtype) == limit
    dt = getattr(torch, dtype)
    below = torch.arange(limit, dtype=torch.float64)
    assert torch.equal(below.to(dt).to(torch.float64), below)  # every integer below the limit is exact
    assert torch.tensor(float(limit), dtype=dt).item() == limit - 1  # 2^p + 1 rounds to 2^p (even)


@pytest.mark.parametrize(("dtype", "limit"), [("float16", 2049), ("bfloat16", 257)])
def test_torch_arange_in_the_dtype_repeats_a_position_at_the_limit(dtype, limit):
    positions = torch.arange(0, limit + 3, dtype=getattr(torch, dtype)).double().numpy()
    assert np.all(positions[:limit] == np.arange(limit))
    assert positions[limit] == positions[limit - 1] == limit - 1
    assert first_repeated_row(positions[:, None]) == limit


def test_dtype_facts():
    facts = {row["dtype"]: row for row in precision.dtype_facts()}
    assert facts["bfloat16"]["significand bits p"] == 8 and facts["float16"]["largest value"] == 65504.0
    assert facts["float32"]["unit roundoff 2^−p"] == 2.0**-24


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_round_to_matches_torch_on_float32_inputs(dtype):
    rng = np.random.default_rng(0)
    x = (rng.normal(size=200_000) * np.exp(rng.uniform(-20, 10, 200_000))).astype(np.float32)
    x = x[np.abs(x) < (65504 if dtype == "float16" else np.inf)]
    x = x[(np.abs(x) > 6.2e-5) | (dtype != "float16")]  # float16 subnormals aside
    expected = torch.from_numpy(x).to(getattr(torch, dtype)).double().numpy()
    np.testing.assert_array_equal(round_to(x.astype(np.float64), dtype), expected)


@pytest.mark.parametrize(("dtype", "differ"), [("float32", 0), ("float16", 17), ("bfloat16", 2)])
def test_round_to_differs_from_torch_only_by_torchs_double_rounding(dtype, differ):
    table = posenc.sinusoidal(4096, 64)
    ours = round_to(table, dtype)
    torchs = torch.from_numpy(table).to(getattr(torch, dtype)).double().numpy()  # float64 → float32 → dtype
    apart = ours != torchs
    assert apart.sum() == differ
    # Where they differ, float32 put x exactly halfway between two dtype values, and ours is the nearer one.
    via_float32 = table[apart].astype(np.float32).astype(np.float64)
    np.testing.assert_array_equal(np.abs(via_float32 - ours[apart]), np.abs(via_float32 - torchs[apart]))
    assert np.all(np.abs(table[apart] - ours[apart]) < np.abs(table[apart] - torchs[apart]))


def test_round_to_float16_is_what_posenc_does():
    table = posenc.sinusoidal(500, 32)
    np.testing.assert_array_equal(round_to(table, "float16"), posenc.sinusoidal(500, 32, dtype=np.float16))


def test_round_to_rounds_once_where_torch_rounds_twice():
    # 1 + 2^-8 is halfway between the bfloat16 neighbours 1 and 1 + 2^-7; just above it rounds up.
    x = 1 + 2**-8 + 2**-30
    assert round_to(np.array([x]), "bfloat16")[0] == 1 + 2**-7
    assert torch.tensor([x], dtype=torch.float64).to(torch.bfloat16).item() == 1.0  # via float32: a tie, to even
    assert list(round_to(np.array([np.inf, -np.inf, 0.0, 256.5, 257.0]), "bfloat16")) == [np.inf, -np.inf, 0, 256, 256]
    assert np.isnan(round_to(np.array([np.nan]), "bfloat16")[0])


def test_max_abs_error_skips_equal_infinities_and_missing_rows():
    approx = np.array([[1.0, np.nan], [np.nan, np.nan], [np.inf, 2.0], [1.0, 2.0]])
    exact = np.array([[1.5, np.nan], [np.nan, np.nan], [np.inf, 2.5], [-np.inf, 2.0]])
    np.testing.assert_array_equal(max_abs_error(approx, exact), [0.5, np.nan, 0.5, np.inf])


@pytest.mark.parametrize("seed", range(5))
def test_first_repeated_row_equals_a_plain_search(seed):
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 3, size=(300, rng.integers(1, 5))).astype(np.float64)
    table[rng.random(300) < 0.2, 0] = np.nan
    seen, expected = set(), None
    for index, row in enumerate(table):
        if not np.isnan(row).any():
            if row.tobytes() in seen:
                expected = index
                break
            seen.add(row.tobytes())
    assert first_repeated_row(table) == expected


def test_first_repeated_row():
    assert first_repeated_row(np.eye(5)) is None
    assert first_repeated_row(np.zeros((4, 3))) == 1
    assert first_repeated_row(np.array([[1.0, 2.0], [np.nan, 1.0], [np.nan, 1.0], [1.0, 2.0]])) == 3
    assert first_repeated_row(np.array([[0.0], [-0.0]])) is None  # different bits
    assert first_repeated_row(np.zeros((0, 3))) is None


@pytest.mark.parametrize(("dtype", "bound", "repeat"), [("float32", 2.0**-25, None), ("float16", 2.0**-12, 2049),
                                                        ("bfloat16", 2.0**-9, 257)])
def test_sinusoidal_precision_at_4096(dtype, bound, repeat):
    result = precision_table("sinusoidal", 4096, 128, 10000.0, dtype)
    rounded, computed = result.errors.values()
    assert rounded.max() <= bound  # half a unit in the last place of values in [1/2, 1)
    assert result.first_repeat == {"float64": None, f"rounded to {dtype}": None,
                                   f"computed in {dtype} (Annotated Transformer)": repeat}
    assert computed[:8].max() < 16 * 2.0 ** -precision.significand_bits(dtype)  # first positions: θ and phases rounded
    if dtype == "float32":
        assert 1e-5 < computed.max() < 1e-3  # phases p·θ rounded in float32
    else:
        assert computed.max() > 1.0  # the phases are wrong by radians: the table is meaningless there


def test_annotated_table_equals_the_float64_table_in_float64():
    for layout, spacing, d in (("interleaved", "vaswani", 16), ("split", "tensor2tensor", 16), ("interleaved", "vaswani", 7)):
        table = annotated_sinusoidal(300, d, 100.0, "float64", layout=layout, spacing=spacing)
        np.testing.assert_allclose(table, posenc.sinusoidal(300, d, 100.0, layout=layout, spacing=spacing), atol=1e-12)


@pytest.mark.parametrize(("dtype", "repeat"), [("float32", None), ("float16", 2049), ("bfloat16", 257)])
def test_alibi_distances_merge_past_the_integer_limit(dtype, repeat):
    result = precision_table("alibi", 4096, 64, 10000.0, dtype)
    assert result.first_repeat == {"float64": None, f"rounded to {dtype}": repeat, f"computed in {dtype}": repeat}
    assert result.errors[f"rounded to {dtype}"][: (repeat or 4096) - 1].max() == 0.0  # power-of-two slopes: exact


def test_bias_schemes_repeat_where_float64_does():
    t5 = precision_table("t5", 300, 64, 10000.0, "bfloat16")
    assert t5.first_repeat == {"float64": 9, "rounded to bfloat16": 9}  # distances 8 and 9 share a bucket
    shaw = precision_table("shaw", 300, 64, 10000.0, "bfloat16", max_relative_position=16)
    assert set(shaw.first_repeat.values()) == {17}  # clipped at k = 16
    assert max(e.max() for e in shaw.errors.values()) < 1e-4


@pytest.mark.parametrize("scheme", list(posenc.SCHEMES))
def test_every_scheme_has_its_precision_record(scheme):
    """Its own record or its family's (NoPE states nothing): a table and at least one section."""
    assert set(PRECISION) <= set(posenc.SCHEMES)
    record = precision_of(scheme)
    assert callable(record.table) and record.sections


def test_a_rotation_without_its_precision_record_is_named(monkeypatch):
    monkeypatch.setitem(PRECISION, "rope", Precision())
    with pytest.raises(ValueError, match="'rope' has no precision record"):
        precision_of("rope")


@pytest.mark.parametrize("scheme", list(posenc.SCHEMES))
def test_options_default_as_in_the_app(scheme):
    defaults = posenc.get_scheme(scheme).defaults()
    given, default = precision_table(scheme, 40, 8, 100.0, "float16", **defaults), precision_table(scheme, 40, 8, 100.0, "float16")
    assert given.errors.keys() == default.errors.keys() and given.notes == default.notes
    for label, errors in given.errors.items():
        np.testing.assert_array_equal(errors, default.errors[label])


def test_learned_and_nope():
    learned = precision_table("learned", 600, 16, 10000.0, "float16", table_size=512)
    errors = learned.errors["rounded to float16"]
    assert np.isnan(errors[512:]).all() and 0 < np.nanmax(errors) < 0.02 * 2.0**-10 * 8
    nope = precision_table("nope", 50, 16, 10000.0, "bfloat16")
    assert nope.errors["rounded to bfloat16"].max() == 0.0 and nope.first_repeat["float64"] == 1


@pytest.mark.parametrize(("dtype", "repeat_all_in_dtype"), [("float16", 2049), ("bfloat16", 257)])
def test_rope_cos_sin_in_the_dtype_repeat_positions_float32_ones_do_not(dtype, repeat_all_in_dtype):
    result = precision_table("rope", 4096, 64, 10000.0, dtype)
    labels = list(result.first_repeat)
    assert result.first_repeat[labels[2]] == repeat_all_in_dtype  # "all in dtype"
    assert result.first_repeat[labels[3]] is None  # "float32, then cast"
    assert result.errors[labels[3]].max() < 2.5 * 2.0 ** -(precision.significand_bits(dtype))


def test_rope_shift_residual_bfloat16_needs_float32_cos_sin():
    _, all_bf16, exact = rope_shift_residual(4096, 128, 10000.0, "bfloat16", 1, "all in dtype")
    _, cast, _ = rope_shift_residual(4096, 128, 10000.0, "bfloat16", 1, "float32, then cast")
    _, fp32, _ = rope_shift_residual(4096, 128, 10000.0, "float32", 1, "all in dtype")
    assert 0.9 < exact < 1.0  # q = k, offset 1: close to 1
    assert all_bf16[:8].max() < 0.02 and all_bf16.max() > 0.1  # drifts with the position
    assert cast.max() < 0.02  # only the rounding of cos/sin, q, k and the products
    assert fp32.max() < 1e-4


def test_rope_shift_residual_in_float64_is_rounding():
    positions, residual, _ = rope_shift_residual(500, 32, 10000.0, "float64", 3, "all in dtype", layout="half")
    assert positions[0] == 3 and len(residual) == 497 and residual.max() < 1e-12


def test_rotation_residual_float32_agrees_with_numpy():
    table = posenc.sinusoidal(1000, 64, dtype=np.float32)
    ours = rotation_residual(table.astype(np.float64), 5, 64, 10000.0, "float32")
    np.testing.assert_allclose(ours, posenc.rotation_check(1000, 64, k=5, dtype=np.float32).errors, rtol=0, atol=1e-7)


@pytest.mark.parametrize(("dtype", "rounded_bound"), [("float32", 3e-7), ("float16", 4e-3), ("bfloat16", 3e-2)])
def test_sinusoidal_rotation_residuals(dtype, rounded_bound):
    residuals = sinusoidal_rotation_residuals(4096, 64, 10000.0, dtype, 1)
    rounded, computed = residuals.values()
    assert len(rounded) == 4095 and rounded.max() < rounded_bound
    assert computed.max() > (1e-5 if dtype == "float32" else 0.5)
    assert sinusoidal_rotation_residuals(20, 8, 10000.0, dtype, 0)[f"rounded to {dtype}"].max() == 0.0


def test_theta_power_form_is_more_accurate_than_log_space():
    for dtype, (log_low, log_high, power_high) in {"float32": (1e-7, 1e-6, 1e-7), "float16": (1e-3, 1e-2, 1e-3),
                                                   "bfloat16": (1e-2, 1e-1, 1e-2)}.items():
        forms = theta_forms(128, 10000.0, dtype)
        assert log_low < forms.max_log_error < log_high and forms.max_power_error < power_high
        assert "direct power" in forms.verdict and "does not hold" in forms.verdict


def test_theta_power_form_overflows_float16_when_n_does_not_fit():
    forms = theta_forms(128, 500000.0, "float16")
    assert forms.max_power_error == 1.0 and forms.max_log_error < 0.02
    assert "does not fit in float16" in forms.verdict and "holds here" in forms.verdict
    assert "neither" in theta_forms(128, 1e9, "float16").verdict  # below float16's smallest value either way


def test_bad_arguments_are_sentences():
    with pytest.raises(ValueError, match="dtype must be one of"):
        round_to(np.zeros(2), "int8")
    with pytest.raises(ValueError, match="offset"):
        rope_shift_residual(10, 8, 10000.0, "float16", 10, "all in dtype")
    with pytest.raises(ValueError, match="split layout"):
        precision_table("sinusoidal", 10, 7, 10000.0, "float16", layout="split")
    assert math.isclose(precision.unit_roundoff("bfloat16"), 2.0**-8)


def test_rope_in_float32_draws_its_one_way_once():
    """In float32, "float32, then cast" is "all in dtype": one curve, not two alike labelled "float32, then cast to
    float32"; in float16 and bfloat16 both, with different numbers."""
    assert rope_variants("float32") == ("all in dtype",)
    assert rope_variants("bfloat16") == rope_variants("float16") == ROPE_VARIANTS
    same = [np.concatenate([t.numpy() for t in rope_cos_sin(512, posenc.frequencies(64), 1.0, "float32", variant)])
            for variant in ROPE_VARIANTS]
    np.testing.assert_array_equal(*same)
    assert list(precision_table("rope", 512, 64, 10000.0, "float32").errors) == [
        "rounded to float32", "all in dtype (float32)"]
    assert list(precision_table("rope", 512, 64, 10000.0, "bfloat16").errors)[-1] == "float32, then cast to bfloat16"
