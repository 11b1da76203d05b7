"""Cached figures of the pages (not a page itself): scalars in, shared plotly figures out.

Each builder is cached as a shared object (pages.shared.shared_figure): a rerun with the same
settings reuses the figure instead of rebuilding it, which is most of a rerun's cost.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import posenc
import posenc.analysis
from pages.shared import (
    Controls,
    bound_control,
    offset_bias,
    offset_curve,
    or_stop,
    rotation_check,
    shared_figure,
    table,
)
from posenc import figures
from posenc.scheme import Option


@shared_figure
def table_heatmap(scheme: str, length: int, d_model: int, base: float, options: tuple, thin: bool):
    """Heatmap of the (length, d_model) table; interleaved (sin, cos) pairs thinned together."""
    matrix = table(scheme, length, d_model, base, options)
    group = 2 if dict(options).get("layout", "interleaved") == "interleaved" else 1
    return figures.heatmap(matrix, title="PE: positions × dimensions", x_label="dimension", y_label="position",
                           thin=thin, col_group=group, zrange=posenc.get_scheme(scheme).value_range)


@shared_figure
def similarity_heatmap(scheme: str, length: int, d_model: int, base: float, options: tuple, thin: bool):
    """Heatmap of PE·PEᵀ at the positions shown (the similarity of every pair of positions)."""
    matrix = table(scheme, length, d_model, base, options)
    rows = figures.thin_index(length) if thin else np.arange(length)
    return figures.position_heatmap(posenc.similarity_matrix(matrix[rows]), rows, length,
                                    title="PE·PEᵀ: similarity of two positions", x_label="position", y_label="position")


def toeplitz_heatmap(values: np.ndarray, length: int, *, title: str, thin: bool):
    """Heatmap of M[i, j] = values[j − i + L − 1] (a bias or score that depends only on the offset).

    Masked entries (−∞, a causal decoder's future keys) are drawn as gaps.
    """
    rows = figures.thin_index(length) if thin else np.arange(length)
    matrix = posenc.analysis.toeplitz_view(np.where(np.isneginf(values), np.nan, values), rows, rows)
    return figures.position_heatmap(matrix, rows, length, title=title, x_label="key position j",
                                    y_label="query position i")


@shared_figure
def bias_heatmap(scheme: str, length: int, d_model: int, base: float, options: tuple, head: int, thin: bool):
    """The (length, length) logit bias of head h = 1 … H (h = 1: the steepest ALiBi slope)."""
    _, values = offset_bias(scheme, length, d_model, base, options)
    return toeplitz_heatmap(values[head - 1], length, title=f"Attention-logit bias of head h = {head}", thin=thin)


@shared_figure
def score_heatmap(scheme: str, length: int, d_model: int, base: float, options: tuple, thin: bool):
    """The q·k score of a rotary scheme for q = k = ones, at every (query, key) pair."""
    _, values = offset_curve(scheme, length, d_model, base, options)
    return toeplitz_heatmap(values, length, title="q·k after rotation, q = k = (1, …, 1)", thin=thin)


def _paired_scores(q, k, query_positions, key_positions, base, keywords) -> np.ndarray:
    """⟨R_m q, R_n k⟩ for each pair (m, n) = (query_positions[t], key_positions[t])."""
    rotated_q = posenc.apply_rope(np.broadcast_to(q, (len(query_positions), len(q))), query_positions, base, **keywords)
    rotated_k = posenc.apply_rope(np.broadcast_to(k, (len(key_positions), len(k))), key_positions, base, **keywords)
    return (rotated_q * rotated_k).sum(axis=1)


def rope_shift_check(c: Controls) -> None:
    """RoPE's counterpart of the rotation check: score(m + s, n + s) = score(m, n)."""
    from posenc.rope import rope_keywords

    st.title("Rotation check (RoPE): the score sees only the offset")
    st.latex(r"(R_{m+s}\,q)\cdot(R_{n+s}\,k) = q^\top R_{m+s}^\top R_{n+s}\,k = q^\top R_{n-m}\,k = (R_m q)\cdot(R_n k)")
    keywords = or_stop(rope_keywords, c.option_dict)
    left, middle, right = st.columns(3)
    with left:
        m = int(bound_control(Option("query", "query position m", 0, 0, c.length - 1), "query"))
    with middle:
        n = int(bound_control(Option("key", "key position n", min(5, c.length - 1), 0, c.length - 1), "key"))
    with right:
        s = int(bound_control(Option("shift", "shift s", 0, 0, c.length - 1 - max(m, n)), "shift"))
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=c.d_model), rng.normal(size=c.d_model)  # a fixed random query and key
    shifts = np.arange(0, c.length - max(m, n))
    keywords.setdefault("seq_len", c.length)
    together = or_stop(_paired_scores, q, k, m + shifts, n + shifts, c.base, keywords)
    query_only = _paired_scores(q, k, m + shifts, np.full(len(shifts), n), c.base, keywords)
    before, after = together[0], together[s]
    cols = st.columns(3)
    cols[0].metric(f"score(m={m}, n={n})", f"{before:.12g}")
    cols[1].metric(f"score(m+s={m + s}, n+s={n + s})", f"{after:.12g}")
    cols[2].metric("difference", f"{abs(after - before):.3e}")
    st.plotly_chart(figures.line_chart(shifts, {"both moved by s": together, "only the query moved": query_only},
                                       title="Moving query and key together leaves the score unchanged",
                                       x_label="shift s", y_label="q·k after rotation"), key="rope_shift")
    st.caption(f"q and k are fixed random vectors (seed 0) of size {c.d_model}; frequencies use seq_len = {c.length}.")


