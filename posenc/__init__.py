"""posenc: positional encodings of transformers, computed exactly (numpy).

The math lives in one module per family; torch versions are in
``posenc.modules`` (imported on demand, so numpy users never load torch).
"""

from posenc.absolute import learned_absolute, nope
from posenc.analysis import offset_similarity, similarity_matrix
from posenc.registry import SCHEMES, get_scheme
from posenc.relative import (
    alibi_bias,
    alibi_slopes,
    shaw_bias,
    shaw_embeddings,
    shaw_relative_positions,
    t5_bias,
    t5_relative_bucket,
)
from posenc.rope import apply_rope, rope_score_curve, rope_scores, rope_shift_invariance
from posenc.rope_scaling import ROPE_SCALINGS, rope_inv_freq, rope_wavelengths
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
    "ROPE_SCALINGS",
    "SCHEMES",
    "alibi_bias",
    "alibi_slopes",
    "apply_rope",
    "learned_absolute",
    "nope",
    "rope_inv_freq",
    "rope_score_curve",
    "rope_scores",
    "rope_shift_invariance",
    "rope_wavelengths",
    "shaw_bias",
    "shaw_embeddings",
    "shaw_relative_positions",
    "t5_bias",
    "t5_relative_bucket",
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
