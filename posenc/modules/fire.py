"""FIRE: a learned bias of the relative distance, normalized by the query's position (Li et al. 2023).

Functional Interpolation for Relative Positions (arXiv:2310.04418, §3.2 and Appendix A's pseudocode):

    b_h(i, j) = f_θ( ψ(i − j) / ψ(max(L, i)) )_h,   ψ(x) = log(c·x + 1),

for a query at position i and a key at j ≤ i (0-based, causal). f_θ is a small MLP from one number to one
bias per head, c > 0 sharpens the log, and L is a threshold: a query before L is normalized by ψ(L) (the
bias then depends on i − j alone), a query past it by ψ(i), so every distance it sees falls in [0, 1], the
range it was trained on ("progressive interpolation"). c and L are learned, as in the paper.

Choices (the paper's pseudocode unless stated): f_θ = Linear(1, 32) → ReLU → Linear(32, heads); c starts at
0.1; L = |s·L₀| with a learned multiplier s starting at 1 and L₀ given (the paper's 512 for training at 2,048,
a quarter); ψ's argument as |c·x| and ε = 1e-6 added to the normalizer, as the pseudocode. The bias is also
computed above the diagonal (with |i − j|): a causal model masks it there.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from posenc.checks import check_int, check_length, check_real, check_size
from posenc.schemes.bias import check_heads

FIRE_EPSILON = 1e-6
"""Added to the normalizer ψ(max(L, i)) (the paper's ``eps``): no division by zero when c·L is 0."""


def _uniform(shape: tuple[int, ...], bound: float, generator: torch.Generator) -> torch.Tensor:
    return (torch.rand(shape, generator=generator, dtype=torch.float64) * 2 - 1).mul(bound).float()


class FIREBias(nn.Module):
    """FIRE's bias B[h, i, j] = f_θ(ψ(|i − j|) / (ψ(max(L, i)) + ε))_h, ψ(x) = log(|c·x| + 1) (arXiv:2310.04418).

    ``forward(length)`` → (num_heads, length, length). The MLP's weights start as torch's ``nn.Linear`` draws
    them, U(−1/√fan_in, 1/√fan_in), from a generator seeded with ``seed`` (so two modules of one seed are equal).
    """

    def __init__(self, num_heads: int, threshold: float = 512.0, mlp_width: int = 32, c: float = 0.1,
                 seed: int = 0) -> None:
        super().__init__()
        num_heads = check_heads(num_heads)
        mlp_width = check_int(mlp_width, "mlp_width", minimum=1, maximum=4096, meaning="the hidden units of f_θ")
        threshold = check_real(threshold, "threshold", minimum=0.0, strict=True, maximum=float(1 << 20),
                               meaning="L, the position from which distances are normalized by the query's")
        c = check_real(c, "c", minimum=0.0, strict=True, maximum=1e6, meaning="the slope inside ψ(x) = log(c·x + 1)")
        generator = torch.Generator().manual_seed(check_int(seed, "seed", minimum=0, maximum=2**63 - 1,
                                                            meaning="the seed of the MLP's weights"))
        self.hidden = nn.Linear(1, mlp_width)
        self.out = nn.Linear(mlp_width, num_heads)
        with torch.no_grad():
            for layer in (self.hidden, self.out):
                bound = 1.0 / math.sqrt(layer.in_features)
                layer.weight.copy_(_uniform(tuple(layer.weight.shape), bound, generator))
                layer.bias.copy_(_uniform(tuple(layer.bias.shape), bound, generator))
        self.c = nn.Parameter(torch.tensor(float(c)))
        self.threshold_scale = nn.Parameter(torch.tensor(1.0))
        self.register_buffer("initial_threshold", torch.tensor(float(threshold)))

    def extra_repr(self) -> str:
        return f"num_heads={self.out.out_features}, mlp_width={self.hidden.out_features}"

    @property
    def threshold(self) -> torch.Tensor:
        """L = |s·L₀|, learned through s."""
        return (self.threshold_scale * self.initial_threshold).abs()

    def normalized_distance(self, length: int) -> torch.Tensor:
        """(length, length): ψ(|i − j|) / (ψ(max(L, i)) + ε), the input of f_θ; in [0, 1] on and below the diagonal."""
        length = check_length(length)
        positions = torch.arange(length, dtype=torch.float32, device=self.c.device)
        distance = positions[:, None] - positions[None, :]  # i − j
        normalizer = torch.maximum(positions, self.threshold)[:, None]  # max(L, i), one per query
        return torch.log((self.c * distance).abs() + 1) / (torch.log((self.c * normalizer).abs() + 1) + FIRE_EPSILON)

    def forward(self, length: int) -> torch.Tensor:
        length = check_length(length)
        check_size((max(self.hidden.out_features, self.out.out_features), length, length), "the FIRE bias")
        inputs = self.normalized_distance(length)[..., None]  # (length, length, 1)
        bias = self.out(torch.relu(self.hidden(inputs)))  # (length, length, heads)
        return bias.permute(2, 0, 1)
