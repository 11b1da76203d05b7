"""The derivation's nine steps on screen (pages/derivation.py draws one at a time): each step's formula with the
current d_model, n, pos, k and i substituted, and the numbers posenc computes for it (posenc.derivation.steps,
pinned by tests/derivation/test_derivation.py), cached by value."""

import numpy as np
import streamlit as st

import posenc
from posenc.derivation import latex as L
from posenc.derivation import steps, torch_module
from posenc.figures import charts
from posenc.figures import derivation as FD
from posenc.figures.layout import subscript
from posenc.schemes.sinusoidal import sinusoidal_cells
from posenc.ui import compute, presenter

STEP_COUNT = len(steps.STEPS)
step_data = compute.cached  # each step's numbers, cached by value

formula_step = step_data(steps.formula_step)
theta_step = step_data(steps.theta_step)
angle_step = step_data(steps.angle_step)
block_step = step_data(steps.block_step)
residual_step = step_data(steps.residual_step)
transpose_step = step_data(steps.transpose_step)
similarity_step = step_data(steps.similarity_step)
variation_step = step_data(steps.variation_step)
module_step = step_data(torch_module.module_step)


@step_data
def pair_columns(length: int, d_model: int, base: float, i: int) -> np.ndarray:
    """Columns 2i and 2i + 1 of PE over positions 0 … length − 1, shape (length, 2)."""
    return sinusoidal_cells(np.arange(length), [2 * i, 2 * i + 1], d_model, base)


@step_data
def similarity_corner(d_model: int, base: float, size: int) -> np.ndarray:
    """PE·PEᵀ of the first ``size`` positions."""
    return posenc.similarity_matrix(posenc.sinusoidal(size, d_model, base))


def move(delta: int) -> None:
    """Previous / Next: runs before the rerun, so the step slider reads the new value."""
    current = st.session_state.get("step", 1)
    current = current if isinstance(current, int) else 1
    st.session_state["step"] = min(max(current + delta, 1), STEP_COUNT)


def latex(lines: list[str]) -> None:
    for line in lines:
        st.latex(line)


def table(rows: dict[str, list], digits: int = 8) -> None:
    """A static table (readable from the back of a hall) of numbers printed with ``digits`` decimals."""
    st.table({name: [f"{v:.{digits}f}" if isinstance(v, (float, np.floating)) else v for v in values]
              for name, values in rows.items()})


def chart(c, pos: int, k: int, i: int, build, key: str, name: str, /, **settings) -> None:
    """presenter.chart of the figure ``build()`` makes, built once for these settings (c's length, d_model and base,
    pos, k and i: everything a step reads) and shared by every session that shows them."""
    presenter.chart(compute.built_once((key, c.length, c.d_model, c.base, pos, k, i), build), key, name, **settings)


def odd_note(d_model: int) -> None:
    st.info(f"d_model = {d_model} is odd: its last column, sin(pos·θ{subscript(d_model // 2)}), has no cosine partner, "
            f"so no {d_model}×{d_model} matrix maps every PE[pos] to PE[pos+k]. The first {d_model // 2} pairs "
            "still rotate exactly (step 3); choose an even d_model to see M_k.", icon=":material/info:")


def step_1(c, pos, k, i):
    s = formula_step(c.d_model, c.base, pos, i)
    latex(L.formula_latex(s))
    st.markdown(f"The first rows of PE for d_model = {c.d_model}, n = {c.base:g}"
                + (f" (the first {s.rows.shape[1]} of {c.d_model} columns)" if s.rows.shape[1] < c.d_model else "")
                + ". With d_model = 4 and n = 10000 they are the values seed 000 prints; with n = 100, seed 001's.")
    table({"pos": list(range(len(s.rows)))} | {f"dim {j}": list(s.rows[:, j]) for j in range(s.rows.shape[1])})
    columns = pair_columns(c.length, c.d_model, c.base, i)
    wavelength = 2 * np.pi / s.theta
    chart(c, pos, k, i, lambda: (
        charts.line_chart(np.arange(c.length), {f"PE[·, {2 * i}] = sin(pos·θ{subscript(i)})": columns[:, 0],
                                                f"PE[·, {2 * i + 1}] = cos(pos·θ{subscript(i)})": columns[:, 1]},
                          title=f"Pair i = {i}: one sinusoid per dimension, wavelength 2π/θ{subscript(i)} = "
                                f"{wavelength:.4g} positions", x_label="position pos", y_label="value",
                          markers=c.length <= 64,
                          x_window=max(20, round(3 * wavelength)) if 3 * wavelength < c.length else None)
    ), "pair_sinusoids", "derivation_pair_sinusoids", i=i)


