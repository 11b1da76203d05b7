"""A lecture in the app: ``?lecture=<name>&slide=<n>`` opens slide n's view on its page, under a slim bar
(the lecture's title, "slide n of N", Previous and Next, the QR code), stepped with the keys a presentation
clicker sends.

- Each slide is a link: Previous, Next and the keys load the next slide's address, exactly the link a
  student opens (every setting of a view is in its address), so each slide shows its file's view whatever
  was moved on the slide before. A lecture's own keys (``lecture``, ``slide``, ``notes``, ``present``) are
  carried from slide to slide.
- Keys, whenever no input has focus: ArrowRight, PageDown, Space: next; ArrowLeft, PageUp: previous;
  Home, End: first, last (a clicker sends PageDown and PageUp).
- ``&notes=true``: the speaker's note under the bar (the lecturer's laptop); students never get it.
- ``&qr=true`` (or the bar's QR link): the slide's link as a large QR code, made here (segno, no internet),
  for students to scan from the projector: the link without ``notes``, ``qr`` and ``present``.
- A link that opens a lecture without a view (``/?lecture=sinusoidal&slide=3``) is sent to the slide's
  page and view in its session's first run, before any widget exists, so the view's settings are read as
  a link's; a link with settings of its own opens as it is.
"""

from __future__ import annotations

import functools
import html
import json
from urllib.parse import urljoin

import streamlit as st

from posenc import lectures
from posenc.settings.parsing import code_span
from posenc.ui import binding, room

OPEN = "_posenc_lecture"  # this session's lecture: (name, slide number)
HELD = "_posenc_lecture_warnings"  # warnings of a first run sent on to the slide's view, shown there
ENTERED = "_posenc_lecture_entered"  # the session's first run has been seen
CARRIED = ("notes", "present")  # the lecturer's flags, kept from slide to slide (not in the QR code)
KEYS = {"ArrowRight": "next", "PageDown": "next", " ": "next", "ArrowLeft": "previous", "PageUp": "previous",
        "Home": "first", "End": "last"}


@functools.lru_cache(maxsize=16)
def _shipped(name: str) -> tuple[lectures.Lecture, tuple[tuple[str, ...], ...]]:
    """The shipped lecture ``name`` and each slide's problems (files never change while the server runs)."""
    lecture = lectures.load(name)
    found = tuple(tuple(f"{lecture.path.name}, slide {number} ({slide.title}): {problem}"
                        for problem in lectures.slide_problems(slide))
                  for number, slide in enumerate(lecture.slides, start=1))
    return lecture, found


def _flag(key: str) -> bool:
    return st.query_params.get(key, "").lower() == "true"


def _opened(messages: list[str]) -> tuple[lectures.Lecture, int, tuple[str, ...]] | None:
    """The lecture and slide number the URL (or this session) asks for, and each slide problem; a warning
    for each bad value goes into ``messages``."""
    name, raw = st.query_params.get("lecture"), st.query_params.get("slide")
    if name is None and OPEN in st.session_state:
        name, number = st.session_state[OPEN]
        raw = str(number)
    if name is None:
        return None
    if name not in lectures.names():
        messages.append(f"URL parameter {code_span('lecture')} = {code_span(name)} is not one of "
                        f"{', '.join(map(code_span, lectures.names()))}: no lecture is shown.")
        return None
    lecture, found = _shipped(name)
    number = _slide_number(raw, len(lecture.slides), messages)
    st.session_state[OPEN] = (name, number)
    return lecture, number, found[number - 1]


def _slide_number(raw: str | None, count: int, messages: list[str]) -> int:
    """The 1-based slide number in ``raw``; a bad one becomes the nearest valid with a warning."""
    if raw is None:
        return 1
    try:
        number = int(raw)
    except ValueError:
        messages.append(f"URL parameter {code_span('slide')} = {code_span(raw)} is not a whole number: using 1.")
        return 1
    if not 1 <= number <= count:
        used = min(max(number, 1), count)
        messages.append(f"URL parameter {code_span('slide')} = {code_span(raw)} is outside 1 … {count}: "
                        f"using {used}.")
        return used
    return number


def _link(lecture: lectures.Lecture, number: int, *, qr: bool = False, flags: bool = True) -> str:
    """Slide ``number``'s relative address with the lecture's keys (and the lecturer's flags that are on)."""
    extra = {"lecture": lecture.name, "slide": str(number)}
    if flags:
        extra |= {key: "true" for key in CARRIED if _flag(key)}
        code = room.code_in_url()
        if code and room.key_for(code):  # the lecturer's next slide moves the room
            extra["room"] = code
    if qr:
        extra["qr"] = "true"
    return lecture.slides[number - 1].link(**extra)


def enter(pages: list, current) -> None:
    """In a session's first run, before the sidebar's widgets exist: a link that names only a lecture and
    a slide (``/?lecture=sinusoidal&slide=3``, with the lecturer's flags at most) is sent to that slide's
    page and view. A link with settings of its own (a slide's link, or a view a student changed and
    copied) opens as it is, with the bar: nothing in it is lost."""
    if st.session_state.get(ENTERED):
        return
    st.session_state[ENTERED] = True
    room.landing(pages)  # /?room=CODE: the room's slide (a follower's first run)
    messages: list[str] = []
    opened = _opened(messages)
    if opened is None or any(key not in (*lectures.RESERVED, "room") for key in st.query_params):
        return
    lecture, number, _ = opened
    slide = lecture.slides[number - 1]
    target = next((page for page in pages if page.url_path == slide.page), None)
    if target is None or (current.url_path == slide.page and not slide.settings):
        return
    query: dict[str, list[str] | str] = {}
    for key, value in slide.settings:
        query.setdefault(key, []).append(value)
    query |= {"lecture": lecture.name, "slide": str(number)}
    query |= {key: "true" for key in (*CARRIED, "qr") if _flag(key)}
    if room.code_in_url():
        query["room"] = room.code_in_url()
    st.session_state[HELD] = messages
    st.switch_page(target, query_params=query)


