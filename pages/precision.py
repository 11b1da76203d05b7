"""Precision: the chosen scheme in float32, float16 or bfloat16 against float64 (computed with torch)."""

import numpy as np
import pandas as pd
import streamlit as st

import posenc
from posenc.analysis.properties import built_length
from posenc.precision import dtypes as precision
from posenc.schemes.scheme import Option
from posenc.ui import binding, compute, precision_views, presenter, sidebar
from posenc.ui.precision_views import FLOOR, log_chart

DTYPE = Option("dtype", "dtype", "bfloat16", choices=precision.DTYPES,
               help="The low-precision dtype compared with float64; every number below is computed in it.")


@compute.cached
def table_precision(scheme: str, length: int, d_model: int, base: float, options: tuple, dtype: str):
    """posenc.precision.tables.precision_table, cached (its arrays are one value per position)."""
    from posenc.precision.tables import precision_table

    exact = compute.table(scheme, length, d_model, base, options) if posenc.get_scheme(scheme).table else None
    return precision_table(scheme, length, d_model, base, dtype, exact=exact, **dict(options))


@compute.cached
def dtype_table() -> pd.DataFrame:
    """The dtypes' facts as text, with what torch stores for 2^p + 1 (checked, not assumed)."""
    import torch

    rows = []
    for row in precision.dtype_facts():
        limit = row["first inexact integer 2^p + 1"]
        stored = int(torch.tensor(float(limit), dtype=getattr(torch, row["dtype"])).item())
        rows.append({"dtype": row["dtype"], "significand bits p": str(row["significand bits p"]),
                     "unit roundoff 2^−p": f"{row['unit roundoff 2^−p']:.2e}",
                     "first inexact integer 2^p + 1": f"{limit:,}", "torch stores 2^p + 1 as": f"{stored:,}",
                     "largest value": f"{row['largest value']:.6g}"})
    return pd.DataFrame(rows)


def repeats_line(result, encoded: int | None = None) -> str:
    """One sentence per way of computing: where a row first equals an earlier one (``encoded``: only positions
    0 … encoded − 1 have an encoding, a learned table shorter than the length; the others are not compared)."""
    row = "distance" if result.what == "bias" else "position"
    parts = [f"{label}: {row} {first} equals an earlier one bit for bit" if first is not None
             else f"{label}: every {row} differs" for label, first in result.first_repeat.items()]
    if encoded is not None:
        return "; ".join(parts) + (f", among positions 0 … {encoded - 1}, the only ones with an encoding (the table "
                                   f"has {encoded} rows).")
    return "; ".join(parts) + "."


c = sidebar.controls()
scheme = posenc.get_scheme(c.scheme)
st.title("Precision: float32, float16 and bfloat16 against float64")
left, right = st.columns([1, 2])
with left:
    dtype = binding.bound_control(DTYPE, "dtype")
right.caption(f"{scheme.label}, length={c.length}, d_model={c.d_model}, n={c.base:g}. Every curve is computed "
              f"with torch in {dtype} and compared with float64; exact zeros are drawn at {FLOOR:g}.")

st.subheader("What each dtype holds")
st.dataframe(dtype_table(), hide_index=True, key="dtypes")
st.caption("A dtype with p significant bits holds every integer up to 2^p; 2^p + 1 rounds to 2^p. "
           "A position past that limit, stored in the dtype, is the same number as its neighbour.")

args = (c.scheme, c.length, c.d_model, c.base, c.options, dtype)
result = compute.or_stop(table_precision, *args)
st.subheader(f"The {result.what}'s error against {result.x_label}")
presenter.chart(log_chart(result.x, result.errors, title=f"max |{result.what} in {dtype} − float64|",
                          x_label=result.x_label, y_label="absolute error"), key="table_error", dtype=dtype)
cols = st.columns(len(result.errors))
for col, (label, errors) in zip(cols, result.errors.items()):
    col.metric(f"largest error, {label}", f"{np.nanmax(errors, initial=0.0):.3e}")
for note in result.notes:
    st.caption(note)

st.subheader("Where positions stop being distinguishable")
built, reason = built_length(scheme, c.length, c.option_dict)
st.markdown(repeats_line(result, built if reason == "table" and built < c.length else None))
limit = precision.first_inexact_integer(dtype)
st.caption(f"In {dtype}, {limit} is the first integer that is not exact: an index computed in {dtype} "
           f"(torch.arange(length, dtype={dtype})) gives positions {limit - 1} and {limit} the same value, "
           f"so everything computed from it repeats from there on.")

st.subheader("The relative-position property")
precision_views.draw_sections(c, dtype)
