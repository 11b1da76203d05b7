"""The Precision page's views of each scheme: what low precision does to its relative-position property.

pages/precision.py draws the sections the sidebar's scheme's precision record names (:data:`SECTIONS`), under
"The relative-position property": the rotation residual M_k·PE[p] − PE[p + k] (sinusoidal), the drift of the
score of a query and a key a fixed offset apart (RoPE, xPos), a sentence (bias schemes, and schemes with
no such property), and seed 003's θ_i in log space against the power (the schemes whose frequencies are
n^(−2i/d)). Every number comes from :mod:`posenc.precision`, computed with torch.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import streamlit as st

import posenc
from posenc.figures import charts
from posenc.precision.tables import precision_of
from posenc.schemes.scheme import Option
from posenc.ui import binding, compute, presenter
from posenc.ui.sidebar import Controls

FLOOR = 1e-10  # exact zeros on a log axis


def log_chart(x, series: dict, *, title: str, x_label: str, y_label: str):
    """A line chart on a log y axis, exact zeros drawn at FLOOR."""
    return charts.line_chart(x, {label: np.maximum(y, FLOOR) for label, y in series.items()}, title=title,
                             x_label=x_label, y_label=y_label, log_y=True)


def _by_variant(variants: tuple[str, ...], shift_residual: Callable) -> tuple[dict, float]:
    """{variant: (positions, residual)} and the exact score, from ``shift_residual(variant)``."""
    out, exact = {}, 0.0
    for variant in variants:
        positions, residual, exact = shift_residual(variant)
        out[variant] = (positions, residual)
    return out, exact


@compute.cached
def rotation_residuals(length: int, d_model: int, base: float, options: tuple, dtype: str, k: int):
    """The sinusoidal table's rotation residual at offset k, rounded to and computed in ``dtype``."""
    from posenc.precision.residuals import sinusoidal_rotation_residuals

    exact = compute.table("sinusoidal", length, d_model, base, options)
    return sinusoidal_rotation_residuals(length, d_model, base, dtype, k, exact=exact, **dict(options))


@compute.cached
def rope_residuals(length: int, d_model: int, base: float, options: tuple, dtype: str, offset: int):
    """{variant: (positions, residual)} and the exact score, for the ways of computing cos/sin that differ in
    ``dtype`` (both, but one in float32)."""
    from posenc.precision.residuals import rope_shift_residual
    from posenc.precision.tables import rope_variants

    return _by_variant(rope_variants(dtype), lambda variant: rope_shift_residual(
        length, d_model, base, dtype, offset, variant, **dict(options)))


@compute.cached
def xpos_residuals(length: int, d_model: int, base: float, options: tuple, dtype: str, offset: int):
    """{variant: (positions, residual)} and the exact score of xPos, for both ways of computing its multipliers."""
    from posenc.precision.residuals import unit_query_key
    from posenc.precision.tables import XPOS_VARIANTS, xpos_shift_residual

    q, _ = unit_query_key(d_model)
    return _by_variant(XPOS_VARIANTS, lambda variant: xpos_shift_residual(
        q, length, base, dtype, offset, variant, **dict(options)))


@compute.cached
def theta(d_model: int, base: float, dtype: str):
    """θ_i in log space and as the power, each in ``dtype``, against float64 (seed 003)."""
    from posenc.precision.residuals import theta_forms

    return theta_forms(d_model, base, dtype)


def _offset(c: Controls) -> int:
    """The offset between the two positions compared, bound to ``?offset=`` (0 … length − 1)."""
    option = Option("offset", "offset k = key − query distance", 1, 0, c.length - 1,
                    help="The offset between the two positions compared.")
    return int(binding.bound_control(option, "offset"))


def rotation_section(c: Controls, dtype: str) -> None:
    """Sinusoidal: max |M_k·PE[p] − PE[p + k]| in ``dtype``, the table rounded and computed in the dtype."""
    k = _offset(c)
    residuals = compute.or_stop(rotation_residuals, c.length, c.d_model, c.base, c.options, dtype, k)
    presenter.chart(log_chart(np.arange(c.length - k), residuals, title=f"max |M_k·PE[p] − PE[p+k]| in {dtype}, k = {k}",
                              x_label="position p", y_label="residual"), key="relative", dtype=dtype, offset=k)
    st.caption("PE[p + k] = M_k·PE[p] is exact; computed in the dtype (table, M_k and product) what is left is "
               "rounding, unless the table itself is wrong: a table computed in the dtype rounds the "
               "phases p·θᵢ, and its error grows with p.")


def _score_drift_chart(curves: dict, exact: float, offset: int, dtype: str) -> None:
    """|score(p, p − offset) − exact| by query position p, one curve per way of computing."""
    positions = next(iter(curves.values()))[0]
    presenter.chart(log_chart(positions, {f"{variant} ({dtype})": r for variant, (_, r) in curves.items()},
                              title=f"|score(p, p − {offset}) in {dtype} − exact score {exact:.6f}|",
                              x_label="query position p", y_label="score error"), key="relative", dtype=dtype,
                    offset=offset)


