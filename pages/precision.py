"""Precision: the chosen scheme in float32, float16 or bfloat16 against float64 (computed with torch)."""

import numpy as np
import pandas as pd
import streamlit as st

import posenc
from posenc.figures import charts
from posenc.precision import dtypes as precision
from posenc.schemes.scheme import Option
from posenc.ui import binding, compute, presenter, sidebar

FLOOR = 1e-10  # exact zeros on a log axis
DTYPE = Option("dtype", "dtype", "bfloat16", choices=precision.DTYPES,
               help="The low-precision dtype compared with float64; every number below is computed in it.")


@compute.cached
def table_precision(scheme: str, length: int, d_model: int, base: float, options: tuple, dtype: str):
    """posenc.precision.tables.precision_table, cached (its arrays are one value per position)."""
    from posenc.precision.tables import precision_table

    exact = compute.table(scheme, length, d_model, base, options) if posenc.get_scheme(scheme).table else None
    return precision_table(scheme, length, d_model, base, dtype, exact=exact, **dict(options))


@compute.cached
def rotation_residuals(length: int, d_model: int, base: float, options: tuple, dtype: str, k: int):
    from posenc.precision.residuals import sinusoidal_rotation_residuals

    exact = compute.table("sinusoidal", length, d_model, base, options)
    return sinusoidal_rotation_residuals(length, d_model, base, dtype, k, exact=exact, **dict(options))


@compute.cached
def rope_residuals(length: int, d_model: int, base: float, options: tuple, dtype: str, offset: int):
    """{variant: (positions, residual)} and the exact score, for both ways of computing cos/sin."""
    from posenc.precision.residuals import rope_shift_residual
    from posenc.precision.tables import ROPE_VARIANTS

    out, exact = {}, 0.0
    for variant in ROPE_VARIANTS:
        positions, residual, exact = rope_shift_residual(length, d_model, base, dtype, offset, variant, **dict(options))
        out[variant] = (positions, residual)
    return out, exact


@compute.cached
def xpos_residuals(length: int, d_model: int, base: float, options: tuple, dtype: str, offset: int):
    """{variant: (positions, residual)} and the exact score of xPos, for both ways of computing its multipliers."""
    from posenc.precision.residuals import unit_query_key
    from posenc.precision.tables import XPOS_VARIANTS, xpos_shift_residual

    q, _ = unit_query_key(d_model)
    out, exact = {}, 0.0
    for variant in XPOS_VARIANTS:
        positions, residual, exact = xpos_shift_residual(q, length, base, dtype, offset, variant, **dict(options))
        out[variant] = (positions, residual)
    return out, exact


@compute.cached
def theta(d_model: int, base: float, dtype: str):
    from posenc.precision.residuals import theta_forms

    return theta_forms(d_model, base, dtype)


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


def log_chart(x, series: dict, *, title: str, x_label: str, y_label: str):
    return charts.line_chart(x, {label: np.maximum(y, FLOOR) for label, y in series.items()}, title=title,
                              x_label=x_label, y_label=y_label, log_y=True)


def repeats_line(result) -> str:
    """One sentence per way of computing: where a row first equals an earlier one."""
    row = "distance" if result.what == "bias" else "position"
    parts = [f"{label}: {row} {first} equals an earlier one bit for bit" if first is not None
             else f"{label}: every {row} differs" for label, first in result.first_repeat.items()]
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
                          x_label=result.x_label, y_label="absolute error"), key="table_error")
cols = st.columns(len(result.errors))
for col, (label, errors) in zip(cols, result.errors.items()):
    col.metric(f"largest error, {label}", f"{np.nanmax(errors, initial=0.0):.3e}")
for note in result.notes:
    st.caption(note)

st.subheader("Where positions stop being distinguishable")
st.markdown(repeats_line(result))
limit = precision.first_inexact_integer(dtype)
st.caption(f"In {dtype}, {limit} is the first integer that is not exact: an index computed in {dtype} "
           f"(torch.arange(length, dtype={dtype})) gives positions {limit - 1} and {limit} the same value, "
           f"so everything computed from it repeats from there on.")

st.subheader("The relative-position property")
offset_option = Option("offset", "offset k = key − query distance", 1, 0, c.length - 1,
                       help="The offset between the two positions compared.")
