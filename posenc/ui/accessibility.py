"""Page-wide accessibility for every page: what posenc adds to the page Streamlit draws.

WCAG 2.1 AA, checked with axe-core on every view at every size (tests/browser/test_every_view.py, which also
checks that a page fits a phone of 390×844) and in tests/browser/test_accessibility.py and test_phone.py:

- A box that scrolls sideways (a KaTeX display formula wider than the screen, a code block, a wide
  st.table) is reachable from the keyboard: tabindex 0, role "region" and a name (axe's
  scrollable-region-focusable; WCAG 2.1.1 Keyboard). Streamlit's st.latex and st.code take no
  attributes, so a small script of :data:`SCRIPT` sets them on the boxes that scroll now, and takes
  them off again when a box fits (a wider window), so a formula that fits is no extra tab stop.
  The script looks again only when a change of the page can add or move such a box or a chart's
  animation controls: a chart redrawn at a slider's move (hundreds of SVG nodes, appended one by one)
  had it force a layout at every frame, ~20 ms of a phone's main thread at each d_model press at the
  caps (a CPU profile, BENCHMARKS.md).
- Such a box shows that it scrolls: a scroll bar that stays visible and a shadow on its right edge.
- A formula that fits does not scroll: a formula's box leaves room (:data:`KATEX_OVERHANG`) for the 2 px KaTeX
  draws beyond the width it lays out.
- A chart's box never scrolls. Streamlit gives a chart's element container overflow auto, and while plotly
  resizes the chart to its column (the page's scroll bar appearing narrows it by 12 px) the chart stood 1 px
  taller than its box for a frame: a scrollable region without a name, which axe-core flagged once in CI
  (the Derivation page in presenter mode). Its overflow is visible: the chart is sized to its column anyway.
- A heatmap's numbers in its cells (plotly sizes them to fit a cell: 4 px on a phone, specks) are hidden
  on a narrow screen; the hover and the chart's data expander still give them.
- The chart tool bar (plotly's modebar, whose buttons are <button>s: Tab and Enter reach them) sits
  above a chart on a narrow screen, not on its title, stays visible on a touch screen (no hover
  there) and while one of its buttons has the keyboard's focus; a focused button shows a ring.
- plotly's animation controls (Play, Pause, the speeds and the frame slider, drawn in SVG for a
  mouse) become a button or a slider of the keyboard: Tab reaches them, Enter or Space presses a
  button, the arrow, Page, Home and End keys move the slider exactly as a click on that frame would.
- In the dark theme a multiselect's chips have dark text on the light accent (WCAG 1.4.3 contrast).
- A table cell breaks a long word rather than scroll inside a narrow column (Streamlit gives each
  cell's text a box that scrolls: "Transformer-XL" scrolled by 1 px in a phone's row header).
- On a touch screen, where Streamlit shows a data grid's tool bar at all times (its eye, download, search and
  full-screen buttons, 44 px above the grid), the grid is moved down by :data:`GRID_TOOLBAR` px: the bar lay on the
  heading above it ("What each dtype holds").
- On a narrow screen the page's headings are smaller (title 2rem, where Streamlit's 2.75rem set a page's title on up
  to five lines of a phone, half its screen), and a table whose cells are sentences (drawn inside a container keyed
  :data:`WIDE_CELLS`) keeps each column :data:`WIDE_CELL_REM` rem wide and scrolls sideways, where
  its five columns squeezed into a phone's width held one or two words a line.

:func:`apply` adds all of it as one element (every element is work in every run:
bench/runs_per_second.py). Its text is a constant of this module: nothing from the URL reaches it.
"""

from __future__ import annotations

import functools
import textwrap

import streamlit as st

NARROW = 640  # px: a phone, or a narrow window (Streamlit stacks columns below this width)
TOOLBAR = 30  # px: the height of plotly's modebar, put above the chart on a narrow screen
GRID_TOOLBAR = 44  # px: the height of a data grid's tool bar, which stands above the grid
WIDE_CELLS = "posenc-wide-cells"  # the key of a container whose table holds sentences (the Properties verdicts)
WIDE_CELL_REM = 10  # rem: the narrowest such cell on a narrow screen (about 20 characters a line)
# px: KaTeX draws a formula of several lines (a vlist-t2) 2 px wider than the width it lays out (its vlist-s strut,
# balanced by a margin of -2px): in a formula's box as wide as the formula, those 2 px scrolled, and a formula that
# fits (RoPE's and xPos's How it works, at 1920 px too) was marked "wider than its column" with its scroll shadow
KATEX_OVERHANG = 2

