"""One named test per failure class found in the library (issue 7, the probes and the fuzz tests).

Each was a crash (ZeroDivisionError, OverflowError, IndexError, AttributeError, torch RuntimeError),
a hang, or a silently wrong result (zeros, NaN, inf, a bool read as 0/1); now a ValueError or
TypeError with a sentence, or the right numbers.
"""

import math
import time

import numpy as np
import pytest
import torch

import posenc
from posenc.analysis import distances, similarity
from posenc.analysis.properties import measure_properties
from posenc.modules import (
    ALiBiBias,
    LearnedPositionalEmbedding,
    RotaryEmbedding,
    ShawRelativePositions,
    SinusoidalPositionalEncoding,
    T5RelativeBias,
)
from posenc.modules.relative import relative_position_bucket
from posenc.schemes import offsets
from posenc.schemes.rope import scalings

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def test_yarn_with_base_one_is_refused():
    with pytest.raises(ValueError, match="YaRN divides by ln"):
        posenc.rope_inv_freq(8, 1.0, rope_type="yarn", factor=2.0, original_max_position_embeddings=16)
    with pytest.raises(ValueError, match="greater than 1"):
        scalings.yarn_correction_range(8, 1.0, 16)


def test_ntk_with_huge_factor_is_refused():
    with pytest.raises(ValueError, match="factor must be a finite number of at least 1 and at most 1e"):
        posenc.rope_inv_freq(8, 1e4, rope_type="ntk", factor=1e300)  # was OverflowError
    with pytest.raises(ValueError, match="NTK base"):
        posenc.rope_inv_freq(4, 1e300, rope_type="ntk", factor=1e6)  # base' = base·factor² past 1e300


def test_dynamic_with_huge_factor_or_length_is_refused():
    with pytest.raises(ValueError, match="factor must be"):  # was θ = 0 (a divide-by-zero warning), silently
        posenc.rope_inv_freq(8, 1e4, rope_type="dynamic", factor=1e300, original_max_position_embeddings=16)
    with pytest.raises(ValueError, match="NTK base"):
        posenc.rope_inv_freq(4, 1e290, rope_type="dynamic", factor=1e6, original_max_position_embeddings=1,
                             seq_len=2**53)
    with pytest.raises(ValueError, match="seq_len"):  # was OverflowError
        posenc.rope_inv_freq(8, 1e4, rope_type="dynamic", factor=2.0, original_max_position_embeddings=16,
                             seq_len=1e300)


def test_frequencies_too_slow_for_a_finite_wavelength_are_refused():
    with pytest.raises(ValueError, match="between 1 and 1e"):
        posenc.wavelengths(8, 1e308)  # 2π/θ was inf
    with pytest.raises(ValueError, match="finite number"):
        posenc.rope_wavelengths(64, 1e300, "linear", factor=1e300)


def test_shaw_bias_accepts_a_whole_float_clipping_distance():
    np.testing.assert_array_equal(posenc.shaw_bias(4, 2.0, 8), posenc.shaw_bias(4, 2, 8))  # was IndexError
    np.testing.assert_array_equal(posenc.SCHEMES["shaw"].bias(4, 8, 1e4, max_relative_position=2.0),
                                  posenc.SCHEMES["shaw"].bias(4, 8, 1e4, max_relative_position=2))


def test_alibi_slopes_of_a_huge_head_count_are_refused_at_once():
    start = time.perf_counter()
    for heads in (2**63, 1e300, 10**6):
        with pytest.raises(ValueError, match="num_heads must be at most 4096"):
            posenc.alibi_slopes(heads)  # 2**63 ran for minutes
    with pytest.raises(ValueError, match="at most 4096"):
        ALiBiBias(2**63)  # was OverflowError
    assert time.perf_counter() - start < 1.0


def test_apply_rotation_rotates_an_integer_table_as_floats():
    integers = np.ones((1, 4), dtype=np.int64)
    rotated = posenc.apply_rotation(1, integers)  # was all zeros (rotation rounded to int)
    assert rotated.dtype == np.float64
    np.testing.assert_array_equal(rotated, posenc.apply_rotation(1, np.ones((1, 4))))
    assert np.abs(rotated).max() > 0.5


def test_torch_modules_refuse_integer_and_bool_tensors():
    with pytest.raises(TypeError, match="floating-point tensor"):
        RotaryEmbedding(8)(torch.ones(3, 8, dtype=torch.int64))  # returned zeros
    with pytest.raises(TypeError, match="floating-point tensor"):
        RotaryEmbedding(8)(torch.ones(3, 8, dtype=torch.bool))  # was RuntimeError (negating a bool tensor)
    with pytest.raises(TypeError, match="floating-point tensor"):
        SinusoidalPositionalEncoding(8)(torch.ones(1, 3, 8, dtype=torch.int64))  # PE was rounded to 0/1


