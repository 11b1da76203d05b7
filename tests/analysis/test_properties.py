"""Seed 001's criteria, measured: pinned numbers per scheme, exactness of the distances, and the page."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import posenc
from posenc.analysis import distances, properties
from posenc.analysis.distances import min_distance
from posenc.analysis.properties import SchemeProperties, encodings, measure_all, measure_properties

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "properties.py")


def measure(key: str, length: int, d_model: int = 16, base: float = 10000.0, **options) -> SchemeProperties:
    return measure_properties(key, length, d_model, base, posenc.SCHEMES[key].defaults() | options)


def brute_min_distance(vectors: np.ndarray) -> float:
    diff = vectors[:, None, :] - vectors[None, :, :]
    distance = np.sqrt((diff**2).sum(axis=-1))
    return float(distance[np.triu_indices(len(vectors), 1)].min())


# --- the distance measurements ------------------------------------------------------------------


def test_min_distance_is_exact_where_the_gram_matrix_is_not():
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(300, 128)) * 10
    vectors[17] = vectors[230] + 1e-7 * rng.normal(size=128)  # ‖·‖² ≈ 1e4: the Gram trick alone is off by ~1e-6
    gram, true_square = vectors @ vectors.T, np.sum((vectors[17] - vectors[230]) ** 2)
    screened = gram[17, 17] + gram[230, 230] - 2 * gram[17, 230]  # in steps of ~1.8e-12, one ulp of 1.3e4
    assert abs(screened - true_square) > 0.1 * true_square  # the Gram trick alone is wrong here
    distance, sharing, count = min_distance(vectors)
    assert (sharing, count) == (0, 300)
    assert distance == pytest.approx(np.linalg.norm(vectors[17] - vectors[230]), rel=1e-14)


def test_min_distance_sweep_of_narrow_rows_equals_brute_force():
    vectors = np.random.default_rng(2).normal(size=(400, 3))
    assert min_distance(vectors)[0] == pytest.approx(brute_min_distance(vectors), rel=1e-15)
    assert min_distance(vectors[:, 0])[0] == np.diff(np.sort(vectors[:, 0])).min()


def test_min_distance_counts_duplicates_and_skips_rows_without_an_encoding():
    vectors = np.array([[1.0, 2.0], [np.nan, np.nan], [1.0, 2.0], [3.0, -np.inf], [0.0, 0.0], [-0.0, 0.0]])
    assert min_distance(vectors) == (0.0, 4, 4)
    assert math.isnan(min_distance(vectors[:2])[0])


def test_offset_spread_and_largest_change():
    toeplitz = np.subtract.outer(np.arange(6), np.arange(6)) ** 2.0
    assert distances.offset_spread(toeplitz) == 0
    assert distances.offset_spread(np.outer(np.arange(4.0), np.ones(4))) == 3.0  # M[i, j] = i: Δ = 0 spans 0 … 3
    assert distances.largest_change(np.array([1.0, np.nan, -np.inf]), np.array([1.5, np.nan, -np.inf])) == 0.5
    assert distances.largest_change(np.array([1.0, 2.0]), np.array([1.0, np.nan])) == math.inf


# --- sinusoidal, NoPE, learned ------------------------------------------------------------------


def test_sinusoidal_numbers_match_the_closed_form():
    length, d_model, base = 60, 16, 100.0
    found = measure("sinusoidal", length, d_model, base)
    theta = posenc.frequencies(d_model, base)
    closed = min(math.sqrt(2 * np.sum(1 - np.cos(delta * theta))) for delta in range(1, length))
    assert found.min_distance == pytest.approx(closed, rel=1e-12)
    assert found.sharing == 0 and found.measured_count == length and found.unique.startswith("✔ unique")
    assert found.offset_spread <= 1e-12 and found.length_change == 0 and found.consistent.startswith("✔")
    assert found.max_at_length == found.max_at_double == 1.0 and found.bounded.startswith("✔ does not grow")
    assert found.rebuild_difference == 0 and found.deterministic.startswith("✔")
    assert (found.built_for, found.finite_past) == (length, 1.0) and found.past.startswith("✔")


def test_odd_d_model_sinusoidal_depends_on_the_position():
    found = measure("sinusoidal", 300, 7)  # the last sine has no cosine partner: no rotation M_k
    assert found.offset_spread > 1e-7 and found.consistent.startswith("✘ depends on the position")


def test_unique_positions_are_capped_and_say_so():
    found = measure("sinusoidal", 1500, 8)
    assert found.measured_count == properties.UNIQUE_POSITIONS and "positions 0…1023" in found.unique


def test_nope_is_not_unique():
    found = measure("nope", 80)
    assert (found.min_distance, found.sharing) == (0.0, 80) and found.unique.startswith("✘ not unique")
    assert found.max_at_length == found.max_at_double == 0 and found.consistent.startswith("✔ trivially")


def test_learned_depends_on_the_position_and_ends_with_its_table():
    found = measure("learned", 100)
    assert found.offset_spread > 0.01 and found.consistent.startswith("✘ depends on the position")
    assert found.length_change == 0  # the seeded table is prefix-stable
    assert (found.built_for, found.finite_past) == (512, 0.0)
    assert found.past.startswith("✘ no encoding past position 511")
    assert found.max_at_length == np.abs(posenc.learned_absolute(100, 16)).max()


def test_learned_past_its_table_measures_the_rows_that_exist():
    found = measure("learned", 300, 8, table_size=200)
    table = posenc.learned_absolute(300, 8, table_size=200)
    assert found.measured_count == 200 and "200 with an encoding" in found.unique
    assert found.min_distance == pytest.approx(brute_min_distance(table[:200]), rel=1e-14)
    assert found.built_for == 200 and found.finite_past == 0.0 and "past position 199" in found.past


def test_a_learned_table_of_one_row_has_nothing_to_compare():
    found = measure("learned", 50, 8, table_size=1)
    assert math.isnan(found.min_distance) and found.unique.startswith("✘ fewer than two positions")
    assert found.consistent.startswith("✘ nothing to compare")


# --- RoPE -------------------------------------------------------------------------------------------


def test_rope_encodings_preserve_the_norm_and_depend_on_the_offset_only():
    rope = posenc.SCHEMES["rope"]
    np.testing.assert_allclose(np.linalg.norm(encodings(rope, 64, 16, 1e4, rope.defaults()), axis=1), 4.0, rtol=1e-14)
    found = measure("rope", 64)
    assert found.length_change == 0 and found.offset_spread <= 1e-12 and found.consistent.startswith("✔")
    assert 1 < found.max_at_length <= found.max_at_double <= math.sqrt(2) + 1e-15  # (1, 1) pairs, rotated
    assert (found.built_for, found.finite_past) == (512, 1.0) and "extrapolates" in found.past


def test_yarn_scales_the_norm():
    rope = posenc.SCHEMES["rope"]
    rows = encodings(rope, 40, 16, 1e4, rope.defaults() | {"rope_type": "yarn", "original_max_position_embeddings": 16})
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 4.0 * (0.1 * math.log(4.0) + 1), rtol=1e-14)


def test_dynamic_rope_changes_with_the_length_only_past_its_original_context():
    dynamic = {"rope_type": "dynamic", "original_max_position_embeddings": 16}
    assert measure("rope", 16, **dynamic).length_change == 0  # L and L/2 both within L₀: θ unchanged
    found = measure("rope", 64, **dynamic)
    assert found.length_change > 0.1 and found.consistent.startswith("✘ changes with the length")
    assert found.offset_spread <= 1e-12  # at one length it still depends on the offset only


# --- bias schemes -------------------------------------------------------------------------------


def test_alibi_grows_with_the_length():
    found = measure("alibi", 50, direction="bidirectional")
    assert found.max_at_length == 0.5 * 49 and found.max_at_double == 0.5 * 99  # m_0 = 1/2 for 8 heads
    assert found.bounded.startswith("✘ grows ×2.02")
    assert found.sharing == 98 and found.unique.startswith("✘")  # b(Δ) = b(−Δ) for every Δ ≠ 0


def test_causal_alibi_is_unique_on_the_offsets_it_attends():
    found = measure("alibi", 50)  # ALiBi opens causal
    assert found.measured_count == 50 and "offsets −49…0" in found.unique  # Δ > 0 is masked
    assert found.min_distance == pytest.approx(np.linalg.norm(posenc.alibi_slopes(8)), rel=1e-15)
    assert found.finite_past == 1.0 and found.past.startswith("✔")


def test_t5_buckets_and_shaw_clipping_merge_offsets():
    offsets = np.arange(-99, 100)
    _, counts = np.unique(posenc.t5_relative_bucket(offsets), return_counts=True)
    assert measure("t5", 100).sharing == counts[counts > 1].sum() > 0
    assert measure("shaw", 100).sharing == 2 * (99 - 16 + 1)  # |Δ| ≥ k = 16 share a_±k
    assert measure("shaw", 17).unique.startswith("✔ unique")  # |Δ| ≤ 16: no clipping yet


@pytest.mark.parametrize("key", list(posenc.SCHEMES))
def test_every_scheme_is_deterministic_and_spread_free_where_relative(key):
    found = measure(key, 40)
    assert found.rebuild_difference == 0 and found.deterministic.startswith("✔ identical bits")
    if posenc.SCHEMES[key].family == "bias":
        assert found.offset_spread == 0 and found.length_change == 0


def test_measure_all_and_errors():
    results = measure_all(30, 8, 1e4, {"shaw": {"max_relative_position": 2, "seed": 0}})
    assert [r.key for r in results] == list(posenc.SCHEMES)
    assert results[list(posenc.SCHEMES).index("shaw")].sharing == 2 * (29 - 2 + 1)
    with pytest.raises(ValueError, match="at least 2"):
        measure("sinusoidal", 1)
    with pytest.raises(ValueError, match="even"):
        measure("rope", 20, 15)


# --- the page -----------------------------------------------------------------------------------


NUMBER_COLUMNS = {
    "1 · min distance": "min_distance", "1 · sharing": "sharing", "2 · change L → L/2": "length_change",
    "2 · spread over p": "offset_spread", "3 · max |value| at L": "max_at_length",
    "3 · max |value| at 2L": "max_at_double", "4 · rebuild difference": "rebuild_difference",
    "5 · built for": "built_for", "5 · finite past it": "finite_past",
}


def run_page(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def row_of(table, label: str):
    return table[table["scheme"] == label].iloc[0]


def test_page_table_holds_the_measured_numbers():
    at = run_page()
    table = at.dataframe[0].value
    assert len(table) == len(posenc.SCHEMES) and at.title[0].value == "Properties"
    expected = measure_properties("sinusoidal", 100, 128, 10000.0, posenc.SCHEMES["sinusoidal"].defaults())
    row = row_of(table, posenc.SCHEMES["sinusoidal"].label)
    for column, field in NUMBER_COLUMNS.items():
        assert row[column] == getattr(expected, field), column


def test_page_uses_the_sidebar_options_for_the_chosen_scheme_only():
    query = {"scheme": "rope", "length": "64", "d_model": "16", "rope.rope_type": "dynamic",
             "rope.original_max_position_embeddings": "16"}
    table = run_page(query).dataframe[0].value
    rope = posenc.SCHEMES["rope"].defaults() | {"rope_type": "dynamic", "original_max_position_embeddings": 16}
    assert row_of(table, posenc.SCHEMES["rope"].label)["2 · change L → L/2"] == \
        measure_properties("rope", 64, 16, 10000.0, rope).length_change > 0
    assert row_of(table, posenc.SCHEMES["learned"].label)["5 · built for"] == 512


def test_page_measures_every_scheme_at_the_nearest_width_they_all_take():
    at = run_page({"d_model": "15", "length": "20"})
    table = at.dataframe[0].value
    assert len(table) == len(posenc.SCHEMES) and not at.error
    assert row_of(table, posenc.SCHEMES["rope"].label)["1 · unique"].startswith("✔")
    assert any("using d_model=14" in i.value for i in at.info)


@pytest.mark.parametrize("key, options", [
    ("sinusoidal", {}), ("learned", {"table_size": 700}), ("nope", {}),
    ("rope", {"rope_type": "dynamic", "factor": 2.0}), ("rope", {"rope_type": "yarn", "original_max_position_embeddings": 600}),
])
def test_block_by_block_scan_equals_whole_builds(key, options):
    """Several SCAN_ROWS blocks (length 1300): the block-by-block numbers equal those of whole tables."""
    length, d_model, scheme = 1300, 8, posenc.SCHEMES[key]
    assert length > 2 * properties.SCAN_ROWS
    options = scheme.defaults() | options
    found = measure_properties(key, length, d_model, 1e4, options)
    at_length, at_double = encodings(scheme, length, d_model, 1e4, options), encodings(scheme, 2 * length, d_model, 1e4, options)
    assert found.max_at_length == distances.max_abs(at_length) and found.max_at_double == distances.max_abs(at_double)
    assert found.rebuild_difference == 0 and found.deterministic.startswith("✔")
    built, _ = properties.built_length(scheme, length, options)
    if built == length:
        assert found.finite_past == np.isfinite(at_double[length:]).all(axis=1).mean()
    head = at_length[:properties.UNIQUE_POSITIONS]
    assert (found.min_distance, found.sharing, found.measured_count) == min_distance(head)


def test_page_names_every_relative_scheme_it_measures_on_offsets():
    """The note listed Shaw, T5 and ALiBi; KERPLE and Transformer-XL are measured on b(Δ) too."""
    note = run_page({"length": "40", "d_model": "16"}).info[0].value
    listed = note.split("Relative schemes (")[1].split(")")[0].split(", ")
    assert listed == [s.short_label for s in posenc.SCHEMES.values() if s.family == "bias"]
    assert "(Shaw, T5 bias, ALiBi, KERPLE, Transformer-XL)" in note
    # their b(Δ) is for one fixed query (the registry's reads_query): the note said nothing of it
    assert "(Shaw's and Transformer-XL's for one fixed seeded unit query: their terms read the query too)." in note


def test_a_learned_table_s_larger_maximum_at_2l_is_said_to_be_more_draws_not_growth():
    """The untrained learned table's max |value| is larger at 2L only because 2L rows hold more random draws:
    the verdict said '≈ grows slowly (×1.14 when the length doubles)', a growth with position it does not have."""
    learned = properties.measure_properties("learned", 100, 128, 1e4, posenc.get_scheme("learned").defaults())
    assert learned.max_at_double > learned.max_at_length  # more draws, a larger largest one
    assert learned.bounded.startswith("≈ ×") and "the largest of more random rows" in learned.bounded
    assert "grows" not in learned.bounded
    sinusoidal = properties.measure_properties("sinusoidal", 100, 128, 1e4, posenc.get_scheme("sinusoidal").defaults())
    assert sinusoidal.bounded.startswith("✔ does not grow")
    xpos = properties.measure_properties("xpos", 100, 128, 1e4, posenc.get_scheme("xpos").defaults())
    assert "random rows" not in xpos.bounded  # its scale ζ^(p̂/γ) does grow with the centred position
    # Transformer-XL's term is bounded (sines and cosines times fixed weights): a larger maximum over more
    # distances is no growth; two lengths cannot tell, so the verdict names no growth
    txl = properties.measure_properties("transformer_xl", 100, 128, 1e4,
                                        posenc.get_scheme("transformer_xl").defaults())
    assert txl.bounded.startswith("≈ a little larger at 2L (×") and "grows" not in txl.bounded
