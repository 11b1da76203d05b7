"""Presenter mode and chart output for the lecture hall.

- :func:`apply` restyles the page for a 1920×1080 projector seen from a distance: text
  about 1.4× larger, captions at full contrast, a wider body. The body starts higher than
  Streamlit's (2.2rem, not 6rem), inside the reach of Streamlit's header (84 px at this text
  size): the header is see-through and lets clicks through there (its buttons still take theirs),
  so what a page draws first (a lecture's bar, a room's sentence) is seen and pressed. Its CSS is
  a constant of this module: no text from the URL ever reaches it.
- :func:`chart` draws every plotly chart: the camera button saves a PNG at twice its
  on-screen size named after the settings (and a button beside it the same chart as SVG,
  posenc/ui/svg_download.py), and figures are restyled on a copy (figures
  are cached, shared objects and are never mutated) for presenter mode (larger text,
  thicker lines, bigger markers), for the dark theme and for a colour-blind-safe palette
  (``?palette=``, posenc/ui/palette.py), and laid out to be read on a phone's 358 px (or presenter
  mode's column): titles wrapped, legends below (posenc/figures/legible.py), once per figure.
  :func:`grid_columns` picks the columns of small multiples. Every chart has its text
  alternative (WCAG 1.1.1): one sentence built from the figure (posenc/figures/describe.py)
  as the chart's accessible name, and its data as tables in a closed expander below it.
"""

from __future__ import annotations

import re
import weakref

import plotly.graph_objects as go
import streamlit as st

import posenc
from posenc.figures import describe, images, legible, palettes, series
from posenc.settings.parsing import code_span
from posenc.ui import accessibility, palette, stale_fade, svg_download
from posenc.ui.binding import warn

SCALE = 1.4  # text in presenter mode
LINE_SCALE = 1.8  # line widths in presenter mode
EXPORT_SCALE = 2  # the camera button's PNG is this many times the chart's on-screen size
PROJECTOR = 1700  # px: a chart of presenter mode's main column (1920 px page)
SETTINGS = ("scheme", "d_model", "n", "length")  # shared controls carried in every file name

PRESENTER_CSS = """<style>
html { font-size: 140%; }
[data-testid="stMainBlockContainer"] { max-width: 1860px; padding: 2.2rem 2.5rem 4rem; }
[data-testid="stHeader"] { background: transparent; }
[data-testid="stHeader"], [data-testid="stHeader"] * { pointer-events: none; }
[data-testid="stHeader"] button, [data-testid="stHeader"] a { pointer-events: auto; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-weight: 500; line-height: 1.5; }
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p { color: inherit; opacity: 0.92; }
[data-testid="stMetricValue"] { font-weight: 700; }
[data-testid="stTable"] th, [data-testid="stTable"] td { color: inherit; font-size: 1rem; }
.katex { font-size: 1.3em; }
</style>"""

DARK = dict(paper="#0e1117", text="#f0f2f6", grid="#3b4252", line="#6b7385",  # .streamlit/config.toml [theme.dark]
            button="#c9ced8")  # an animation's choice buttons (the speeds): see _dark_colours
LIGHT_TEXT = "#111111"  # presenter mode: chart text at full contrast
# The light theme off the projector: tick labels, axis titles, annotations, colour bars and animation controls in a
# muted grey of 6.9:1 on white. Streamlit's chart theme draws them in its faded text colour, #808495: 3.7:1, under
# WCAG's 4.5:1 for text (tests/browser/test_every_view.py measures every chart text against its background).
MUTED_TEXT = "#555a69"
# The chart tool bar's icons (plotly's modebar) at 3:1 at least against the chart (WCAG 1.4.11, a control's look):
# plotly draws them at 30% of a grey, 1.7:1 on white and 2.7:1 on the dark theme. Each look: (icon, icon hovered or
# on), the accent for the latter (4.2:1 and 8:1 on white; 6.0:1 and 9:1 on the dark paper).
TOOLBAR = {False: ("#767b8a", "#1f4e9c"), True: ("#8b91a0", "#8ab4ff")}  # keyed by dark


def is_on() -> bool:
    """Whether this session shows presenter mode (the sidebar toggle, bound to ``?present=true``)."""
    value = st.session_state.get("present")
    if value is None:
        value = st.query_params.get("present", "").lower() == "true"
    return bool(value)