def test_nan_and_infinite_positions_are_refused():
    x = np.ones((3, 8))
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(ValueError, match="finite"):
            posenc.apply_rope(x, np.full(3, bad))  # NaN output
        with pytest.raises(ValueError, match="finite"):
            RotaryEmbedding(8)(torch.ones(3, 8), torch.full((3,), bad))
        with pytest.raises(ValueError, match="finite"):
            posenc.rope_scores(np.ones(8), np.ones(8), [bad], [0.0])  # was OverflowError
        with pytest.raises(ValueError):
            posenc.rope_shift_invariance(np.ones(8), np.ones(8), bad, 1.0, 2.0)


def test_nan_inputs_to_the_torch_modules_are_refused():
    with pytest.raises(ValueError, match="finite"):
        RotaryEmbedding(8)(torch.full((3, 8), float("nan")))


def test_a_float16_sum_that_overflows_is_refused():
    x = torch.full((1, 3, 8), 65504.0, dtype=torch.float16)  # the largest float16: x·(cos + sin) at position 1 is inf
    with pytest.raises(ValueError, match="overflows the dtype torch.float16"):
        RotaryEmbedding(8)(x)


def test_an_overflowing_rotation_is_refused():
    with pytest.raises(ValueError, match="overflows"):
        posenc.apply_rope(np.full((2, 4), 1.7e308), None)
    with pytest.raises(ValueError, match="base must be between"):
        posenc.rotation_blocks(2**53, 1024, 1e-300)  # k·θ was inf, cos/sin NaN


@pytest.mark.parametrize("call", [
    lambda: posenc.sinusoidal(True, 8), lambda: posenc.sinusoidal(4, True), lambda: posenc.sinusoidal(4, 8, True),
    lambda: posenc.alibi_slopes(True), lambda: posenc.t5_bias(4, np.True_),
    lambda: posenc.rope_inv_freq(8, rope_type="linear", factor=True),
    lambda: posenc.apply_rope(np.ones((2, 4)), np.array([True, False])),
    lambda: posenc.rope_inv_freq(8, rope_type="yarn", factor=2.0, original_max_position_embeddings=16, beta_fast=False),
    lambda: posenc.t5_relative_bucket(np.array([True, False])),
    lambda: RotaryEmbedding(8)(torch.ones(2, 8), torch.tensor([True, False])),
], ids=["length", "d_model", "base", "num_heads", "numpy-bool", "factor", "positions", "beta_fast", "relative",
        "torch-positions"])
def test_bools_are_not_numbers(call):
    with pytest.raises(TypeError):
        call()


def test_a_string_is_not_a_switch():
    with pytest.raises(TypeError, match="True or False"):
        posenc.t5_relative_bucket(3, bidirectional="False")  # "False" counted as True
    with pytest.raises(TypeError, match="True or False"):
        posenc.alibi_bias(4, 2, causal="yes")
    with pytest.raises(TypeError, match="True or False"):
        relative_position_bucket(torch.tensor([1]), "False")


def test_huge_unsigned_offsets_are_refused_not_wrapped():
    with pytest.raises(ValueError, match="2\\^53"):
        posenc.t5_relative_bucket(np.array([2**63], dtype=np.uint64))  # wrapped to a negative offset


@pytest.mark.parametrize("call", [
    lambda: posenc.offset_similarity(math.nan), lambda: posenc.similarity_matrix(3.0),
    lambda: offsets.toeplitz_view(math.nan, np.arange(3), np.arange(3)), lambda: similarity.self_attention(1e300),
    lambda: distances.offset_spread(math.inf), lambda: posenc.apply_rotation(1, 2.0),
    lambda: offsets.toeplitz_view(np.ones(5), np.array([9]), np.array([0])),
], ids=["offset_similarity", "similarity_matrix", "toeplitz", "self_attention", "offset_spread", "apply_rotation",
        "toeplitz-index"])
def test_analysis_functions_refuse_scalars_and_bad_indices(call):
    with pytest.raises((ValueError, TypeError)):  # were AttributeError / IndexError
        call()


def test_permutation_gap_refuses_zero_width_and_empty_input():
    with pytest.raises(ValueError, match="d_model must be at least 1"):
        similarity.permutation_gap(5, 0, None)  # was a divide-by-zero warning and NaN
    with pytest.raises(ValueError, match="length must be at least 1"):
        similarity.permutation_gap(0, 4, None)


def test_yarn_correction_range_refuses_non_finite_arguments():
    for call in (lambda: scalings.yarn_correction_range(math.inf, 1e4, 64),  # was OverflowError
                 lambda: scalings.yarn_correction_range(8, True, 64),  # was ZeroDivisionError (ln True = 0)
                 lambda: scalings.yarn_correction_range(8, 1e4, math.inf)):
        with pytest.raises((ValueError, TypeError)):
            call()


def test_a_base_below_one_is_refused():
    """Found by the long fuzz run: at base 1.4e-187 the rotation check reported an error of 0.76, since
    θ_i = base^(−2i/d) reached 1e187 and the phases p·θ_i had no digits left (and llama3 overflowed)."""
    for call in (lambda: posenc.rotation_check(4, 4, 1.3891880503488376e-187, 1, spacing="tensor2tensor"),
                 lambda: posenc.rope_inv_freq(8, 1e-300, rope_type="llama3", factor=2.0,
                                              original_max_position_embeddings=16),
                 lambda: posenc.sinusoidal(4, 8, 0.5)):
        with pytest.raises(ValueError, match="base must be between 1 and 1e"):
            call()


