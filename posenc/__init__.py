"""posenc: positional encodings of transformers, computed exactly (numpy).

The math lives in one module per family; torch versions are in
``posenc.modules`` (imported on demand, so numpy users never load torch).
"""

from posenc.analysis import offset_similarity, similarity_matrix
from posenc.registry import SCHEMES, get_scheme
from posenc.scheme import Option, Scheme
from posenc.sinusoidal import (
    RotationCheck,
    apply_rotation,
    frequencies,
    rotation_blocks,
    rotation_check,
    rotation_matrix,
    sinusoidal,
    wavelengths,
)

__all__ = [
    "SCHEMES",
    "Option",
    "RotationCheck",
    "Scheme",
    "apply_rotation",
    "frequencies",
    "get_scheme",
    "offset_similarity",
    "rotation_blocks",
    "rotation_check",
    "rotation_matrix",
    "similarity_matrix",
    "sinusoidal",
    "wavelengths",
]
