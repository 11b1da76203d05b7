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


def caches_as_said(built: torch.nn.Module, model, config: dict) -> None:
    """The oracle is the model's other path: five tokens through its cache (transformers 5.23's DynamicCache, built
    from its configuration as generate builds it), then a sixth, under eager attention, then under sdpa (the
    default of every class that has it, ``eager_only`` saying which have not). Where the class's forward pass ignores
    what the cache reads (a window under Llama's rule, a listed layer_types), the sixth token attends to the last five
    keys on layers posenc draws whole, or, on a list of both kinds, fails under eager attention while sdpa's listed
    sliding layers see the last five, or fails under both: the check (about ``config``, read as ``model``) must say
    which, and say nothing of the cache where each layer sees what posenc draws. posenc's warnings said the window
    applied nowhere and the list was not read, true of one forward pass only; then that the list of both kinds
    fails, true of eager attention only."""
    import transformers

    from posenc import models
    from posenc.models.families import FAMILIES

    said = " ".join(f.message for f in models.check(config)
                    if f.field in ("layer_types", "sliding_window", "attention_chunk_size"))
    family = FAMILIES[config["model_type"]]
    assert built._supports_sdpa != family.eager_only, "eager_only"
    ids = torch.arange(3, 9)[None]

    def step(output_attentions: bool = True):
        with torch.no_grad():
            cache = transformers.DynamicCache(config=built.config)
            built(input_ids=ids[:, :5], past_key_values=cache, use_cache=True)
            return built(input_ids=ids[:, 5:], past_key_values=cache, use_cache=True,
                         output_attentions=output_attentions)

    drawn = [int(models.attention_mask(model, kind, 6)[5].sum()) for kind in model.layer_types]
    seen = by_sdpa = None
    try:
        seen = [int((weights[0, 0, -1] > 0).sum()) for weights in step().attentions]
    except (RuntimeError, ValueError) as error:  # (a mask of 5 keys against 6, or 6 against 5; XGLM's own check)
        assert "must match the size" in str(error) or "Attention mask should be of size" in str(error), error
    if not family.eager_only:
        built.set_attn_implementation("sdpa")
        try:
            by_sdpa = keys_seen_by_sdpa(built, lambda: step(output_attentions=False))
        except RuntimeError as error:  # (the mask its forward pass builds, of Mistral's rule, or Falcon's every mask)
            assert "must match the size" in str(error)
    if seen is not None:  # ([]: Falcon calls torch's sdpa itself, uncounted, and the step ran)
        assert by_sdpa in (None, [], seen) and (by_sdpa is not None) != family.eager_only, (by_sdpa, seen)
    if seen is None and by_sdpa is None:
        assert "generating through it fails at the first token past 5 (" in said, said
    elif seen is None:  # sdpa's listed sliding layers see the window, the others every key
        assert by_sdpa == [5 if kind in ("sliding_attention", "chunked_attention") else whole
                           for kind, whole in zip(config["layer_types"], drawn)], by_sdpa
        assert ("attends to the last 5 keys on those layers under sdpa attention (the class's default), and fails "
                "at the first token past 5 under eager attention") in said, said
    elif seen == drawn:
        assert "Its cache" not in said
    else:
        assert all(count == 5 for count, whole in zip(seen, drawn) if count != whole), (seen, drawn)
        assert "through it attends to the last 5" in said, said
