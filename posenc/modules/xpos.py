"""xPos as a torch ``nn.Module`` with torchscale's interface (Sun et al. 2022, arXiv:2212.10554).

``XPos(head_dim, scale_base)(x, offset, downscale)`` takes and returns what torchscale 0.3.0's
``XPOS`` does (torchscale/component/xpos_relative_position.py): x of shape (batch·heads, length,
head_dim), positions offset … offset + length − 1, the scale centred on −(length + offset)//2,
pairs (2i, 2i+1) rotated as GPT-J's ``rotate_every_two`` with cos/sin repeated pairwise
(torchscale's ``duplicate_interleave``), and ``downscale=True`` (keys) dividing by the scale
instead of multiplying. The numbers are computed in float64 and cast to x's dtype at the end
(torchscale computes its angles in float32), and equal :func:`posenc.schemes.xpos.apply_xpos`.
"""

from __future__ import annotations

import torch
from torch import nn

from posenc.checks import check_flag, check_int
from posenc.modules.checks import check_finite_output, check_float_tensor
from posenc.modules.rope import rotate_every_two
from posenc.schemes.xpos import DEFAULT_SCALE_BASE, check_scale_base, xpos_centre, xpos_theta, xpos_zeta


class XPos(nn.Module):
    """Rotate queries (or keys, ``downscale=True``) by p·θ_i and scale pair i by ζ_i^(±p̂/γ).

    ζ_i = (2i/d + 0.4)/1.4, θ_i = base^(−2i/d) (torchscale: base 10000), γ = scale_base and
    p̂ = p − ⌈(length + offset)/2⌉. ``zeta`` and ``inv_freq`` are non-persistent float64 buffers;
    torchscale keeps its ζ in a buffer called ``scale``.
    """

    def __init__(self, head_dim: int, scale_base: float = DEFAULT_SCALE_BASE, *, base: float = 10000.0) -> None:
        super().__init__()
        zeta, theta = xpos_zeta(head_dim), xpos_theta(head_dim, base)  # validate head_dim (even) and base
        self.head_dim, self.scale_base, self.base = int(head_dim), check_scale_base(scale_base), float(base)
        self.register_buffer("zeta", torch.as_tensor(zeta, dtype=torch.float64), persistent=False)
        self.register_buffer("inv_freq", torch.as_tensor(theta, dtype=torch.float64), persistent=False)

    def extra_repr(self) -> str:
        return f"head_dim={self.head_dim}, scale_base={self.scale_base:g}, base={self.base:g}"

    def forward(self, x: torch.Tensor, offset: int = 0, downscale: bool = False) -> torch.Tensor:
        """x: (batch·heads, length, head_dim), floating-point; the positions are offset … offset + length − 1."""
        x = check_float_tensor(x)
        if x.ndim != 3 or x.shape[-1] != self.head_dim:
            raise ValueError(f"x must have shape (batch·heads, length, {self.head_dim}) as torchscale's XPOS "
                             f"takes it; got {tuple(x.shape)}.")
        offset = check_int(offset, "offset", minimum=0, maximum=1 << 40,
                           meaning="how many positions come before the first one of x")
        downscale = check_flag(downscale, "downscale")
        length = x.shape[1]
        positions = torch.arange(offset, offset + length, dtype=torch.float64, device=x.device)  # (length,)
        centred = positions - xpos_centre(length + offset)
        exponent = (-centred if downscale else centred)[:, None] / self.scale_base  # (length, 1)
        scale = self.zeta**exponent  # (length, head_dim/2)
        angles = positions[:, None] * self.inv_freq
        cos = (torch.cos(angles) * scale).repeat_interleave(2, dim=-1).to(x.dtype)  # duplicate_interleave
        sin = (torch.sin(angles) * scale).repeat_interleave(2, dim=-1).to(x.dtype)
        if not bool(torch.isfinite(cos).all() and torch.isfinite(sin).all()):
            raise ValueError(f"the xPos scale ζ_i^(±p̂/γ) overflows {x.dtype} at these positions; use a larger "
                             "scale_base, shorter inputs or a wider dtype.")
        return check_finite_output(x * cos + rotate_every_two(x) * sin, "the rotated and scaled x")
