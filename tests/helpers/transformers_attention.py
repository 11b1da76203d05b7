"""transformers 5.23 as the oracle of what a built model's attention does besides its positions (tests only): the
factor it multiplies q·k of its projections by, read from the attribute its class keeps, or measured from its
attention weights where it keeps none, and the layers whose softmax has a learned sink. Import it after
``pytest.importorskip("torch")``."""

from __future__ import annotations

import re

import torch

SCALED_IN_CODE = ("modernbert", "modernbert-decoder", "xlm", "flaubert", "openai-gpt", "gpt_neo")
"""Classes whose attention keeps no attribute of its scale: ModernBERT passes head_dim**-0.5 to its softmax in its
code; XLM, FlauBERT and GPT-1 divide by the square root of their heads' width in it (read in transformers 5.23; the
tests hold that width to posenc's head_dim); GPT-Neo multiplies q·k by nothing (measured by :func:`fitted_scale`)."""


def softmax_scale_of(built: torch.nn.Module) -> float | None:
    """The factor the model's first attention multiplies q·k of its projections by: its ``scaling``, times
    Falcon-H1's ``key_multiplier`` (it multiplies every key by it); ESM's 1/√attention_head_size, by which it
    multiplies every query before a ``scaling`` of 1; GPT-J's and CodeGen's 1/``scale_attn``; Falcon's and BLOOM's
    ``inv_norm_factor``; GPT-NeoX-Japanese's 1/``norm_factor``; MPT's ``softmax_scale``; 1/√``attention_head_size``
    where a class keeps only that width, by whose square root it divides in its code (MPNet, ConvBERT, SqueezeBERT,
    RemBERT, Megatron-BERT, I-BERT). None where its class keeps none (:data:`SCALED_IN_CODE`)."""
    for module in built.modules():
        if isinstance(getattr(module, "scaling", None), float):
            if type(module).__name__.startswith("EsmSelfAttention"):
                return module.attention_head_size ** -0.5  # (its scaling 1.0: the query scaled before RoPE)
            return module.scaling * getattr(module, "key_multiplier", 1.0)
        for name, inverse in (("scale_attn", True), ("inv_norm_factor", False), ("norm_factor", True),
                              ("softmax_scale", False)):
            value = getattr(module, name, None)
            if isinstance(value, float):
                return 1 / value if inverse else value
        if isinstance(getattr(module, "attention_head_size", None), int):
            return module.attention_head_size ** -0.5
    return None


def fitted_scale(weights: torch.Tensor, q: torch.Tensor, k: torch.Tensor) -> float:
    """The factor s of softmax(s·q·kᵀ + mask) that gives ``weights`` (queries × keys, one head), from the keys each
    query sees (weight > 0): log w_ij − log w_i0 = s·(q_i·k_j − q_i·k_0), the median over them."""
    dots, logits = (q @ k.T).double(), torch.log(weights.double())
    ratios = [(logits[i, j] - logits[i, 0]) / (dots[i, j] - dots[i, 0])
              for i in range(len(q)) for j in range(1, len(k)) if weights[i, j] > 0 and weights[i, 0] > 0]
    return torch.stack(ratios).median().item()


def layers_with_sinks(built: torch.nn.Module) -> list[int]:
    """The indices of the layers whose attention keeps a learned sink per head (a ``sinks`` parameter: gpt-oss's,
    MiMo-V2-Flash's sliding-window layers', Granite SWA's, Flint's), read from the modules' names (``layers.3.…``)."""
    return sorted(int(re.search(r"\.(\d+)\.", f".{name}.").group(1)) for name, module in built.named_modules()
                  if isinstance(getattr(module, "sinks", None), torch.nn.Parameter))


def keys_seen_by_sdpa(built: torch.nn.Module, step) -> list[int]:
    """How many keys the last query of each self-attention layer attends to in the last call ``step()`` makes of
    ``built`` under sdpa attention, which returns no weights: read from the keys and the mask transformers 5.23 hands its sdpa
    function (every key where it passes no mask), in the order the layers call it, one count per layer (DiffLlama
    calls it twice a layer, for the two halves of its heads; IDEFICS's gated cross-attention to the image is left
    out). The model's own ``ALL_ATTENTION_FUNCTIONS["sdpa"]`` is wrapped for the step and put back; a class that
    calls torch's sdpa itself (Falcon) is not counted: []."""
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

    sdpa, seen = ALL_ATTENTION_FUNCTIONS["sdpa"], {}

    def counting(module, query, key, value, attention_mask, **kwargs):
        if not getattr(module, "is_cross_attention", False):
            if attention_mask is None:
                count = key.shape[-2]
            else:
                row = attention_mask[0, 0, -1]
                count = int(row.sum() if row.dtype == torch.bool else (row == 0).sum())
            seen[module] = count  # (the step's count: its last call)
        return sdpa(module, query, key, value, attention_mask, **kwargs)

    ALL_ATTENTION_FUNCTIONS["sdpa"] = counting
    try:
        step()
    finally:
        ALL_ATTENTION_FUNCTIONS["sdpa"] = sdpa
    return list(seen.values())
