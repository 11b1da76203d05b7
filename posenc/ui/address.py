"""The browser's address and Streamlit's copy of it, kept in agreement with what the bound widgets hold.

Streamlit binds a widget to a query parameter (``bind="query-params"``): the browser writes a moved widget into
its address itself, and Streamlit keeps a copy of the address that it sends back whole whenever it corrects a
parameter. Both can go wrong (a rerun reports the address from before the move that caused it; a move the
browser did not write stays out of the link), and a link that does not reopen the view breaks posenc's promise.
These functions hold the two in agreement with the widgets, through Streamlit's own records (pinned to
streamlit==1.67; tests/pages/test_app_regressions.py replays each case). posenc.ui.binding draws the widgets.
"""

from __future__ import annotations

import functools
from urllib.parse import parse_qs

import streamlit as st


def write_corrected(key: str, value, default) -> None:
    """Put the value a widget holds into the address bar, after its first run read a value from the URL that
    was refused or corrected (``?n=1e309`` holds 1e9, ``?k=99999`` the largest k, a repeated key its last value).

    Streamlit drops a bound value it cannot take from the URL, and a value set through the session state in a
    widget's first run is not mirrored there (it mirrors programmatic sets only for a widget it saw in an earlier
    run): the view showed the nearest valid value while the link lost it and reopened at the default. This sends
    the address bar the corrected value, as Streamlit does for a value it clamps itself; a value equal to the
    widget's default stays out, as Streamlit leaves it."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    from streamlit.runtime.state.query_params import _format_number_for_query_url

    ctx = get_script_run_ctx()
    if ctx is None or ctx.session_state is None or value == default:
        return
    with ctx.session_state.query_params() as params:
        if isinstance(value, (list, tuple)):
            params.set_corrected_value(key, [str(v) for v in value], "string_array_value")
        else:  # a number as Streamlit writes it (and _address_text): ``8``, ``0.1``; exact, the shortest text that reads back
            params.set_corrected_value(key, _format_number_for_query_url(value), "string_value")


def refresh_copy(key: str) -> list[str] | None:
    """The browser's current values for ``key`` (None: left out), also written into Streamlit's own
    copy of the query string, which it refreshes only when the page changes. Streamlit compares a
    value set through the session state with that copy to decide whether to correct the address bar;
    against a stale copy, a correction could be skipped (a clamped k, an emptied selection) and the
    link would no longer reproduce the view."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or ctx.session_state is None:
        return st.query_params.get_all(key) or None
    values = _reported(ctx.query_string).get(key)
    values = list(values) if values is not None else None
    with ctx.session_state.query_params() as snapshot:
        if snapshot.is_bound(key):  # mirrored from the value it holds at the run's start: see mirror_held_values
            pass
        elif values is None:
            snapshot.discard_param_no_forward_msg(key)
        else:
            snapshot.set_with_no_forward_msg(key, values[0] if len(values) == 1 else values)
    return values


def _bound_widgets(ctx, drawn_this_run: bool):
    """(key, metadata, held value) of every widget bound to the address: those bound in the last run (at a run's
    start), or those drawn in this run. Streamlit's own records, read through its public accessors but for the
    table of bindings; a widget Streamlit holds no value or metadata for is left to Streamlit."""
    state = getattr(ctx.session_state, "_state", None)
    with ctx.session_state.query_params() as snapshot:
        bindings = dict(getattr(snapshot, "_bindings_by_param", {}))
    for key, bound in bindings.items():
        if state is None or (drawn_this_run and bound.widget_id not in ctx.shared.widget_ids_this_run):
            continue
        metadata = state.get_widget_metadata(bound.widget_id)
        try:
            held = state.get_widget_value(bound.widget_id)
        except KeyError:
            continue
        if metadata is not None:
            yield key, metadata, held


def _address_text(metadata, held) -> str | list[str] | None:
    """The address bar's text for a held value as Streamlit writes it (a whole number as digits: ``8``, not
    ``8.0``; an emptied selection as ``?key=``, which an empty list would drop), None for the widget's default
    (left out)."""
    from streamlit.runtime.state.query_params import _coerce_value_for_query_url, _format_number_for_query_url

    if held == metadata.deserializer(None):
        return None
    serialized = metadata.serializer(held)
    if metadata.value_type == "double_value":
        return _format_number_for_query_url(serialized)
    text = _coerce_value_for_query_url(serialized, metadata.value_type)
    return "" if text == [] else text  # an emptied selection is ``?key=``, as the browser writes it


