"""How pages compute: cached and shared between sessions, bounded, in threads, errors shown as messages.

Small results are cached by value (each session gets a copy). Figures and full tables are
cached as shared objects: no copy or unpickling per rerun (rebuilding a plotly Figure from a
pickle re-validates it, ~30 ms). They are never mutated after they are returned. Figures are
kept in a bounded LRU of this process keyed by their (hashable) arguments: a hit is a dict
lookup, where st.cache_resource hashes the arguments and inspects the function's signature
on every call, every run of every session.

A shared figure also keeps plotly's dict of itself (SharedFigure): st.plotly_chart asks every
session's every run for ``figure.to_dict()``, which is a deep copy that encodes each array in
base64 again (0.8 ms for the default heatmap, ~13 % of a default page's run; bench/runs_per_second.py).
"""

from __future__ import annotations

import functools
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

import posenc
import posenc.analysis.offset_curves
import posenc.analysis.properties
import posenc.analysis.similarity
from posenc.ui import page_end

CACHE_ENTRIES = 16  # bounded: many sessions with different settings cannot grow memory without limit
TABLE_ENTRIES = 2  # full tables are up to 32 MiB each

cached = st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)


def _containers_copied(spec):
    """New dicts and lists all the way down over the same leaves (strings, numbers: immutable)."""
    if isinstance(spec, dict):
        return {key: _containers_copied(value) for key, value in spec.items()}
    if isinstance(spec, list):
        return [_containers_copied(value) for value in spec]
    return spec


class SharedFigure(go.Figure):
    """A figure shared between sessions and never changed: plotly's dict of it is made once.

    ``to_dict()`` returns new dicts and lists over that dict's leaves, so a caller may edit what it
    gets (posenc.ui.presenter.restyle does) without touching the figure or other sessions."""

    def to_dict(self) -> dict:
        spec = self.__dict__.get("_posenc_spec")
        if spec is None:  # two sessions may both make it the first time: the same dict, either wins
            spec = super().to_dict()
            self.__dict__["_posenc_spec"] = spec
        return _containers_copied(spec)


def _shareable(result):
    """``result`` with every plotly Figure in it (also inside tuples, lists, dicts) made a SharedFigure."""
    if type(result) is go.Figure:
        result.__class__ = SharedFigure  # same object, same layout: no copy, no re-validation
    elif isinstance(result, (tuple, list)):
        for item in result:
            _shareable(item)
    elif isinstance(result, dict):
        for item in result.values():
            _shareable(item)
    return result


def shared_figure(builder):
    """Cache ``builder``'s figures as shared objects, as SharedFigures: the last ``CACHE_ENTRIES``
    argument tuples (numbers, strings, tuples of them) of this process. Thread-safe; two sessions
    asking a new figure at once may both build it, and either is kept."""

    @functools.lru_cache(maxsize=CACHE_ENTRIES)
    @functools.wraps(builder)
    def build(*args, **kwargs):
        return _shareable(builder(*args, **kwargs))

    return build


@st.cache_resource(max_entries=TABLE_ENTRIES, show_spinner=False)
def table(scheme: str, length: int, d_model: int, base: float, options: tuple) -> np.ndarray:
    """The scheme's (length, d_model) table, float64, read-only (shared between sessions)."""
    matrix = posenc.get_scheme(scheme).table(length, d_model, base, **dict(options))
    matrix.setflags(write=False)
    return matrix


_BUILT: dict[tuple, go.Figure] = {}  # key -> shared figure, oldest first (a dict keeps its insertion order)
_BUILT_LOCK = threading.Lock()


def built_once(key: tuple, build) -> go.Figure:
    """The figure ``build()`` returns, built once for ``key`` and shared like :func:`shared_figure`'s (the last
    ``CACHE_ENTRIES`` keys): for a figure drawn inline from a view's numbers. ``key`` must hold every input
    ``build`` reads. Built anew each run, such a figure was restyled anew each run too (presenter.styled keys
    on the figure object): a hall of phones on one slide paid both once per phone."""
    with _BUILT_LOCK:
        figure = _BUILT.get(key)
    if figure is None:
        figure = _shareable(build())
        with _BUILT_LOCK:
            _BUILT[key] = figure
            while len(_BUILT) > CACHE_ENTRIES:
                del _BUILT[next(iter(_BUILT))]
    return figure


def in_threads(compute, items, workers: int = 2) -> list:
    """[compute(item) for item in items], ``workers`` at a time: for numpy work, which releases the GIL.
    The threads carry this run's script context, so Streamlit's caches and elements work in them."""
    context = get_script_run_ctx()
    with ThreadPoolExecutor(workers, initializer=lambda: add_script_run_ctx(threading.current_thread(), context)) as pool:
        return list(pool.map(compute, items))


def or_stop(compute, *args, **kwargs):
    """``compute(*args, **kwargs)``, or the library's ValueError shown as a message and the page stopped."""
    try:
        return compute(*args, **kwargs)
    except ValueError as err:
        st.error(str(err), icon=":material/error:")
        page_end.end()


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
    """(offsets, values): the scheme's curve shared by every scheme (closed forms, no full table)."""
    return posenc.analysis.offset_curves.offset_curve(scheme, length, d_model, base, **dict(options))


@cached
def properties(scheme: str, length: int, d_model: int, base: float,
               options: tuple) -> posenc.analysis.properties.SchemeProperties:
    """posenc.analysis.properties.measure_properties: seed 001's criteria measured for one scheme and setting."""
    return posenc.analysis.properties.measure_properties(scheme, length, d_model, base, dict(options))


@cached
def row_norms(scheme: str, length: int, d_model: int, base: float, options: tuple) -> np.ndarray:
    """‖PE[p]‖ of every row of the scheme's table (NaN: no row); the table itself is not kept."""
    return np.linalg.norm(posenc.get_scheme(scheme).table(length, d_model, base, **dict(options)), axis=1)


@cached
def rope_wavelengths(d_model: int, base: float, options: tuple, length: int) -> dict[str, np.ndarray]:
    """Wavelength of every rotated pair under each scaling (the scheme's factor, context and fraction;
    LongRoPE with the app's factor lists, at this length; p-RoPE's rotated pairs only, the others never turn)."""
    from posenc.schemes.rope.entry import rope_keywords
    from posenc.schemes.rope.scalings import ROPE_SCALINGS

    waves = {}
    for rope_type in ROPE_SCALINGS:
        keywords = rope_keywords(dict(options) | {"rope_type": rope_type})
        keywords.pop("layout", None)
        try:
            wavelengths = posenc.rope_wavelengths(d_model, base, seq_len=length, **keywords)
        except ValueError:  # e.g. ntk and dynamic need 4 rotated dimensions; the page lists what is missing
            continue
        waves[rope_type] = wavelengths[np.isfinite(wavelengths)]  # p-RoPE: θ = 0, an infinite wavelength
    return waves


@cached
def permutation_gap(length: int, d_model: int, base: float) -> dict[str, float]:
    """max |attn(Px) − P·attn(x)| with no encoding and with the sinusoidal one."""
    return {name: posenc.analysis.similarity.permutation_gap(min(length, 256), d_model, table)
            for name, table in (("none (NoPE)", None), ("sinusoidal", posenc.sinusoidal(min(length, 256), d_model, base)))}
