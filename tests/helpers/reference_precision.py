"""How exactly posenc is compared with a torch reference (transformers, torchscale, kimiyoung/transformer-xl)."""

from __future__ import annotations

import math
from contextlib import contextmanager


def float32_rtol(base: float) -> float:
    """The relative tolerance against an inv_freq computed as transformers does, base ** (2i/d) in float32: the
    exponent's rounding (~6e-8) grows by ln(base); a base under 1 gets the tolerance of 1."""
    return 3e-7 * (1 + math.log(max(base, 1.0)))


@contextmanager
def float64_default():
    """torch's default dtype float64 for a block, restored after it whatever happens. References build their
    positions and frequencies in the default dtype (torch.arange(0.0, …)): float64 makes them exact to ~1e-16."""
    import torch

    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(previous)
