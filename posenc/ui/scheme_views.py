"""What the pages show of each scheme, found by the scheme's registry key: the Streamlit layer's one table.

A page asks :func:`views_of` for the sidebar's scheme instead of testing its name: its How it works view,
the sentence under its matrix, its rotation check, whether the step-by-step derivation computes it. A new scheme
adds its view (in ``posenc/ui/how_it_works/``) and one entry here; ``tests/ui/test_scheme_views.py`` checks
that every registry key has one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import posenc
from posenc.ui import shift_check
from posenc.ui.how_it_works import absolute, bias, rotary
from posenc.ui.sidebar import Controls


def _not_derived(options: Mapping[str, object]) -> bool:
    """A scheme the step-by-step derivation does not compute, whatever its options."""
    return False


def _as_vaswani_wrote_it(options: Mapping[str, object]) -> bool:
    """The derivation's formula: interleaved (sin, cos) pairs, θᵢ = n^(−2i/d) (Vaswani et al. 2017)."""
    return options.get("layout") != "split" and options.get("spacing") != "tensor2tensor"


_ALL_ONES = "q = k = (1, …, 1)".replace(" ", "\u00a0")  # no-break spaces: a wrapped title keeps it on one line


@dataclass(frozen=True)
class SchemeViews:
    """A scheme's views. ``matrix_note``: the sentence under the Encoding matrix page's chart (None: its
    family's, :data:`FAMILY_NOTES`; a rotation states its own).
    ``rotation``: "table" (PE[pos+k] = M_k·PE[pos] on the table), a :class:`~posenc.ui.shift_check.ShiftCheck`
    (the score's shift check of a rotary scheme) or None (the check does not apply).
    ``derived``: whether the step-by-step derivation computes this scheme with these options.
    ``score_title``: the title of a rotary scheme's matrix, naming the score drawn (the scheme's offset curve)."""

    how_it_works: Callable[[Controls], None]
    matrix_note: str | None = None
    score_title: str = f"q·k / d_model after rotation, {_ALL_ONES}"
    rotation: str | shift_check.ShiftCheck | None = None
    derived: Callable[[Mapping[str, object]], bool] = _not_derived


_BIAS_NOTE = ("The term this scheme adds to the attention logit e_ij before the softmax. It depends only on the "
              "offset j − i, so every diagonal is constant.")
FAMILY_NOTES = {"absolute": "", "bias": _BIAS_NOTE}
"""The sentence under the matrix, by family, for an entry that states none."""
_FIXED_QUERY = (" It is drawn for one fixed seeded unit query q, the same in every row, so here every diagonal is "
                "constant; another query would draw other values.")
_SHAW_NOTE = ("The term Shaw et al. add to the attention logit e_ij: a learned vector a_clip(j−i) is added to the key, "
              "so the term, q_i·a_clip(j−i)/√d, depends on the query as well as on the offset j − i. The vectors a "
              "are untrained (seeded); offsets beyond ±k share a_−k and a_k.")
_TRANSFORMER_XL_NOTE = ("The positional part of the attention logit e_ij, (q_i·W_R Rᵢ₋ⱼ + v·W_R Rᵢ₋ⱼ)/√d, with v and W_R "
                        "untrained (seeded): its first term depends on the query as well as on the offset. The content "
                        "terms q_i·k_j and u·k_j need real tokens and are not drawn.")
_ROTARY_NOTE = ("{label} adds nothing to the embeddings: it rotates queries and keys{also}. Their dot product then "
                "depends only on the offset between them, so every diagonal is constant{decay}.")

SCHEME_VIEWS: dict[str, SchemeViews] = {
    "sinusoidal": SchemeViews(absolute.sinusoidal, "Pair i of columns (2i and 2i + 1 interleaved; i and i + d/2 in "
                              "the split layout, sines then cosines) turns by θᵢ a position: small i oscillate fast, "
                              "large i change slowly, so together they count positions like the hands of a clock.",
                              rotation="table", derived=_as_vaswani_wrote_it),
    "learned": SchemeViews(absolute.learned),
    "nope": SchemeViews(absolute.nope),
    "rope": SchemeViews(rotary.rope, _ROTARY_NOTE.format(label="RoPE (rotary)", also="", decay=""),
                        rotation=shift_check.ROPE),
    "xpos": SchemeViews(rotary.xpos, _ROTARY_NOTE.format(
        label="xPos (rotary, decaying)", also=" and scales them, the query by ζᵢ^(m/γ) and the key by ζᵢ^(−n/γ)",
        decay=", and it decays as the offset grows"), rotation=shift_check.XPOS,
                        score_title=f"q'·k' / d_model after rotation and scaling, {_ALL_ONES}"),
    "shaw": SchemeViews(bias.shaw, _SHAW_NOTE),
    "t5": SchemeViews(bias.t5),
    "alibi": SchemeViews(bias.alibi),
    "kerple": SchemeViews(bias.kerple),
    "transformer_xl": SchemeViews(bias.transformer_xl, _TRANSFORMER_XL_NOTE),
}
"""registry key -> the scheme's views, in the registry's order, stating what differs from its family's."""


def views_of(scheme: str) -> SchemeViews:
    """The scheme's views with its family's sentence filled in, or a ValueError naming what is missing."""
    entry = posenc.get_scheme(scheme)
    if entry.key not in SCHEME_VIEWS:
        raise ValueError(f"The scheme {entry.key!r} has no views (posenc.ui.scheme_views.SCHEME_VIEWS).")
    own = SCHEME_VIEWS[entry.key]
    note = own.matrix_note if own.matrix_note is not None else FAMILY_NOTES.get(entry.family)
    if note is None:
        raise ValueError(f"The scheme {entry.key!r}'s views have no matrix_note: a {entry.family} scheme states it.")
    if entry.reads_query:  # the family's note says "depends only on the offset": the scheme says how it reads q
        if own.matrix_note is None:
            raise ValueError(f"The scheme {entry.key!r} reads the query: its views' matrix_note says how.")
        note += _FIXED_QUERY
    return replace(own, matrix_note=note)