def _reads_as(metadata, held, texts: tuple[str, ...] | None) -> bool:
    """Whether the address's ``texts`` for a widget open it at ``held``, read as Streamlit reads a link
    (numbers by value: the browser writes ``1e-7`` where Python writes ``1e-07``)."""
    from streamlit.runtime.state.query_params import parse_url_param

    if texts is None:
        return held == metadata.deserializer(None)
    try:
        return metadata.deserializer(parse_url_param(texts[0] if len(texts) == 1 else list(texts),
                                                     metadata.value_type)) == held
    except (ValueError, TypeError, IndexError, KeyError):
        return False


def mirror_held_values() -> None:
    """Make Streamlit's copy of the address (the one it sends back whole whenever it corrects a parameter) agree
    with the values the bound widgets hold at the start of a run, before anything can be sent.

    A rerun reports the address the browser had, but the browser can report the one from before the move that
    caused the rerun (Streamlit's frontend reads it from a state it updates a moment later). Refreshed from that
    report, the copy held the old value of the control just moved; a correction sent in the same run (a slider
    reappearing with a value of its own, as the query patch does when the image grows from one patch) then wrote
    the old value back into the address bar: the view showed 32 rows while its link said 1 (seen in CI once). The
    values the widgets hold come with the rerun itself, so they are the browser's own. Every widget bound in the
    last run is mirrored (posenc's controls, the presenter toggle, the expanders, the view switches); a value equal to the
    widget's default is left out, as the browser leaves it out. Not on the browser's Back or Forward, where the
    address decides and Streamlit drops what the widgets held."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or ctx.session_state is None or ctx.is_history_navigation:
        return
    _set_where_wrong(ctx, _disagreeing(ctx, drawn_this_run=False))


def _disagreeing(ctx, drawn_this_run: bool) -> list:
    """``(key, metadata, held)`` of every bound widget (see :func:`_bound_widgets`) whose held value the address
    the run reported does not open at."""
    reported = _reported(ctx.query_string)
    return [(key, metadata, held) for key, metadata, held in _bound_widgets(ctx, drawn_this_run)
            if not _reads_as(metadata, held, reported.get(key))]


@functools.lru_cache(maxsize=64)
def _reported(query_string: str) -> dict[str, tuple[str, ...]]:
    """The address a run reported, read once: every bound control of a run asks (parse_qs, ~10 µs each)."""
    return {key: tuple(values) for key, values in parse_qs(query_string, keep_blank_values=True).items()}


def _set_where_wrong(ctx, wrong: list) -> tuple[str | None, str | list[str] | None]:
    """Set Streamlit's copy of the address to the held value of each ``(key, metadata, held)`` (an address that
    reads right keeps its own text: ``rope.factor=8`` stays, and a follower's address stays its slide's link).
    Returns the last key set and its text (None: left out), (None, None) when there was none."""
    key, text = None, None
    with ctx.session_state.query_params() as snapshot:
        for key, metadata, held in wrong:
            text = _address_text(metadata, held)
            if text is None:
                snapshot.discard_param_no_forward_msg(key)
            else:
                snapshot.set_with_no_forward_msg(key, text)
    return key, text


def ends_the_run(error: BaseException) -> bool:
    """Whether ``error`` is ``st.stop()`` (the run ends as drawn), not a rerun (another run follows at once)."""
    from streamlit.runtime.scriptrunner import StopException

    return isinstance(error, StopException)


def correct_the_address() -> None:
    """At the end of a run, send the browser the address of what the view shows when the address it last
    reported (or was last sent in this run) reads otherwise for any control drawn in this run.

    The browser writes a moved control into its address itself, and does so only then: a move it did not write
    (two CI runs out of five under load: the image grown to 32 × 32 patches and 4 frames on the view, 1 × 1 and
    1 frame in its link, every later control written on top of the old ones) stayed wrong for good, since no
    later run corrected anything. Every run now ends with the view and its address in agreement; an address that
    agrees costs nothing (nothing is sent)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or ctx.session_state is None:
        return
    wrong = _disagreeing(ctx, drawn_this_run=True)
    if not wrong:
        return
    key, text = _set_where_wrong(ctx, wrong)
    with ctx.session_state.query_params() as snapshot:
        if text is None:  # Streamlit's own two ways of sending its copy of the address (it sends it whole)
            snapshot.set_with_no_forward_msg(key, "")
            snapshot.remove_param(key)
        else:
            snapshot.set_corrected_value(key, text, "string_array_value" if isinstance(text, list) else "string_value")
