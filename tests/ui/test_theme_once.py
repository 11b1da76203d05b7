"""posenc.ui.theme_once: a run's first message carries the same theme as Streamlit's own, read once per parse."""

from __future__ import annotations

import pytest
from streamlit import config
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime import app_session

from posenc.ui import theme_once

SECTIONS = ("theme", "theme.light", "theme.dark", "theme.sidebar", "theme.light.sidebar", "theme.dark.sidebar")


@pytest.fixture
def installed():
    config.get_config_options()  # parsed before the copies are made
    before = app_session._populate_theme_msg
    theme_once.install()
    theme_once.install()  # twice: still one layer
    theme_once.forget()
    yield app_session._populate_theme_msg
    app_session._populate_theme_msg = before
    theme_once.forget()


def _theme(populate) -> ForwardMsg:
    """A new_session message's theme, filled as Streamlit fills it (the six sections, in its order)."""
    msg = ForwardMsg()
    theme = msg.new_session.custom_theme
    populate(theme)
    for target, section in ((theme.light, "theme.light"), (theme.dark, "theme.dark"), (theme.sidebar, "theme.sidebar"),
                            (theme.light.sidebar, "theme.light.sidebar"),
                            (theme.dark.sidebar, "theme.dark.sidebar")):
        populate(target, section)
    return msg


def test_install_replaces_streamlit_s_function_once(installed):
    assert installed is theme_once._populate_once
    assert theme_once._ORIGINAL is not theme_once._populate_once


def test_the_theme_is_streamlit_s_own_first_and_from_the_copy_after(installed, monkeypatch):
    values = {"theme.primaryColor": "#1f4e9c", "theme.font": "serif", "theme.light.backgroundColor": "#ffffff",
              "theme.dark.textColor": "#f0f2f6", "theme.dark.sidebar.backgroundColor": "#1c2230", "theme.base": "dark"}
    options = config.get_config_options()
    for name, value in values.items():
        monkeypatch.setattr(options[name], "_get_val_func", lambda value=value: value)
    expected = _theme(theme_once._ORIGINAL)
    assert expected.new_session.custom_theme.dark.text_color == "#f0f2f6"  # the options reached the message
    first = _theme(installed)
    assert set(theme_once._MADE) == set(SECTIONS)
    calls = []
    monkeypatch.setattr(theme_once, "_ORIGINAL", lambda *args: calls.append(args))
    again = _theme(installed)
    assert calls == []  # from the copies alone
    assert first == expected and again == expected
    assert again.SerializeToString() == expected.SerializeToString()


def test_a_message_not_empty_is_left_to_streamlit(installed, monkeypatch):
    calls = []
    monkeypatch.setattr(theme_once, "_ORIGINAL", lambda msg, section="theme": calls.append(section))
    msg = ForwardMsg().new_session.custom_theme
    msg.primary_color = "#000000"
    installed(msg, "theme")
    assert calls == ["theme"] and "theme" not in theme_once._MADE


def test_a_new_parse_of_the_config_drops_the_copies(installed):
    _theme(installed)
    assert theme_once._MADE
    config._on_config_parsed.send()  # what Streamlit signals after it parses its config files again
    assert not theme_once._MADE
