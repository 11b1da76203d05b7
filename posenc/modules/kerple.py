"""torch version of posenc.schemes.kerple: KERPLE's kernel bias with a learnable (r1, r2) per head.

Chi et al. 2022, arXiv:2205.09921. Positivity is kept as in the paper's code (chijames/KERPLE,
megatron/mpu/layers.py, ``ParallelKerpleLog`` and ``ParallelKerplePower``): r1 and r2 are plain
parameters, clamped in place to ≥ 0.01 (the power's r2 also to ≤ 2) before every forward, i.e.
projected gradient descent; the gradient flows through them unchanged.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from posenc.checks import check_flag, check_length, check_size
from posenc.modules.checks import check_finite_output, check_fits_dtype, check_float_dtype
from posenc.modules.relative import offset_matrix
from posenc.schemes.bias import check_heads
from posenc.schemes.kerple import MAX_POWER, check_kerple_parameters

PROJECTION_FLOOR = 0.01
"""The smallest r1 and r2 the module keeps (KERPLE's code: ``eps = 1e-2``)."""


class KerpleBias(nn.Module):
    """KERPLE's bias B[h, i, j] (Chi et al. 2022, arXiv:2205.09921), learnable r1_h, r2_h per head:

        log:   B[h, i, j] = −r1_h·ln(1 + r2_h·|i − j|)
        power: B[h, i, j] = −r1_h·|i − j|^(r2_h)

    ``forward(length)`` → (num_heads, length, length); causal=True (the paper) puts −inf above the
    diagonal (j > i). Every head starts from the given (r1, r2), so before training each head
    equals :func:`posenc.kerple_bias` (to the rounding of ``dtype``). r1, r2 are clamped to
    ≥ 0.01 (power: r2 ≤ 2) before each forward, as the KERPLE code does.
    """

    def __init__(self, num_heads: int = 1, r1: float = 1.0, r2: float = 1.0, variant: str = "log",
                 causal: bool = True, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        heads, dtype = check_heads(num_heads), check_float_dtype(dtype)
        r1, r2, self.variant = check_kerple_parameters(r1, r2, variant)
        if min(r1, r2) < PROJECTION_FLOOR:
            raise ValueError(f"r1 and r2 must be at least {PROJECTION_FLOOR} in the module: it keeps them there "
                             f"during training, as the KERPLE code does; got r1={r1:g}, r2={r2:g}.")
        self.causal = check_flag(causal, "causal")
        self.r1 = nn.Parameter(torch.full((heads,), check_fits_dtype(r1, "r1", dtype), dtype=dtype))
        self.r2 = nn.Parameter(torch.full((heads,), check_fits_dtype(r2, "r2", dtype), dtype=dtype))

    def extra_repr(self) -> str:
        return f"num_heads={len(self.r1)}, variant={self.variant!r}, causal={self.causal}"

    @torch.no_grad()
    def project_(self) -> None:
        """Clamp r1, r2 in place into the kernel's valid range (KERPLE's code, before each forward)."""
        self.r1.clamp_(min=PROJECTION_FLOOR)
        self.r2.clamp_(min=PROJECTION_FLOOR, max=MAX_POWER if self.variant == "power" else None)

    def forward(self, length: int) -> torch.Tensor:
        length = check_length(length)
        check_size((len(self.r1), length, length), "the KERPLE bias")
        self.project_()
        offset = offset_matrix(length, length, self.r1.device)  # (length, length), j − i
        distance = offset.abs().to(self.r1.dtype)
        r1, r2 = self.r1[:, None, None], self.r2[:, None, None]
        bias = -r1 * (torch.log1p(r2 * distance) if self.variant == "log" else distance.pow(r2))
        bias = check_finite_output(bias, "The KERPLE bias")
        return bias.masked_fill(offset > 0, -math.inf) if self.causal else bias
