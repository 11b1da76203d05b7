"""The rotation check of a rotary scheme: score(m + s, n + s) = score(m, n), moved together and apart.

A rotary scheme's entry in the UI's table (:data:`posenc.ui.scheme_views.SCHEME_VIEWS`) names its
:class:`ShiftCheck`: the title and identity drawn above the check, the note below it and the score's label.
The rotation itself is the registry's ``rotate`` (RoPE turns query and key alike; xPos also scales them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import streamlit as st

import posenc
from posenc.figures import charts
from posenc.figures.describe import number
from posenc.schemes.scheme import Option
from posenc.ui import presenter
from posenc.ui.binding import bound_control
from posenc.ui.compute import or_stop, shared_figure
from posenc.ui.sidebar import Controls


@dataclass(frozen=True)
class ShiftCheck:
    """What a rotary scheme's rotation check says around the shared chart."""

    header: Callable[[Controls], None]
    """Draws the title and the identity, and stops with a message if the scheme's options are refused."""
    score_label: str
    """The y axis: what q'·k' is for this scheme."""
    note: Callable[[Controls, int, int, int], None] | None = None
    """Draws what holds and what does not for query m, key n and shift s (None: nothing more to say)."""


@shared_figure
def shift_figure(scheme: str, d_model: int, base: float, options: tuple, length: int, m: int, n: int,
                 score_label: str):
    """(figure, scores with both moved): score(m + s, n + s) and score(m + s, n) for every shift s
    that keeps both inside the length, for a fixed random query and key (seed 0)."""
    rotate = posenc.get_scheme(scheme).rotate
    keywords = dict(options) | {"seq_len": length}  # one seq_len = length for every position
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=d_model), rng.normal(size=d_model)  # a fixed random query and key
    shifts = np.arange(0, length - max(m, n))
    k_at_n = rotate(k[None, :], np.array([n]), base, key=True, **keywords)[0]  # k stays at n
    together, query_only = np.empty(len(shifts)), np.empty(len(shifts))
    for start in range(0, len(shifts), 512):  # 512 shifts at a time: memory bounded at 4096 × 1024
        block = shifts[start:start + 512]
        rotated_q = rotate(np.broadcast_to(q, (len(block), d_model)), m + block, base, **keywords)
        rotated_k = rotate(np.broadcast_to(k, (len(block), d_model)), n + block, base, key=True, **keywords)
        together[start:start + len(block)] = (rotated_q * rotated_k).sum(axis=1)  # score(m + s, n + s)
        query_only[start:start + len(block)] = rotated_q @ k_at_n
    together.setflags(write=False)
    figure = charts.line_chart(shifts, {"both moved by s": together, "only the query moved": query_only},
                                title="Moving query and key together leaves the score unchanged",
                                x_label="shift s", y_label=score_label)
    return figure, together


def rope_header(c: Controls) -> None:
    """RoPE's identity: rotations compose, R_mᵀ R_n = R_{n−m}."""
    from posenc.schemes.rope.entry import rope_keywords

    st.title("Rotation check (RoPE): the score sees only the offset")
    st.latex(r"(R_{m+s}\,q)\cdot(R_{n+s}\,k) = q^\top R_{m+s}^\top R_{n+s}\,k = q^\top R_{n-m}\,k = (R_m q)\cdot(R_n k)")
    or_stop(rope_keywords, c.option_dict)


def xpos_header(c: Controls) -> None:
    """xPos's identity: a scale on a pair commutes with its rotation, and D_{m+s}·D_{n+s}⁻¹ = Λ_{m−n}."""
    from posenc.schemes.xpos import xpos_keywords

    st.title("Rotation check (xPos): the score sees only the offset, damped by it")
    st.latex(r"(D_{m+s} R_{m+s}\,q)\cdot(D_{n+s}^{-1} R_{n+s}\,k) = q^\top R_{n-m}\, D_{m+s} D_{n+s}^{-1}\,k "
             r"= q^\top R_{n-m}\, \Lambda_{m-n}\,k,\quad D_p = \operatorname{diag}\big(\zeta_i^{\hat p/\gamma}\big),"
             r"\quad \Lambda_\Delta = \operatorname{diag}\big(\zeta_i^{\Delta/\gamma}\big)")
    or_stop(xpos_keywords, c.option_dict)


def xpos_note(c: Controls, m: int, n: int, s: int) -> None:
    """What holds under xPos and what does not, with the decay of the fastest and slowest pairs."""
    from posenc.schemes.xpos import xpos_keywords

    gamma = xpos_keywords(c.option_dict)["scale_base"]
    decay = posenc.xpos_decay([m - n, s, 1], c.d_model, gamma)  # ζᵢ^(Δ/γ) at Δ = m − n, s and 1
    fast, slow = decay[0, [0, -1]]
    now = f"at s = {s}: {decay[1, 0]:.4g} on pair 0" if s else f"s = 0 here; at s = 1: {decay[2, 0]:.4g} on pair 0"
    st.caption(f"Moving both keeps the score exactly (to rounding): it is RoPE's score with pair i multiplied by "
               f"ζᵢ^((m − n)/γ), here {fast:.4g} on pair 0 and {slow:.4g} on pair {c.d_model // 2 - 1} "
               f"(m − n = {number(m - n)}, γ = {gamma:g}). What xPos gives up is the rotation itself: q' = D·R·q is "
               f"not a rotation of q, its pair i has length ζᵢ^(m̂/γ)·‖qᵢ‖, so moving the query alone by s scales "
               f"pair i by ζᵢ^(s/γ) on top of turning it (the second curve; {now}).")


ROPE = ShiftCheck(rope_header, "q·k after rotation")
XPOS = ShiftCheck(xpos_header, "q'·k' (rotated and scaled)", xpos_note)


def draw(c: Controls, check: ShiftCheck) -> None:
    """The check for the sidebar's rotary scheme: query m, key n and shift s in the URL, the scores, the chart."""
    check.header(c)
    left, middle, right = st.columns(3)
    with left:
        m = int(bound_control(Option("query", "query position m", 0, 0, c.length - 1), "query"))
    with middle:
        n = int(bound_control(Option("key", "key position n", min(5, c.length - 1), 0, c.length - 1), "key"))
    with right:
        s = int(bound_control(Option("shift", "shift s", 0, 0, c.length - 1 - max(m, n)), "shift"))
    figure, together = or_stop(shift_figure, c.scheme, c.d_model, c.base, c.options, c.length, m, n, check.score_label)
    before, after = together[0], together[s]
    cols = st.columns(3)
    cols[0].metric(f"score(m={m}, n={n})", f"{before:.12g}")
    cols[1].metric(f"score(m+s={m + s}, n+s={n + s})", f"{after:.12g}")
    cols[2].metric("difference", f"{abs(after - before):.3e}")
    if len(together) > 1:
        presenter.chart(figure, key="rope_shift", m=m, n=n)
    else:
        st.caption("With the key at the last position there is no room to shift both: move m or n left.")
    st.caption(f"q and k are fixed random vectors (seed 0) of size {c.d_model}; frequencies use seq_len = {c.length}.")
    if check.note is not None:
        check.note(c, m, n, s)
