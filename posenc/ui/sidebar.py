"""The shared sidebar of every page: d_model, n, length, the scheme and its options, bound to the URL.

Widget values are parsed once (posenc.settings); settings a scheme cannot take in combination
become the nearest valid ones before any page computes. Pages receive a :class:`Controls` and
pass its scalars to the cached functions of :mod:`posenc.ui.compute`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

import posenc
import posenc.settings.parsing
from posenc.schemes.scheme import Option
from posenc.settings.constraints import valid_for_all, valid_settings
from posenc.settings.parsing import SHARED_CONTROLS
from posenc.ui import model_picker, presenter, your_config
from posenc.ui.binding import SHOWN, bound_control, warn


@dataclass(frozen=True)
class Controls:
    """The shared sidebar values, valid and typed."""

    d_model: int
    base: float
    length: int
    scheme: str
    options: tuple[tuple[str, object], ...]  # the scheme's options (and a model's the sidebar cannot set), hashable
    model: str | None = None  # the released model picked in the sidebar (posenc.models), if any

    @property
    def option_dict(self) -> dict[str, object]:
        return dict(self.options)


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


_DRAWN = "_posenc_controls_this_run"  # what app.py drew before the page, for the page to take


def controls() -> Controls:
    """The shared controls of this run, for a page: the ones app.py drew before running it, or, for a page
    run alone (a deep link before the first navigation, a test of one page file), drawn here."""
    drawn = st.session_state.pop(_DRAWN, None)
    if drawn is None and _page_alone_under_app():
        st.rerun()  # another session left the legacy page mode first: this run goes through app.py now
    return drawn if drawn is not None else draw()


def _page_alone_under_app() -> bool:
    """Whether this run is a page file run alone although the server's script is app.py: a session that started
    while the process was still in Streamlit's legacy page mode, after another session had left it (a burst of
    students on a server just started). Once per session, so a rerun can never loop."""
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or PagesManager.uses_pages_directory or st.session_state.get("_posenc_left_legacy"):
        return False
    alone = Path(ctx.main_script_path).name == "app.py"
    st.session_state["_posenc_left_legacy"] = True
    return alone


def draw() -> Controls:
    """Draw the shared controls: d_model, n, length, scheme and the scheme's options, presenter mode.

    app.py calls this before the page runs, so that the widgets belong to the entry point and are the same
    widgets on every page: Streamlit keeps their values across a page change and writes their URL
    parameters into the new page's address (widgets made by a page script are that page's own, and a
    page change would reset them to their defaults)."""
    _leave_legacy_page_mode()
    st.session_state[SHOWN] = []
    schemes = posenc.SCHEMES
    with st.sidebar:
        # One element for the heading and its note: every element is work in every run (bench/runs_per_second.py).
        st.markdown(f"### Settings\n:gray[:small[Every setting is in the URL: copy it to share this view. Caps: d_model ≤ "
                    f"{posenc.settings.parsing.MAX_D_MODEL}, length ≤ {posenc.settings.parsing.MAX_LENGTH}.]]")
        picked = model_picker.picker()  # ?model=: a released model's settings, set before their widgets
        names = "; ".join(f"{key}: {s.label}" for key, s in schemes.items())
        scheme_option = Option("scheme", "scheme", next(iter(schemes)), choices=tuple(schemes), help=names)
        read = model_picker.read_against(picked)  # under a model, a link is read against the model's values
        scheme = bound_control(read(scheme_option, "scheme"), "scheme")
        st.caption(schemes[scheme].label)  # a caption, not the widget's format_func: see binding.bound_control
        _apply_corrections()
        d_model, base, length = (bound_control(read(o, o.name), o.name) for o in SHARED_CONTROLS)
        options = tuple((o.name, bound_control(read(o, f"{scheme}.{o.name}"), f"{scheme}.{o.name}"))
                        for o in schemes[scheme].options)
        d_model, base, length, options = _combined(scheme, d_model, base, length, options)
        # the model's options the sidebar cannot set, while they fit the sidebar's settings
        extra, unfit = model_picker.in_force(picked, scheme, options, (length, d_model, base)) if picked else ((), None)
        if picked:
            held = {"scheme": scheme, "d_model": d_model, "n": base, "length": length}
            model_picker.describe(picked, held | {f"{scheme}.{name}": value for name, value in options}, bool(extra),
                                  unfit)
        options += extra
        present = presenter.toggle()
        presenter.palette_control()  # ?palette=: colour-blind-safe chart colours (posenc/ui/palette.py)
    presenter.apply(present)
    if st.session_state.get("model") == your_config.CHOICE:
        your_config.report()  # above the views: the check's findings, or why the config was not read
    st.session_state[_DRAWN] = Controls(int(d_model), float(base), int(length), scheme, options,
                                        picked[0] if picked else None)
    return st.session_state[_DRAWN]


_PENDING = "_posenc_corrections"  # widget values to set before the widgets are drawn, and why


def _apply_corrections() -> None:
    """Set the values a previous run corrected, before their widgets exist; show why."""
    pending = st.session_state.pop(_PENDING, None)
    if pending:
        values, notes = pending
        st.session_state.update(values)
        for note in notes:
            warn(note)


def _combined(scheme: str, d_model: int, base: float, length: int, options: tuple):
    """Settings the scheme cannot take in combination (odd width where pairs are needed, n ≤ 1 where
    ln n divides) become the nearest valid ones before any page computes. The widgets are set to them
    by one more run (a widget's value cannot change once drawn in this run), with a warning."""
    settings, notes = valid_settings(scheme, length, d_model, base, dict(options))
    fixed = {"d_model": settings["d_model"], "n": settings["base"], "length": settings["length"]}
    fixed |= {f"{scheme}.{name}": value for name, value in settings["options"].items()}
    held = {"d_model": d_model, "n": base, "length": length} | {f"{scheme}.{k}": v for k, v in options}
    changes = {key: value for key, value in fixed.items() if held[key] != value}
    if changes and not st.session_state.get("_posenc_corrected"):
        earlier = st.session_state.get(SHOWN, [])  # the URL's own warnings: the next run reads no URL
        st.session_state[_PENDING] = (changes, earlier + notes)
        st.session_state["_posenc_corrected"] = True  # at most one extra run, whatever happens
        st.rerun()
    st.session_state["_posenc_corrected"] = False
    if changes:  # the widget kept another value (it cannot, but never compute with it)
        for note in notes:
            warn(note)
    return (settings["d_model"], settings["base"], settings["length"],
            tuple((name, settings["options"][name]) for name, _ in options))


def for_view(c: Controls, *, even_d_model: bool = False, every_scheme: bool = False) -> Controls:
    """The settings a view can draw: an even d_model where it pairs dimensions, or settings every
    scheme takes with its default options (the comparison). A change is announced, the sidebar kept."""
    shared, notes = valid_for_all(c.length, c.d_model, c.base) if every_scheme else (vars(c), [])
    controlled = {o.name for o in posenc.get_scheme(c.scheme).options}  # a model's other options pass unchanged
    settings, more = valid_settings(c.scheme, shared["length"], shared["d_model"], shared["base"],
                                    {k: v for k, v in c.options if k in controlled}, even_d_model=even_d_model)
    notes += [note for note in more if note not in notes]
    for note in notes:
        st.info(note, icon=":material/tune:")
    return Controls(settings["d_model"], settings["base"], settings["length"], c.scheme,
                    tuple((name, settings["options"][name] if name in controlled else value)
                          for name, value in c.options), c.model)
