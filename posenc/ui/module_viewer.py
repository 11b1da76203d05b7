"""The modules, live: the scheme's torch nn.Module for the current settings, and its code to take.

pages/heatmap.py calls :func:`live_expander`. torch is imported only inside the
functions that run when the panel is open: a page that never opens it never loads torch.
The module shown is the downloadable file's own (posenc.export), executed here, so the
number max |torch − numpy| describes exactly the file a user takes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from posenc.export import source as export
from posenc.ui import compute, sidebar

FULL_BIAS_LENGTH = 256  # forward() of a bias module builds (heads, L, L): checked on the first positions


@st.cache_resource(max_entries=4, ttl=600, show_spinner=False)
def source(scheme: str, length: int, d_model: int, base: float, options: tuple) -> str:
    """The standalone file's text (shared between sessions; learned weights make it up to tens of MB)."""
    return export.module_source(scheme, length, d_model, base, **dict(options))


def _module_class(namespace: dict):
    """The nn.Module class the file defines."""
    import torch

    return next(value for value in namespace.values()
                if isinstance(value, type) and issubclass(value, torch.nn.Module) and value.__module__ == namespace["__name__"])


def _gap(actual: np.ndarray, expected: np.ndarray) -> float:
    """max |actual − expected| over the entries both have (equal −inf entries count as 0)."""
    if actual.shape != expected.shape:
        raise ValueError(f"shapes differ: {actual.shape} and {expected.shape}")
    same = (actual == expected) | (np.isnan(actual) & np.isnan(expected))
    with np.errstate(invalid="ignore"):  # −inf − (−inf) where both mask a key: counted as 0 by ``same``
        return float(np.where(same, 0.0, np.abs(actual - expected)).max(initial=0.0))


@compute.cached
def live_run(scheme: str, length: int, d_model: int, base: float, options: tuple) -> dict:
    """Build the file's module, run output() at this length, and compare with posenc's numpy."""
    import torch

    namespace = export.load(source(scheme, length, d_model, base, options))
    module = _module_class(namespace)()
    tensors = [{"name": name, "kind": kind, "shape": str(tuple(tensor.shape)), "dtype": str(tensor.dtype),
                "trainable": bool(tensor.requires_grad)}
               for kind, items in (("parameter", module.named_parameters()), ("buffer", module.named_buffers()))
               for name, tensor in items]
    with torch.no_grad():
        output = namespace["output"]().double().numpy()
    result = {"repr": repr(module), "tensors": tensors, "shape": output.shape,
              "gap": _gap(output, export.reference_output(scheme, length, d_model, base, **dict(options)))}
    forward_bias = export.export_of(scheme).forward_bias
    if forward_bias is not None:  # forward(): the full matrix, on the first positions
        short = min(length, FULL_BIAS_LENGTH)
        import posenc

        with torch.no_grad():
            full = forward_bias(module, short, d_model)
        result["forward"] = (short, _gap(full.double().numpy(),
                                         posenc.get_scheme(scheme).bias(short, d_model, base, **dict(options))))
    return result


def modules_panel(c: sidebar.Controls) -> None:
    """The scheme's nn.Module for the sidebar's settings: repr, tensors, a live run, and its code."""
    args = (c.scheme, c.length, c.d_model, c.base, c.options)
    run = compute.or_stop(live_run, *args)
    st.caption("The module of the file below, built and run here with torch for these settings.")
    st.code(run["repr"], language="text")
    if run["tensors"]:
        st.dataframe(pd.DataFrame(run["tensors"]), hide_index=True, key="module_tensors")
    else:
        st.caption("No parameters and no buffers.")
    left, right = st.columns(2)
    left.metric("max |torch − numpy|", f"{run['gap']:.2e}")
    right.caption(f"output() of the file, shape {run['shape']}: {export.export_of(c.scheme).output}, "
                  f"against posenc's numpy (float64).")
    if "forward" in run:
        short, gap = run["forward"]
        st.caption(f"forward({short}), the full bias matrix on the first {short} positions: "
                   f"max |torch − numpy| = {gap:.2e}.")
    text = source(*args)
    st.subheader("Take the code")
    st.download_button(f"Download {export.file_name(c.scheme)} ({len(text) / 1024:.0f} kB)", data=lambda: source(*args),
                       file_name=export.file_name(c.scheme), mime="text/x-python", on_click="ignore",
                       icon=":material/download:", key="take_code")
    st.caption("One file, torch and the standard library only: `python " + export.file_name(c.scheme) +
               " out.pt` builds the module and saves output(), equal to posenc's numbers to 1e-6.")
    if len(text) <= 20_000:
        st.code(text, language="python")
    else:
        st.caption(f"The file carries the learned weights ({len(text) / 1024:.0f} kB): download it to read it.")


def live_expander(c: sidebar.Controls) -> None:
    """A closed expander (state in the URL as ?module=…); the panel, and torch, run only when it is open."""
    with st.expander("The module, live (torch)", key="module", bind="query-params",
                     icon=":material/memory:") as box:
        if box.open:
            modules_panel(c)
