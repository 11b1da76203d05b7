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
from posenc import figures
from posenc.params import SHARED_CONTROLS, parse_option
from posenc.scheme import Option

CACHE_ENTRIES = 32  # bounded: many sessions with different settings cannot grow memory without limit


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


def bound_control(option: Option, key: str, *, format_func=str) -> object:
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
        return st.selectbox(label, option.choices, key=key, help=help, bind="query-params", format_func=format_func)
    if isinstance(option.default, int):
        return st.slider(label, int(option.minimum), int(option.maximum), key=key, help=help, bind="query-params")
    return st.number_input(label, float(option.minimum), float(option.maximum), key=key, help=help,
                           format="%g", bind="query-params")


def controls() -> Controls:
    """The shared controls: d_model, n, length, scheme and the scheme's options."""
    schemes = posenc.SCHEMES
    with st.sidebar:
        st.markdown("### Settings")
        scheme_option = Option("scheme", "scheme", next(iter(schemes)), choices=tuple(schemes))
        scheme = bound_control(scheme_option, "scheme", format_func=lambda key: schemes[key].label)
        d_model, base, length = (bound_control(o, o.name) for o in SHARED_CONTROLS)
        options = tuple((o.name, bound_control(o, f"{scheme}.{o.name}")) for o in schemes[scheme].options)
        st.caption(f"Caps: d_model ≤ {posenc.params.MAX_D_MODEL}, length ≤ {posenc.params.MAX_LENGTH}. "
                   "Every setting is in the URL: copy it to share this view.")
    return Controls(int(d_model), float(base), int(length), scheme, options)


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def table(scheme: str, length: int, d_model: int, base: float, options: tuple) -> np.ndarray:
    """The scheme's (length, d_model) table, float64."""
    return posenc.get_scheme(scheme).table(length, d_model, base, **dict(options))


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


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def table_heatmap(scheme: str, length: int, d_model: int, base: float, options: tuple, thin: bool):
    """Heatmap of the (length, d_model) table; interleaved (sin, cos) pairs thinned together."""
    matrix = table(scheme, length, d_model, base, options)
    group = 2 if dict(options).get("layout", "interleaved") == "interleaved" else 1
    return figures.heatmap(matrix, title="PE: positions × dimensions", x_label="dimension", y_label="position",
                           thin=thin, col_group=group)


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
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


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def rotation_check(length: int, d_model: int, base: float, k: int, spacing: str, dtype: str) -> posenc.RotationCheck:
    """posenc.rotation_check, cached."""
    return posenc.rotation_check(length, d_model, base, k, dtype=np.dtype(dtype), spacing=spacing)
