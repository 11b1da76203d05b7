"""Download buttons for a page's arrays (.npy and .csv), in a closed expander, made only when clicked."""

from __future__ import annotations

import io

import numpy as np
import streamlit as st


def npy_bytes(matrix: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, matrix)
    return buffer.getvalue()


def csv_bytes(matrix: np.ndarray) -> bytes:
    buffer = io.StringIO()
    np.savetxt(buffer, matrix, delimiter=",", fmt="%.17g")
    return buffer.getvalue().encode()


def downloads(title: str, caption: str, name: str, compute) -> None:
    """A closed expander ``title`` (open: ``?download=true``) holding ``caption`` and two download
    buttons (.npy and .csv) whose data ``compute()`` makes only when clicked. Closed, it is one element:
    every element is work in every run of every session (bench/runs_per_second.py)."""
    with st.expander(title, key="download", bind="query-params", icon=":material/download:") as box:
        if not box.open:
            return
        st.caption(caption)
        left, right = st.columns(2)
        left.download_button(f"Download {name}.npy", data=lambda: npy_bytes(compute()), file_name=f"{name}.npy",
                             mime="application/octet-stream", on_click="ignore", icon=":material/download:")
        right.download_button(f"Download {name}.csv", data=lambda: csv_bytes(compute()), file_name=f"{name}.csv",
                              mime="text/csv", on_click="ignore", icon=":material/download:")
