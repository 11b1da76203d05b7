"""The T5 bucket reference: Hugging Face's T5Attention._relative_position_bucket, copied for the tests.

transformers.models.t5.modeling_t5.T5Attention._relative_position_bucket (Raffel et al., 2020,
arXiv:1910.10683), verbatim but for the name: float32 torch arithmetic, as transformers computes it.
"""

import math

import torch


def hf_relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    """transformers.models.t5.modeling_t5.T5Attention._relative_position_bucket, verbatim."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(
        relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
    )
    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets
