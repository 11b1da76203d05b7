"""Your config: the model picker's ``config`` choice reads a ``config.json`` the reader uploads or pastes, and
every view computes under it as under a preset (posenc.models.from_config); the check's findings
(posenc.models.check) sit above the views, errors first, each naming its field.

The link carries the config's positional fields only, compactly (posenc.models.config_link: ``?config=1.<data>.
<check digits>``, ~250 characters for Llama 3.1), in a text box bound to the URL like every control, so a shared
link reproduces the view without the file; the box can be copied, and a link form pasted into it works too.

Nothing the reader gives is trusted: an upload over :data:`posenc.models.config_file.MAX_BYTES` (Streamlit's
``server.maxUploadSize`` is 1 MB too), text that is not JSON, nesting 10,000 deep, NaN, a field of the wrong
type, a config without positional fields, a link form changed by hand: each gets one sentence, shown escaped
above the views, and the views go on at the sidebar's settings (no model). A config, its model and its findings
are read once per link form (:func:`reading`, a bounded cache shared by the sessions of this process).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import streamlit as st

from posenc import models
from posenc.models.config_link import from_link, to_link
from posenc.settings.parsing import code_span
from posenc.ui.presenter import escaped

CHOICE = "config"
"""The picker's choice for a config of the reader's own (``?model=config``)."""
LINK = "config"
"""The URL key of the config's link form (``?config=1.…``)."""
PREFIX = "config:"
"""``Controls.model`` of a config: this prefix and its link form (a preset's is its name)."""
_UPLOADED, _PASTED = "_posenc_config_uploaded", "_posenc_config_pasted"  # the input already read
_REFUSED = "_posenc_config_refused"  # why the last upload or paste was not read (shown until the next one)
_ICONS = {"error": ":red[**error**]", "warning": ":orange[**warning**]", "info": ":blue[**note**]"}


@dataclass(frozen=True)
class Reading:
    """A link form read: the model (None when posenc cannot read the config), the check's findings, or the
    sentence refusing the link form itself (``refusal``)."""

    model: models.Model | None = None
    findings: tuple[models.Finding, ...] = ()
    refusal: str | None = None


@functools.lru_cache(maxsize=64)
def reading(link: str) -> Reading:
    """The config a link form holds, read: its model and findings, or why it cannot be read."""
    try:
        fields = from_link(link)
        findings = tuple(models.check(fields))
    except ValueError as refusal:
        return Reading(refusal=_sentence(refusal))
    try:
        model = models.from_config(fields)
    except ValueError:  # check() says why, as an error finding naming the field
        model = None
    return Reading(model, findings)


def is_config(key: str | None) -> bool:
    """Whether ``Controls.model`` is a config of the reader's (not a preset's name)."""
    return bool(key) and key.startswith(PREFIX)


def model(key: str) -> models.Model:
    """The model of ``Controls.model``: a preset's, or the config's (``PREFIX`` + its link form)."""
    if is_config(key):
        found = reading(key.removeprefix(PREFIX)).model
        if found is None:
            raise ValueError("this config cannot be read as a model.")
        return found
    return models.get(key)


def label(model: models.Model) -> str:
    """The model's name for markdown: a config's (the reader's ``_name_or_path``) escaped, a preset's as it is."""
    return escaped(model.label) if model.key == CHOICE else model.label


def choose() -> tuple[str, models.Model] | None:
    """Draw the upload, the paste box and the link form (in the sidebar); return (``Controls.model``, the model)
    of the config in force, or None (nothing given yet, or a config posenc cannot read: see :func:`report`)."""
    upload = st.file_uploader("Your config.json", type=["json"], key="config_upload",
                              help="A model's config.json (from its Hugging Face page: Files → config.json).")
    pasted = st.text_area("or paste its text", key="config_paste", height=90, placeholder='{"model_type": …}')
    given = None
    if upload is not None and upload.file_id != st.session_state.get(_UPLOADED):
        st.session_state[_UPLOADED] = upload.file_id
        given = upload.getvalue()
    elif pasted.strip() and pasted != st.session_state.get(_PASTED):
        st.session_state[_PASTED] = pasted
        given = pasted.encode("utf-8")  # as JSON text: a str not starting with "{" would be read as a path
    if given is not None:
        try:
            st.session_state[LINK] = to_link(given)  # before its box is drawn: the box and the URL take it
            st.session_state.pop(_REFUSED, None)
        except ValueError as refusal:
            st.session_state[_REFUSED] = "Your config was not read: " + _sentence(refusal)
    link = st.text_input("Your config in the link", key=LINK, bind="query-params",
                         help="The config's positional fields, compressed, with check digits: what a shared "
                              "link needs to reproduce this view without the file.").strip()
    if not link:
        return None
    found = reading(link)
    return (PREFIX + link, found.model) if found.model is not None else None


def report() -> None:
    """Above the views: why the last upload, paste or link form was not read, else the check's findings, errors
    first, each with its field; nothing while no config is given."""
    refused = st.session_state.get(_REFUSED)
    link = str(st.session_state.get(LINK) or "").strip()
    if refused:
        st.warning(escaped(refused), icon=":material/description:")
    if not link:
        if not refused:
            st.info("Upload a config.json or paste its text in the sidebar: every view then computes under it, "
                    "and the check below says what is wrong with it.", icon=":material/upload_file:")
        return
    found = reading(link)
    if found.refusal:
        st.warning(escaped(found.refusal), icon=":material/link_off:")
        return
    counts = {severity: sum(f.severity == severity for f in found.findings) for severity in _ICONS}
    name = found.model.label if found.model else "your config"
    said = ", ".join(f"{count} {severity}{'s' if count != 1 else ''}" for severity, count in counts.items() if count)
    lines = [f"**Check of {escaped(name)}**: " + (said or "nothing to report") + (
        "." if found.model else "; posenc cannot read it as a model, so the views use the sidebar's settings.")]
    lines += [f"- {_ICONS[f.severity]} {code_span(f.field) if f.field else ''} {escaped(f.message)}"
              for f in found.findings]
    st.markdown("\n".join(lines))


def _sentence(refusal: ValueError) -> str:
    text = str(refusal).strip()
    return (text[:1].upper() + text[1:])[:600]

