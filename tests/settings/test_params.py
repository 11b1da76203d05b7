"""URL and widget values: nearest valid value, the reason, and URL text made inert."""

import pytest

from posenc.schemes.scheme import Option
from posenc.settings.parsing import MAX_D_MODEL, MAX_LENGTH, SHARED_CONTROLS, code_span, parse_option, parse_selection

D_MODEL, BASE, LENGTH = SHARED_CONTROLS
LAYOUT = Option("layout", "layout", "interleaved", choices=("interleaved", "split"))
K = Option("k", "k", 1, -99, 0)  # a range that moved: pos is at the end, so k ≤ 0


@pytest.mark.parametrize(
    ("option", "raw", "value", "reason"),
    [
        (D_MODEL, None, 128, None),
        (D_MODEL, "64", 64, None),
        (D_MODEL, " 64.0 ", 64, None),
        (D_MODEL, "٦٤", 64, None),  # Unicode digits are digits (Python's float, and Streamlit's)
        (D_MODEL, "abc", 128, "is not a number"),
        (D_MODEL, "", 128, "is empty"),
        (D_MODEL, "1000000000", MAX_D_MODEL, "is outside 2 … 1024"),
        (D_MODEL, "0", 2, "is outside 2 … 1024"),
        (D_MODEL, "64.6", 64, "must be a whole number"),  # toward zero, as the slider's URL binding reads it
        (D_MODEL, "nan", 128, "is not a number"),
        (D_MODEL, "inf", MAX_D_MODEL, "is outside 2 … 1024"),
        (LENGTH, "1000000000", MAX_LENGTH, "is outside 2 … 4096"),
        (LENGTH, "-inf", 2, "is outside 2 … 4096"),
        (BASE, "0", 1.0, "is outside 1 … 1e+09"),
        (BASE, "1e4", 10000.0, None),
        (BASE, "2.5", 2.5, None),
        (K, None, 0, None),  # the default, clamped into the moved range without a warning
        (K, "-5", -5, None),
        (LAYOUT, "split", "split", None),
        (LAYOUT, "", "interleaved", "is empty"),
        (LAYOUT, "<script>alert(1)</script>", "interleaved", "is not one of ` interleaved `, ` split `"),
    ],
)
def test_parse_option(option, raw, value, reason):
    assert parse_option(option, raw) == (value, reason)
    assert type(parse_option(option, raw)[0]) is type(value)


def test_a_reason_never_repeats_the_raw_text():
    for raw in ("[x](https://evil.example)", "**b**", ":red[x]", "<b>x</b>"):
        for option in (*SHARED_CONTROLS, LAYOUT):
            _, reason = parse_option(option, raw)
            assert raw not in reason


def test_selection_keeps_valid_whole_numbers_in_order_without_repeats():
    chosen, reasons = parse_selection(["4", "x", "4", "1e9", "5", "6"], range(8), 2)
    assert chosen == [4, 5]
    assert reasons == ["` x ` is not a whole number in 0 … 7", "` 4 ` is repeated",
                       "` 1e9 ` is not a whole number in 0 … 7", "` 6 ` is past the first 2"]


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("abc", "` abc `"),
        ("a`b", "`` a`b ``"),
        ("``", "``` `` ```"),
        ("a\n\nb", "` a\\n\\nb `"),  # a blank line would end the span and render the rest
        ("x" * 50, "` " + "x" * 40 + "… `"),
    ],
)
def test_code_span_is_literal_and_short(text, span):
    assert code_span(text) == span


def test_fixes_are_overrides_of_registered_schemes():
    """settings.constraints.FIXES: an entry for each scheme that refuses some combinations of its controls, and
    only for a registered one (issue 36: a table for overrides only; the others accept every combination)."""
    import posenc
    from posenc.settings.constraints import FIXES

    assert set(FIXES) <= set(posenc.SCHEMES) and all(callable(fix) for fix in FIXES.values())
