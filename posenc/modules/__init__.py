"""torch ``nn.Module`` versions of posenc's encodings (imports torch).

Each module computes with torch ops and equals the numpy function of the same
scheme to 1e-6 (tests/test_modules*.py check the parity).
"""

from posenc.modules.absolute import (  # noqa: F401
    LearnedPositionalEmbedding,
    NoPositionalEncoding,
)
from posenc.modules.relative import (  # noqa: F401
    ALiBiBias,
    ShawRelativePositions,
    T5RelativeBias,
)
from posenc.modules.rope import RotaryEmbedding  # noqa: F401
from posenc.modules.sinusoidal import SinusoidalPositionalEncoding  # noqa: F401
