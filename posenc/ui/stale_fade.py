"""The fade of a run's stale elements, drawn without a compositing layer per element.

While a run is going, Streamlit marks every element of the previous run stale (``data-stale="true"`` on its
element container) until the run sends it again, and fades a stale element to 0.33 with a CSS transition of
``opacity`` (1 s, after 0.5 s). A run shorter than 0.5 s shows nothing of it, yet the transition costs all the
same: an element with a pending opacity transition is a layer of its own in Chromium, so at each run's start
every element of the page was painted into a new layer and, when the run sent it again, painted back into the
page. That was most of a press's painting on a page of twenty-five elements: 71-73 paints a press at the caps of
the Encoding matrix, 30-31 without it (BENCHMARKS.md, a Chromium trace of six presses).

:data:`STYLE` draws the same fade (to :data:`STALE_OPACITY`, :data:`DURATION_S` long, after :data:`DELAY_S`) as an
animation of a registered custom property, ``--posenc-stale``, that the element's opacity reads. Animating a custom
property is no opacity animation: a stale element stays in the page's layer while the animation waits for its delay,
and a run that ends before it shows and paints nothing. A run longer than 0.5 s fades the page's stale elements as
Streamlit's did (tests/browser/test_stale_fade.py). While an element is shown full screen, Streamlit fades nothing;
its full-screen view is what sets the body's ``overflow: hidden`` (posenc opens no dialog), and under it nothing
fades here either.

The property's syntax, ``<number>``, is written with a CSS escape for its ``<`` (``\\3c``): st.html's sanitizer
(DOMPurify) drops a style whose text holds a ``<`` followed by a letter, as it would a tag. A browser without
``@property`` animates the property in one step: the stale elements dim at 1 s instead of fading. The text is a
constant of this module: nothing from the URL reaches it.
"""

from __future__ import annotations

STALE_OPACITY = 0.33  # Streamlit's theme: a stale element's opacity once faded
DELAY_S = 0.5  # s: a run this short shows no fade (Streamlit's delay)
DURATION_S = 1.0  # s: the fade's length (Streamlit's)

STYLE = f"""<style>
@property --posenc-stale {{ syntax: "\\3c number>"; inherits: false; initial-value: 1; }}
@keyframes posenc-stale {{ to {{ --posenc-stale: {STALE_OPACITY}; }} }}
[data-stale="true"] {{ opacity: var(--posenc-stale, 1) !important; transition: none !important;
  animation: posenc-stale {DURATION_S:g}s ease-in {DELAY_S:g}s forwards; }}
body[style*="overflow: hidden"] [data-stale="true"] {{ animation: none; }}
</style>"""
