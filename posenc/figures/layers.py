"""A model's layers: what each layer uses for positions and how far a token can see through the layers.

Arrays in, figure out: ``layer_types`` (one string per layer), each layer's own reach (the farthest key a
query of that layer attends to) and the receptive field after it (posenc.models.receptive_field).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from posenc.figures.layout import PALETTE, axis, base_layout, figure, log_axis


def layers_figure(layer_types: Sequence[str], reach: np.ndarray, receptive: np.ndarray, context: int, *,
                  title: str, either_side: bool = False) -> go.Figure:
    """Bars: each layer's own reach, coloured by its layer type; a line: the receptive field r_ℓ after
    layers 0…ℓ; a dashed line: the context length. Log y axis (a window of 1,024 beside 131,072). Each is the
    farthest offset plus one, the token itself included: the positions seen when causal, those seen each way when
    ``either_side`` (a model that attends both ways)."""
    way = " each way" if either_side else ""
    layers = np.arange(len(layer_types))
    kinds = list(dict.fromkeys(layer_types))
    seen, field = np.asarray(reach, dtype=float) + 1, np.asarray(receptive, dtype=float) + 1  # positions, self included
    traces = []
    for index, kind in enumerate(kinds):
        chosen = np.array([t == kind for t in layer_types])
        traces.append(dict(type="bar", x=layers[chosen], y=seen[chosen],
                           name=f"{kind} ({int(chosen.sum())} layers)", marker=dict(color=PALETTE[index % 8]),
                           hovertemplate=f"layer %{{x}}: sees %{{y:,.0f}} positions{way}<extra>{kind}</extra>"))
    traces.append(dict(type="scatter", mode="lines+markers", x=layers, y=field,
                       name="receptive field after the layer", line=dict(color=PALETTE[7], width=2),
                       hovertemplate=f"after layer %{{x}}: %{{y:,.0f}} positions{way}<extra></extra>"))
    traces.append(dict(type="scatter", mode="lines", x=[-0.5, len(layers) - 0.5], y=[context, context],
                       name=f"context {context:,}", line=dict(color=PALETTE[1], dash="dash", width=1.5),
                       hoverinfo="skip"))
    layout = base_layout(title, height=460)
    layout["legend"] = dict(orientation="h", yanchor="top", y=-0.22, xanchor="left", x=0)  # under: titles are long
    layout["margin"] = dict(layout["margin"], b=120)
    layout["xaxis"] = axis("layer ℓ")
    if len(layers) <= 16:  # a tick on every layer: plotly's own steps for a few layers put ticks at ℓ = 0.5, 1.5, …
        layout["xaxis"] |= dict(tick0=0, dtick=1)
    layout["yaxis"] = log_axis("seen each way (log)" if either_side else "positions seen (log)", seen, field,
                               [context])  # (no longer than the causal title: a phone's chart is short)
    layout["bargap"] = 0.15
    return figure(traces, layout)