def test_similarity_of_huge_entries_is_refused():
    """Found by the long fuzz run: offset_similarity of a table of 1e308 overflowed inside the FFT."""
    huge = np.full((3, 4), 1e308)
    for call in (lambda: posenc.offset_similarity(huge), lambda: posenc.similarity_matrix(huge),
                 lambda: distances.min_distance(huge), lambda: distances.pair_distances(huge)):
        with pytest.raises(ValueError, match=r"at most 1e\+150"):
            call()


def test_measure_properties_accepts_a_whole_float_length():
    assert measure_properties("sinusoidal", 3.0, 8, 1e4, {}).key == "sinusoidal"  # was IndexError
    with pytest.raises(ValueError, match="at least 2"):
        measure_properties("sinusoidal", 1, 8, 1e4, {})
    with pytest.raises(TypeError, match="a str"):
        measure_properties(["sinusoidal"], 4, 8, 1e4, {})


def test_get_scheme_refuses_a_key_that_is_not_a_name():
    with pytest.raises(ValueError, match="Unknown scheme"):
        posenc.get_scheme(["rope"])  # was "unhashable type"


@pytest.mark.parametrize("call", [
    lambda: SinusoidalPositionalEncoding(8, max_len=1e300),  # OverflowError
    lambda: SinusoidalPositionalEncoding(8, max_len=2**63),  # torch RuntimeError
    lambda: ShawRelativePositions(2, 4)(2**40), lambda: T5RelativeBias(2)(2**40), lambda: ALiBiBias(2)(2**40),
    lambda: ShawRelativePositions(2, 4)(-1), lambda: T5RelativeBias(2)(-1), lambda: ALiBiBias(2)(-1),
    lambda: ShawRelativePositions(2, 4)(3.5), lambda: T5RelativeBias(2)(3.5),
    lambda: LearnedPositionalEmbedding(4, 8)(torch.ones(8)),  # IndexError
    lambda: SinusoidalPositionalEncoding(8, dropout="0.1"),
], ids=["max_len-inf", "max_len-2^63", "shaw-huge", "t5-huge", "alibi-huge", "shaw-neg", "t5-neg", "alibi-neg",
        "shaw-frac", "t5-frac", "learned-1d", "dropout-str"])
def test_module_sizes_and_lengths_are_checked(call):
    with pytest.raises((ValueError, TypeError)):  # were OverflowError, IndexError, torch RuntimeError
        call()


def test_formulas_refuse_what_their_functions_refuse():
    with pytest.raises(ValueError, match="max_distance"):
        posenc.SCHEMES["t5"].formula(8, 1e4, max_distance=8)  # showed a formula for a bias it cannot build
    with pytest.raises(ValueError, match="whole number"):
        posenc.SCHEMES["shaw"].formula(8, 1e4, max_relative_position=2.5)  # showed k = 2
    with pytest.raises(ValueError, match="even"):
        posenc.SCHEMES["sinusoidal"].formula(7, 1e4, layout="split")


def test_tables_larger_than_the_cap_are_refused_before_allocating():
    start = time.perf_counter()
    with pytest.raises(ValueError, match="more than the"):
        posenc.sinusoidal(1 << 20, 1 << 10)
    with pytest.raises(ValueError, match="more than the"):
        posenc.alibi_bias(1 << 12, 8)
    assert time.perf_counter() - start < 1.0


def test_registry_curves_accept_a_whole_float_length():
    """Found by the long fuzz run: the offsets were np.arange(−(L − 1), L) of the raw length, so a length
    of 3.0 gave float offsets (IndexError in Shaw's bias) and a float16 length overflowed."""
    for key in ("nope", "shaw", "t5", "alibi"):
        scheme = posenc.SCHEMES[key]
        offsets, _ = scheme.offset_curve(3.0, 8, 1e4)
        assert offsets.dtype.kind == "i" and list(offsets) == [-2, -1, 0, 1, 2]
        if scheme.bias is not None:
            np.testing.assert_array_equal(scheme.bias(3.0, 8, 1e4), scheme.bias(3, 8, 1e4))
    assert len(posenc.SCHEMES["nope"].offset_curve(np.float16(5.0), 8, 1e4)[0]) == 9


def test_max_abs_of_the_most_negative_integer_is_exact():
    """|int64 min| = 2^63 does not fit an int64: found by the long fuzz run of max_abs (an overflow)."""
    assert distances.max_abs(np.array([[np.iinfo(np.int64).min, 3]])) == 2.0**63
    assert distances.max_abs(np.array([-5, 2], dtype=np.int8)) == 5.0
    assert distances.max_abs(np.array([np.nan, -np.inf, -2.5])) == 2.5
