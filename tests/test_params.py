"""URL and widget values: nearest valid value, and a sentence saying what was used."""

import pytest

from posenc.params import MAX_D_MODEL, MAX_LENGTH, SHARED_CONTROLS, parse_option
from posenc.scheme import Option

D_MODEL, BASE, LENGTH = SHARED_CONTROLS
LAYOUT = Option("layout", "layout", "interleaved", choices=("interleaved", "split"))


@pytest.mark.parametrize(
    ("option", "raw", "value", "warning"),
    [
        (D_MODEL, None, 128, None),
        (D_MODEL, "64", 64, None),
        (D_MODEL, "64.0", 64, None),
        (D_MODEL, "abc", 128, "d_model='abc' is not a number; using the default 128."),
        (D_MODEL, "1000000000", MAX_D_MODEL, f"d_model=1000000000 is outside 2 … {MAX_D_MODEL}; using {MAX_D_MODEL}."),
        (D_MODEL, "0", 2, "d_model=0 is outside 2 … 1024; using 2."),
        (D_MODEL, "64.6", 65, "d_model=64.6 must be a whole number; using 65."),
        (D_MODEL, "nan", 128, "d_model='nan' is not a number; using the default 128."),
        (LENGTH, "1000000000", MAX_LENGTH, f"length=1000000000 is outside 2 … {MAX_LENGTH}; using {MAX_LENGTH}."),
        (LENGTH, "-inf", 2, "length=-inf is outside 2 … 4096; using 2."),
        (BASE, "0", 1.0, "n=0 is outside 1.0 … 1000000000.0; using 1.0."),
        (BASE, "1e4", 10000.0, None),
        (BASE, "2.5", 2.5, None),
        (LAYOUT, "split", "split", None),
        (LAYOUT, "<script>alert(1)</script>", "interleaved",
         "layout='<script>alert(1)</script>' is not one of interleaved, split; using interleaved."),
    ],
)
def test_parse_option(option, raw, value, warning):
    assert parse_option(option, raw) == (value, warning)
    assert type(parse_option(option, raw)[0]) is type(value)


def test_long_values_are_shortened_in_the_message():
    _, warning = parse_option(D_MODEL, "x" * 500)
    assert len(warning) < 120 and "…" in warning