STYLE = f"""<style>
.katex-display, [data-testid="stCode"] pre {{ overflow-x: auto; overflow-y: hidden; max-width: 100%; }}
.katex-display {{ padding-right: {KATEX_OVERHANG}px; }}
[data-posenc-scrolls] {{ box-shadow: inset -14px 0 10px -10px rgba(128, 128, 128, 0.75);
  scrollbar-width: thin; scrollbar-color: rgba(128, 128, 128, 0.8) transparent; }}
[data-posenc-scrolls]::-webkit-scrollbar {{ height: 6px; }}
[data-posenc-scrolls]::-webkit-scrollbar-thumb {{ background: rgba(128, 128, 128, 0.8); border-radius: 3px; }}
[data-posenc-scrolls]:focus-visible, .modebar-btn:focus-visible, .updatemenu-button:focus-visible,
.slider-group:focus-visible {{ outline: 2px solid currentColor; outline-offset: 2px; }}
[data-testid="stTable"] [data-testid="stMarkdownContainer"] {{ overflow-wrap: anywhere; overflow: visible !important; }}
.js-plotly-plot .plotly .modebar:focus-within {{ opacity: 1; }}
@media (hover: none) {{ .js-plotly-plot .plotly .modebar {{ opacity: 1; }}
  .stElementContainer:has(> [data-testid="stFullScreenFrame"] > [data-testid="stDataFrame"]) {{
    margin-top: {GRID_TOOLBAR}px; }} }}
.stElementContainer:has(> [data-testid="stFullScreenFrame"] > [data-testid="stPlotlyChart"]) {{ overflow: visible; }}
@media (max-width: {NARROW}px) {{
  .stElementContainer:has(> [data-testid="stFullScreenFrame"] > [data-testid="stPlotlyChart"]) {{
    margin-top: {TOOLBAR}px; }}
  [data-testid="stPlotlyChart"] .js-plotly-plot {{ overflow: visible !important; }}
  [data-testid="stPlotlyChart"] .modebar-container {{ top: -{TOOLBAR}px !important; }}
  [data-testid="stPlotlyChart"] g.heatmap-label {{ display: none; }}
  .st-key-{WIDE_CELLS} [data-testid="stTable"] td {{ min-width: {WIDE_CELL_REM}rem; }}
  [data-testid="stMain"] h1 {{ font-size: 2rem; }}
  [data-testid="stMain"] h2 {{ font-size: 1.75rem; }}
  [data-testid="stMain"] h3 {{ font-size: 1.5rem; }}
}}
</style>"""

# The dark theme's accent (.streamlit/config.toml) is light, for text and lines on its dark background;
# Streamlit draws a multiselect's chips in the accent with white text: 2.1:1. Dark text on it: 8.6:1.
DARK_STYLE = """<style>
[data-testid="stMultiSelect"] [data-tag], [data-testid="stMultiSelect"] [data-tag] * { color: #0e1117; }
</style>"""

