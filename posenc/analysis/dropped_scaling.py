r"""What a dropped RoPE scaling costs: one query-key score under a model's declared scaling and without it.

A loader that drops a config's ``rope_scaling`` (an unknown key, v4's field where v5 reads another) rotates with
the plain frequencies of the same base and rotated width, θ_i = base^(−2i/d_rot) (RoFormer, arXiv:2104.09864),
and cos and sin unscaled. Nothing fails: the scores are equal at distance 0 (up to the attention factor a²) and
drift apart as the distance grows, past what a short test reads (Llama 3.1: arXiv:2407.21783; YaRN:
arXiv:2309.00071; LongRoPE: arXiv:2402.13753; position interpolation: arXiv:2306.15595).

For one query q and key k (seeded standard normal vectors of the head width) and a query Δ tokens after the key,
transformers multiplies cos and sin by a, so each rotated pair j (q_j = (a_q, b_q), k_j = (a_k, b_k)) gives

    score(Δ) = q_pass·k_pass + a²·Σ_j [(a_q·a_k + b_q·b_k)·cos(Δθ_j) + (a_q·b_k − b_q·a_k)·sin(Δθ_j)]
             = (a·R_{m}q)·(a·R_{m−Δ}k) for any position m of the query,

with θ_j and a from the scaling (:data:`posenc.schemes.rope.scalings.ROPE_SCALINGS`), q_pass·k_pass the
dimensions that do not rotate. Cost O(distances × d): one angle per drawn distance and pair, no (length, d) table.

``posenc.analysis`` sits beside ``posenc.models`` (pyproject.toml's layers), so the model is read by the fields
a :class:`posenc.models.Model` has (:class:`RotaryModel`), not imported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from posenc.analysis.offset_curves import MAX_CONTEXT, MAX_OFFSETS, log_offsets
from posenc.checks import MAX_WHOLE, check_array, check_int, check_real, check_seed
from posenc.schemes.rope.frequencies import rope_inv_freq, rotated_width_keywords
from posenc.schemes.rope.scalings import LENGTH_DEPENDENT

DEFAULT_TOLERANCE = 0.01
"""Two scores disagree when they differ by more than 1% of |q|·|k| (the largest score a = 1 allows)."""


class RotaryModel(Protocol):
    """What is read of a :class:`posenc.models.Model` (a preset's, ``models.get``, or ``models.from_config``'s)."""

    label: str
    context_length: int
    positionals: Mapping[str, object]  # layer type -> posenc.models.Positional


@dataclass(frozen=True)
class DroppedScalingScores:
    """q·k at each distance under the declared scaling and with it dropped (arrays read-only, (distances,)).

    ``difference``: |declared − dropped|; ``tolerance``: the absolute difference (the relative tolerance × |q|·|k|)
    beyond which they disagree; ``first_disagreement``: the smallest distance drawn where they do, None if none;
    ``attention_factor``: the declared scaling's a (the dropped one's is 1); ``original_context``: L₀ of the
    scaling (None when it has none); ``seed``: the seed of q and k.
    """

    label: str
    layer_type: str
    rope_type: str
    distances: np.ndarray  # (n,) int64
    declared: np.ndarray  # (n,) float64
    dropped: np.ndarray  # (n,) float64
    difference: np.ndarray  # (n,) float64
    attention_factor: float
    tolerance: float
    first_disagreement: int | None
    original_context: int | None
    context_length: int
    seed: int


def dropped_scaling_scores(model: RotaryModel, distances: object = None, layer_type: str | None = None,
                           seed: int = 0, *, tolerance: float = DEFAULT_TOLERANCE,
                           seq_len: int | None = None) -> DroppedScalingScores:
    r"""The score q·R_Δk of one query and key with ``model``'s declared RoPE scaling and with it dropped.

    score(Δ) = q_pass·k_pass + a²·Σ_j [(a_q·a_k + b_q·b_k)·cos(Δθ_j) + (a_q·b_k − b_q·a_k)·sin(Δθ_j)]
    (module docstring; RoFormer, arXiv:2104.09864): declared, θ_j and a of the layer type's scaling (Llama 3's
    bands arXiv:2407.21783, YaRN arXiv:2309.00071, LongRoPE arXiv:2402.13753, linear arXiv:2306.15595) as
    transformers 5.23 computes them; dropped, rope_type "default" with the same base and rotated width,
    θ_j = base^(−2j/d_rot) and a = 1. q, k: ``np.random.default_rng(seed).standard_normal((2, head_dim))``;
    the rotated dimensions are the first d_rot (the last for DeepSeek's decoupled heads), paired as the layout
    says ("half": j with j + d_rot/2, "interleaved": 2j with 2j + 1), as transformers rotates them. At Δ = 0,
    declared − q_pass·k_pass = a²·(dropped − q_pass·k_pass).

    ``model``: a :class:`posenc.models.Model`. ``distances``: whole numbers Δ ≥ 0 (at most 65,536 of them);
    by default 0, 1 and ~256 log-spaced distances up to the context − 1 (:func:`posenc.analysis.offset_curves.log_offsets`).
    ``layer_type``: the rotary layer type; by default the model's one whose scaling is not "default" (or all of
    them when they rotate alike). ``seq_len``: the sequence length dynamic NTK and LongRoPE read; by default
    Δ + 1 at each distance, the shortest sequence that holds the query and the key. Two scores disagree when
    |declared − dropped| > ``tolerance``·|q|·|k|. A ValueError when the model has no rotary layer or its
    layer type no scaling (nothing to drop).
    """
    layer_type, positional = _scaled_layer(model, layer_type)
    seed = check_seed(seed)
    tolerance = check_real(tolerance, "tolerance", minimum=0.0, meaning="a share of |q|·|k|")
    distances = _distances(model, distances)
    seq_lens = _seq_lens(distances, seq_len)
    query, key = np.random.default_rng(seed).standard_normal((2, positional.head_dim))  # (head_dim,) each
    passing, cosine, sine = _pair_terms(query, key, positional)
    declared_freq, factors = _declared(positional, seq_lens)  # (n or 1, pairs), (n or 1,)
    dropped_freq, _ = rope_inv_freq(positional.rotary_dims, positional.base)  # (pairs,), a = 1
    declared = passing + factors**2 * _rotated(distances, declared_freq, cosine, sine)
    dropped = passing + _rotated(distances, dropped_freq[None, :], cosine, sine)
    difference = np.abs(declared - dropped)
    absolute = tolerance * float(np.linalg.norm(query) * np.linalg.norm(key))
    disagree = distances[difference > absolute]
    options = dict(positional.options)
    original = options.get("original_max_position_embeddings")
    return DroppedScalingScores(
        model.label, layer_type, options["rope_type"], _frozen(distances), _frozen(declared), _frozen(dropped),
        _frozen(difference), float(factors[0]), absolute, int(disagree.min()) if disagree.size else None,
        None if original is None else int(original), int(model.context_length), seed)


def _scaled_layer(model: RotaryModel, layer_type: str | None) -> tuple[str, object]:
    """(layer_type, Positional) of the rotary layer type whose scaling would be dropped."""
    positionals = getattr(model, "positionals", None)
    if not isinstance(positionals, Mapping) or not hasattr(model, "label") or not hasattr(model, "context_length"):
        raise ValueError(f"model must be a posenc.models.Model (posenc.models.get(name) or "
                         f"posenc.models.from_config(config)); got {type(model).__name__}.")
    rotary = {name: p for name, p in positionals.items() if p.rotary_dims}
    if not rotary:
        raise ValueError(f"{model.label} rotates no query or key, so it has no RoPE scaling to drop: nothing to drop.")
    if layer_type is not None:
        if not isinstance(layer_type, str) or layer_type not in positionals:
            raise ValueError(f"{model.label} has no layer type {layer_type!r:.60}; its rotary layer types are "
                             f"{', '.join(map(repr, rotary))}.")
        if layer_type not in rotary:
            raise ValueError(f"{model.label}'s {layer_type!r} layers do not rotate, so they have no RoPE scaling "
                             f"to drop; its rotary layer types are {', '.join(map(repr, rotary))}.")
        scaled = {layer_type: rotary[layer_type]} if rotary[layer_type].options["rope_type"] != "default" else {}
    else:
        scaled = {name: p for name, p in rotary.items() if p.options["rope_type"] != "default"}
    if not scaled:
        where = f"{model.label}'s {layer_type!r} layers rotate" if layer_type else f"{model.label} rotates"
        raise ValueError(f"{where} with the default frequencies (rope_type 'default'): no scaling is declared, "
                         f"so there is nothing to drop.")
    first = next(iter(scaled.values()))
    if any(_rotation(p) != _rotation(first) for p in scaled.values()):
        raise ValueError(f"{model.label}'s layer types scale their rotation differently; name one: layer_type = "
                         f"{' or '.join(map(repr, scaled))}.")
    return next(iter(scaled)), first


def _rotation(positional: object) -> tuple:
    """What fixes a layer type's rotation (not its window): equal for gpt-oss's sliding and full layers."""
    return (dict(positional.options), positional.base, positional.rotary_dims, positional.head_dim,
            dict(positional.extra).get("qk_nope_head_dim"))


def _distances(model: RotaryModel, distances: object) -> np.ndarray:
    """Whole distances Δ ≥ 0 as int64: the given ones, or log-spaced ones up to the model's context − 1."""
    if distances is None:
        context = int(model.context_length)
        if context > MAX_CONTEXT:
            raise ValueError(f"{model.label}'s context of {context:,} positions is longer than the {MAX_CONTEXT:,} "
                             f"a default axis reaches; pass the distances to draw.")
        return log_offsets(context)
    values = check_array(distances, "distances", min_ndim=1, max_ndim=1)
    if not 1 <= values.size <= MAX_OFFSETS:
        raise ValueError(f"distances must hold from 1 to {MAX_OFFSETS:,} values (a chart's points); "
                         f"got {values.size:,}.")
    as_float = values.astype(np.float64)
    if (as_float.min() < 0 or as_float.max() >= MAX_WHOLE
                        or not np.array_equal(as_float, np.floor(as_float))):
        raise ValueError("distances must be whole numbers from 0 to 2^53 − 1 (how many tokens the key lies "
                         "before the query).")
    return values.astype(np.int64)


