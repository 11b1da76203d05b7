"""What each scheme does inside the lab's model: one entry per key of posenc.lab.names.SCHEMES (POSITIONS).

Every scheme acts through the same hooks, as torchtune hands its attention one ``pos_embeddings`` module:

- ``embedding(x) → x``: once, on the token embeddings (``sinusoidal``'s fixed table, ``learned``'s trainable
  one); the identity for every other scheme;
- in each attention layer, a :class:`Positions` module whose three hooks are the identity unless the scheme
  overrides them: ``rotate(q, k) → (q, k)`` (``rope``; ``xpos``, keys downscaled; ``drope``, RoPE until
  dropped, DroPE arXiv:2512.12167), ``scores(q, k, scale) → logits`` (the plain q·kᵀ·scale, or
  ``transformer_xl``'s whole score q·k + q·W_R R + u·k + v·W_R R, one module per head), and
  ``bias(logits, q, scale) → logits`` (``shaw``: + q·a_{clip(j−i)}·scale, ``t5``: + the bucketed learned bias,
  ``alibi``: − m_h·|i−j|, ``kerple``: − r1·ln(1 + r2·|i−j|), ``fire``: + f_θ(ψ(i−j)/ψ(max(L, i))), ``cope``:
  + q_i·e[p_ij], p_ij the gated count of the keys j…i); ``nope`` keeps all three as the identity.

The attention computes, in this order: q, k = rotate(q, k); logits = bias(scores(q, k, scale), q, scale).

A new scheme adds one entry to POSITIONS: a :class:`LabScheme` naming the function that builds its layer's
:class:`Positions` (and its embedding, if it has one). The modules are built in the order the model always
built them (the embedding after the token embedding; a layer's positions after its q, k, v and output
projections), so a seed gives the same initial weights, and the shipped results stay reproducible bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from posenc.modules import (
    ALiBiBias,
    ContextualPositions,
    FIREBias,
    KerpleBias,
    LearnedPositionalEmbedding,
    RotaryEmbedding,
    ShawRelativePositions,
    SinusoidalPositionalEncoding,
    T5RelativeBias,
    TransformerXLScores,
    XPos,
)


@dataclass(frozen=True)
class Sizes:
    """The sizes a scheme's modules are built with: the model's width, heads and head width, the most
    tokens any sequence has (test or training) and the tokens of the longest training sequence."""

    d_model: int
    heads: int
    head_dim: int
    max_tokens: int
    train_tokens: int


class Positions(nn.Module):
    """A scheme's part of one attention layer; every hook is the identity (NoPE) unless a subclass overrides it."""

    dropped = False

    def rotate(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """q, k (batch, heads, length, head_dim) before their product."""
        return q, k

    def scores(self, q: torch.Tensor, k: torch.Tensor, scale: float) -> torch.Tensor:
        """The attention logits (batch, heads, length, length): q·kᵀ·scale (Vaswani et al. arXiv:1706.03762)."""
        return (q @ k.transpose(-1, -2)) * scale

    def bias(self, logits: torch.Tensor, q: torch.Tensor, scale: float) -> torch.Tensor:
        """The logits with the scheme's term added."""
        return logits

    def drop(self) -> None:
        """DroPE's step; only a rotation can be dropped."""
        raise ValueError(f"only a rotation is dropped (DroPE); these positions are {type(self).__name__}.")


class Rotary(Positions):
    """RoPE (arXiv:2104.09864): q and k rotated by position·θ_i; :meth:`drop` stops it (DroPE)."""

    def __init__(self, head_dim: int) -> None:
        super().__init__()
        self.rope = RotaryEmbedding(head_dim)

    def rotate(self, q, k):
        if self.dropped:
            return q, k
        return self.rope(q), self.rope(k)

    def drop(self) -> None:
        """DroPE: no rotation from now on (the layer becomes NoPE)."""
        self.dropped = True

    def stretch(self, rope_type: str, **params: object) -> None:
        """Context extension: θ_i (and the scale of cos and sin) from one of posenc's RoPE scalings,
        :data:`posenc.schemes.rope.scalings.ROPE_SCALINGS` (``"linear"`` = position interpolation, ``"ntk"``,
        ``"yarn"``, ``"llama3"``, …); the rotation has no weights, so nothing learned changes."""
        self.rope = RotaryEmbedding(self.rope.d, rope_type=rope_type, **params)


class XPosRotary(Positions):
    """xPos (arXiv:2212.10554): RoPE with a per-pair decay ζ^(n/scale_base), queries up and keys down."""

    def __init__(self, head_dim: int) -> None:
        super().__init__()
        self.xpos = XPos(head_dim)

    def rotate(self, q, k):
        batch, heads, length, head_dim = q.shape
        flat = (batch * heads, length, head_dim)
        return (self.xpos(q.reshape(flat)).view(q.shape),
                self.xpos(k.reshape(flat), downscale=True).view(k.shape))


class ShawBias(Positions):
    """Shaw et al. (arXiv:1803.02155): logits + q·a_{clip(j−i, k)}·scale, k the longest training sequence."""

    def __init__(self, max_relative_position: int, head_dim: int, seed: int) -> None:
        super().__init__()
        self.shaw = ShawRelativePositions(max_relative_position, head_dim, seed=seed)

    def bias(self, logits, q, scale):
        relative = self.shaw(q.shape[-2])  # (length, length, head_dim)
        return logits + torch.einsum("bhid,ijd->bhij", q, relative) * scale


class LengthBias(Positions):
    """A bias that depends on the length alone (T5, ALiBi, KERPLE): logits + module(length), (heads, length, length)."""

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module

    def bias(self, logits, q, scale):
        return logits + self.module(q.shape[-2])


class TransformerXLScore(Positions):
    """Transformer-XL (arXiv:1901.02860): the whole score q·k + q·W_R R + u·k + v·W_R R, one module per head."""

    def __init__(self, head_dim: int, d_model: int, heads: int, seed: int) -> None:
        super().__init__()
        self.txl = nn.ModuleList(TransformerXLScores(head_dim, d_model, seed=seed + h) for h in range(heads))

    def scores(self, q, k, scale):
        return torch.stack([score(q[:, h], k[:, h]) for h, score in enumerate(self.txl)], dim=1) * scale


class ContextualBias(Positions):
    """CoPE (arXiv:2405.18719): logits + q_i·e[p_ij], p_ij = Σ_{t=j..i} σ(logit_it) counted on the causally masked
    logits (so later keys count 0); q unscaled, as the paper's code."""

    def __init__(self, head_dim: int, npos_max: int) -> None:
        super().__init__()
        self.cope = ContextualPositions(head_dim, npos_max)

    def bias(self, logits, q, scale):
        length = logits.shape[-1]
        causal = torch.ones(length, length, dtype=torch.bool, device=logits.device).triu(1)
        return logits + self.cope(q, logits.masked_fill(causal, -torch.inf))


def _none(sizes: Sizes, seed: int) -> Positions:
    return Positions()


def _rotary(sizes: Sizes, seed: int) -> Positions:
    return Rotary(sizes.head_dim)


def _xpos(sizes: Sizes, seed: int) -> Positions:
    return XPosRotary(sizes.head_dim)


def _shaw(sizes: Sizes, seed: int) -> Positions:
    # k = the longest training sequence: every training offset has its own vector, longer ones share the last
    return ShawBias(sizes.train_tokens, sizes.head_dim, seed)


def _t5(sizes: Sizes, seed: int) -> Positions:
    return LengthBias(T5RelativeBias(sizes.heads, num_buckets=32, max_distance=128, bidirectional=False, seed=seed))


def _alibi(sizes: Sizes, seed: int) -> Positions:
    return LengthBias(ALiBiBias(sizes.heads, causal=True))


def _kerple(sizes: Sizes, seed: int) -> Positions:
    return LengthBias(KerpleBias(sizes.heads, variant="log", causal=True))


def _fire(sizes: Sizes, seed: int) -> Positions:
    # L₀ a quarter of the longest training sequence, as the paper's 512 for training at 2,048: later queries in
    # training already see distances normalized by their own position, and L is learned from them
    return LengthBias(FIREBias(sizes.heads, threshold=sizes.train_tokens / 4, seed=seed))


def _cope(sizes: Sizes, seed: int) -> Positions:
    # a vector for every count a training sequence can reach (p ≤ its tokens − 1); longer counts share the last
    return ContextualBias(sizes.head_dim, npos_max=sizes.train_tokens)


def _transformer_xl(sizes: Sizes, seed: int) -> Positions:
    return TransformerXLScore(sizes.head_dim, sizes.d_model, sizes.heads, seed)


def _sinusoidal_table(sizes: Sizes, seed: int) -> nn.Module:
    return SinusoidalPositionalEncoding(sizes.d_model, max_len=sizes.max_tokens)


def _learned_table(sizes: Sizes, seed: int) -> nn.Module:
    # rows past the training sequences exist (as initialized) so that longer tests run and show the failure
    return LearnedPositionalEmbedding(sizes.max_tokens, sizes.d_model, seed=seed)


def _no_embedding(sizes: Sizes, seed: int) -> nn.Module:
    return nn.Identity()


@dataclass(frozen=True)
class LabScheme:
    """One scheme in the lab: ``layer(sizes, seed)`` builds its Positions in each attention layer,
    ``embedding(sizes, seed)`` the module applied once to the token embeddings (nn.Identity if none);
    ``drops``: trained with its positions, then dropped and recalibrated (DroPE)."""

    layer: Callable[[Sizes, int], Positions]
    embedding: Callable[[Sizes, int], nn.Module] = _no_embedding
    drops: bool = False


POSITIONS: dict[str, LabScheme] = {
    "sinusoidal": LabScheme(_none, embedding=_sinusoidal_table),
    "learned": LabScheme(_none, embedding=_learned_table),
    "nope": LabScheme(_none),
    "rope": LabScheme(_rotary),
    "xpos": LabScheme(_xpos),
    "shaw": LabScheme(_shaw),
    "t5": LabScheme(_t5),
    "alibi": LabScheme(_alibi),
    "kerple": LabScheme(_kerple),
    "transformer_xl": LabScheme(_transformer_xl),
    "drope": LabScheme(_rotary, drops=True),
    "fire": LabScheme(_fire),
    "cope": LabScheme(_cope),
}
"""What each of posenc.lab.names.SCHEMES does in the model, keyed by its key; a new scheme adds one entry."""
