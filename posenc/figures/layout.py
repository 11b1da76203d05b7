"""The shared look of every posenc figure, as plain dicts validated once by ``go.Figure(spec)``.

plotly validates every property it is given. Built step by step (``update_layout``,
``update_xaxes``, ``add_trace``, ``make_subplots``), a figure walks its property paths
hundreds of times: 30–170 ms per figure, most of a rerun's cost when a slider changes every
figure. The same figure given whole, as one dict, is validated in about a millisecond. The
palette (Okabe–Ito, colour-blind safe) and the fonts, grid and margins are defined here once.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

FONT = dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif", size=15)
GRID = dict(gridcolor="#e3e6ec", zerolinecolor="#c5cad3", linecolor="#c5cad3")


def base_layout(title: str, height: int = 420) -> dict:
    """The shared look: an empty template plus a few explicit colours (a full template such
    as plotly_white is re-validated for every figure, ~30 ms)."""
    return dict(
        title=dict(text=title, x=0, xanchor="left"), font=FONT, height=height,
        margin=dict(l=70, r=30, t=70, b=60), template="none", paper_bgcolor="white", plot_bgcolor="white",
        legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1),
        xaxis=dict(GRID), yaxis=dict(GRID),
    )


def axis(title: str | None = None, **settings) -> dict:
    """An axis with the shared grid colours and an optional title."""
    return dict(GRID, **({"title": dict(text=title)} if title else {}), **settings)


# A log axis over at most this many decades is labelled at every decade (see log_axis).
DECADES_LABELLED = 6


def log_axis(title: str | None, *values, **settings) -> dict:
    """A log axis (powers of ten written 10³) for ``values`` (arrays; zeros, negatives and NaN are not drawn
    on it and are ignored).

    When they span 1 to DECADES_LABELLED decades, the labels are the decades alone, with unlabelled grid lines
    at 2 and 5 times each. Left to itself, plotly labels those 2s and 5s (or every digit) too, in small digits
    close under the decade's label: with presenter mode's larger text, or a short chart, a "2" lay on the
    exponent of "10⁴" (the wavelength charts, a model's reach). Values all equal (the rotation check's exact
    zeros, drawn at 1e−18; every layer of a model seeing its whole context) get the same labels over the
    decade on either side of them, and values spanning less than a decade (Mistral's layers, 4,096 to 32,768)
    over the whole decades around them: plotly's range there, padded or from a bar's foot, spans a decade or
    more and it labels digits. Values over more than DECADES_LABELLED decades keep plotly's own ticks: every
    few decades."""
    spec = axis(title, type="log", exponentformat="power", **settings)
    drawn = np.concatenate([np.ravel(np.asarray(v, dtype=np.float64)) for v in values]) if values else np.array([])
    drawn = drawn[np.isfinite(drawn) & (drawn > 0)]
    if not drawn.size:
        return spec
    low, high = math.log10(drawn.min()), math.log10(drawn.max())
    if high - low < 1e-9:
        spec.update(range=[low - 1, high + 1])
    elif high - low < 1:  # a point on a decade stays off the edge
        spec.update(range=[math.floor(low - 0.02), math.ceil(high + 0.02)])
    elif high - low > DECADES_LABELLED:
        return spec
    spec.update(dtick=1, minor=dict(dtick="D2", showgrid=True))
    return spec


def figure(data: list[dict], layout: dict) -> go.Figure:
    """One validation of the whole figure."""
    return go.Figure(dict(data=data, layout=layout))


def domains(count: int, spacing: float, reverse: bool = False) -> list[list[float]]:
    """[start, end] of ``count`` equal cells of [0, 1] with ``spacing`` between them, as make_subplots
    lays them out (``reverse``: the first cell at the top, for rows)."""
    size = (1.0 - spacing * (count - 1)) / count
    cells = [[n * (size + spacing), n * (size + spacing) + size] for n in range(count)]
    return cells[::-1] if reverse else cells


def suffix(n: int) -> str:
    """Axis suffix of the n-th subplot (1-based): '' for the first, then '2', '3', …"""
    return "" if n == 1 else str(n)


_SUBSCRIPTS = str.maketrans("0123456789-", "₀₁₂₃₄₅₆₇₈₉₋")


def subscript(value: int) -> str:
    """A whole number as Unicode subscript digits, for text plotly and Streamlit print as it is: 12 -> '₁₂'
    (θ₁₂, not the raw TeX θ_12)."""
    return str(int(value)).translate(_SUBSCRIPTS)


def scientific(value: float, digits: int = 2) -> str:
    """``value`` to ``digits`` significant digits as a reader reads it: 2.2e−16 (a true minus, no "+" or leading
    zero in the exponent), 0.0123, 0."""
    if value == 0:
        return "0"
    mantissa, _, exponent = f"{value:.{digits}g}".partition("e")
    text = f"{mantissa}e{int(exponent)}" if exponent else mantissa
    return text.replace("-", "−")


def subplot_title(text: str, x_domain: list[float], y_top: float) -> dict:
    """A subplot title centred above its cell, as make_subplots writes it."""
    return dict(text=text, x=(x_domain[0] + x_domain[1]) / 2, y=y_top, xref="paper", yref="paper",
                xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=15))


PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")  # Okabe–Ito