def grid_columns() -> int:
    """The columns of a chart of small multiples: two on a projector, one elsewhere (the server does not know
    the screen's width, and two panels side by side do not fit a phone's 358 px with their axes). Clocks and
    phasor circles, narrower, go twice as many a row."""
    return 2 if is_on() else 1


def toggle() -> bool:
    """The sidebar toggle, bound to ``?present=``. A URL value that is neither true nor false
    (the toggle reads it as false) gets a warning; URL text only ever appears as a code span."""
    raw = st.query_params.get("present")
    present = st.toggle("Presenter mode", key="present", bind="query-params",
                        help="For a projector: larger text and chart labels, thicker lines (?present=true).")
    if raw is not None and raw.lower() not in ("true", "false"):
        warn(f"URL parameter {code_span('present')} = {code_span(raw)} is not true or false: "
             f"using {'true' if present else 'false'}.")
    return bool(present)


def palette_control() -> str:
    """The sidebar's chart palette (``?palette=``, posenc/ui/palette.py), drawn under presenter mode."""
    return palette.control()


def apply(present: bool) -> None:
    """The page-wide accessibility of every page (posenc/ui/accessibility.py), the fade of a run's stale elements
    (posenc/ui/stale_fade.py) and the SVG button's script, and restyle the page for a projector when ``present``."""
    accessibility.apply(dark=_dark(), also=stale_fade.STYLE + svg_download.SCRIPT)
    if present:
        st.html(accessibility.prepared(PRESENTER_CSS))


def _dark() -> bool:
    try:
        return st.context.theme.type == "dark"
    except AttributeError:  # no browser context (a bare script run)
        return False


def file_name(name: str, *, sidebar: bool = True, **settings: object) -> str:
    """'posenc_rotation_vectors_scheme-sinusoidal_d_model-128_n-10000_length-100_k-3': the chart's
    name and the settings it was drawn with, in characters every file system accepts: the sidebar's (the
    shared controls, then the scheme's options and the model the URL holds), then the page's own that the
    chart's view names in ``settings`` (a list joined by "+"). ``sidebar=False``: a chart that reads none of the
    sidebar's values (the Length generalization lab's) is named by its own settings alone.

    Only those: the file name is part of the chart's element, and Streamlit sends an element equal to one the
    browser holds as a reference to it (its forward-message cache), not again. With every value of the URL in
    every chart's name, a move re-sent the charts it does not change: the lab page's six at every move (1.7 MB),
    RoPE's How it works nine when its query position moved."""
    values = {}
    if sidebar:
        values = {key: st.session_state.get(key) for key in SETTINGS}
        keys = _sidebar_keys()
        values |= {key: value for key, value in st.query_params.items() if key not in values and key in keys}
    values |= settings
    parts = [f"posenc_{name}"] + [f"{key}-{_setting(value)}" for key, value in values.items() if value is not None]
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", "_".join(parts))[:180]


