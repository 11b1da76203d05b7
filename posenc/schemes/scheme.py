"""The shape of one entry in the scheme registry.

Every positional scheme is described by one :class:`Scheme`. Pages, the
comparison view, the properties table and the tests loop over the registry
(``posenc.SCHEMES``); adding a scheme is adding one entry in the module that
implements it.

All callables share one signature::

    fn(length: int, d_model: int, base: float, **options) -> ...

where ``options`` are the scheme's own parameters, declared in ``options`` with
their defaults and ranges so that the app can draw a control for each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

Family = Literal["absolute", "bias", "rotary"]
"""absolute: a (length, d_model) table added to the embeddings;
bias: a (heads, length, length) term added to the attention logits;
rotary: queries and keys are rotated before the dot product."""


@dataclass(frozen=True)
class Option:
    """One scheme-specific parameter, e.g. the number of heads of ALiBi.

    ``choices`` makes it a selection; otherwise it is a number in
    [minimum, maximum] (an int when ``default`` is an int).
    """

    name: str
    label: str
    default: int | float | str
    minimum: int | float | None = None
    maximum: int | float | None = None
    choices: tuple[str, ...] = ()
    help: str = ""


@dataclass(frozen=True)
class Scheme:
    """A positional scheme: its formula, its numbers and the curve they share.

    - ``table``: the (length, d_model) additive encoding (absolute schemes).
    - ``bias``: the (heads, length, length) attention-logit bias (bias schemes).
    - ``offset_bias``: (offsets, values) with values (heads, 2·length − 1), the bias of
      every head as a function of j − i (bias schemes, whose bias depends only on the
      offset): B[h, i, j] = values[h, j − i + length − 1]. Pages draw large bias matrices
      from it without building (heads, length, length).
    - ``offset_curve``: (offsets, values), how the attention logit bias (or the
      similarity of two encodings) depends on the offset j - i; the one curve
      every scheme has, drawn side by side on the comparison page.
    - ``rotate``: ``rotate(x, positions, base, *, key=False, seq_len=None, **options)``, x of shape
      (..., length, d) turned (and for xPos scaled) at ``positions`` as a query, or as a key with
      ``key=True`` (rotary schemes): q'·k' is then the scheme's score.
    """

    key: str
    label: str
    family: Family
    paper: str
    formula: Callable[..., str]
    offset_curve: Callable[..., tuple[np.ndarray, np.ndarray]]
    curve_label: str
    table: Callable[..., np.ndarray] | None = None
    bias: Callable[..., np.ndarray] | None = None
    offset_bias: Callable[..., tuple[np.ndarray, np.ndarray]] | None = None
    rotate: Callable[..., np.ndarray] | None = None
    options: tuple[Option, ...] = field(default=())
    value_range: tuple[float, float] | None = None  # fixed colour range of the table, e.g. (−1, 1)

    def defaults(self) -> dict[str, int | float | str]:
        """The default value of every option, by name."""
        return {o.name: o.default for o in self.options}


def latex_number(value: float) -> str:
    """A number for a formula: 10000.0 -> '10000', 41830.2 -> '41830', 1.13863 -> '1.13863' (no exponents)."""
    value = float(value)
    if value.is_integer() or 1e4 <= abs(value) < 1e15:
        return f"{value:.0f}"
    return f"{value:.6g}"
