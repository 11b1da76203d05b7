"""xPos's template for :mod:`posenc.export.source` (Sun et al. 2022, arXiv:2212.10554).

Like the other families' templates, ``XPOS`` is ``str.format``-ed with the settings as Python
literals (literal braces of the generated code are doubled). Its ``XPos`` module has torchscale
0.3.0's interface, ``forward(x, offset=0, downscale=False)``, and computes in float64 what
:class:`posenc.modules.XPos` computes; ``output()`` is the score of ones vectors by offset j − i,
which :func:`posenc.schemes.xpos.xpos_score_curve` gives (the centre ⌈L/2⌉ of the scales is shared by
the queries and the keys, so it cancels).
"""

from __future__ import annotations

XPOS = '''

def rotate_every_two(x: torch.Tensor) -> torch.Tensor:
    """(x_2i, x_2i+1) -> (-x_2i+1, x_2i) for every pair (GPT-J, torchscale)."""
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


class XPos(nn.Module):
    """xPos (Sun et al. 2022, arXiv:2212.10554) with torchscale's interface. Pair i of x at position p is
    rotated by p*theta_i and scaled by zeta_i^(p_hat/gamma), or by zeta_i^(-p_hat/gamma) for keys
    (downscale=True): theta_i = n^(-2i/d), zeta_i = (2i/d + 0.4)/1.4, gamma = scale_base and
    p_hat = p - ceil((length + offset)/2). The score q'.k' is RoPE's with pair i times zeta_i^((m - n)/gamma).

    forward(x, offset=0, downscale=False): x (batch*heads, length, d); positions offset ... offset + length - 1.
    """

    def __init__(self, head_dim: int = D_MODEL, scale_base: float = {SCALE_BASE}, base: float = BASE) -> None:
        super().__init__()
        self.scale_base = scale_base
        pairs = torch.arange(0, head_dim, 2, dtype=torch.float64)  # 2i
        self.register_buffer("zeta", (pairs + 0.4 * head_dim) / (1.4 * head_dim), persistent=False)
        self.register_buffer("inv_freq", 1.0 / base ** (pairs / head_dim), persistent=False)

    def forward(self, x: torch.Tensor, offset: int = 0, downscale: bool = False) -> torch.Tensor:
        length = x.shape[1]
        positions = torch.arange(offset, offset + length, dtype=torch.float64)
        centred = positions - (length + offset + 1) // 2  # p - ceil((length + offset)/2)
        scale = self.zeta ** ((-centred if downscale else centred)[:, None] / self.scale_base)  # (length, d/2)
        angles = positions[:, None] * self.inv_freq
        cos = (torch.cos(angles) * scale).repeat_interleave(2, dim=-1).to(x.dtype)
        sin = (torch.sin(angles) * scale).repeat_interleave(2, dim=-1).to(x.dtype)
        return x * cos + rotate_every_two(x) * sin


def output() -> torch.Tensor:
    """q'.k' for q = k = (1, ..., 1) by offset j - i = -(LENGTH - 1) ... LENGTH - 1: queries and keys at
    0 ... LENGTH - 1 (one centre), the query at i against the key at 0 and the query at 0 against the key at j."""
    xpos, ones = XPos(), torch.ones(1, LENGTH, D_MODEL, dtype=torch.float64)
    queries, keys = xpos(ones)[0], xpos(ones, downscale=True)[0]  # (LENGTH, d)
    before = (queries[1:] @ keys[0]).flip(0)  # offsets -(LENGTH - 1) ... -1
    return torch.cat([before, keys @ queries[0]])  # then offsets 0 ... LENGTH - 1
'''
