"""The shape of one entry in the scheme registry.

Every positional scheme is described by one :class:`Scheme`. Pages, the
comparison view, the properties table and the tests loop over the registry
(``posenc.SCHEMES``); adding a scheme is adding one entry in the module that
implements it.

The registry's callables (``table``, ``bias``, ``offset_bias``, ``offset_curve``) keep the library's
signature, ``fn(length: int, d_model: int, base: float, **options) -> ...``, where ``options`` are the
scheme's own parameters, declared in ``options`` with their defaults and ranges so that the app can
draw a control for each. The facts the analysis reads (``cells``, ``column_wavelengths``, ``encoding``,
``measured_on``) take one :class:`Setting` and default by family, so an entry states only what differs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
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
class Setting:
    """One setting of a scheme: the length, the model width, θ's base and the scheme's options by name
    (read-only). Every per-scheme fact of the analysis is a function of one Setting."""

    length: int
    d_model: int
    base: float
    options: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))


def _no_period(setting: Setting) -> None:
    """Columns without a period (every scheme but the sinusoidal table)."""
    return None


_MEASURED_ON = {
    "absolute": "table row p",
    "rotary": "R_p·(1, …, 1): the all-ones vector rotated to p",
    "bias": "biases of all heads at offset Δ (no vector per position)",
}
"""What the Properties page's criteria measure, by family (a scheme's ``measured_on`` by default)."""


@dataclass(frozen=True)
class Scheme:
    """A positional scheme: its formula, its numbers and the curve they share.

    - ``table``: the (length, d_model) additive encoding (absolute schemes).
    - ``bias``: the (heads, length, length) attention-logit bias (bias schemes).
    - ``offset_bias``: (offsets, values) with values (heads, 2·length − 1), the bias of
      every head as a function of j − i (bias schemes, whose bias depends only on the
      offset, or for one fixed query where it ``reads_query``): B[h, i, j] = values[h, j − i + length − 1].
      Pages draw large bias matrices from it without building (heads, length, length).
    - ``reads_query``: the bias reads the query as well as the offset (Shaw's q_i·a_clip(j−i),
      Transformer-XL's q_i·W_R Rᵢ₋ⱼ), so its numbers are for one fixed seeded unit query and its
      ``curve_label`` says so; the pages' notes and sentences about the bias are built from it.
    - ``offset_curve``: (offsets, values), how the attention logit bias (or the
      similarity of two encodings) depends on the offset j - i; the one curve
      every scheme has, drawn side by side on the comparison page.
    - ``rotate``: ``rotate(x, positions, base, *, key=False, seq_len=None, **options)``, x of shape
      (..., length, d) turned (and for xPos scaled) at ``positions`` as a query, or as a key with
      ``key=True`` (rotary schemes): q'·k' is then the scheme's score.

    What the analysis reads, each a function of a :class:`Setting` (the options complete), filled in
    by family when the entry leaves it out:

    - ``offset_curve_at(setting, offsets)``: ``offset_curve``'s values at chosen whole offsets only
      (|Δ| < length, as far as 2^24), (len(offsets),) float64, from the curve's formula per offset, with
      no table nor length × length matrix (every entry states it);
    - ``offset_curve_fast(setting)``: ``offset_curve``'s (offsets, values) by a faster route, the same
      numbers to rounding (a closed form; by default ``offset_curve`` itself);
    - ``checks_own_options``: its callables name an unknown option themselves (RoPE's accept the
      parameters of every scaling), so :func:`posenc.analysis.offset_curves.offset_curve_at` leaves them to it;
    - ``cells(setting, rows, cols)``: ``table(...)[np.ix_(rows, cols)]`` as float64, rows and cols checked
      (absolute schemes; by default cut from the built table);
    - ``column_wavelengths(setting)``: the period 2π/θ of each column of the table, (d_model,), or None
      (by default: no period);
    - ``encoding(setting, positions)``: the vectors e(p), (len(positions), d_model) float64, that the
      Properties page measures: rows of the table (absolute), the all-ones vector turned by ``rotate`` as a
      query (rotary), none (bias: a ValueError);
    - ``measured_on``: what e(p) is, in words (by default the family's sentence);
    - ``short_label``: its name in a chart's legend, e.g. "RoPE" (by default the label).
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
    offset_curve_at: Callable[[Setting, np.ndarray], np.ndarray] | None = None
    offset_curve_fast: Callable[[Setting], tuple[np.ndarray, np.ndarray]] | None = None
    checks_own_options: bool = False
    cells: Callable[[Setting, np.ndarray, np.ndarray], np.ndarray] | None = None
    column_wavelengths: Callable[[Setting], np.ndarray | None] = _no_period
    encoding: Callable[[Setting, np.ndarray], np.ndarray] | None = None
    measured_on: str = ""
    short_label: str = ""
    reads_query: bool = False

    def __post_init__(self) -> None:
        if self.offset_curve_at is None:
            raise ValueError(f"The scheme {self.key!r} has no offset_curve_at: its curve at chosen offsets.")
        if self.reads_query and (self.family != "bias" or "fixed unit query" not in self.curve_label):
            raise ValueError(f"The scheme {self.key!r} reads the query: a bias scheme whose curve_label says it is "
                             "drawn 'for one fixed unit query'.")
        family_default = {
            "offset_curve_fast": self._registry_curve,
            "cells": self._cells_of_table if self.family == "absolute" else None,
            "encoding": {"absolute": self._table_rows, "rotary": self._rotated_ones, "bias": self._no_vector}[self.family],
            "measured_on": _MEASURED_ON[self.family],
            "short_label": self.label,
        }
        for name, value in family_default.items():
            if not getattr(self, name):
                object.__setattr__(self, name, value)

    def _registry_curve(self, setting: Setting) -> tuple[np.ndarray, np.ndarray]:
        return self.offset_curve(setting.length, setting.d_model, setting.base, **setting.options)

    def _cells_of_table(self, setting: Setting, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        table = self.table(setting.length, setting.d_model, setting.base, **setting.options)
        return np.asarray(table, dtype=np.float64)[np.ix_(rows, cols)]

    def _table_rows(self, setting: Setting, positions: np.ndarray) -> np.ndarray:
        """Rows of table(length, …) (NaN: no row)."""
        table = np.asarray(self.table(setting.length, setting.d_model, setting.base, **setting.options),
                           dtype=np.float64)
        return table[positions]

    def _rotated_ones(self, setting: Setting, positions: np.ndarray) -> np.ndarray:
        """The all-ones vector turned to each position as a query, with the sequence length passed on
        (dynamic NTK depends on it; xPos scales a query by ζ_i^(p̂/γ), p̂ centred on the length)."""
        ones = np.ones((len(positions), setting.d_model))
        return self.rotate(ones, positions, setting.base, seq_len=setting.length, **setting.options)

    def _no_vector(self, setting: Setting, positions: np.ndarray) -> np.ndarray:
        raise ValueError(f"{self.label} adds no vector per position: it encodes offsets in the attention logits.")

    def defaults(self) -> dict[str, int | float | str]:
        """The default value of every option, by name."""
        return {o.name: o.default for o in self.options}


def latex_number(value: float) -> str:
    """A number for a formula: 10000.0 -> '10000', 41830.2 -> '41830', 1.13863 -> '1.13863' (no exponents)."""
    value = float(value)
    if value.is_integer() or 1e4 <= abs(value) < 1e15:
        return f"{value:.0f}"
    return f"{value:.6g}"
