"""The Streamlit layer's table of scheme views: one entry per registry key, and what each entry says."""

from __future__ import annotations

from dataclasses import replace

import pytest

import posenc
from posenc.ui import shift_check
from posenc.ui.scheme_views import SCHEME_VIEWS, SchemeViews, views_of


def test_every_registry_key_has_one_entry_in_its_order():
    assert list(SCHEME_VIEWS) == list(posenc.SCHEMES)


def test_rotation_checks_follow_the_schemes_math():
    """The table check where the scheme has a table with a rotation M_k; the score's check where the registry
    can rotate; nothing otherwise."""
    for key, views in SCHEME_VIEWS.items():
        scheme = posenc.get_scheme(key)
        if scheme.rotate is not None:
            assert isinstance(views.rotation, shift_check.ShiftCheck), key
        elif views.rotation == "table":
            assert scheme.family == "absolute" and posenc.apply_rotation is not None, key
        else:
            assert views.rotation is None, key
    assert SCHEME_VIEWS["sinusoidal"].rotation == "table"


def test_the_derivation_computes_vaswanis_layout_only():
    sinusoidal = SCHEME_VIEWS["sinusoidal"].derived
    assert sinusoidal({"layout": "interleaved", "spacing": "vaswani"})
    assert not sinusoidal({"layout": "split", "spacing": "vaswani"})
    assert not sinusoidal({"layout": "interleaved", "spacing": "tensor2tensor"})
    assert [key for key, views in SCHEME_VIEWS.items() if views.derived(posenc.get_scheme(key).defaults())] == [
        "sinusoidal"]


def test_matrix_notes_name_what_the_matrix_holds():
    for key in SCHEME_VIEWS:
        views, family = views_of(key), posenc.get_scheme(key).family
        if family == "bias":
            assert "attention logit" in views.matrix_note, key
        elif family == "rotary":
            assert views.matrix_note.startswith(posenc.get_scheme(key).label), key
    assert "decays" in views_of("xpos").matrix_note and "decays" not in views_of("rope").matrix_note
    assert views_of("learned").matrix_note == "" and views_of("alibi").matrix_note == views_of("t5").matrix_note


def test_a_rotation_without_its_matrix_note_is_named(monkeypatch):
    monkeypatch.setitem(SCHEME_VIEWS, "rope", SchemeViews(SCHEME_VIEWS["rope"].how_it_works))
    with pytest.raises(ValueError, match="'rope'.s views have no matrix_note"):
        views_of("rope")


def test_a_bias_that_reads_the_query_says_so_from_its_record():
    """The registry's reads_query (Shaw, Transformer-XL) and nothing else decides which bias notes say the matrix
    is for one fixed query; the others say it depends only on the offset."""
    for key in SCHEME_VIEWS:
        entry, note = posenc.get_scheme(key), views_of(key).matrix_note
        if entry.reads_query:
            assert "depends on the query" in note and "one fixed seeded unit query q" in note, key
            assert "depends only on the offset" not in note and "fixed unit query" in entry.curve_label, key
        elif entry.family == "bias":
            assert "depends only on the offset" in note and "query" not in note, key
    assert [k for k, s in posenc.SCHEMES.items() if s.reads_query] == ["shaw", "transformer_xl"]


def test_a_bias_that_reads_the_query_without_its_own_note_is_named(monkeypatch):
    monkeypatch.setitem(SCHEME_VIEWS, "shaw", SchemeViews(SCHEME_VIEWS["shaw"].how_it_works))
    with pytest.raises(ValueError, match="'shaw' reads the query: its views' matrix_note says how"):
        views_of("shaw")


def test_a_record_that_reads_the_query_is_a_bias_drawn_for_a_fixed_query():
    shaw = posenc.get_scheme("shaw")
    with pytest.raises(ValueError, match="'shaw' reads the query: a bias scheme whose curve_label"):
        replace(shaw, curve_label="q·a_clip(Δ)/√d")
    with pytest.raises(ValueError, match="'rope' reads the query"):
        replace(posenc.get_scheme("rope"), reads_query=True)
