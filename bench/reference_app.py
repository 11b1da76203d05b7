"""Streamlit's own cost of a run on this machine: a page of one title, with the server patches app.py installs.

This machine's speed moves from day to day by more than any change measured on it (BENCHMARKS.md): such a run
cost 2.0-2.2 ms of CPU on 2026-11-30. bench/room_follow.py prints it beside the hall's figures, so that runs of
the hall on different days can be read against the machine each ran on:

    python bench/cpu_per_run.py --app bench/reference_app.py --runs 200
"""

import streamlit as st

from posenc.ui import no_delay, theme_once, wakeups

wakeups.install()
no_delay.install()
theme_once.install()
st.title("Reference")
