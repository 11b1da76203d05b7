"""torch ``nn.Module`` versions of posenc's encodings (imports torch).

Each module computes with torch ops and equals the numpy function of the same
scheme to 1e-6 (tests/modules/ check the parity).
"""

from posenc.modules.absolute import LearnedPositionalEmbedding, NoPositionalEncoding
from posenc.modules.cope import ContextualPositions
from posenc.modules.fire import FIREBias
from posenc.modules.kerple import KerpleBias
from posenc.modules.relative import ALiBiBias, ShawRelativePositions, T5RelativeBias
from posenc.modules.rope import RotaryEmbedding
from posenc.modules.sinusoidal import SinusoidalPositionalEncoding
from posenc.modules.transformer_xl import TransformerXLScores
from posenc.modules.xpos import XPos

__all__ = [
    "ALiBiBias",
    "ContextualPositions",
    "FIREBias",
    "KerpleBias",
    "LearnedPositionalEmbedding",
    "NoPositionalEncoding",
    "RotaryEmbedding",
    "ShawRelativePositions",
    "SinusoidalPositionalEncoding",
    "T5RelativeBias",
    "TransformerXLScores",
    "XPos",
]