def _setting(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return "+".join(_setting(v) for v in value)
    return str(value)


def _sidebar_keys() -> set[str]:
    """The URL keys of the sidebar's values beyond SETTINGS: the chosen scheme's options and the model."""
    scheme = st.session_state.get("scheme")
    return {"model"} | ({option.name for option in posenc.get_scheme(scheme).options} if scheme in posenc.SCHEMES else set())


def _scaled(value, factor: float):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value * factor
    if isinstance(value, (list, tuple)):
        return [v * factor if isinstance(v, (int, float)) else v for v in value]
    return value


def _font(parent: dict, key: str = "font") -> dict:
    return parent.setdefault(key, {})


def _axes(layout: dict) -> list[dict]:
    """Every x and y axis of a layout (the first ones created when the figure left them implicit)."""
    names = {name for name in layout if re.fullmatch(r"[xy]axis\d*", name)} | {"xaxis", "yaxis"}
    return [layout.setdefault(name, {}) for name in sorted(names)]


def _present(spec: dict, text: str) -> None:
    """Larger text, thicker lines and bigger markers, in place on a figure dict. Streamlit's chart
    theme sets legend, tick and axis-title fonts itself, so each is set explicitly."""
    layout = spec["layout"]
    size = _font(layout).get("size", 15) * SCALE
    _font(layout).update(size=size, color=text)
    _font(layout.setdefault("legend", {})).update(size=size * 0.9)
    _font(layout.setdefault("hoverlabel", {})).update(size=size)
    title = layout.setdefault("title", {})
    _font(title)["size"] = _font(title).get("size", 20) * SCALE
    for annotation in layout.get("annotations", []):
        _font(annotation)["size"] = _font(annotation).get("size", 15) * SCALE
    for trace in spec["data"]:
        if trace.get("type", "scatter") == "scatter":
            line, marker = trace.setdefault("line", {}), trace.setdefault("marker", {})
            line["width"] = line.get("width", 2) * LINE_SCALE
            marker["size"] = _scaled(marker.get("size", 6), SCALE)
            if marker.get("line", {}).get("width"):
                marker["line"]["width"] *= LINE_SCALE
        elif trace.get("type") == "heatmap":
            _font(trace.setdefault("colorbar", {}), "tickfont")["size"] = size * 0.9
    for axis in _axes(layout):
        axis.update(linewidth=2, gridwidth=1.5)
        ticks = _font(axis, "tickfont")  # a size the figure chose to fit its cells (a token a row) grows as the text
        ticks.update(size=ticks["size"] * SCALE if "size" in ticks else size * 0.9, color=text)
        _font(axis.setdefault("title", {})).update(size=size, color=text)


def _dark_colours(spec: dict) -> None:
    """The dark theme's background, text and grid colours, in place on a figure dict."""
    layout, text = spec["layout"], DARK["text"]
    layout.update(paper_bgcolor=DARK["paper"], plot_bgcolor=DARK["paper"])
    for part in (layout, layout.setdefault("legend", {}), layout.setdefault("title", {})):
        _font(part)["color"] = text
    for annotation in layout.get("annotations", []):
        _font(annotation)["color"] = text
    for axis in _axes(layout):
        axis.update(gridcolor=DARK["grid"], zerolinecolor=DARK["line"], linecolor=DARK["line"])
        _font(axis, "tickfont")["color"] = text
        _font(axis.setdefault("title", {}))["color"] = text
    for menu in layout.get("updatemenus", []):
        # plotly fills the chosen button of a menu that shows it #F4FAFF in any theme (no attribute sets that): light
        # buttons with dark text (12:1, and 17:1 when chosen), not the theme's light label on it (1.07:1)
        if menu.get("showactive", True):
            menu["bgcolor"] = DARK["button"]
            _font(menu)["color"] = DARK["paper"]


def _muted_text(spec: dict) -> None:
    """The light theme's secondary chart text (:data:`MUTED_TEXT`), in place on a figure dict: the layout's font,
    which the colour bars, annotations and animation controls take, and each axis's ticks and title, which
    Streamlit's chart theme sets itself. A colour the figure gave an annotation stays."""
    layout = spec["layout"]
    _font(layout).setdefault("color", MUTED_TEXT)
    for axis in _axes(layout):
        _font(axis, "tickfont").setdefault("color", MUTED_TEXT)
        _font(axis.setdefault("title", {})).setdefault("color", MUTED_TEXT)


def restyle(fig: go.Figure, *, present: bool, dark: bool, colours: str = palettes.DEFAULT) -> go.Figure:
    """A restyled copy of ``fig`` for presenter mode, the dark theme (else, off the projector, the light theme's
    readable grey, :data:`MUTED_TEXT`) and/or a palette (``colours``, see posenc/figures/palettes.py), with the tool
    bar's colours of its look (:data:`TOOLBAR`), laid out to be read on a phone (or, in presenter mode, on the
    projector's narrowest column: posenc/figures/legible.py); ``fig`` is left as it is.

    Edited as one dict and not validated again: ``fig`` was validated when built, and what this adds is checked by
    tests/ui/test_sent_as_validated.py (the JSON of every page's charts, restyled in every look, equals what plotly
    makes of it validated). Validating it again cost 6-15 ms a chart, at every new setting."""
    spec = palettes.recolour(fig.to_dict(), colours)  # a deep copy
    if present:
        _present(spec, DARK["text"] if dark else LIGHT_TEXT)
    legible.legible(spec, PROJECTOR if present else legible.PHONE)  # after _present: its larger text wraps sooner
    if dark:
        _dark_colours(spec)
    elif not present:
        _muted_text(spec)
    icon, active = TOOLBAR[dark]
    spec["layout"].setdefault("modebar", {}).update(color=icon, activecolor=active)
    images.as_images(spec)  # last: what is sent, once laid out and coloured (the figure keeps its heatmap)
    series.as_sent(spec)  # and long series as the digits their hover prints (the figure keeps its values)
    frames = spec.pop("frames", None)
    # An animation's frames carry only the data that moves (no styling to restyle), validated when built
    # (tests/figures/test_animations.py): validating 100-200 of them again cost 50-120 ms per chart.
    return Sent(spec, frames)


class Sent(go.Figure):
    """A restyled copy as st.plotly_chart sends it: its dict made once, not at every run (st.plotly_chart asks
    the figure for it each time: ~10 ms for an animation of 100 frames, 1-2 ms for another chart, in every run
    of every session that shows it). An animation's frames stay the dicts they are, as sent: made into plotly
    objects again, even unvalidated, they cost ~50 ms per animation restyled.

    ``to_dict()`` returns that one dict (read it, do not change it), the same on every call; the figure's own
    ``data`` and ``layout`` are the same data and layout, and its ``frames`` are empty (they are in the dict)."""

    def __init__(self, spec: dict, frames: list[dict] | None = None):
        super().__init__(spec, _validate=False)
        self._posenc_sent = dict(spec, frames=frames) if frames else spec

    def to_dict(self) -> dict:
        return self._posenc_sent


_SENTENCES: dict[int, str] = {}  # id(figure) -> its sentence, while the figure lives
_STYLED: dict[tuple, go.Figure] = {}  # (id(figure), present, dark, palette) -> its restyled copy, while it lives


def styled(fig: go.Figure, *, present: bool, dark: bool, colours: str) -> go.Figure:
    """:func:`restyle` once per figure object and look: figures are cached and shared, and a rerun draws
    the same ones again."""
    key = (id(fig), present, dark, colours)
    copy = _STYLED.get(key)
    if copy is None:
        copy = _STYLED[key] = restyle(fig, present=present, dark=dark, colours=colours)
        weakref.finalize(fig, _STYLED.pop, key, None)
    return copy
MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|$~<>:])")


