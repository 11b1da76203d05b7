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
from posenc.ui import address

WARNING_ICON = ":material/link_off:"


def warn(message: str, where=None) -> None:
    """A warning built by the app. URL text must already be inside :func:`code_span`."""
    (where or st).warning(message, icon=WARNING_ICON)


SHOWN = "_posenc_warnings_this_run"  # what this run has warned about, kept if the run is redone


def _shown(where, message: str) -> None:
    where.warning(message, icon=WARNING_ICON)
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


DEFAULTS = "_posenc_widget_defaults"  # each bound widget's own default in the last run


def _follows_default(key: str) -> bool:
    """Whether the held value of ``key`` stands for "the default", as the address bar says.

    Streamlit leaves out of the URL a value equal to the widget's default, and that default can move
    with the other controls (a default clamped into a range, default dimensions that exist only for
    a large d_model). A value the address bar leaves out opens as the default of the moment, so the
    session must follow it too, or the view and its link part ways. Held values are what this reads:
    the first run of a widget reads the URL as Streamlit gave it."""
    left_out = address.refresh_copy(key) is None
    return left_out and DEFAULTS in st.session_state and st.session_state[DEFAULTS].get(key) == st.session_state[key]


def _hold(key: str, value, default) -> None:
    """Give the widget ``key`` this value through the session state, only when it holds another.
    (It also carries a value across pages, where the widget is new.) A write is a programmatic set,
    which Streamlit mirrors into the address bar; writing an unchanged value every run would also
    be one, and could undo what the browser just wrote (an emptied selection, ``?dims=``)."""
    if key not in st.session_state or st.session_state[key] != value:
        st.session_state[key] = value
    st.session_state.setdefault(DEFAULTS, {})[key] = default


def bound_control(option: Option, key: str) -> int | float | str:
    """Draw a widget for ``option`` bound to the query parameter ``key``; return its valid value.
    A choice is shown by its name, as the URL writes it: a bound selectbox puts its *shown* text in the
    URL, so a ``format_func`` label ("RoPE (rotary)") would replace the name (``rope``) in every copied
    link; pages show labels in a caption. A warning is drawn above the widget only when there is one
    (no empty placeholder per control: every element is work in every run)."""
    problems = []
    from_url = not (key in st.session_state and not _follows_default(key))
    if not from_url:
        held = st.session_state[key]
        value, reason = parse_option(option, str(held))
        source = f"{option.label} {code_span(number_text(held))}"
    else:
        raw, repeated = _raw_value(key) if key not in st.session_state else (None, None)
        value, reason = parse_option(option, raw)
        problems += [repeated] if repeated else []
        source = f"URL parameter {code_span(key)}" + (f" = {code_span(raw)}" if raw else "")
    problems += [reason] if reason else []
    _hold(key, value, _widget_default(option))
    if problems:  # the widget holds ``value``: it is what the session state gives it
        used = code_span(value) if isinstance(value, str) else number_text(value)  # a choice: a name, shown as code
        _shown(st, f"{source} {'; '.join(problems)}: using {used}.")
    shown = _widget(option, key, value)
    if problems and from_url:
        address.write_corrected(key, value, _widget_default(option))
    return shown


def _widget_default(option: Option):
    """posenc's default for ``option``, in the widget's range: the widget's own default."""
    if option.choices:
        return option.default if option.default in option.choices else option.choices[0]
    default = min(max(option.default, option.minimum), option.maximum)
    return int(default) if isinstance(option.default, int) else float(default)


def _widget(option: Option, key: str, value):
    """The widget, made with posenc's default as its own (``value=``/``index=``): Streamlit's binding
    leaves out of the URL a value equal to the widget's default, so the two defaults must agree, or a
    value at the widget's default (its minimum, when none is given) would vanish from a copied link
    and reopen as posenc's default. The value it shows comes from the session state set above."""
    label, help, default = option.label, option.help or None, _widget_default(option)
    if option.choices:
        return st.selectbox(label, option.choices, index=option.choices.index(default), key=key, help=help,
                            bind="query-params")
    if option.minimum == option.maximum:
        st.markdown(f"{label}: **{number_text(value)}** (the only value possible here)")
        return value
    if isinstance(option.default, int):
        return st.slider(label, int(option.minimum), int(option.maximum), default, key=key, help=help,
                         bind="query-params")
    return st.number_input(label, float(option.minimum), float(option.maximum), default, key=key,
                           help=help, format="%g", bind="query-params")


