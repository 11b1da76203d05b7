"""Synthetic tasks: a string of digits, a separator, then the target string.

A sequence of a string of n digits is ``BOS x_1 … x_n SEP y_1 … y_n`` (2n + 2 tokens), the same shape for
every task (TARGETS):

- ``copy``: y = x;
- ``reverse``: y = x reversed;
- ``selective_copy`` (the selective copy of Golovneva et al. 2024, arXiv:2405.18719, §5.1, in the lab's 13
  tokens): each x_i is a blank 0 with probability 1/2, else a digit 1–9 drawn uniformly; y is the non-zero
  digits of x in order, then the blanks, moved to the end (zeros up to n). ``BOS 3 0 0 7 0 5 SEP 3 7 5 0 0 0``.
  Target t is the t-th non-zero digit of x: where it sits depends on how many blanks come before it, so
  the model must count tokens by their content, not only by their position.

The model is scored on the n target tokens only (the logits at SEP, y_1 … y_{n−1}). Batches of mixed lengths
are right-padded with PAD; under a causal mask the padding comes after every target and changes nothing before
it. copy and reverse draw their digits as they always did (one draw of n digits 0–9), so their shipped results
stay reproducible bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from posenc.lab.names import BOS, DIGITS, PAD, SEP, check_task

BLANK = 0
"""The blank of selective_copy: the digit 0."""


def _uniform_digits(shape: tuple[int, int], generator: torch.Generator) -> torch.Tensor:
    """Digits 0–9, uniform (copy, reverse)."""
    return torch.randint(0, DIGITS, shape, generator=generator)


def _half_blanks(shape: tuple[int, int], generator: torch.Generator) -> torch.Tensor:
    """selective_copy's strings: a digit 1–9 drawn uniformly, then replaced by the blank 0 with probability 1/2."""
    digits = torch.randint(1, DIGITS, shape, generator=generator)
    blanks = torch.randint(0, 2, shape, generator=generator).bool()
    return digits.masked_fill(blanks, BLANK)


def _copy(digits: torch.Tensor) -> torch.Tensor:
    return digits


def _reverse(digits: torch.Tensor) -> torch.Tensor:
    return digits.flip(-1)


def _non_blanks_first(digits: torch.Tensor) -> torch.Tensor:
    """The non-zero digits of each row in order, then its zeros: a stable sort on "is a blank"."""
    order = torch.sort((digits == BLANK).to(torch.int8), dim=-1, stable=True).indices
    return digits.gather(-1, order)


TARGETS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "copy": _copy,
    "reverse": _reverse,
    "selective_copy": _non_blanks_first,
}
"""The target string of each row of digits (batch, n) → (batch, n), keyed by the task (posenc.lab.names.TASKS);
a new task adds one entry here and one in DRAWS, and keeps the sequence's shape (n digits in, n targets out)."""

DRAWS: dict[str, Callable[[tuple[int, int], torch.Generator], torch.Tensor]] = {
    "copy": _uniform_digits,
    "reverse": _uniform_digits,
    "selective_copy": _half_blanks,
}
"""How each task draws its strings of digits (batch, longest) from a generator, keyed by the task."""


def sequence_length(n: int) -> int:
    """Tokens in the sequence of an n-digit string: BOS, n digits, SEP, n targets."""
    return 2 * n + 2


def target(task: str, digits: torch.Tensor) -> torch.Tensor:
    """The target string of each row of ``digits`` (batch, n)."""
    return TARGETS[check_task(task)](digits)


def make_batch(task: str, lengths: torch.Tensor, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Sequences for the string lengths given, right-padded: (tokens, loss mask), each (batch, 2·max + 2).

    The mask is True where the *next* token is a target: logits[:, t] predict tokens[:, t + 1].
    """
    task = check_task(task)
    lengths = lengths.to(torch.long)
    batch, longest = len(lengths), int(lengths.max())
    width = sequence_length(longest)
    digits = DRAWS[task]((batch, longest), generator)
    tokens = torch.full((batch, width), PAD, dtype=torch.long)
    mask = torch.zeros((batch, width), dtype=torch.bool)
    tokens[:, 0] = BOS
    for n in torch.unique(lengths).tolist():
        rows = (lengths == n).nonzero().squeeze(1)
        x = digits[rows, :n]
        tokens[rows, 1:n + 1] = x
        tokens[rows, n + 1] = SEP
        tokens[rows, n + 2:2 * n + 2] = TARGETS[task](x)
        mask[rows, n + 1:2 * n + 1] = True
    return tokens, mask


def fixed_length_batch(task: str, n: int, count: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``count`` sequences of n-digit strings drawn from ``seed`` (the test sets): (tokens, mask)."""
    generator = torch.Generator().manual_seed(int(seed))
    return make_batch(task, torch.full((count,), n, dtype=torch.long), generator)
