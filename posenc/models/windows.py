r"""Which keys a query of each layer sees: causal and bidirectional masks, sliding windows, chunks (numpy).

Mistral (arXiv:2310.06825), Gemma 3 (arXiv:2503.19786), gpt-oss and ModernBERT (arXiv:2412.13663) let some
layers see only a window of nearby keys; Llama 4 Scout's RoPE layers see only their own chunk. The rules
are transformers 5.23's mask functions (``masking_utils.py``), with i the query's index and j the key's:

- causal: j ≤ i (``causal_mask_function``); an encoder (BERT, T5's encoder, ModernBERT) sees every key;
- causal sliding window w: i − w < j ≤ i, w keys including itself (``sliding_window_overlay``);
- bidirectional sliding window w (ModernBERT, w = local_attention // 2 = 64): |i − j| ≤ w
  (``sliding_window_bidirectional_overlay``);
- chunked, chunk c (Llama 4): ⌊i/c⌋ = ⌊j/c⌋ and j ≤ i (``chunked_overlay``).

Stacked layers see further: a token's output after ℓ windowed layers depends on tokens up to ℓ·(w − 1)
back (:func:`receptive_field`), as Mistral's paper draws it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from posenc.checks import MAX_LENGTH, check_array, check_int, check_size
from posenc.models.presets import Model, Positional, get


def _reach(model: Model, positional: Positional) -> int:
    """The farthest offset |i − j| one layer of this type lets a query see (the context's when unbounded)."""
    longest = model.context_length - 1
    if positional.window is not None:
        return min(positional.window - 1 if model.causal else positional.window, longest)
    if positional.chunk is not None:
        return min(positional.chunk - 1, longest)
    return longest


def attention_mask(name: str | Model, layer_type: str, length: int,
                   queries: np.ndarray | Sequence[int] | None = None) -> np.ndarray:
    """visible[q, j]: whether the query at ``queries[q]`` sees the key at j in model ``name``'s ``layer_type``
    layers; (len(queries), length) bool, every query (L, L) when ``queries`` is None.

    The rules of the module docstring, from the preset's ``causal``, ``window`` and ``chunk``
    (transformers 5.23 ``masking_utils``). length: 1 to 2^20 tokens; queries: whole numbers in [0, length);
    the result at most 2^24 entries, so a window or chunk longer than 4096 is seen through a few rows.
    """
    model = get(name)
    positional = model.positional(layer_type)
    length = check_int(length, "length", minimum=1, maximum=MAX_LENGTH, meaning="the number of tokens")
    if queries is None:
        rows = np.arange(length)
    else:
        rows = check_array(queries, "queries", min_ndim=1, max_ndim=1)
        if rows.size and (rows.min() < 0 or rows.max() >= length or not np.array_equal(rows, np.floor(rows))):
            raise ValueError(f"queries must be whole numbers from 0 to length − 1 = {length - 1} (the queries' "
                             "positions).")
        rows = rows.astype(np.int64)
    check_size((rows.size, length), "the mask")
    i, j = rows[:, None], np.arange(length)[None, :]
    visible = j <= i if model.causal else np.ones((rows.size, length), dtype=bool)
    if positional.window is not None:
        visible = visible & ((i - j < positional.window) if model.causal else (np.abs(i - j) <= positional.window))
    if positional.chunk is not None:
        visible = visible & (i // positional.chunk == j // positional.chunk)
    return visible


def layer_reach(name: str | Model) -> np.ndarray:
    """reach_ℓ: the farthest offset |i − j| layer ℓ alone lets a query see; (layers,) int64 (see
    :func:`receptive_field` for the rules). Gemma 3 4B: 1023 in its sliding layers, 131,071 in its global ones."""
    model = get(name)
    return np.array([_reach(model, model.positionals[layer]) for layer in model.layer_types], dtype=np.int64)


def receptive_field(name: str | Model) -> np.ndarray:
    """r_ℓ: the farthest offset a token's output after layers 0, …, ℓ can depend on; (layers,) int64.

    r_ℓ = min(r_{ℓ−1} + reach_ℓ, L − 1), r_{−1} = 0, L the context length, reach_ℓ the farthest key layer ℓ
    sees: w − 1 for a causal window w, w on each side for ModernBERT's bidirectional one, c − 1 inside
    Llama 4's chunks of c (at the chunk's last token; aligned chunks stacked still see c − 1), L − 1 for
    full attention and NoPE layers. Mistral 7B:
    4095 per layer, the whole 32,768-token context after 9 layers (arXiv:2310.06825, Figure 1).
    """
    model = get(name)
    reach, field = 0, []
    for layer in model.layer_types:
        positional = model.positionals[layer]
        step = _reach(model, positional)
        if positional.chunk is not None and reach <= step:
            reach = step  # chunks are aligned: chunked layers alone never see past their own chunk
        else:
            reach = min(reach + step, model.context_length - 1)
        field.append(reach)
    return np.array(field, dtype=np.int64)
