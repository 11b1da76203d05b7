"""The derivation, step by step: why the sinusoidal encoding lets attention use relative position.

One step per screen, bound to the URL (?step=1 … 9) with Previous / Next, each step one
formula with the current d_model, n, pos, k and i substituted and the numbers posenc
computes for it (posenc.derivation.steps, pinned by tests/derivation/test_derivation.py); the steps' views are
posenc/ui/derivation_steps.py.
"""

import streamlit as st

from posenc.derivation import steps
from posenc.schemes.scheme import Option
from posenc.ui import binding, scheme_views, sidebar
from posenc.ui.derivation_steps import STEP_COUNT, VIEWS, move

c = sidebar.controls()
title = st.empty()  # "Step s of 9: …", filled once the step slider has read the URL
if not scheme_views.views_of(c.scheme).derived(c.option_dict):
    st.info("This derivation is about the sinusoidal encoding of Vaswani et al. (interleaved, θᵢ = n^(−2i/d)): "
            "it uses that formula with the sidebar's d_model and n, whatever scheme is chosen there.",
            icon=":material/info:")
back, middle, forward = st.columns([1, 5, 1], vertical_alignment="bottom")
with middle:
    step = int(binding.bound_control(Option("step", "step", 1, 1, STEP_COUNT), "step"))
back.button("Previous", key="previous", on_click=move, args=(-1,), disabled=step <= 1,
            icon=":material/arrow_back:", width="stretch")
forward.button("Next", key="next", on_click=move, args=(1,), disabled=step >= STEP_COUNT,
               icon=":material/arrow_forward:", width="stretch")
cols = st.columns(3)
with cols[0]:  # defaults chosen so that no step opens on a trivial case (pos = 0 or θ_0 = 1)
    pos = int(binding.bound_control(Option("pos", "pos", min(2, c.length - 1), 0, c.length - 1), "pos"))
with cols[1]:
    k = int(binding.bound_control(Option("k", "k (offset; negative looks back)", min(3, c.length - 1 - pos), -pos,
                                        c.length - 1 - pos), "k"))
with cols[2]:
    pairs = steps.pair_count(c.d_model)
    i = int(binding.bound_control(Option("i", "pair i", min(1, pairs - 1), 0, pairs - 1), "i"))
title.title(f"Step {step} of {STEP_COUNT}: {steps.STEPS[step - 1]}")
VIEWS[step - 1](c, pos, k, i)
