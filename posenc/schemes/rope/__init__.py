"""Rotary position embedding (RoFormer, Su et al., arXiv:2104.09864) and its scalings (numpy only).

- :mod:`~posenc.schemes.rope.rotation`: rotating queries and keys, and the scores that follow;
- :mod:`~posenc.schemes.rope.scalings`: θ_i and every context-extension scaling (``rope_type``);
- :mod:`~posenc.schemes.rope.frequencies`: the checked entry point :func:`rope_inv_freq`;
- :mod:`~posenc.schemes.rope.multimodal`: 2-D RoPE and M-RoPE for images (Qwen2-VL, arXiv:2409.12191);
- :mod:`~posenc.schemes.rope.entry`: the registry entry (options, LaTeX formula, offset curve).
"""

from posenc.schemes.rope.frequencies import rope_inv_freq, rope_wavelengths, rotary_dims
from posenc.schemes.rope.multimodal import apply_mrope, apply_rope_2d, mrope_position_ids
from posenc.schemes.rope.rotation import apply_rope, rope_score_curve, rope_scores, rope_shift_invariance
from posenc.schemes.rope.scalings import ROPE_SCALINGS

__all__ = ["ROPE_SCALINGS", "apply_mrope", "apply_rope", "apply_rope_2d", "mrope_position_ids", "rope_inv_freq",
           "rope_score_curve", "rope_scores", "rope_shift_invariance", "rope_wavelengths", "rotary_dims"]