@shared_figure
def rotation_vectors(d_model: int, base: float, spacing: str, pos: int, k: int):
    """(figure of PE[pos], M_k·PE[pos], PE[pos+k]; figure of their residual per dimension; max residual)."""
    table = posenc.sinusoidal(max(pos, pos + k) + 1, d_model, base, spacing=spacing)  # rows up to pos, pos+k
    predicted = posenc.apply_rotation(k, table[pos:pos + 1], base, spacing=spacing)[0]
    target = table[pos + k]
    dims = np.arange(d_model)
    vectors = figures.vectors_chart(dims, {f"PE[{pos}]": table[pos], f"M_k·PE[{pos}]": predicted,
                                           f"PE[{pos + k}]": target},
                                    title=f"PE[{pos}] rotated by M_k (k = {k}) lands on PE[{pos + k}]")
    residual = np.abs(predicted - target)
    per_dimension = figures.line_chart(dims, {"|M_k·PE[pos] − PE[pos+k]|": np.maximum(residual, 1e-18)},
                                       title="Their residual, dimension by dimension (float64; exact zeros drawn at 1e-18)",
                                       x_label="dimension", y_label="residual", log_y=True, markers=True,
                                       height=300, x_window=63)
    return vectors, per_dimension, float(residual.max())


@shared_figure
def residual_figure(length: int, d_model: int, base: float, k: int, spacing: str):
    """The rotation residual at every position, float64 and float32, on a log axis."""
    checks = {name: rotation_check(length, d_model, base, k, spacing, name) for name in ("float64", "float32")}
    return figures.line_chart(
        checks["float64"].positions, {name: np.maximum(check.errors, 1e-18) for name, check in checks.items()},
        title="max over dimensions of |M_k·PE[p] − PE[p+k]|", x_label="position p", y_label="residual", log_y=True,
    )


@shared_figure
def phasor_figure(d_model: int, base: float, spacing: str, pos: int, k: int, pairs: tuple):
    """Unit circles of the chosen (sin, cos) pairs at pos and pos+k."""
    table = posenc.sinusoidal(max(pos, pos + k) + 1, d_model, base, spacing=spacing)
    idx = np.array(pairs)
    start = np.stack([table[pos, 2 * idx], table[pos, 2 * idx + 1]], axis=1)
    end = np.stack([table[pos + k, 2 * idx], table[pos + k, 2 * idx + 1]], axis=1)
    angles = k * posenc.frequencies(d_model, base, spacing=spacing)[idx]
    return figures.phasor_chart(list(pairs), start, end, angles, pos=pos, k=k)


