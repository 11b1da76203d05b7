"""The scheme registry: every positional scheme posenc knows, by key.

Each family module declares its entries in a ``SCHEMES`` tuple; this module
collects them in one dict that pages, the comparison view and the tests loop over.
"""

from __future__ import annotations

from posenc.schemes import absolute, alibi, kerple, shaw, sinusoidal, t5, transformer_xl, xpos
from posenc.schemes.rope import entry as rope
from posenc.schemes.scheme import Scheme

SCHEMES: dict[str, Scheme] = {s.key: s for module in (sinusoidal, absolute, rope, xpos, shaw, t5, alibi, kerple, transformer_xl) for s in module.SCHEMES}
"""key -> Scheme, in the order the selector shows them."""


def register(scheme: Scheme) -> Scheme:
    """Add ``scheme`` to the registry, from outside the package too (as transformers' ``AutoConfig.register``):
    every page then offers it. Its outer records go in their layers' tables by its key: ``EXPORTS``
    (posenc.export.source) and ``SCHEME_VIEWS`` (posenc.ui.scheme_views) always, ``PRECISION``
    (posenc.precision.tables) and ``FIXES`` (posenc.settings.constraints) where it differs from its family's;
    a missing one is named when it is asked for."""
    if not isinstance(scheme, Scheme):
        raise TypeError(f"scheme must be a posenc Scheme; got a {type(scheme).__name__}.")
    if scheme.key in SCHEMES:
        raise ValueError(f"A scheme called {scheme.key!r} is registered already.")
    SCHEMES[scheme.key] = scheme
    return scheme


def get_scheme(key: str) -> Scheme:
    """The registered scheme called ``key``, or a ValueError listing the known ones."""
    if not isinstance(key, str) or key not in SCHEMES:
        raise ValueError(f"Unknown scheme {key!r}; known schemes: {', '.join(SCHEMES)}.")
    return SCHEMES[key]
