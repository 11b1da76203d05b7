"""torch versions of posenc.schemes.absolute: a learned position table, and NoPE.

The learned table starts from the same numpy draw as :func:`posenc.schemes.absolute.learned_absolute`
(N(0, 0.02²), ``np.random.default_rng(seed)``), so before training both give the same rows.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from posenc.checks import check_table_size
from posenc.modules.checks import check_finite_output, check_float_dtype, check_float_tensor
from posenc.schemes.absolute import DEFAULT_STD, learned_absolute


class LearnedPositionalEmbedding(nn.Module):
    """x + W[:length], with W a trainable (table_size, d_model) table (BERT arXiv:1810.04805, GPT-2).

    ``forward(x)`` takes x of shape (..., length, d_model) and raises ValueError when
    length > table_size: a learned table has no row for a position it never had.
    """

    def __init__(
        self,
        table_size: int,
        d_model: int,
        seed: int = 0,
        std: float = DEFAULT_STD,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        table_size, dtype = check_table_size(table_size), check_float_dtype(dtype)
        table = learned_absolute(table_size, d_model, table_size=table_size, seed=seed, std=std)
        self.table = nn.Parameter(torch.from_numpy(np.ascontiguousarray(table)).to(dtype))  # (table_size, d_model)

    @property
    def table_size(self) -> int:
        return self.table.shape[0]

    def extra_repr(self) -> str:
        return f"table_size={self.table_size}, d_model={self.table.shape[1]}"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        length, d_model = check_float_tensor(x, min_ndim=2).shape[-2:]
        if length > self.table_size:
            raise ValueError(
                f"The sequence has {length} positions but the learned table has only {self.table_size} rows: "
                f"positions {self.table_size} and beyond have no encoding."
            )
        if d_model != self.table.shape[1]:
            raise ValueError(f"x has width {d_model} but the table has d_model={self.table.shape[1]}.")
        return check_finite_output(x + self.table[:length], "x + W[:length]")


class NoPositionalEncoding(nn.Module):
    """NoPE (Kazemnejad et al. 2023, arXiv:2305.19466): forward(x) = x, nothing is added."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return check_float_tensor(x)
