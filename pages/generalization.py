"""Length generalization: small transformers trained with torch, tested past the lengths they saw."""

import streamlit as st

from posenc.lab import results
from posenc.lab.extension import METHODS
from posenc.lab.names import SCHEME_LABELS, SCHEMES, TASKS
from posenc.lab.recipe import DEFAULT
from posenc.schemes.scheme import Option
from posenc.settings.parsing import code_span
from posenc.ui import binding, lab, sidebar

sidebar.controls()
st.title("Length generalization: does the model still work past the lengths it saw?")
length = results.train_max_length()
st.markdown(
    f"The Properties page asks whether an encoding *exists* past the trained length; this page asks whether "
    f"a model *works* there. For every scheme, a small decoder-only transformer ({DEFAULT.layers} layers, "
    f"{DEFAULT.d_model} wide, {DEFAULT.heads} heads) learned a task on strings of 1…{length} digits and was "
    f"tested on strings up to {DEFAULT.test_max_length} digits: **exact match**, the whole answer right. "
    "Trained on one CPU core with torch, deterministic for a seed; every number here is reproduced by "
    "`python -m posenc.lab run --task TASK --scheme SCHEME --seed N`.")

task = binding.bound_control(Option("task", "task", "copy", choices=TASKS,
                                    help=lab.TASK_HELP), "task")
DEFAULT_SCHEMES = ("sinusoidal", "learned", "nope", "rope", "alibi", "t5", "drope", "fire", "cope")
schemes = binding.bound_names("schemes", SCHEMES, DEFAULT_SCHEMES, "lab_schemes",
                              help="The curves drawn; every scheme's numbers are in the table below. " + lab.SCHEME_NAMES)
lab.accuracy_view(task, schemes)

st.subheader("What the results say")
st.markdown(lab.reading(task))
with st.expander("Every scheme's numbers", key="lab_table", bind="query-params"):
    lab.numbers_table(task, list(SCHEMES))

st.subheader("What the heads learned, and where it breaks")
columns = st.columns(2)
with columns[0]:
    map_scheme = binding.bound_control(Option("map_scheme", "model", "alibi", choices=SCHEMES, help=lab.SCHEME_NAMES),
                                       "map_scheme")
with columns[1]:
    layer = binding.bound_control(Option("map_layer", "layer", DEFAULT.layers, 1, DEFAULT.layers), "map_layer")
st.caption(f"The seed-0 model of {SCHEME_LABELS[map_scheme]}, reading one test string of {length} digits (trained "
           f"length) and one of {results.attention_lengths()[1]} (past it). Row: the token that predicts the next "
           "one (the query); column: the token it reads (the key). ^ starts the string, | separates it from "
           f"the answer. In {code_span(task)}, the query at the answer must find the digit it repeats: "
           + lab.WHERE_TO_LOOK[task])
lab.attention_view(task, map_scheme, int(layer))
st.markdown(f"**As the string grows**: the same heads at every test length from 1 to {DEFAULT.test_max_length} digits.")
lab.attention_animation_view(task, map_scheme, int(layer))

st.subheader("Stretching RoPE")
st.markdown(f"RoPE fails past {length} digits above, yet the models people use are RoPE stretched 4× to 64× past "
            "their training context. Here the shipped RoPE models are stretched to 2L or 4L by the scalings of the "
            "RoPE page (plain extrapolation, position interpolation, NTK-aware, YaRN, Llama 3; original context: "
            f"the {2 * length + 2} tokens of the longest training sequence) and tested as they are (zero-shot) and "
            "after a short fine-tune at the stretched lengths.")
methods = binding.bound_names("methods", tuple(METHODS), tuple(METHODS), "stretch_methods",
                              help="The curves drawn. " + lab.METHOD_NAMES)
columns = st.columns(2)
stretch = []
for column, option in zip(columns, lab.STRETCH):
    with column:
        stretch.append(int(binding.bound_control(option, option.name)))
lab.stretching_view(task, methods, *stretch)
lab.stretched_animation_view(task)
st.markdown("**The papers' claims, checked on these numbers**\n\n" + lab.claims_reading())

st.subheader("Train your own")
st.markdown("One scheme on the task above with your own training length, steps and seed, trained now on this "
            "server. The default settings reproduce the shipped seed exactly.")
lab.train_your_own(task)
