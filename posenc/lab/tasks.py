"""Synthetic tasks: a string of digits, a separator, then the target string.

A sequence of a string of n digits is ``BOS x_1 … x_n SEP y_1 … y_n`` (2n + 2 tokens): copy has
y = x, reverse has y = x reversed. The model is scored on the n target tokens only (the logits at
SEP, y_1 … y_{n−1}). Batches of mixed lengths are right-padded with PAD; under a causal mask the
padding comes after every target and changes nothing before it.
"""

from __future__ import annotations

import torch

from posenc.lab.names import BOS, DIGITS, PAD, SEP, check_task


def sequence_length(n: int) -> int:
    """Tokens in the sequence of an n-digit string: BOS, n digits, SEP, n targets."""
    return 2 * n + 2


def target(task: str, digits: torch.Tensor) -> torch.Tensor:
    """The target string of each row of ``digits`` (batch, n)."""
    task = check_task(task)
    return digits if task == "copy" else digits.flip(-1)


def make_batch(task: str, lengths: torch.Tensor, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Sequences for the string lengths given, right-padded: (tokens, loss mask), each (batch, 2·max + 2).

    The mask is True where the *next* token is a target: logits[:, t] predict tokens[:, t + 1].
    """
    lengths = lengths.to(torch.long)
    batch, longest = len(lengths), int(lengths.max())
    width = sequence_length(longest)
    digits = torch.randint(0, DIGITS, (batch, longest), generator=generator)
    tokens = torch.full((batch, width), PAD, dtype=torch.long)
    mask = torch.zeros((batch, width), dtype=torch.bool)
    tokens[:, 0] = BOS
    for n in torch.unique(lengths).tolist():
        rows = (lengths == n).nonzero().squeeze(1)
        x = digits[rows, :n]
        tokens[rows, 1:n + 1] = x
        tokens[rows, n + 1] = SEP
        tokens[rows, n + 2:2 * n + 2] = target(task, x)
        mask[rows, n + 1:2 * n + 1] = True
    return tokens, mask


def fixed_length_batch(task: str, n: int, count: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``count`` sequences of n-digit strings drawn from ``seed`` (the test sets): (tokens, mask)."""
    generator = torch.Generator().manual_seed(int(seed))
    return make_batch(task, torch.full((count,), n, dtype=torch.long), generator)
