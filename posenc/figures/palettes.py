"""Colour palettes a reader can pick for every chart (``?palette=``), applied to a figure's dict.

Figures are built once in the default colours (posenc/figures/layout.py: Okabe–Ito for series; heatmaps in
ColorBrewer's RdBu when centred on 0, Viridis otherwise) and shared between sessions; :func:`recolour`
swaps those colours on a copy, so one cached figure serves every palette. Each palette is safe for the
common colour-vision deficiencies (protanopia, deuteranopia, tritanopia):

- ``cividis``: every heatmap in Cividis (Nuñez, Anderton & Renslow 2018, PLoS ONE 13(7): e0199239: made to
  look the same to a reader with deuteranopia and to read in greyscale, its lightness rising evenly), and
  the series in colours taken along Cividis, so that lightness alone tells them apart (a printed paper).
- ``purple-orange``: heatmaps centred on 0 in ColorBrewer's PuOr (orange below 0, purple above; listed by
  ColorBrewer as colour-blind safe, and without the red–green pair), the others in Cividis; the series in
  Paul Tol's "bright" qualitative scheme (Tol 2021, "Colour schemes", SRON/EPS/TN/09-002).

Black (Okabe–Ito's eighth colour, the references and marks) stays black in every palette.
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.colors

from posenc.figures import heatmaps
from posenc.figures.layout import PALETTE


@dataclass(frozen=True)
class Palette:
    """The colours a palette gives: a heatmap centred on 0, any other heatmap, and eight series colours
    (index n replaces Okabe–Ito's n-th)."""

    label: str
    diverging: str
    sequential: str
    series: tuple[str, ...]


DEFAULT = "default"
TOL_BRIGHT = ("#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB", "#000000")
# Cividis at 0, 0.8, 0.45, 0.2, 0.65, 0.1, 0.55: neighbours in the series far apart in lightness (the first two,
# the most drawn, at the dark end and near the light one), and no pale yellow end on a white page
CIVIDIS_SERIES = tuple(plotly.colors.sample_colorscale("Cividis", [0.0, 0.8, 0.45, 0.2, 0.65, 0.1, 0.55])) + ("#000000",)
PALETTES = {
    DEFAULT: Palette("default (RdBu, Viridis, Okabe–Ito)", heatmaps.DIVERGING, "Viridis", PALETTE),
    "cividis": Palette("cividis (sequential)", "Cividis", "Cividis", CIVIDIS_SERIES),
    "purple-orange": Palette("purple-orange (diverging)", "PuOr", "Cividis", TOL_BRIGHT),
}


def _colour(text: str) -> str:
    """A colour as one spelling: '#d55e00', 'rgb(5,48,97)'."""
    return text.replace(" ", "").lower()


# a built figure's scale, known by its first stop: what kind of data it colours
_KINDS = {_colour(plotly.colors.get_colorscale(heatmaps.DIVERGING)[0][1]): "diverging",
          _colour(plotly.colors.get_colorscale("Viridis")[0][1]): "sequential"}


def _scale_kind(trace: dict) -> str | None:
    scale = trace.get("colorscale")
    if not isinstance(scale, (list, tuple)) or not scale:
        return None
    return _KINDS.get(_colour(str(scale[0][1])))


def _recolour_heatmap(trace: dict, palette: Palette) -> None:
    kind = _scale_kind(trace)
    if kind is None:  # the black cells beyond float32, a scale of its own
        return
    scale = plotly.colors.get_colorscale(palette.diverging if kind == "diverging" else palette.sequential)
    levelled = "levels" in (trace.get("meta") or {})
    trace["colorscale"] = heatmaps.level_colorscale(scale) if levelled else [list(stop) for stop in scale]


def _swap(value, colours: dict[str, str]):
    """``value`` with every string that is a default series colour replaced, at any depth."""
    if isinstance(value, str):
        return colours.get(_colour(value), value)
    if isinstance(value, dict):
        return {key: _swap(item, colours) for key, item in value.items()}
    if isinstance(value, list):
        return [_swap(item, colours) for item in value]
    if isinstance(value, tuple):
        return tuple(_swap(item, colours) for item in value)
    return value


def recolour(spec: dict, name: str) -> dict:
    """A figure's dict (``data``, ``layout``, ``frames``) in palette ``name``: heatmap scales swapped by kind, and
    every Okabe–Ito series colour (lines, markers, shapes, annotations, frames) by the palette's colour of the
    same index. The default palette returns ``spec`` as it is."""
    if name == DEFAULT or name not in PALETTES:
        return spec
    palette = PALETTES[name]
    colours = {_colour(old): new for old, new in zip(PALETTE, palette.series)}
    spec = _swap(spec, colours)
    for trace in spec.get("data", []) + [t for frame in spec.get("frames") or [] for t in frame.get("data", [])]:
        if trace.get("type") == "heatmap":
            _recolour_heatmap(trace, palette)
    spec.setdefault("layout", {})["colorway"] = list(palette.series)
    return spec