def sentence(fig: go.Figure) -> str:
    """The figure's sentence (describe.describe), once per figure object: figures are cached and
    shared, and a heatmap's range is a pass over all its cells."""
    return _once_per_figure(_SENTENCES, fig, describe.describe)


def _once_per_figure(made: dict, fig: go.Figure, make):
    """``make(fig)``, kept in ``made`` while the figure object lives (a figure is unhashable: keyed by id)."""
    value = made.get(id(fig))
    if value is None:
        value = made[id(fig)] = make(fig)
        weakref.finalize(fig, made.pop, id(fig), None)
    return value


def escaped(text: str) -> str:
    """``text`` shown as it is by Streamlit's markdown (labels, captions)."""
    return MARKDOWN.sub(r"\\\1", text)


_LABELS: dict[int, str] = {}  # id(figure) -> its data expander's label, while it lives


def _data_label(fig: go.Figure) -> str:
    """"Chart data: <the title's first line, plain, at most 60 characters>", escaped; once per figure object."""
    return _once_per_figure(_LABELS, fig, _made_label)


def _made_label(fig: go.Figure) -> str:
    title = describe.plain(re.split(r"<br\s*/?>", fig.layout.title.text or "")[0] if fig.layout.title is not None else "")
    title = title if len(title) <= 60 else title[:59].rstrip() + "…"
    return escaped(f"Chart data: {title}" if title else "Chart data")


def data_expander(fig: go.Figure, key: str, text: str) -> None:
    """A closed expander under the chart with its sentence and its traces' data as tables, made only when
    opened: closed, it is one element."""
    box = st.expander(_data_label(fig), key=f"{key}__data", on_change="rerun", icon=":material/table:")
    if not box.open:
        return
    with box:
        st.caption(escaped(text))
        for caption, columns in describe.data_tables(fig):
            st.caption(escaped(caption))
            st.dataframe(columns, hide_index=True, height=min(400, 36 + 35 * len(next(iter(columns.values()), []))))


def chart(fig: go.Figure, key: str, name: str | None = None, *, sidebar: bool = True, **settings: object):
    """st.plotly_chart with a camera button that saves PNG at 2× and a file name carrying the settings,
    the figure's sentence as its accessible name and its data in a closed expander below it."""
    text = sentence(fig)
    present, dark, colours = is_on(), _dark(), palette.current()
    original, fig = fig, styled(fig, present=present, dark=dark, colours=colours)
    config = {"displaylogo": False,
              "toImageButtonOptions": {"format": "png", "scale": EXPORT_SCALE,
                                       "filename": file_name(name or key, sidebar=sidebar, **settings)}}
    shown = st.plotly_chart(fig, key=key, config=config, alt=text)
    data_expander(original, key, text)
    return shown
