"""What every page shares: the sidebar controls bound to the URL, and cached computations.

Not a page itself (app.py lists the pages). Widget values are parsed once here
by posenc.params; pages receive a :class:`Controls` and pass its scalars to the
cached functions below.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import streamlit as st

import posenc
import posenc.analysis
from posenc import figures
from posenc.scheme import Option
from posenc.params import SHARED_CONTROLS, parse_option

CACHE_ENTRIES = 16  # bounded: many sessions with different settings cannot grow memory without limit
TABLE_ENTRIES = 4  # full tables are up to 32 MiB each

# Small results are cached by value (each session gets a copy). Figures and full tables are
# cached as shared objects: no copy or unpickling per rerun (rebuilding a plotly Figure from a
# pickle re-validates it, ~30 ms). They are never mutated after they are returned.
cached = st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
shared_figure = st.cache_resource(max_entries=CACHE_ENTRIES, ttl=600, show_spinner=False)


@dataclass(frozen=True)
class Controls:
    """The shared sidebar values, valid and typed."""

    d_model: int
    base: float
    length: int
    scheme: str
    options: tuple[tuple[str, object], ...]  # the scheme's own options, hashable for the cache

    @property
    def option_dict(self) -> dict[str, object]:
        return dict(self.options)


def _warn(message: str) -> None:
    st.warning(message, icon=":material/link_off:")


def bound_control(option: Option, key: str) -> object:
    """Draw a widget for ``option`` bound to the query parameter ``key``; return its valid value.

    The value comes from this session's state when it has one (re-checked, since a
    range may depend on other controls), else from the URL. A bad URL value (not a
    number, out of range, unknown choice) is replaced by the nearest valid value
    before the widget reads it, with a warning naming both.
    """
    if key in st.session_state:
        value, warning = parse_option(option, str(st.session_state[key]))
    else:
        value, warning = parse_option(option, st.query_params.get(key))
        warning = warning and f"URL parameter {warning}"
    st.session_state[key] = value  # also carries the value across pages, where the widget is new
    if warning:
        _warn(warning)
    label, help = option.label, option.help or None
    if option.choices:
        return st.selectbox(label, option.choices, key=key, help=help, bind="query-params")
    if isinstance(option.default, int):
        return st.slider(label, int(option.minimum), int(option.maximum), key=key, help=help, bind="query-params")
    return st.number_input(label, float(option.minimum), float(option.maximum), key=key, help=help,
                           format="%g", bind="query-params")


def _leave_legacy_page_mode() -> None:
    """Make a deep link opened first after a server start go through app.py's navigation.

    Streamlit treats a folder named ``pages`` next to the entry point as its legacy
    multipage layout until ``st.navigation`` has run once in the process; until then a
    link such as ``/rotation`` would run the page file alone, with an automatic page list.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


def controls() -> Controls:
    """The shared controls: d_model, n, length, scheme and the scheme's options."""
    _leave_legacy_page_mode()
    schemes = posenc.SCHEMES
    with st.sidebar:
        st.markdown("### Settings")
        names = "; ".join(f"{key}: {s.label}" for key, s in schemes.items())
        scheme_option = Option("scheme", "scheme", next(iter(schemes)), choices=tuple(schemes), help=names)
        scheme = bound_control(scheme_option, "scheme")
        st.caption(schemes[scheme].label)
        d_model, base, length = (bound_control(o, o.name) for o in SHARED_CONTROLS)
        options = tuple((o.name, bound_control(o, f"{scheme}.{o.name}")) for o in schemes[scheme].options)
        st.caption(f"Caps: d_model ≤ {posenc.params.MAX_D_MODEL}, length ≤ {posenc.params.MAX_LENGTH}. "
                   "Every setting is in the URL: copy it to share this view.")
    return Controls(int(d_model), float(base), int(length), scheme, options)


@st.cache_resource(max_entries=TABLE_ENTRIES, show_spinner=False)
def table(scheme: str, length: int, d_model: int, base: float, options: tuple) -> np.ndarray:
    """The scheme's (length, d_model) table, float64, read-only (shared between sessions)."""
    matrix = posenc.get_scheme(scheme).table(length, d_model, base, **dict(options))
    matrix.setflags(write=False)
    return matrix


@cached
def missing_rows(scheme: str, length: int, d_model: int, base: float, options: tuple) -> int:
    """How many positions have no encoding (NaN rows: past a learned table)."""
    return int(np.isnan(table(scheme, length, d_model, base, options)).any(axis=1).sum())


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


def or_stop(compute, *args, **kwargs):
    """``compute(*args, **kwargs)``, or the library's ValueError shown as a message and the page stopped."""
    try:
        return compute(*args, **kwargs)
    except ValueError as err:
        st.error(str(err), icon=":material/error:")
        st.stop()


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
    similarity = posenc.similarity_matrix(matrix[rows])
    fig = figures.heatmap(similarity, title="PE·PEᵀ: similarity of two positions", x_label="position",
                          y_label="position", zrange=None, thin=False)
    fig.update_traces(x=rows, y=rows)
    if len(rows) < length:
        note = figures.stride_note(rows, length, "position")
        fig.update_layout(title_text=f"{fig.layout.title.text}<br><sup>{note} (all values are exact)</sup>")
    return fig


