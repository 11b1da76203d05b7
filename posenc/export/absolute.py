"""The source templates of the absolute schemes' standalone files: sinusoidal, learned, NoPE.

Each template is ``str.format``-ed with the settings as Python literals (``{D_MODEL}``,
``{LAYOUT}``, …); literal braces of the generated code are doubled. The code follows
posenc.modules and the numpy functions it must match (tests run every template).
"""

from __future__ import annotations

SINUSOIDAL = '''

class SinusoidalPositionalEncoding(nn.Module):
    """x -> x + PE[:length], Vaswani et al. 2017 (arXiv:1706.03762); the table is a float32 buffer.

    PE[p, 2i] = sin(p*theta_i), PE[p, 2i+1] = cos(p*theta_i) (layout "interleaved"), or
    PE[p, i] = sin(p*theta_i), PE[p, d/2 + i] = cos(p*theta_i) (layout "split");
    spacing "vaswani": theta_i = n^(-2i/d); "tensor2tensor": theta_i = exp(-i * ln(n) / (h - 1)), h = ceil(d/2).
    """

    def __init__(self, d_model: int = {D_MODEL}, max_len: int = {LENGTH}, base: float = {BASE},
                 layout: str = {LAYOUT}, spacing: str = {SPACING}) -> None:
        super().__init__()
        half = (d_model + 1) // 2
        i = torch.arange(half, dtype=torch.float64)
        if spacing == "vaswani":
            theta = torch.exp(-(2.0 * i / d_model) * math.log(base))
        else:
            theta = torch.exp(-i * (math.log(base) / max(half - 1, 1)))
        phase = torch.arange(max_len, dtype=torch.float64)[:, None] * theta  # (max_len, half)
        if layout == "split":
            pe = torch.cat([torch.sin(phase), torch.cos(phase)], dim=1)
        else:
            pe = torch.empty(max_len, d_model, dtype=torch.float64)
            pe[:, 0::2] = torch.sin(phase)
            pe[:, 1::2] = torch.cos(phase[:, : d_model // 2])
        self.register_buffer("pe", pe.float())  # (max_len, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (..., length, d_model)."""
        return x + self.pe[: x.shape[-2]].to(x.dtype)


def output() -> torch.Tensor:
    return SinusoidalPositionalEncoding()(torch.zeros(1, LENGTH, D_MODEL))[0]
'''


LEARNED = '''
TABLE_SIZE = {TABLE_SIZE}
# The initial table W (TABLE_SIZE x D_MODEL), W ~ N(0, 0.02^2) drawn by numpy's default_rng({SEED}):
# float32, little-endian, base64.
WEIGHTS = {WEIGHTS}


class LearnedPositionalEmbedding(nn.Module):
    """x -> x + W[:length], a trainable table (BERT arXiv:1810.04805, GPT-2); no row past TABLE_SIZE."""

    def __init__(self) -> None:
        super().__init__()
        data = torch.frombuffer(bytearray(base64.b64decode("".join(WEIGHTS))), dtype=torch.float32)
        self.table = nn.Parameter(data.reshape(TABLE_SIZE, D_MODEL).clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (..., length, d_model) with length <= TABLE_SIZE."""
        if x.shape[-2] > TABLE_SIZE:
            raise ValueError(f"positions {{TABLE_SIZE}} and beyond have no row in the learned table")
        return x + self.table[: x.shape[-2]]


def output() -> torch.Tensor:
    return LearnedPositionalEmbedding()(torch.zeros(1, min(LENGTH, TABLE_SIZE), D_MODEL))[0].detach()
'''


NOPE = '''

class NoPositionalEncoding(nn.Module):
    """NoPE (Kazemnejad et al. 2023, arXiv:2305.19466): nothing is added, forward(x) = x."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x


def output() -> torch.Tensor:
    return NoPositionalEncoding()(torch.zeros(1, LENGTH, D_MODEL))[0]
'''
