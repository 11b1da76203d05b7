"""torch ``nn.Module`` versions of posenc's encodings (imports torch).

Each module computes with torch ops and equals the numpy function of the same
scheme to 1e-6 (tests/modules/ check the parity).
"""

from posenc.modules.absolute import LearnedPositionalEmbedding, NoPositionalEncoding
from posenc.modules.relative import ALiBiBias, ShawRelativePositions, T5RelativeBias
from posenc.modules.rope import RotaryEmbedding
from posenc.modules.sinusoidal import SinusoidalPositionalEncoding

__all__ = [
    "ALiBiBias",
    "LearnedPositionalEmbedding",
    "NoPositionalEncoding",
    "RotaryEmbedding",
    "ShawRelativePositions",
    "SinusoidalPositionalEncoding",
    "T5RelativeBias",
]