def bar() -> None:
    """The lecture's bar above the page, its keys, its note and its QR code; nothing without a lecture."""
    messages = st.session_state.pop(HELD, [])
    opened = _opened(messages)
    for message in messages:
        binding.warn(message)
    if opened is None:
        return
    lecture, number, found = opened
    for key, value in (("lecture", lecture.name), ("slide", str(number))):
        if st.query_params.get(key) != value:  # after a sidebar click: the address keeps the lecture
            st.query_params[key] = value
    count, slide = len(lecture.slides), lecture.slides[number - 1]
    code = room.code_in_url()
    following = code is not None and not room.key_for(code)  # a follower: the lecturer's keys move the slides
    links = {"previous": _link(lecture, number - 1) if number > 1 and not following else None,
             "next": _link(lecture, number + 1) if number < count and not following else None,
             "first": _link(lecture, 1) if number > 1 and not following else None,
             "last": _link(lecture, count) if number < count and not following else None}
    st.html(_bar_html(lecture, number, links, _link(lecture, number, qr=not _flag("qr"))),
            unsafe_allow_javascript=True)
    for problem in found:
        binding.warn(problem)
    if _flag("notes") and slide.note.strip():
        st.info(slide.note, icon=":material/speaker_notes:")
    open_room = room.section(lecture, number, _flag("notes"))
    if _flag("qr"):
        _qr_code(lecture, number, open_room)


def _bar_html(lecture: lectures.Lecture, number: int, links: dict[str, str | None], qr_link: str) -> str:
    """The bar: title, "slide n of N", the slide's title, Previous / Next / QR links, and the key handler.
    Text from the lecture file is escaped; the links go into the script as JSON (``</`` escaped)."""
    count, slide = len(lecture.slides), lecture.slides[number - 1]

    def anchor(rel: str, label: str, shortcut: str) -> str:
        href = links[rel]
        if href is None:
            return f'<span class="posenc-lecture-off" aria-disabled="true">{label}</span>'
        return (f'<a class="posenc-lecture-link" data-rel="{rel}" href="{html.escape(href)}" '
                f'aria-keyshortcuts="{shortcut}">{label}</a>')

    script = json.dumps(links).replace("</", "<\\/")
    qr_label = "Hide QR code" if _flag("qr") else "QR code"
    return f"""<nav class="posenc-lecture" aria-label="Lecture">
<span class="posenc-lecture-title">{html.escape(lecture.title)}</span>
<span class="posenc-lecture-count">slide {number} of {count}</span>
<span class="posenc-lecture-slide">{html.escape(slide.title)}</span>
<span class="posenc-lecture-links">{anchor("previous", "◀ Previous", "ArrowLeft PageUp")}
{anchor("next", "Next ▶", "ArrowRight PageDown Space")}
<a class="posenc-lecture-link" data-rel="qr" href="{html.escape(qr_link)}">{qr_label}</a></span>
</nav>
<style>
.posenc-lecture {{ display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.3rem 1rem; padding: 0.4rem 0.8rem;
  border: 1px solid rgba(128, 128, 128, 0.45); border-radius: 0.5rem; }}
.posenc-lecture-title {{ font-weight: 700; }}
.posenc-lecture-links {{ margin-left: auto; display: flex; gap: 1rem; }}
.posenc-lecture-link {{ font-weight: 600; }}
.posenc-lecture-off {{ opacity: 0.55; }}
</style>
<script>
(() => {{
  window.posencLecture = {script};
  if (window.posencLectureKeys) return;
  window.posencLectureKeys = true;
  const keys = {json.dumps(KEYS)};
  const busy = "input, textarea, select, [contenteditable=true], [role=slider], [role=combobox], [role=listbox],"
    + " [role=spinbutton], [role=textbox], [role=tab], [role=radio], [role=option]";  // a view switch's arrows
  document.addEventListener("keydown", (event) => {{
    const links = window.posencLecture, rel = keys[event.key];
    if (!links || !rel || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const focused = document.activeElement;
    if (focused && focused.closest && focused.closest(busy)) return;
    if (event.key === " " && focused && focused.closest && focused.closest("button, a, summary, [role=button]")) return;
    event.preventDefault();
    if (links[rel]) window.location.assign(new URL(links[rel], window.location.href).href);
  }});
}})();
</script>"""


def _qr_code(lecture: lectures.Lecture, number: int, code: str | None = None) -> None:
    """The slide's absolute link (as the browser reaches this server) as a large QR code, with the link
    written under it for those who type; with a room open (``code``), the students' link ``/?room=CODE``."""
    import segno

    base = st.context.url  # as the browser reached this server; it may end with the page's own path
    if base and not base.endswith("/") and base.rsplit("/", 1)[-1] not in lectures.PAGES:
        base += "/"
    relative = f"./?room={code}" if code else _link(lecture, number, flags=False)
    link = urljoin(base, relative) if base else relative
    image = segno.make(link, error="m").png_data_uri(scale=12, border=4)  # the quiet zone the QR standard asks for
    st.html(f'<figure class="posenc-qr"><img src="{image}" alt="QR code of this slide\'s link: {html.escape(link)}">'
            f'<figcaption><code>{html.escape(link)}</code></figcaption></figure>'
            "<style>.posenc-qr { text-align: center; margin: 0.5rem auto; }"
            " .posenc-qr img { width: min(70vh, 92vw); height: auto; image-rendering: pixelated; }"
            " .posenc-qr figcaption { font-size: 1.1rem; word-break: break-all; }</style>")
