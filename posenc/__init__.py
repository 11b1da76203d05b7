"""posenc: positional encodings of transformers, computed exactly (numpy).

The math lives in one module per family; torch versions are in
``posenc.modules`` (imported on demand, so numpy users never load torch).
Released models (Llama, Gemma, Qwen, …) and their settings: ``posenc.models``.
"""

from posenc import models
from posenc.analysis.similarity import similarity_matrix
from posenc.schemes.absolute import learned_absolute, nope
from posenc.schemes.alibi import alibi_bias, alibi_slopes
from posenc.schemes.kerple import kerple_bias
from posenc.schemes.offsets import offset_similarity
from posenc.schemes.registry import SCHEMES, get_scheme
from posenc.schemes.rope.frequencies import rope_inv_freq, rope_wavelengths
from posenc.schemes.rope.multimodal import apply_mrope, apply_rope_2d, mrope_position_ids
from posenc.schemes.rope.rotation import apply_rope, rope_score_curve, rope_scores, rope_shift_invariance
from posenc.schemes.rope.scalings import ROPE_SCALINGS
from posenc.schemes.scheme import Option, Scheme
from posenc.schemes.shaw import shaw_bias, shaw_embeddings, shaw_relative_positions
from posenc.schemes.sinusoidal import (
    RotationCheck,
    apply_rotation,
    frequencies,
    rotation_blocks,
    rotation_check,
    rotation_matrix,
    sinusoidal,
    wavelengths,
)
from posenc.schemes.t5 import t5_bias, t5_relative_bucket
from posenc.schemes.transformer_xl import transformer_xl_scores, transformer_xl_terms
from posenc.schemes.xpos import apply_xpos, xpos_decay, xpos_score_curve, xpos_scores

__all__ = [
    "ROPE_SCALINGS",
    "SCHEMES",
    "alibi_bias",
    "alibi_slopes",
    "apply_mrope",
    "apply_rope",
    "apply_rope_2d",
    "kerple_bias",
    "learned_absolute",
    "models",
    "mrope_position_ids",
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
    "transformer_xl_scores",
    "transformer_xl_terms",
    "apply_xpos",
    "xpos_decay",
    "xpos_score_curve",
    "xpos_scores",
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