def bound_multiselect(label: str, choices: range, default: Sequence[int], key: str, maximum: int,
                      where=None) -> list[int]:
    """A multiselect of whole numbers in ``choices`` bound to ``?key=a&key=b``; at most ``maximum``."""
    where = where or st
    default = [v for v in default if v in choices][:maximum]  # also the widget's own: see _widget
    from_url = False
    if key in st.session_state and not _follows_default(key):
        chosen, reasons = parse_selection([str(v) for v in st.session_state[key]], choices, maximum)
        source = label
    elif key not in st.session_state and url_values(key) and all(text == "" for text in url_values(key)):
        chosen, reasons = [], []  # ?key= : emptied on purpose, as Streamlit writes an empty selection
    elif key not in st.session_state and url_values(key):
        chosen, reasons = parse_selection([text for text in url_values(key) if text], choices, maximum)
        source, from_url = f"URL parameter {code_span(key)}", True
    else:
        chosen, reasons = default, []
        source = label
    _hold(key, chosen, default)
    if reasons:
        _shown(where, f"{source}: {'; '.join(reasons)}; dropped: using {', '.join(map(str, chosen)) or 'none'}.")
    shown = list(where.multiselect(label, choices, default=default, key=key, max_selections=maximum,
                                   bind="query-params"))
    if reasons and from_url:
        address.write_corrected(key, chosen, default)
    return shown


def _forget(name: str) -> None:
    st.session_state.pop(name, None)


class View:
    """One view of :func:`bound_views`: ``open`` says whether it is shown (compute its content only then);
    ``with view:`` draws into the place under the switch."""

    def __init__(self, label: str, open: bool, place) -> None:
        self.label, self.open, self._place = label, open, place

    def __enter__(self):
        if not self.open:
            raise RuntimeError(f"the view {self.label!r} is not shown: draw only in the open one")
        return self._place.__enter__()

    def __exit__(self, *exc) -> bool | None:
        return self._place.__exit__(*exc)


def bound_views(label: str, labels: Sequence[str], key: str) -> list[View]:
    """A view switch bound to ``?key=<label>`` (the first view when absent): a segmented control over one place,
    and only the open view is computed and drawn. An unknown or repeated label in the URL gets a warning; the
    first view is used.

    Not st.tabs, though it reads as tabs: a tab panel of Streamlit 1.67 (react-aria's useTabPanel) watches its
    whole subtree and, at every change in it, walks it for something focusable, asking the browser each node's
    visibility. A chart redrawn in a panel is hundreds of changes: ~13 ms of a press's main thread at the caps
    (a CPU profile in Chromium), 7-26 ms of its settle time (bench/bench_floor.py; BENCHMARKS.md). The tabs were
    lazy anyway (a rerun at each change), which is what a segmented control is."""
    wanted = f"_posenc_wanted_view_{key}"
    if key not in st.session_state:
        raw, repeated = _raw_value(key)
        if raw is not None and raw not in labels:
            _shown(st, f"URL parameter {code_span(key)} = {code_span(raw)} is not one of "
                       f"{', '.join(code_span(label) for label in labels)}: using {code_span(labels[0])}.")
        elif repeated:
            _shown(st, f"URL parameter {code_span(key)} {repeated}: using {code_span(raw)}.")
    elif st.session_state[key] not in labels:  # a view this setting lacks (Wavelengths, for a scheme with no
        st.session_state[wanted] = st.session_state[key]  # period): the first is shown and the address says so;
        st.session_state[key] = labels[0]  # the choice comes back with a setting that has it, as a tab's did
    elif st.session_state.get(wanted) in labels:
        st.session_state[key] = st.session_state.pop(wanted)
    chosen = st.segmented_control(label, list(labels), default=labels[0], required=True, key=key,
                                  bind="query-params", label_visibility="collapsed",
                                  on_change=_forget, args=(wanted,))  # a view picked meanwhile is the choice
    place = st.container()
    return [View(name, name == chosen, place) for name in labels]


def bound_names(label: str, names: Sequence[str], default: Sequence[str], key: str, *,
                help: str | None = None) -> list[str]:
    """A multiselect of ``names`` bound to ``?key=a&key=b`` (names, in the order chosen), with the same rule
    as :func:`bound_multiselect`: an unknown or repeated name is dropped with a warning that shows it as
    code; ``?key=`` is an emptied selection; posenc's default is the widget's own. Names are shown as the
    URL writes them (no ``format_func``: see :func:`bound_control`)."""
    default = [name for name in default if name in names]
    from_url = False
    if key in st.session_state and not _follows_default(key):
        raw, source = [str(v) for v in st.session_state[key]], label
    elif key not in st.session_state and url_values(key):
        raw, source, from_url = [text for text in url_values(key) if text], f"URL parameter {code_span(key)}", True
    else:
        raw, source = list(default), label
    chosen, reasons = [], []
    for text in raw:
        if text not in names:
            reasons.append(f"{code_span(text)} is not one of {', '.join(map(code_span, names))}")
        elif text in chosen:
            reasons.append(f"{code_span(text)} is repeated")
        else:
            chosen.append(text)
    _hold(key, chosen, default)
    if reasons:
        _shown(st, f"{source}: {'; '.join(reasons)}; dropped: using {', '.join(map(code_span, chosen)) or 'none'}.")
    shown = list(st.multiselect(label, list(names), default=default, key=key, help=help, bind="query-params"))
    if reasons and from_url:
        address.write_corrected(key, chosen, default)
    return shown
