"""A small causal decoder whose attention takes any of the lab's schemes as its positions.

What each scheme does (added to the embeddings, a rotation of q and k, a term added to the logits, the whole
score) is its entry in :data:`posenc.lab.schemes.POSITIONS`; the attention calls that entry's hooks and
never looks at the scheme's name.

Pre-norm blocks (LayerNorm, attention, LayerNorm, GELU MLP of 4× width), tied nothing, no dropout.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from posenc.lab.names import VOCAB, check_scheme
from posenc.lab.recipe import Recipe
from posenc.lab.schemes import POSITIONS, LabScheme, Sizes
from posenc.lab.tasks import sequence_length


class Attention(nn.Module):
    """Causal multi-head attention: q, k = rotate(q, k); logits = bias(scores(q, k, 1/√d_head), q, 1/√d_head)."""

    def __init__(self, entry: LabScheme, sizes: Sizes, seed: int) -> None:
        super().__init__()
        self.heads, self.head_dim = sizes.heads, sizes.head_dim
        self.qkv = nn.Linear(sizes.d_model, 3 * sizes.d_model)
        self.out = nn.Linear(sizes.d_model, sizes.d_model)
        self.positions = entry.layer(sizes, seed)  # after the projections: the seeded initialisation order

    def forward(self, x: torch.Tensor, keep: list[torch.Tensor] | None = None) -> torch.Tensor:
        batch, length, width = x.shape
        q, k, v = self.qkv(x).view(batch, length, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        scale = 1.0 / math.sqrt(self.head_dim)
        q, k = self.positions.rotate(q, k)
        logits = self.positions.bias(self.positions.scores(q, k, scale), q, scale)  # (batch, heads, length, length)
        causal = torch.ones(length, length, dtype=torch.bool, device=x.device).triu(1)
        probs = logits.masked_fill(causal, -math.inf).softmax(dim=-1)
        if keep is not None:
            keep.append(probs.detach())
        return self.out((probs @ v).transpose(1, 2).reshape(batch, length, width))


class Block(nn.Module):
    def __init__(self, entry: LabScheme, sizes: Sizes, seed: int) -> None:
        super().__init__()
        d_model = sizes.d_model
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.attention = Attention(entry, sizes, seed)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x: torch.Tensor, keep: list[torch.Tensor] | None = None) -> torch.Tensor:
        x = x + self.attention(self.norm1(x), keep)
        return x + self.mlp(self.norm2(x))


class LabModel(nn.Module):
    """Decoder-only transformer over the lab's tokens: ``forward(tokens)`` → logits (batch, length, VOCAB).

    ``forward(tokens, return_attention=True)`` → (logits, [probabilities (batch, heads, length, length)
    per layer]). Built from a seed: the same seed gives the same initial weights.
    """

    def __init__(self, scheme: str, recipe: Recipe, seed: int = 0) -> None:
        super().__init__()
        self.scheme = check_scheme(scheme)
        self.entry = POSITIONS[self.scheme]
        self.recipe = recipe
        d, heads = recipe.d_model, recipe.heads
        train_tokens = sequence_length(recipe.train_max_length)
        self.max_tokens = max(sequence_length(recipe.test_max_length), train_tokens)
        sizes = Sizes(d_model=d, heads=heads, head_dim=d // heads, max_tokens=self.max_tokens,
                      train_tokens=train_tokens)
        self.embed = nn.Embedding(VOCAB, d)
        self.positions = self.entry.embedding(sizes, seed)  # nn.Identity for the schemes that act in attention
        self.blocks = nn.ModuleList(Block(self.entry, sizes, seed) for _ in range(recipe.layers))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, VOCAB)

    def drop_positions(self) -> None:
        """DroPE: stop rotating queries and keys (the model becomes NoPE); only for a scheme that drops (drope)."""
        if not self.entry.drops:
            raise ValueError(f"only a DroPE model drops its positions; this one is {self.scheme!r}.")
        for block in self.blocks:
            block.attention.positions.drop()

    @property
    def positions_dropped(self) -> bool:
        return self.blocks[0].attention.positions.dropped

    def forward(self, tokens: torch.Tensor, return_attention: bool = False):
        if tokens.shape[-1] > self.max_tokens:
            raise ValueError(f"The sequences have {tokens.shape[-1]} tokens; this model was built for at most "
                             f"{self.max_tokens} (test_max_length {self.recipe.test_max_length}).")
        x = self.positions(self.embed(tokens))
        keep: list[torch.Tensor] | None = [] if return_attention else None
        for block in self.blocks:
            x = block(x, keep)
        logits = self.head(self.norm(x))
        return (logits, keep) if return_attention else logits