def rope_shift_section(c: Controls, dtype: str) -> None:
    """RoPE: the score of a query at p and a key at p − offset, all in the dtype or with cos/sin from float32."""
    offset = _offset(c)
    curves, exact = compute.or_stop(rope_residuals, c.length, c.d_model, c.base, c.options, dtype, offset)
    _score_drift_chart(curves, exact, offset, dtype)
    cast = ("With cos/sin computed in float32 and cast, only the rounding of cos/sin, q, k and the products is "
            "left; this is why Hugging Face's Llama computes its rotary cos/sin in float32" if dtype != "float32"
            else "Hugging Face's Llama computes its rotary cos/sin in float32 whatever the model's dtype: in a "
            "float32 model that is this one curve; in float16 or bfloat16 it leaves only the rounding of cos/sin, q, k "
            "and the products")
    st.caption("q = k: one fixed random unit vector (seed 0), so the exact score is the same at every p. "
               "All in the dtype, the positions and angles m·θᵢ are rounded: the score drifts as p grows. "
               f"{cast} (Wang et al. 2024, When Precision Meets Position: BFloat16 Breaks Down RoPE in "
               "Long-Context Training, arXiv:2411.13476).")


def xpos_shift_section(c: Controls, dtype: str) -> None:
    """xPos: the score of a query at p and a key at p − offset, all in the dtype or as torchscale computes it."""
    offset = _offset(c)
    curves, exact = compute.or_stop(xpos_residuals, c.length, c.d_model, c.base, c.options, dtype, offset)
    _score_drift_chart(curves, exact, offset, dtype)
    st.caption("q = k: one fixed random unit vector (seed 0). Exactly, the score is RoPE's with pair i damped by "
               f"ζᵢ^({offset}/γ), the same at every p: the query's scale ζᵢ^(p̂/γ) and the key's ζᵢ^(−(p̂ − {offset})/γ) "
               "multiply to the decay wherever the pair sits. In the dtype each is rounded on its own, and far from "
               "the centre ⌈L/2⌉ they grow past the dtype's range (gaps: inf or NaN, float16 first). torchscale "
               "computes the angles m·θᵢ in float32 (its fixed_pos_embedding) but casts them to the dtype before "
               "taking cos and sin: in bfloat16 an angle near 4000 rad is off by up to 8 rad, so its scores drift "
               "almost as much as with everything in the dtype (RoPE's fix, cos/sin in float32, is not applied).")


def bias_section(c: Controls, dtype: str) -> None:
    """A bias scheme: computed per offset (for one fixed query where it reads the query), relative in every dtype."""
    scheme = posenc.get_scheme(c.scheme)
    reads = (f"{scheme.short_label}'s term reads the query as well as the offset j − i; here it is drawn for one "
             "fixed seeded unit query, so" if scheme.reads_query else "The bias is computed from the offset j − i "
             "alone, so")
    st.markdown(f"{reads} in every dtype it is the same for every pair at the same offset. "
                "What low precision can break is telling distances apart: see the first repeated distance above.")


def no_relative_section(c: Controls, dtype: str) -> None:
    """A scheme whose encoding does not relate positions a fixed offset apart."""
    st.markdown(f"{posenc.get_scheme(c.scheme).label} has no relative-position property to check: its encoding "
                "does not relate positions a fixed offset apart.")


def theta_section(c: Controls, dtype: str) -> None:
    """Seed 003: θ_i = n^(−2i/d) computed in log space against the power, both in ``dtype``."""
    st.subheader("Seed 003: is the log-space θ more stable?")
    st.markdown("Seed 003 computes θᵢ in log space, exp(2i·(−ln n/d)), \"to avoid numerical instability\" "
                "of the power n^(−2i/d). Both, computed in the dtype with torch, against float64:")
    st.code(f"log space: torch.exp(torch.arange(0, {c.d_model}, 2, dtype=torch.{dtype}) * (-math.log({c.base:g}) / {c.d_model}))\n"
            f"power:     {c.base:g} ** (-torch.arange(0, {c.d_model}, 2, dtype=torch.{dtype}) / {c.d_model})",
            language="python")
    forms = compute.or_stop(theta, c.d_model, c.base, dtype)
    presenter.chart(log_chart(forms.index, {"log space": forms.log_error, "power": forms.power_error},
                              title=f"relative error of θᵢ in {dtype}", x_label="pair i",
                              y_label="|θᵢ − exact| / exact"), key="theta", dtype=dtype)
    st.info(forms.verdict, icon=":material/balance:")


Section = Callable[[Controls, str], None]

SECTIONS: dict[str, Section] = {
    "rotation": rotation_section,
    "theta": theta_section,
    "no_relative": no_relative_section,
    "rope_shift": rope_shift_section,
    "xpos_shift": xpos_shift_section,
    "bias": bias_section,
}
"""The Precision page's sections under "The relative-position property", by the name a scheme's precision
record gives (posenc.precision.tables.PRECISION); each is called as ``section(controls, dtype)``."""


def draw_sections(c: Controls, dtype: str) -> None:
    """The sections of the sidebar's scheme, in the order its precision record names them."""
    for name in precision_of(c.scheme).sections:
        SECTIONS[name](c, dtype)
