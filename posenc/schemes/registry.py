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


def get_scheme(key: str) -> Scheme:
    """The registered scheme called ``key``, or a ValueError listing the known ones."""
    if not isinstance(key, str) or key not in SCHEMES:
        raise ValueError(f"Unknown scheme {key!r}; known schemes: {', '.join(SCHEMES)}.")
    return SCHEMES[key]
