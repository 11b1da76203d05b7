"""The theme in a run's first message, read from the configuration once per process, not six times a run.

Every run of every session starts with a ``new_session`` message that carries the app's theme: Streamlit 1.67's
``AppSession._create_new_session_message`` fills it by calling ``_populate_theme_msg`` for six sections
(``theme``, ``theme.light``, ``theme.dark`` and their sidebars), and each call walks every configuration option to
pick its section's. It is the same theme in every message until the configuration is parsed again. With 300
followers of a lecture room pushed to a new slide, that walk was a fifth of the event loop's time on each replica
(py-spy ``--gil`` during ``bench/room_follow.py``'s slide change), done on the one thread that sends every
session's messages.

:func:`install` makes ``_populate_theme_msg`` fill an empty message from a copy made by Streamlit's own function
the first time (one per section), and drops the copies whenever Streamlit parses its configuration again. A message
that is not empty, or a Streamlit without the function, is left to Streamlit. Nothing else changes: the same
fields with the same values (tests/ui/test_theme_once.py compares the two, theme options set).
"""

from __future__ import annotations

import threading

from streamlit import config
from streamlit.runtime import app_session

_LOCK = threading.Lock()
_MADE: dict[str, bytes] = {}  # section -> the message Streamlit's function made, serialized
_ORIGINAL = getattr(app_session, "_populate_theme_msg", None)
_CONNECTED: list[object] = []  # the disconnect of the config-parsed receiver, once connected


def install() -> None:
    """Fill the theme from the copy of this process (idempotent)."""
    if _ORIGINAL is None or app_session._populate_theme_msg is not _ORIGINAL:
        return
    with _LOCK:
        if not _CONNECTED:  # a new parse (a changed config file, a test's own options) makes the copies anew
            _CONNECTED.append(config.on_config_parsed(forget, force_connect=True))
    app_session._populate_theme_msg = _populate_once


def forget() -> None:
    """Drop the copies: the next message of each section is made by Streamlit again."""
    with _LOCK:
        _MADE.clear()


def _populate_once(msg, section: str = "theme") -> None:
    if msg.ByteSize():  # not what this copies: Streamlit fills it itself
        _ORIGINAL(msg, section)
        return
    with _LOCK:
        made = _MADE.get(section)
    if made is None:
        _ORIGINAL(msg, section)
        with _LOCK:
            _MADE[section] = msg.SerializeToString()
        return
    if made:  # merging nothing would still mark a section Streamlit left unset (an empty ``sidebar {}``) as set
        msg.MergeFromString(made)