def step_2(c, pos, k, i):
    s = theta_step(c.d_model, c.base, i)
    latex(L.theta_latex(s, c.d_model, c.base))
    st.markdown("Seeds 000–002 compute θᵢ as a power, seed 003 as an exp in log space, “to avoid numerical "
                "instability”. Each way, in float64 and float32, against θᵢ in extended precision"
                + ("" if s.extended else " (this machine has none: the reference is float64)") + ":")
    table({"way": list(s.values), f"θ{subscript(i)}": [float(v[i]) for v in s.values.values()],
           f"relative error at i = {i}": [f"{e[i]:.2e}" for e in s.errors.values()],
           "max relative error, all i": [f"{e:.2e}" for e in s.max_errors.values()]}, digits=12)
    left, right = st.columns(2)
    left.metric("max |power − exp| in float64", f"{s.gap64:.2e}")
    right.metric("max |power − exp| in float32", f"{s.gap32:.2e}")
    chart(c, pos, k, i, lambda: (
        FD.theta_errors(s.errors, title="Relative error of θᵢ, every pair")
    ), "theta_errors", "derivation_theta_errors", i=i)
    st.markdown(f"**What the numbers say.** {s.verdict}")


def step_3(c, pos, k, i):
    s = angle_step(c.d_model, c.base, pos, k, i)
    latex(L.angle_latex(s))
    left, right = st.columns([2, 3])
    with right:
        st.metric(f"max |left − right| for pair {i}", f"{s.gap:.2e}")
        st.markdown(f"The right-hand sides use only PE[{pos}] (the sin and cos of {pos}·θ) and numbers that "
                    "depend on k alone: cos(kθ) and sin(kθ). So PE[pos+k] is a linear function of PE[pos], "
                    "the same for every pos: the pair turns by kθ on its circle.")
    with left:
        start, end = np.array([[s.sin_pos, s.cos_pos]]), np.array([[s.sin_sum, s.cos_sum]])
        chart(c, pos, k, i, lambda: (
            charts.phasor_chart([i], start, end, np.array([k * s.theta]), pos=pos, k=k, title=f"Pair {i} on its circle")
        ), "angle_phasor", "derivation_angle_addition", pos=pos, k=k, i=i)


def step_4(c, pos, k, i):
    if c.d_model % 2:
        odd_note(c.d_model)
        return st.latex(L.pair_block_latex(angle_step(c.d_model, c.base, pos, k, i)))
    s = block_step(c.d_model, c.base, k, i, corner=32)
    block, whole = L.block_latex(s)
    st.latex(block)
    size = s.corner.shape[0]
    note = "" if size == c.d_model else f", top-left {size}×{size}"
    left, right = st.columns([3, 2], vertical_alignment="center")
    with left:
        chart(c, pos, k, i, lambda: (
            FD.block_diagonal(s.corner, title=f"M{subscript(k)}{note}: zero outside the 2×2 blocks")
        ), "block_diagonal", "derivation_M_k", k=k)
    with right:
        st.latex(whole)
        st.markdown(f"Each (sin, cos) pair turns by its own angle kθᵢ; pairs never mix. Pair {i} is rows and "
                    f"columns {2 * i} and {2 * i + 1}; its block is the one above. The angles shrink from pair to "
                    "pair, so the blocks further down are closer to the identity.")


def step_5(c, pos, k, i):
    if c.d_model % 2:
        return odd_note(c.d_model)
    s = residual_step(c.d_model, c.base, pos, k)
    latex(L.residual_latex(s, i))
    st.metric(f"max |M_k·PE[{pos}] − PE[{pos + k}]| over {c.d_model} dimensions (float64)", f"{s.max_abs:.2e}")
    dims = np.arange(c.d_model)
    vectors = {f"PE[{pos}]": s.pe_pos, f"M{subscript(k)}·PE[{pos}]": s.rotated, f"PE[{pos + k}]": s.target}
    chart(c, pos, k, i, lambda: (
        charts.vectors_chart(dims, vectors, title=f"M{subscript(k)}·PE[{pos}] lands on PE[{pos + k}]")
    ), "residual_vectors", "derivation_rotated_vectors", pos=pos, k=k)
    chart(c, pos, k, i, lambda: (
        FD.residual_per_dimension(s.residual, title="What is left: rounding, every dimension")
    ), "residual_dims", "derivation_residual", pos=pos, k=k)
    st.caption("Exact zeros are drawn at 1e-18 on the log axis; float64 rounding is about 1e-16.")


