"""Download buttons for a page's arrays (.npy and .csv), made only when clicked."""

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


def downloads(name: str, compute) -> None:
    """Two download buttons (.npy and .csv) whose data ``compute()`` makes only when clicked."""
    left, right = st.columns(2)
    left.download_button(f"Download {name}.npy", data=lambda: npy_bytes(compute()), file_name=f"{name}.npy",
                         mime="application/octet-stream", on_click="ignore", icon=":material/download:")
    right.download_button(f"Download {name}.csv", data=lambda: csv_bytes(compute()), file_name=f"{name}.csv",
                          mime="text/csv", on_click="ignore", icon=":material/download:")
