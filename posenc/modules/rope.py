"""Rotary position embedding as a torch ``nn.Module`` (RoFormer, arXiv:2104.09864).

The frequencies come from :func:`posenc.schemes.rope.frequencies.rope_inv_freq` at construction,
as Hugging Face builds them from ``ROPE_INIT_FUNCTIONS``; the rotation itself
is written with torch ops in the sources' own form:

- ``"interleaved"``: x·cos + rotate_every_two(x)·sin, cos/sin repeated
  pairwise (GPT-J);
- ``"half"``: x·cos + rotate_half(x)·sin, cos/sin = cat(freqs, freqs)
  (GPT-NeoX arXiv:2204.06745, Llama in Hugging Face).
"""

from __future__ import annotations

import torch
from torch import nn

from posenc.checks import check_choice, check_seq_len
from posenc.modules.checks import check_finite_output, check_float_tensor, check_positions
from posenc.schemes.rope.frequencies import rope_inv_freq
from posenc.schemes.rope.rotation import LAYOUTS, Layout
from posenc.schemes.rope.scalings import LENGTH_DEPENDENT


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    """(x1, x2) ↦ (−x2, x1) for the two halves of the last axis (HF ``rotate_half``)."""
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def rotate_every_two(x: torch.Tensor) -> torch.Tensor:
    """(x_{2i}, x_{2i+1}) ↦ (−x_{2i+1}, x_{2i}) for every pair (GPT-J ``rotate_every_two``)."""
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


class RotaryEmbedding(nn.Module):
    """Rotate queries or keys of shape (batch, [heads,] length, d) by position·θ_i.

    Same arguments and numbers as :func:`posenc.schemes.rope.rotation.apply_rope` (equal to 1e-6).
    ``inv_freq`` is a non-persistent float64 buffer; for ``rope_type="dynamic"`` and
    ``"longrope"`` the frequencies are recomputed in ``forward`` from seq_len = max(positions) + 1
    (for dynamic, HF keeps the largest length seen so far instead; this module has no state).
    Under ``"proportional"`` every pair of the head is rotated, by θ = 0 beyond the first
    ⌊p·d/2⌋ (p-RoPE), so ``rotary_dims`` is 2·(d // 2).
    """

    def __init__(self, d: int, base: float = 10000.0, *, layout: Layout = "interleaved",
                 rotary_fraction: float = 1.0, rope_type: str = "default", **params: object) -> None:
        super().__init__()
        inv_freq, attention_scaling = rope_inv_freq(d, base, rope_type=rope_type,
                                                    rotary_fraction=rotary_fraction, **params)  # validates
        self.layout = check_choice(layout, "layout", LAYOUTS)
        self.d, self.base, self.rope_type, self.params = int(d), float(base), rope_type, dict(params)
        self.rotary_fraction = float(rotary_fraction)
        self.rotary_dims = 2 * len(inv_freq)
        self.attention_scaling = attention_scaling
        self.register_buffer("inv_freq", torch.as_tensor(inv_freq, dtype=torch.float64), persistent=False)

    def extra_repr(self) -> str:
        return (f"d={self.d}, base={self.base:g}, layout={self.layout!r}, rotary_dims={self.rotary_dims}, "
                f"rope_type={self.rope_type!r}")

    def _length_inv_freq(self, seq_len: int) -> torch.Tensor:
        """θ' at this length: dynamic NTK's base' = base·(s·L/L₀ − (s − 1))^(d/(d−2)) with L = max(seq_len, L₀),
        or LongRoPE's long factors beyond L₀ and short ones up to it, from
        :func:`posenc.schemes.rope.frequencies.rope_inv_freq` (which refuses a base' that overflows)."""
        inv_freq, _ = rope_inv_freq(self.d, self.base, rope_type=self.rope_type, seq_len=seq_len,
                                    rotary_fraction=self.rotary_fraction, **self.params)
        return torch.as_tensor(inv_freq, dtype=torch.float64, device=self.inv_freq.device)

    def forward(self, x: torch.Tensor, positions: torch.Tensor | None = None,
                seq_len: int | None = None) -> torch.Tensor:
        """x: (..., length, d), floating-point; positions broadcast to x.shape[:-1] (default 0, …, length − 1)."""
        x = check_float_tensor(x)
        if x.ndim < 2 or x.shape[-1] != self.d:
            raise ValueError(f"x must have shape (..., length, {self.d}); got {tuple(x.shape)}.")
        if positions is None:
            positions = torch.arange(x.shape[-2], device=x.device)
        positions = check_positions(positions, x.device)
        seq_len = check_seq_len(seq_len)
        try:
            positions = positions.expand(x.shape[:-1])
        except RuntimeError as err:
            raise ValueError(f"positions of shape {tuple(positions.shape)} do not fit x, whose positions "
                             f"have shape {tuple(x.shape[:-1])} (…, length).") from err
        inv_freq = self.inv_freq
        if self.rope_type in LENGTH_DEPENDENT and self.rotary_dims:
            if seq_len is None and positions.numel():
                seq_len = max(int(torch.floor(positions.max()).item()) + 1, 1)
            inv_freq = self._length_inv_freq(seq_len or 0)
        angles = positions[..., None] * inv_freq  # (..., length, d_rot/2)
        if not bool(torch.isfinite(angles).all()):
            raise ValueError("the angle position·θ_i overflows for these positions; use smaller positions.")
        cos = (torch.cos(angles) * self.attention_scaling).to(x.dtype)
        sin = (torch.sin(angles) * self.attention_scaling).to(x.dtype)
        if self.layout == "interleaved":
            cos, sin = cos.repeat_interleave(2, dim=-1), sin.repeat_interleave(2, dim=-1)
            rotate = rotate_every_two
        else:
            cos, sin = torch.cat((cos, cos), dim=-1), torch.cat((sin, sin), dim=-1)
            rotate = rotate_half
        x_rot, x_pass = x[..., : self.rotary_dims], x[..., self.rotary_dims :]
        out = torch.cat((x_rot * cos + rotate(x_rot) * sin, x_pass), dim=-1)
        return check_finite_output(out, "the rotated x")
