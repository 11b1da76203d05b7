"""torch version of the sinusoidal encoding (Vaswani et al. 2017, arXiv:1706.03762)."""

from __future__ import annotations

import math

import torch
from torch import nn

from posenc.checks import MAX_LENGTH, check_base, check_d_model, check_int, check_real, check_size
from posenc.modules.checks import check_finite_output, check_float_tensor


def sinusoidal_table(max_len: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """(max_len, d_model) float64 table, PE[p, 2i] = sin(p·θ_i), PE[p, 2i+1] = cos(p·θ_i).

    θ_i = exp(−(2i/d_model)·ln base), phases in float64 with torch ops; an odd d_model
    ends with the sine of the last frequency, as in :func:`posenc.sinusoidal`.
    """
    max_len, d_model, base = _check_max_len(max_len), check_d_model(d_model), check_base(base)
    check_size((max_len, d_model), "the sinusoidal table")
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)  # (max_len, 1)
    theta = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(base) / d_model))
    phase = position * theta  # (max_len, ⌈d/2⌉)
    table = torch.empty(max_len, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(phase)
    table[:, 1::2] = torch.cos(phase[:, : d_model // 2])
    return table


def _check_max_len(max_len: object) -> int:
    return check_int(max_len, "max_len", minimum=1, maximum=MAX_LENGTH, meaning="the longest sequence the table covers")


class SinusoidalPositionalEncoding(nn.Module):
    """x ↦ dropout(x + PE[:length]) with the fixed sinusoidal table as a buffer.

    The table is a non-trainable buffer (the module has no parameters), stored in
    float32 and cast to x's dtype and device in ``forward``.
    """

    def __init__(self, d_model: int, dropout: float = 0.0, max_len: int = 5000, base: float = 10000.0):
        super().__init__()
        self.d_model = check_d_model(d_model)
        self.max_len = _check_max_len(max_len)
        self.base = check_base(base)
        dropout = check_real(dropout, "dropout", minimum=0.0, maximum=1.0, meaning="a probability in [0, 1)")
        if dropout == 1.0:
            raise ValueError(f"dropout must be a probability in [0, 1); got {dropout}.")
        self.dropout = nn.Dropout(p=dropout)
        self.register_buffer("pe", sinusoidal_table(self.max_len, self.d_model, self.base).float())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (batch, length, d_model) -> (batch, length, d_model); x floating-point and finite."""
        x = check_float_tensor(x)
        if x.dim() != 3 or x.shape[-1] != self.d_model:
            raise ValueError(
                f"Expected input of shape (batch, length, {self.d_model}); got {tuple(x.shape)}."
            )
        length = x.shape[1]
        if length > self.max_len:
            raise ValueError(
                f"The input has {length} positions but the table was built for max_len={self.max_len}; "
                "build the module with a larger max_len."
            )
        return self.dropout(check_finite_output(x + self.pe[:length].to(device=x.device, dtype=x.dtype), "x + PE"))

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, max_len={self.max_len}, base={self.base:g}"
