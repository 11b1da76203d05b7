"""The Transformer-XL reference: kimiyoung/transformer-xl, copied for the tests.

Source: https://github.com/kimiyoung/transformer-xl, file pytorch/mem_transformer.py at commit
44781ed21dbaec88b280f74d9ae2877f52b492a5 (Dai et al. 2019, arXiv:1901.02860), Apache License 2.0
(the repository's LICENSE). Copied verbatim: the class ``PositionalEmbedding``, the method
``RelMultiHeadAttn._rel_shift`` (here in a class of its own), the lines of
``RelPartialLearnableMultiHeadAttn.forward`` that compute the attention score from the heads
(``#### compute attention score`` to ``attn_score = AC + BD``), and the ``pos_seq`` of
``MemTransformerLM._forward``. Only the surrounding function signatures are ours; the score is
taken before ``attn_score.mul_(self.scale)`` and the mask.
"""

import torch
import torch.nn as nn


class PositionalEmbedding(nn.Module):
    def __init__(self, demb):
        super(PositionalEmbedding, self).__init__()  # noqa: UP008 (verbatim)

        self.demb = demb

        inv_freq = 1 / (10000 ** (torch.arange(0.0, demb, 2.0) / demb))
        self.register_buffer('inv_freq', inv_freq)

    def forward(self, pos_seq, bsz=None):
        sinusoid_inp = torch.ger(pos_seq, self.inv_freq)
        pos_emb = torch.cat([sinusoid_inp.sin(), sinusoid_inp.cos()], dim=-1)

        if bsz is not None:
            return pos_emb[:,None,:].expand(-1, bsz, -1)
        else:
            return pos_emb[:,None,:]


class RelShift:
    def _rel_shift(self, x, zero_triu=False):
        zero_pad = torch.zeros((x.size(0), 1, *x.size()[2:]),
                               device=x.device, dtype=x.dtype)
        x_padded = torch.cat([zero_pad, x], dim=1)

        x_padded = x_padded.view(x.size(1) + 1, x.size(0), *x.size()[2:])

        x = x_padded[1:].view_as(x)

        if zero_triu:
            ones = torch.ones((x.size(0), x.size(1)))
            x = x * torch.tril(ones, x.size(1) - x.size(0))[:,:,None,None]

        return x


def position_sequence(klen, word_emb):
    """MemTransformerLM._forward, attn_type 0, without clamp_len."""
    pos_seq = torch.arange(klen-1, -1, -1.0, device=word_emb.device,
                           dtype=word_emb.dtype)
    return pos_seq


def attention_score(self, w_head_q, w_head_k, r_head_k, r_w_bias, r_r_bias):
    """RelPartialLearnableMultiHeadAttn.forward, from the heads to AC + BD (self: a RelShift).

    w_head_q: qlen x bsz x n_head x d_head, w_head_k: klen x bsz x n_head x d_head,
    r_head_k: rlen x n_head x d_head (r_net of the PositionalEmbedding of pos_seq), r_w_bias and
    r_r_bias: n_head x d_head. Returns qlen x klen x bsz x n_head.
    """
    #### compute attention score
    rw_head_q = w_head_q + r_w_bias                                         # qlen x bsz x n_head x d_head
    AC = torch.einsum('ibnd,jbnd->ijbn', (rw_head_q, w_head_k))             # qlen x klen x bsz x n_head

    rr_head_q = w_head_q + r_r_bias
    BD = torch.einsum('ibnd,jnd->ijbn', (rr_head_q, r_head_k))              # qlen x klen x bsz x n_head
    BD = self._rel_shift(BD)

    # [qlen x klen x bsz x n_head]
    attn_score = AC + BD
    return attn_score
