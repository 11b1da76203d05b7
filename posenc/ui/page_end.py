"""A page that has drawn all it will ends its run, and what app.py does at the end of every run still happens.

``st.stop()`` asks Streamlit to stop the run, and Streamlit then stays stopped: every later read of the session
state raises ``StopException`` again. So after a page called it (the rotation check under RoPE, a scheme with no
table on Sinusoids, a library error shown by ``compute.or_stop``), app.py's end of run did nothing: the address
of the view was not corrected, a follower's address was not recorded in its room (a follower who then moved a
control went on following), the heap was not trimmed. :func:`end` raises :class:`PageEnded` instead: Streamlit
reads it as ``st.stop()`` (it is a ``StopException``, so a fragment passes it on and the run ends as drawn), but no
stop is asked for, and app.py's end of run reads the session as usual.
"""

from __future__ import annotations

from typing import NoReturn

from streamlit.runtime.scriptrunner_utils.exceptions import StopException


class PageEnded(StopException):
    """The page has drawn all it will (raised by :func:`end`)."""


def end() -> NoReturn:
    """End the page here, as ``st.stop()`` does, leaving app.py's end of run able to read the session."""
    raise PageEnded()