def _seq_lens(distances: np.ndarray, seq_len: object) -> np.ndarray:
    """The sequence length at each distance: Δ + 1, or one given length that holds every distance."""
    if seq_len is None:
        return distances + 1
    seq_len = check_int(seq_len, "seq_len", minimum=1, maximum=MAX_WHOLE, meaning="the current sequence length")
    if distances.max() >= seq_len:
        raise ValueError(f"a key {int(distances.max()):,} tokens before the query needs a sequence of at least "
                         f"{int(distances.max()) + 1:,} tokens; seq_len is {seq_len:,}.")
    return np.full(distances.shape, seq_len, dtype=np.int64)


def _declared(positional: object, seq_lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """θ'_j and a of the declared scaling: one row for all distances, or one per distance when they depend
    on the sequence length (dynamic NTK, LongRoPE)."""
    scaling = rotated_width_keywords(positional.options)  # p-RoPE's share too (Gemma 4)
    rope_type = positional.options["rope_type"]
    lengths = np.unique(seq_lens) if rope_type in LENGTH_DEPENDENT else np.array([None])
    computed = {length: rope_inv_freq(positional.rotary_dims, positional.base, rope_type=rope_type,
                                      seq_len=None if length is None else int(length), **scaling)
                for length in lengths.tolist()}
    if rope_type not in LENGTH_DEPENDENT:
        inv_freq, factor = computed[None]
        return inv_freq[None, :], np.array([factor])
    rows = [computed[length] for length in seq_lens.tolist()]
    return np.array([inv for inv, _ in rows]).reshape(len(rows), -1), np.array([a for _, a in rows])


def _pair_terms(query: np.ndarray, key: np.ndarray, positional: object) -> tuple[float, np.ndarray, np.ndarray]:
    """q_pass·k_pass, and per rotated pair a_q·a_k + b_q·b_k and a_q·b_k − b_q·a_k: (), (pairs,), (pairs,)."""
    width = positional.rotary_dims
    start = positional.head_dim - width if dict(positional.extra).get("qk_nope_head_dim") else 0
    rotated = slice(start, start + width)
    passing = float(query @ key - query[rotated] @ key[rotated])
    q_rot, k_rot = query[rotated], key[rotated]  # (d_rot,)
    if dict(positional.options).get("layout") == "interleaved":
        (q_a, q_b), (k_a, k_b) = (q_rot[0::2], q_rot[1::2]), (k_rot[0::2], k_rot[1::2])
    else:
        half = width // 2
        (q_a, q_b), (k_a, k_b) = (q_rot[:half], q_rot[half:]), (k_rot[:half], k_rot[half:])
    return passing, q_a * k_a + q_b * k_b, q_a * k_b - q_b * k_a


def _rotated(distances: np.ndarray, inv_freq: np.ndarray, cosine: np.ndarray, sine: np.ndarray) -> np.ndarray:
    """Σ_j cosine_j·cos(Δθ_j) + sine_j·sin(Δθ_j) per distance; inv_freq (1 or n, pairs): (n,)."""
    angles = distances.astype(np.float64)[:, None] * inv_freq  # (n, pairs)
    return np.cos(angles) @ cosine + np.sin(angles) @ sine


def _frozen(values: np.ndarray) -> np.ndarray:
    values = np.array(values)
    values.setflags(write=False)
    return values