@shared_figure
def dimension_curves(scheme: str, length: int, d_model: int, base: float, options: tuple, dims: tuple):
    """PE[:, d] against position for each chosen dimension d."""
    matrix = table(scheme, length, d_model, base, options)
    return figures.line_chart(np.arange(length), {f"dim {d}": matrix[:, d] for d in dims},
                              title="Each dimension is a sinusoid over positions", x_label="position",
                              y_label="PE[position, dim]", x_window=255)


@shared_figure
def position_vectors(scheme: str, length: int, d_model: int, base: float, options: tuple, positions: tuple):
    """PE[p, :] against dimension for each chosen position p."""
    matrix = table(scheme, length, d_model, base, options)
    return figures.line_chart(np.arange(d_model), {f"pos {p}": matrix[p] for p in positions},
                              title="Each position is a vector over dimensions", x_label="dimension",
                              y_label="PE[pos, dimension]", x_window=127)


@shared_figure
def wavelength_figure(d_model: int, base: float, spacing: str, length: int):
    """(the wavelength of every pair on a log axis with the length marked, the longest wavelength)."""
    waves = posenc.wavelengths(d_model, base, spacing=spacing)
    pairs = np.arange(len(waves))
    label = f"length = {length}"
    figure = figures.line_chart(pairs, {"wavelength 2π/θᵢ": waves, label: np.full(len(waves), length)},
                                title="Wavelength of every (sin, cos) pair", x_label="pair i",
                                y_label="wavelength (positions)", log_y=True, markers=len(waves) <= 64)
    figure.update_traces(selector=dict(name=label), line_dash="dash", mode="lines")
    return figure, float(waves[-1])


@shared_figure
def comparison_figure(selected: str, length: int, d_model: int, base: float, options: tuple):
    """Every scheme's offset curve, side by side; the selected scheme with the sidebar's options."""
    curves = {}
    for key, scheme in posenc.SCHEMES.items():
        chosen = options if key == selected else tuple(scheme.defaults().items())
        offsets, values = offset_curve(key, length, d_model, base, chosen)
        label = scheme.curve_label if len(scheme.curve_label) < 40 else "value"
        curves[scheme.label] = (offsets, values, label)
    return figures.curve_grid(curves, x_label="offset j − i")


@shared_figure
def rope_phasor_figure(d_model: int, base: float, options: tuple, m: int, n: int, pairs: tuple):
    """Pair i of a unit vector rotated by apply_rope to position m and to position n."""
    from posenc.rope import rope_keywords
    from posenc.rope_scaling import rope_inv_freq, rotary_dims

    keywords = rope_keywords(dict(options))
    d_rot = rotary_dims(d_model, keywords.get("rotary_fraction", 1.0))
    idx = np.array(pairs)
    first = 2 * idx if keywords.get("layout", "interleaved") == "interleaved" else idx
    second = first + 1 if keywords.get("layout", "interleaved") == "interleaved" else idx + d_rot // 2
    units = np.zeros((len(idx), 1, d_model))
    units[np.arange(len(idx)), 0, first] = 1.0  # one unit vector per pair, along the pair's first axis
    ends = []
    for position in (m, n):
        rotated = posenc.apply_rope(units, np.array([position]), base, seq_len=max(m, n) + 1, **keywords)[:, 0]
        ends.append(np.stack([rotated[np.arange(len(idx)), second], rotated[np.arange(len(idx)), first]], axis=1))
    inv_freq, _ = rope_inv_freq(d_model, base, seq_len=max(m, n) + 1,
                                **{k: v for k, v in keywords.items() if k != "layout"})
    return figures.phasor_chart(list(pairs), ends[0], ends[1], (n - m) * inv_freq[idx], pos=m, k=n - m,
                                title=f"Pairs of a unit vector rotated to position m={m} and to n={n}")