@cached
def rotation_check(length: int, d_model: int, base: float, k: int, spacing: str, dtype: str) -> posenc.RotationCheck:
    """posenc.rotation_check, cached."""
    return posenc.rotation_check(length, d_model, base, k, dtype=np.dtype(dtype), spacing=spacing)


@cached
def offset_bias(scheme: str, length: int, d_model: int, base: float, options: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, (heads, 2L−1) bias) of a bias scheme."""
    return posenc.get_scheme(scheme).offset_bias(length, d_model, base, **dict(options))


@cached
def offset_curve(scheme: str, length: int, d_model: int, base: float, options: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, values): the scheme's curve shared by every scheme."""
    return posenc.get_scheme(scheme).offset_curve(length, d_model, base, **dict(options))


def toeplitz_heatmap(values: np.ndarray, length: int, *, title: str, thin: bool):
    """Heatmap of M[i, j] = values[j − i + L − 1] (a bias or score that depends only on the offset).

    Masked entries (−∞, a causal decoder's future keys) are drawn as gaps.
    """
    rows = figures.thin_index(length) if thin else np.arange(length)
    matrix = posenc.analysis.toeplitz_view(np.where(np.isneginf(values), np.nan, values), rows, rows)
    fig = figures.heatmap(matrix, title=title, x_label="key position j", y_label="query position i",
                          zrange=None, thin=False)
    fig.update_traces(x=rows, y=rows)
    if len(rows) < length:
        note = figures.stride_note(rows, length, "position")
        fig.update_layout(title_text=f"{title}<br><sup>{note} (all values are exact)</sup>")
    return fig


@shared_figure
def bias_heatmap(scheme: str, length: int, d_model: int, base: float, options: tuple, head: int, thin: bool):
    """The (length, length) logit bias of one head."""
    _, values = offset_bias(scheme, length, d_model, base, options)
    return toeplitz_heatmap(values[head], length, title=f"Attention-logit bias of head {head}", thin=thin)


@shared_figure
def score_heatmap(scheme: str, length: int, d_model: int, base: float, options: tuple, thin: bool):
    """The q·k score of a rotary scheme for q = k = ones, at every (query, key) pair."""
    _, values = offset_curve(scheme, length, d_model, base, options)
    return toeplitz_heatmap(values, length, title="q·k after rotation, q = k = (1, …, 1)", thin=thin)


@cached
def rope_wavelengths(d_model: int, base: float, options: tuple, length: int) -> dict[str, np.ndarray]:
    """Wavelength of every rotated pair under each scaling (the scheme's factor and context)."""
    from posenc.rope import rope_keywords
    from posenc.rope_scaling import ROPE_SCALINGS, rope_scaling_parameters

    keywords = rope_keywords(dict(options))
    fraction = keywords.get("rotary_fraction", 1.0)
    waves = {}
    for rope_type in ROPE_SCALINGS:
        accepted = rope_scaling_parameters(rope_type)
        params = {k: v for k, v in dict(options).items() if k in accepted}
        waves[rope_type] = posenc.rope_wavelengths(d_model, base, rope_type, rotary_fraction=fraction,
                                                   seq_len=length, **params)
    return waves


@cached
def permutation_gap(length: int, d_model: int, base: float) -> dict[str, float]:
    """max |attn(Px) − P·attn(x)| with no encoding and with the sinusoidal one."""
    return {name: posenc.analysis.permutation_gap(min(length, 256), d_model, table)
            for name, table in (("none (NoPE)", None), ("sinusoidal", posenc.sinusoidal(min(length, 256), d_model, base)))}


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
    """(figure of PE[pos], M_k·PE[pos], PE[pos+k], max residual)."""
    table = posenc.sinusoidal(max(pos, pos + k) + 1, d_model, base, spacing=spacing)  # rows up to pos, pos+k
    predicted = posenc.apply_rotation(k, table[pos:pos + 1], base, spacing=spacing)[0]
    target = table[pos + k]
    figure = figures.vectors_chart(np.arange(d_model), {f"PE[{pos}]": table[pos], f"M_k·PE[{pos}]": predicted,
                                                        f"PE[{pos + k}]": target},
                                   title=f"PE[{pos}] rotated by M_{{{k}}} lands on PE[{pos + k}]")
    return figure, float(np.abs(predicted - target).max())


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
                              y_label="PE[position, dim]")


@shared_figure
def position_vectors(scheme: str, length: int, d_model: int, base: float, options: tuple, positions: tuple):
    """PE[p, :] against dimension for each chosen position p."""
    matrix = table(scheme, length, d_model, base, options)
    return figures.line_chart(np.arange(d_model), {f"pos {p}": matrix[p] for p in positions},
                              title="Each position is a vector over dimensions", x_label="dimension",
                              y_label="PE[pos, dimension]")


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
