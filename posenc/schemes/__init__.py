"""Every positional scheme posenc knows, one module per family (numpy only).

- :mod:`~posenc.schemes.scheme`: the shape of a registry entry (:class:`Scheme`, :class:`Option`);
- :mod:`~posenc.schemes.registry`: the registry itself, ``SCHEMES`` (key → Scheme) and ``get_scheme``;
- :mod:`~posenc.schemes.sinusoidal`: Vaswani et al.'s table and the rotation M_k between its rows;
- :mod:`~posenc.schemes.absolute`: a learned table (BERT, GPT-2) and NoPE;
- :mod:`~posenc.schemes.shaw`, :mod:`~posenc.schemes.t5`, :mod:`~posenc.schemes.alibi`,
  :mod:`~posenc.schemes.kerple`, :mod:`~posenc.schemes.transformer_xl`: the bias schemes, with what
  they share in :mod:`~posenc.schemes.bias`;
- :mod:`posenc.schemes.rope`: rotary embeddings, their context-extension scalings, 2-D and M-RoPE;
- :mod:`~posenc.schemes.xpos`: RoPE with a decay per pair (xPos);
- :mod:`~posenc.schemes.offsets`: what depends only on the offset j − i (the curve every entry gives).
"""

from posenc.schemes.registry import SCHEMES, get_scheme
from posenc.schemes.scheme import Option, Scheme

__all__ = ["SCHEMES", "Option", "Scheme", "get_scheme"]