SCRIPT = r"""<script>
(() => {
  if (window.posencAccessibility) return;  // one observer per tab: st.html may run this again
  window.posencAccessibility = true;
  const SCROLLERS = [[".katex-display", "Formula"], ['[data-testid="stCode"] pre', "Code"],
                     ['[data-testid="stTable"] > div', "Table"]];
  const scrolls = (box) => {
    const style = getComputedStyle(box), can = (o) => o === "auto" || o === "scroll";
    return (can(style.overflowX) && box.scrollWidth > box.clientWidth)  // as axe-core counts it
        || (can(style.overflowY) && box.scrollHeight > box.clientHeight);
  };
  const mark = () => {
    for (const [selector, what] of SCROLLERS) {
      for (const box of document.querySelectorAll(selector)) {
        const marked = box.hasAttribute("data-posenc-scrolls");
        if (scrolls(box) && !marked) {
          box.setAttribute("data-posenc-scrolls", "");
          box.tabIndex = 0;
          box.setAttribute("role", "region");
          box.setAttribute("aria-label", `${what}, wider than its column: scroll sideways to read it all`);
        } else if (!scrolls(box) && marked) {
          for (const name of ["data-posenc-scrolls", "tabindex", "role", "aria-label"]) box.removeAttribute(name);
        }
      }
    }
  };
  // plotly's animation controls are SVG groups that a mouse clicks: each Play/Pause/speed button becomes a
  // button of the keyboard, the frame slider a slider (arrows, Page keys, Home, End) that moves as a click would.
  const sliderState = (group) => group.closest(".js-plotly-plot")?._fullLayout?.sliders?.[0];
  const controls = () => {
    for (const button of document.querySelectorAll(".updatemenu-button:not([tabindex])")) {
      button.setAttribute("tabindex", "0");
      button.setAttribute("role", "button");
      button.setAttribute("aria-label", button.textContent.trim());
    }
    for (const group of document.querySelectorAll(".slider-group")) {
      const state = sliderState(group);
      if (!state) continue;
      group.setAttribute("tabindex", "0");
      group.setAttribute("role", "slider");
      group.setAttribute("aria-label", (state.currentvalue?.prefix || "frame").replace(/[=:]\s*$/, "").trim());
      group.setAttribute("aria-valuemin", "0");
      group.setAttribute("aria-valuemax", String(state.steps.length - 1));
      group.setAttribute("aria-valuenow", String(state.active));
      group.setAttribute("aria-valuetext", String(state.steps[state.active]?.label ?? state.active));
    }
  };
  const STEP = {ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1, PageUp: 10, PageDown: -10};
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (target.matches?.(".updatemenu-button") && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      target.dispatchEvent(new MouseEvent("click", {bubbles: true}));
    } else if (target.matches?.(".slider-group[role=slider]") && (event.key in STEP || event.key === "Home" || event.key === "End")) {
      event.preventDefault();
      const state = sliderState(target), last = state.steps.length - 1;
      const next = event.key === "Home" ? 0 : event.key === "End" ? last
                 : Math.min(last, Math.max(0, state.active + STEP[event.key]));
      const tick = target.querySelectorAll(".slider-tick-rect")[next], plot = target.closest(".js-plotly-plot");
      const rail = target.querySelector(".slider-rail-touch-rect").getBoundingClientRect();
      if (!tick || next === state.active) return;
      const box = tick.getBoundingClientRect();
      const at = {bubbles: true, button: 0, clientX: box.left + box.width / 2, clientY: rail.top + rail.height / 2};
      target.querySelector(".slider-rail-touch-rect").dispatchEvent(new MouseEvent("mousedown", at));
      plot.dispatchEvent(new MouseEvent("mouseup", at));
    }
  });
  let pending = false;
  const later = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; mark(); controls(); });
  };
  // A formula widens without a change to the page when KaTeX's fonts arrive (after the run drew it): the
  // fonts' loading and a resize of a scroller's content mark the boxes again.
  const sizes = new ResizeObserver(later), watched = new WeakSet();
  const watch = () => {
    for (const [selector] of SCROLLERS) {
      for (const box of document.querySelectorAll(selector)) {
        for (const inner of [box, ...box.children]) {
          if (!watched.has(inner)) { watched.add(inner); sizes.observe(inner); }
        }
      }
    }
  };
  const RELEVANT = [...SCROLLERS.map(([selector]) => selector), ".updatemenu-container", ".slider-group"].join(", ");
  const changes = (records) => {
    const seen = new Set();
    for (const {target, addedNodes} of records) {
      if (!seen.has(target)) {
        seen.add(target);
        if (target.nodeType === 1 && target.closest(RELEVANT) !== null) return true;
      }
      for (const node of addedNodes) {
        if (node.nodeType === 1 && (node.matches(RELEVANT) || node.querySelector(RELEVANT) !== null)) return true;
      }
    }
    return false;
  };
  new MutationObserver((records) => { if (changes(records)) { watch(); later(); } })
      .observe(document.body, {childList: true, subtree: true});
  window.addEventListener("resize", later);
  document.fonts?.addEventListener?.("loadingdone", later);
  document.fonts?.ready?.then(later);
  watch();
  later();
})();
</script>"""


def apply(dark: bool = False, also: str = "") -> None:
    """The style (and the dark theme's, when ``dark``) and the script, in the sidebar's end (a style-only
    st.html goes to no container, but a script needs one; in the main column it would push every page
    down). ``also``: more page-wide HTML (a style, a script: constants of their modules), carried by the same element."""
    st.sidebar.html(prepared(STYLE + (DARK_STYLE if dark else "") + SCRIPT + also), unsafe_allow_javascript=True)


class Prepared:
    """A constant HTML text as st.html sends it (dedented and stripped, as Streamlit cleans a str body), made once:
    st.html takes an object's ``_repr_html_()`` as it is, where it would dedent an 8 KB str at every run of every
    session (and look it up as a file path first). Made by :func:`prepared`."""

    def __init__(self, text: str) -> None:
        self.text = textwrap.dedent(text).strip()

    def _repr_html_(self) -> str:
        return self.text


@functools.lru_cache(maxsize=16)
def prepared(text: str) -> Prepared:
    """``text`` (a constant of posenc's, never text from a URL) prepared once for st.html."""
    return Prepared(text)