def step_6(c, pos, k, i):
    if c.d_model % 2:
        return odd_note(c.d_model)
    s = transpose_step(c.d_model, c.base, pos, k, i)
    latex(L.transpose_latex(s, pos))
    left, right = st.columns(2)
    left.metric(f"max |M₋ₖ − M_kᵀ| over all {c.d_model // 2} blocks", f"{s.gap:.2e}")
    right.metric(f"max |M_kᵀ·PE[{pos + k}] − PE[{pos}]|", f"{s.back_residual:.2e}")
    st.markdown("A rotation by −kθᵢ undoes a rotation by kθᵢ, and a rotation's inverse is its transpose: "
                "looking k steps back is M_kᵀ, no new matrix needed.")


def step_7(c, pos, k, i):
    s = similarity_step(c.length, c.d_model, c.base, pos, k)
    latex(L.similarity_latex(s, c.d_model))
    left, right = st.columns(2)
    left.metric(f"spread along the diagonal k = {k} ({len(s.positions)} positions)", f"{s.spread:.2e}")
    right.metric(f"largest spread over every offset (first {s.spread_positions} positions)", f"{s.spread_all:.2e}")
    if c.d_model % 2:
        st.info("With an odd d_model the lone last sine adds sin(p·θ)·sin(q·θ), which depends on p itself: "
                "the diagonal is not flat.", icon=":material/info:")
    else:
        st.markdown("PE[p]·PE[p+k] = Σᵢ cos(kθᵢ) whatever p is: a query can score keys by their offset. "
                    "Each diagonal of PE·PEᵀ is one constant.")
    others = {}
    for extra in (k + 1, k + 5):
        if 0 <= pos + extra < c.length and extra != k:
            other = similarity_step(c.length, c.d_model, c.base, pos, extra)
            others[f"k = {extra}"] = other.diagonal
    positions = np.arange(c.length)
    chart(c, pos, k, i, lambda: (
        FD.flat_diagonal(positions[s.positions], s.diagonal, dict(others), k=k, title="PE[p]·PE[p+k] against p")
    ), "flat_diagonal", "derivation_flat_diagonal", k=k)
    size = min(c.length, 128)
    chart(c, pos, k, i, lambda: (
        FD.similarity_with_diagonal(similarity_corner(c.d_model, c.base, size), k,
                                    title=f"PE·PEᵀ, first {size} positions")
    ), "similarity_diagonal", "derivation_similarity", k=k)


def step_8(c, pos, k, i):
    s = variation_step(c.length, c.d_model, c.base, i)
    latex(L.variation_latex(s))
    st.metric(f"dimensions that barely change over {c.length} positions (range < {steps.QUIET_RANGE:g})",
              f"{s.quiet} of {c.d_model}")
    chart(c, pos, k, i, lambda: (
        FD.variation_bars(s.ranges, steps.QUIET_RANGE,
                          title=f"How far each dimension moves over positions 0 … {c.length - 1}")
    ), "variation", "derivation_variation")
    quiet = (f" ({s.quiet} of them vary by less than {steps.QUIET_RANGE:g}, the first at dimension {s.first_quiet})"
             if s.first_quiet is not None else "")
    st.markdown("Seed 002: the encoding is added to the token embedding, not concatenated. The right-hand "
                f"dimensions hardly move over the positions in use{quiet}, so the learned embedding can use "
                "them; the fast left-hand dimensions carry the position. Adding also keeps the width at d_model.")


def step_9(c, pos, k, i):
    s = module_step(c.base)
    latex(L.module_latex(s))
    left, middle, right = st.columns(3)
    left.metric("trainable parameters", len(s.parameters))
    middle.metric("buffer", ", ".join(f"{n} {shape[0]}×{shape[1]} {dtype}" for n, shape, dtype in s.buffers))
    right.metric(f"entries dropped (of {s.output.size})", s.dropped)
    st.markdown(f"posenc.modules.SinusoidalPositionalEncoding(16, dropout=0.2), run live with torch on seed 003's "
                "input x = arange(128).reshape(2, 4, 16). The table is a buffer (saved with the model, never "
                f"trained); dropout acts on the sum, and every kept value is (x + PE)·{s.scale:g}: "
                f"max |y − {s.scale:g}·(x + PE)| over kept entries = {s.kept_gap:.1e}.")
    table({"dim": list(range(8)), "x[0, 1]": [float(v) for v in s.inputs[0, 1, :8]],
           "(x + PE)[0, 1]": list(s.summed[0, 1, :8]), "y[0, 1] (train)": list(s.output[0, 1, :8])}, digits=4)
    chart(c, pos, k, i, lambda: (
        FD.dropout_scatter(s.summed, s.output, s.scale,
                           title=f"Dropout after the sum: kept values scaled by 1/(1 − {s.dropout:g})")
    ), "dropout", "derivation_dropout")


VIEWS = (step_1, step_2, step_3, step_4, step_5, step_6, step_7, step_8, step_9)
