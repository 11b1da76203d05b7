"""Widgets bound to the URL: every control of every page lives in a query parameter.

One rule for every control, shared or page-level: the value comes from this session's
state when it has one (re-checked, since a range may depend on other controls), else
from the URL; anything invalid becomes the nearest valid value, with a warning that
names the URL key, shows the raw text as an escaped code span (never rendered as
Markdown) and announces the value the widget actually holds. A range that collapses to
one value is shown as text, not as a slider whose ends meet.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from posenc.schemes.scheme import Option
from posenc.settings.parsing import code_span, number_text, parse_option, parse_selection

WARNING_ICON = ":material/link_off:"


def warn(message: str, where=None) -> None:
    """A warning built by the app. URL text must already be inside :func:`code_span`."""
    (where or st).warning(message, icon=WARNING_ICON)


SHOWN = "_posenc_warnings_this_run"  # what this run has warned about, kept if the run is redone


def _shown(slot, message: str) -> None:
    slot.warning(message, icon=WARNING_ICON)
    st.session_state.setdefault(SHOWN, []).append(message)


def url_values(key: str) -> list[str]:
    """Every value the URL gives for ``key`` (a key may be repeated)."""
    return st.query_params.get_all(key)


def _raw_value(key: str) -> tuple[str | None, str | None]:
    """The URL's value for ``key`` (the last when repeated, as Streamlit's binding reads it)
    and a note when it was repeated."""
    values = url_values(key)
    if not values:
        return None, None
    if len(values) > 1:
        return values[-1], f"is given {len(values)} times; the last one is read"
    return values[0], None


def bound_control(option: Option, key: str) -> int | float | str:
    """Draw a widget for ``option`` bound to the query parameter ``key``; return its valid value."""
    slot = st.empty()
    problems = []
    if key in st.session_state:
        held = st.session_state[key]
        value, reason = parse_option(option, str(held))
        source = f"{option.label} {code_span(number_text(held))}"
    else:
        raw, repeated = _raw_value(key)
        value, reason = parse_option(option, raw)
        problems += [repeated] if repeated else []
        source = f"URL parameter {code_span(key)}" + (f" = {code_span(raw)}" if raw else "")
    problems += [reason] if reason else []
    st.session_state[key] = value  # also carries the value across pages, where the widget is new
    actual = _widget(option, key, value)
    if problems:
        used = code_span(actual) if isinstance(actual, str) else number_text(actual)  # a choice: a name, shown as code
        _shown(slot, f"{source} {'; '.join(problems)}: using {used}.")
    return actual


def _widget(option: Option, key: str, value):
    label, help = option.label, option.help or None
    if option.choices:
        return st.selectbox(label, option.choices, key=key, help=help, bind="query-params")
    if option.minimum == option.maximum:
        st.markdown(f"{label}: **{number_text(value)}** (the only value possible here)")
        return value
    if isinstance(option.default, int):
        return st.slider(label, int(option.minimum), int(option.maximum), key=key, help=help, bind="query-params")
    return st.number_input(label, float(option.minimum), float(option.maximum), key=key, help=help,
                           format="%g", bind="query-params")


def bound_multiselect(label: str, choices: range, default: Sequence[int], key: str, maximum: int,
                      where=None) -> list[int]:
    """A multiselect of whole numbers in ``choices`` bound to ``?key=a&key=b``; at most ``maximum``."""
    where = where or st
    slot = where.empty()
    if key in st.session_state:
        chosen, reasons = parse_selection([str(v) for v in st.session_state[key]], choices, maximum)
        source = label
    elif url_values(key):
        chosen, reasons = parse_selection(url_values(key), choices, maximum)
        source = f"URL parameter {code_span(key)}"
    else:
        chosen, reasons = [v for v in default if v in choices][:maximum], []
        source = label
    st.session_state[key] = chosen
    actual = where.multiselect(label, choices, key=key, max_selections=maximum, bind="query-params")
    if reasons:
        _shown(slot, f"{source}: {'; '.join(reasons)}; dropped: using {', '.join(map(str, actual)) or 'none'}.")
    return list(actual)


def bound_tabs(labels: Sequence[str], key: str) -> list:
    """st.tabs bound to ``?key=<label>`` and lazy: a tab's ``.open`` says whether to compute its content.
    An unknown or repeated label in the URL gets a warning; the first tab is used, as Streamlit does."""
    if key not in st.session_state:
        raw, repeated = _raw_value(key)
        if raw is not None and raw not in labels:
            _shown(st, f"URL parameter {code_span(key)} = {code_span(raw)} is not one of "
                       f"{', '.join(code_span(label) for label in labels)}: using {code_span(labels[0])}.")
        elif repeated:
            _shown(st, f"URL parameter {code_span(key)} {repeated}: using {code_span(raw)}.")
    return st.tabs(list(labels), key=key, bind="query-params")
