"""posenc: the positional-encoding explorer. Entry point and router.

Run with ``streamlit run app.py``. The shared sidebar (d_model, n, length, scheme, presenter mode) is
drawn here, before the page, by ``sidebar.draw()``: its widgets are the entry point's, the same on every
page, so a page change keeps the view and the new page's address carries it. Every page starts with
``sidebar.controls()``, which hands it those values.
"""

import streamlit as st

from posenc.ui import address, collector, lecture, memory, no_delay, room, sidebar, theme_once, wakeups

memory.limit_arenas()  # no new malloc arena per session thread (the Docker image: MALLOC_ARENA_MAX=2; posenc/ui/memory.py)
wakeups.install()  # a run's messages wake the server's event loop once a batch, not once each (posenc/ui/wakeups.py)
no_delay.install()  # and leave its sockets at once: Nagle's algorithm off (posenc/ui/no_delay.py)
theme_once.install()  # a run's first message takes the theme read once, not six config walks (posenc/ui/theme_once.py)

# An emoji icon is drawn by the browser; a ":material/…:" page icon would be fetched from the internet.
# ?present=true (presenter mode) opens with the sidebar collapsed.
st.set_page_config(page_title="posenc: positional-encoding explorer", page_icon="🌊", layout="wide",
                   initial_sidebar_state="collapsed" if st.query_params.get("present", "").lower() == "true" else "auto")



def pages() -> list:
    """The pages, made once per session and kept in its state: st.Page resolves its file and checks its
    icon, ~0.5 ms for nine in every run otherwise. Not shared between sessions: st.navigation marks the
    page it returns as the one that may run, and that mark is the page object's own."""
    if "_posenc_pages" not in st.session_state:
        st.session_state["_posenc_pages"] = [
            st.Page("pages/heatmap.py", title="Encoding matrix", icon=":material/grid_on:", default=True),
            st.Page("pages/derivation.py", title="Derivation", icon=":material/stairs:", url_path="derivation"),
            st.Page("pages/sinusoids.py", title="Sinusoids", icon=":material/ssid_chart:"),
            st.Page("pages/rotation.py", title="Rotation check", icon=":material/rotate_right:"),
            st.Page("pages/details.py", title="How it works", icon=":material/lightbulb:"),
            st.Page("pages/compare.py", title="Comparison", icon=":material/compare:"),
            st.Page("pages/properties.py", title="Properties", icon=":material/checklist:"),
            st.Page("pages/precision.py", title="Precision", icon=":material/decimal_increase:", url_path="precision"),
            st.Page("pages/generalization.py", title="Length generalization", icon=":material/trending_down:",
                    url_path="generalization"),
        ]
    return st.session_state["_posenc_pages"]


ended_by = None  # what ended the run, if not its end
try:
    page = st.navigation(pages())
    address.mirror_held_values()  # the address Streamlit may send back holds what the controls hold
    lecture.enter(pages(), page)  # ?lecture=…&slide=… opens the slide's view (a session's first run)
    room.catch_up(pages())  # a follower whose lecturer moved: the new slide, in place, before anything is drawn
    sidebar.draw()  # the shared controls, the entry point's own widgets: the same on every page
    lecture.bar()  # the lecture's bar, keys, note and QR code, above the page
    page.run()
    address.correct_the_address()  # the view's address, if the browser's reads otherwise
except BaseException as stopped:  # st.stop() ends the run all the same; a rerun asked for does not (its run corrects)
    ended_by = stopped
    if address.ends_the_run(stopped):
        address.correct_the_address()
    raise
finally:  # also after st.stop() and st.rerun()
    # a follower's address at the end of its run (a later run from another one left the lecturer); the pushes of
    # a room the lecturer's run moved, held until its slide is drawn (a rerun that follows at once draws it)
    room.remember(ended_by)
    memory.trim()
    collector.freeze_shared()
