"""Step 9 of the derivation: the torch module, run live on seed 003's example (Vaswani et al. 2017,
arXiv:1706.03762, §3.5: the encoding is added to the embeddings, then dropout).

out = dropout(x + PE[:seq_len]): in eval mode the plain sum, in train mode each entry is kept with
probability 1 − p and scaled by 1/(1 − p). torch is imported lazily, inside :func:`module_step`, so
importing :mod:`posenc.derivation` loads no torch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MODULE_EXAMPLE = dict(d_model=16, dropout=0.2, max_len=5000, shape=(2, 4, 16), seed=0)  # seed 003's example


@dataclass(frozen=True)
class ModuleStep:
    """Step 9 (seeds 000, 002, 003): the torch module on seed 003's input, run live."""

    parameters: list[str]  # names of trainable parameters (none)
    buffers: list[tuple[str, tuple[int, ...], str]]  # (name, shape, dtype) of each buffer
    dropout: float
    scale: float  # 1 / (1 − p)
    inputs: np.ndarray  # (2, 4, 16) arange(128)
    summed: np.ndarray  # x + PE[:4] (the module in eval mode: no dropout)
    output: np.ndarray  # the module in train mode: dropout after the sum
    kept: np.ndarray  # bool, output ≠ 0
    kept_gap: float  # max |output − summed·1/(1 − p)| over kept entries
    dropped: int  # entries set to 0 by dropout (a sum that is exactly 0 cannot tell)


def module_step(base: float = 10000.0, seed: int = MODULE_EXAMPLE["seed"]) -> ModuleStep:
    """posenc.modules.SinusoidalPositionalEncoding(16, dropout=0.2) on arange(128).reshape(2, 4, 16).

    Dropout draws from torch's generator, forked and seeded here so the global state is untouched."""
    import torch

    from posenc.modules import SinusoidalPositionalEncoding

    ex = MODULE_EXAMPLE
    module = SinusoidalPositionalEncoding(ex["d_model"], dropout=ex["dropout"], max_len=ex["max_len"], base=base)
    x = torch.arange(128, dtype=torch.float32).reshape(ex["shape"])
    with torch.no_grad():
        summed = module.eval()(x)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            output = module.train()(x)
    summed, output = summed.numpy(), output.numpy()
    p = module.dropout.p
    kept = output != 0
    scale = np.float32(1 / (1 - p))  # torch scales by 1/(1 − p) = 1.25 (exact in float32)
    gap = float(np.abs(output[kept] - summed[kept] * scale).max()) if kept.any() else 0.0
    dropped = int(((output == 0) & (summed != 0)).sum())  # a sum of exactly 0 is 0 either way
    return ModuleStep([name for name, _ in module.named_parameters()],
                      [(name, tuple(b.shape), str(b.dtype).removeprefix("torch.")) for name, b in module.named_buffers()],
                      p, 1 / (1 - p), x.numpy(), summed, output, kept, gap, dropped)