if c.scheme == "sinusoidal":
    k = int(binding.bound_control(offset_option, "offset"))
    residuals = compute.or_stop(rotation_residuals, c.length, c.d_model, c.base, c.options, dtype, k)
    presenter.chart(log_chart(np.arange(c.length - k), residuals, title=f"max |M_k·PE[p] − PE[p+k]| in {dtype}, k = {k}",
                              x_label="position p", y_label="residual"), key="relative")
    st.caption("PE[p + k] = M_k·PE[p] is exact; computed in the dtype (table, M_k and product) what is left is "
               "rounding, unless the table itself is wrong: a table computed in the dtype rounds the "
               "phases p·θ_i, and its error grows with p.")
elif c.scheme == "rope":
    offset = int(binding.bound_control(offset_option, "offset"))
    curves, exact = compute.or_stop(rope_residuals, c.length, c.d_model, c.base, c.options, dtype, offset)
    positions = next(iter(curves.values()))[0]
    presenter.chart(log_chart(positions, {f"{variant} ({dtype})": r for variant, (_, r) in curves.items()},
                              title=f"|score(p, p − {offset}) in {dtype} − exact score {exact:.6f}|",
                              x_label="query position p", y_label="score error"), key="relative")
    st.caption("q = k: one fixed random unit vector (seed 0), so the exact score is the same at every p. "
               "All in the dtype, the positions and angles m·θ_i are rounded: the score drifts as p grows. "
               "With cos/sin computed in float32 and cast, only the rounding of cos/sin, q, k and the "
               "products is left; this is why Hugging Face's Llama computes its rotary cos/sin in float32 "
               "(Wang et al. 2024, When Precision Meets Position: BFloat16 Breaks Down RoPE in Long-Context "
               "Training, arXiv:2411.13476).")
elif c.scheme == "xpos":
    offset = int(binding.bound_control(offset_option, "offset"))
    curves, exact = compute.or_stop(xpos_residuals, c.length, c.d_model, c.base, c.options, dtype, offset)
    positions = next(iter(curves.values()))[0]
    presenter.chart(log_chart(positions, {f"{variant} ({dtype})": r for variant, (_, r) in curves.items()},
                              title=f"|score(p, p − {offset}) in {dtype} − exact score {exact:.6f}|",
                              x_label="query position p", y_label="score error"), key="relative")
    st.caption("q = k: one fixed random unit vector (seed 0). Exactly, the score is RoPE's with pair i damped by "
               f"ζᵢ^({offset}/γ), the same at every p: the query's scale ζᵢ^(p̂/γ) and the key's ζᵢ^(−(p̂ − {offset})/γ) "
               "multiply to the decay wherever the pair sits. In the dtype each is rounded on its own, and far from "
               "the centre ⌈L/2⌉ they grow past the dtype's range (gaps: inf or NaN, float16 first). torchscale "
               "computes the angles m·θᵢ in float32 (its fixed_pos_embedding) but casts them to the dtype before "
               "taking cos and sin: in bfloat16 an angle near 4000 rad is off by up to 8 rad, so its scores drift "
               "almost as much as with everything in the dtype (RoPE's fix, cos/sin in float32, is not applied).")
elif scheme.family == "bias":
    st.markdown("The bias is looked up by the offset j − i, so it depends on the offset alone in every dtype. "
                "What low precision can break is telling distances apart: see the first repeated distance above.")
else:
    st.markdown(f"{scheme.label} has no relative-position property to check: its encoding does not relate "
                "positions a fixed offset apart.")

if c.scheme in ("sinusoidal", "rope", "xpos"):
    st.subheader("Seed 003: is the log-space θ more stable?")
    st.markdown("Seed 003 computes θ_i in log space, exp(2i·(−ln n/d)), \"to avoid numerical instability\" "
                "of the power n^(−2i/d). Both, computed in the dtype with torch, against float64:")
    st.code(f"log space: torch.exp(torch.arange(0, {c.d_model}, 2, dtype=torch.{dtype}) * (-math.log({c.base:g}) / {c.d_model}))\n"
            f"power:     {c.base:g} ** (-torch.arange(0, {c.d_model}, 2, dtype=torch.{dtype}) / {c.d_model})",
            language="python")
    forms = compute.or_stop(theta, c.d_model, c.base, dtype)
    presenter.chart(log_chart(forms.index, {"log space": forms.log_error, "power": forms.power_error},
                              title=f"relative error of θ_i in {dtype}", x_label="pair i",
                              y_label="|θ_i − exact| / exact"), key="theta")
    st.info(forms.verdict, icon=":material/balance:")
