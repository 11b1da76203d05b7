"""The "Layers" view of the model picked in the sidebar (How it works): what each layer type uses for
positions, and how far a token sees through each layer's window and the layers below it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from posenc import models
from posenc.figures.layers import layers_figure
from posenc.settings.parsing import number_text
from posenc.ui import presenter, your_config


@st.cache_data(max_entries=32, show_spinner=False)
def _figure(key: str):
    model = your_config.model(key)
    return layers_figure(model.layer_types, models.layer_reach(model), models.receptive_field(model), model.context_length,
                         title=f"{model.label}: how far a token sees", either_side=not model.causal)


def _row(model: models.Model, kind: str) -> dict:
    p = model.positional(kind)
    scaling = p.options.get("rope_type", "")
    factor = p.options.get("factor")
    return {"layer type": kind, "layers": model.layer_types.count(kind), "scheme": p.scheme,
            "base θ": f"{p.base:,.0f}" if p.base else "",
            "scaling": f"{scaling} ×{number_text(factor)}" if factor else scaling,
            "rotated / head dims": f"{models.turning_dims(p)} / {p.head_dim}" if p.head_dim else "",
            "window": f"{p.window:,}" if p.window is not None else (f"chunks of {p.chunk:,}" if p.chunk
                                                                     else "whole context")}


def view(key: str) -> None:
    """The section: a table of the layer types and the figure of each layer's reach."""
    model = your_config.model(key)
    kinds = list(dict.fromkeys(model.layer_types))
    st.subheader(f"Layers of {your_config.label(model)}")
    st.dataframe(pd.DataFrame([_row(model, kind) for kind in kinds]), hide_index=True, key="model_layers")
    presenter.chart(_figure(key), key="model_reach", name="layers", model=your_config.CHOICE if your_config.is_config(key) else key)
    receptive = models.receptive_field(model)
    whole = int(np.argmax(receptive >= model.context_length - 1))
    if receptive[-1] >= model.context_length - 1:
        seen = f"after layer {whole} a token can depend on the whole {model.context_length:,}-token context"
    elif model.causal:
        seen = f"the last layer sees {int(receptive[-1]) + 1:,} of {model.context_length:,} positions"
    else:
        seen = (f"after the last layer a token depends on the {int(receptive[-1]):,} positions either side of it, in "
                f"a {model.context_length:,}-token context")
    window = ("A window of w keys lets a layer see w positions: the token itself and w − 1 before it (its bar)"
              if model.causal else "A window of w keys either side lets a layer see w positions each way besides "
              "the token itself (its bar: the farthest it sees, plus one)")  # models.attention_mask's rules
    st.caption(f"{len(model.layer_types)} layers, {len(kinds)} layer type(s): {seen}. {window}; stacked, each layer "
               "adds its reach to the one below (the line).")
