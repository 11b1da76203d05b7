"""RoPE's template for :mod:`posenc.export.source` and the code of its frequencies, θ_i or a scaling's θ'_i.

Like the templates of the other families (:mod:`posenc.export.absolute`, :mod:`posenc.export.bias`), ``ROPE``
is ``str.format``-ed with the settings as Python literals; its ``{FREQUENCIES}`` is the source
:func:`rope_frequency_code` writes. Rotation as RoFormer (Su et al., arXiv:2104.09864).
"""

from __future__ import annotations

from posenc.schemes.rope.entry import rope_keywords
from posenc.schemes.rope.frequencies import rope_inv_freq
from posenc.schemes.rope.scalings import (
    LENGTH_DEPENDENT,
    longrope_factor_lists,
    longrope_scaling_factor,
    proportional_pairs,
)

ROPE = '''
{FREQUENCIES}


def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str) -> torch.Tensor:
    """Rotate pairs (2i, 2i+1) ("interleaved", RoFormer/GPT-J) or (i, i + d_rot/2) ("half", GPT-NeoX/Llama)."""
    d_rot = 2 * cos.shape[-1]
    x_rot, x_pass = x[..., :d_rot], x[..., d_rot:]
    if layout == "interleaved":
        a, b = x_rot[..., 0::2], x_rot[..., 1::2]
        rotated = torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)
    else:
        a, b = x_rot[..., : d_rot // 2], x_rot[..., d_rot // 2 :]
        rotated = torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1)
    return torch.cat([rotated, x_pass], dim=-1)


class RotaryEmbedding(nn.Module):
    """RoPE (Su et al., arXiv:2104.09864): pair i of x at position m is rotated by m*theta_i.

    forward(x, positions=None, seq_len=None): x (..., length, d); positions default 0 ... length - 1.
    """

    def __init__(self, layout: str = {LAYOUT}) -> None:
        super().__init__()
        self.layout = layout
        self.register_buffer("inv_freq", inv_freq(LENGTH), persistent=False)

    def forward(self, x: torch.Tensor, positions: torch.Tensor | None = None, seq_len: int | None = None):
        if positions is None:
            positions = torch.arange(x.shape[-2])
        positions = torch.as_tensor(positions).to(torch.float64).expand(x.shape[:-1])
        frequencies = inv_freq(seq_len or int(positions.max()) + 1) if LENGTH_DEPENDENT else self.inv_freq
        angles = positions[..., None] * frequencies  # (..., length, d_rot/2)
        cos = (torch.cos(angles) * ATTENTION_SCALING).to(x.dtype)
        sin = (torch.sin(angles) * ATTENTION_SCALING).to(x.dtype)
        return rotate(x, cos, sin, self.layout)


def output() -> torch.Tensor:
    offsets = torch.arange(-(LENGTH - 1), LENGTH)
    rope, ones = RotaryEmbedding(), torch.ones(D_MODEL, dtype=torch.float64)
    query = rope(ones[None, :], torch.tensor([LENGTH - 1]), seq_len=LENGTH)  # (1, d)
    keys = rope(ones.expand(len(offsets), D_MODEL), LENGTH - 1 + offsets, seq_len=LENGTH)  # (2L - 1, d)
    return (query @ keys.T)[0]
'''


def _floats(values) -> str:
    return "[" + ", ".join(repr(float(v)) for v in values) + "]"


def _arange(stop: str, denominator: str) -> str:
    return f"torch.arange(0, {stop}, 2, dtype=torch.float64) / {denominator}"


def rope_frequency_code(length: int, d_model: int, base: float, options: dict) -> str:
    """Source defining D_ROT, ATTENTION_SCALING, LENGTH_DEPENDENT and inv_freq(seq_len) for RoPE's options.

    default: θ_i = n^(−2i/d_rot); dynamic NTK: the base grows with seq_len (the formula); LongRoPE:
    θ'_i = 1/(f_i·n^(2i/d_rot)) with the short or long factors by seq_len; p-RoPE: n^(−2i/d) for the
    first k pairs, 0 for the others, over factor; the other scalings: their θ'_i for these
    settings, as computed by posenc (exact literals).
    """
    keywords = rope_keywords(dict(options))
    keywords.pop("layout", None)
    rope_type = keywords.get("rope_type", "default")
    frequencies, scaling = rope_inv_freq(d_model, base, seq_len=max(length, 1), **keywords)
    d_rot, fraction, n = 2 * len(frequencies), keywords.get("rotary_fraction", 1.0), float(base)
    rotated = (f"every pair of the head, the last {d_rot // 2 - proportional_pairs(d_model, fraction)} by theta = 0"
               if rope_type == "proportional" else f"int(d_model * {fraction!r})")
    lines = [f"D_ROT = {d_rot}  # rotated dimensions: {rotated}", f"ATTENTION_SCALING = {float(scaling)!r}",
             f"LENGTH_DEPENDENT = {rope_type in LENGTH_DEPENDENT!r}  # inv_freq changes with seq_len", "", ""]
    if rope_type == "default":
        body = [f"    return 1.0 / {n!r} ** ({_arange('D_ROT', 'max(D_ROT, 1)')})"]
        doc = "theta_i = n^(-2i/d_rot) (RoFormer)"
    elif rope_type == "dynamic":
        factor, original = float(keywords["factor"]), int(keywords["original_max_position_embeddings"])
        body = [f"    length = max(seq_len, {original})",
                f"    base = {n!r} * ({factor!r} * length / {original} - ({factor!r} - 1)) ** (D_ROT / (D_ROT - 2))",
                f"    return 1.0 / base ** ({_arange('D_ROT', 'D_ROT')})"]
        doc = "dynamic NTK: base' = n * (s*L/L0 - (s - 1))^(d_rot/(d_rot - 2)) for L = max(seq_len, L0)"
    elif rope_type == "longrope":
        original = int(keywords["original_max_position_embeddings"])
        factor = longrope_scaling_factor(keywords.get("factor"), original, keywords.get("max_position_embeddings"))
        short, long = longrope_factor_lists(d_rot, keywords["short_factor"], keywords["long_factor"], factor)
        lines[-2:-2] = [f"SHORT_FACTOR = {_floats(short)}", f"LONG_FACTOR = {_floats(long)}"]
        body = [f"    factors = torch.tensor(LONG_FACTOR if seq_len > {original} else SHORT_FACTOR, dtype=torch.float64)",
                f"    return 1.0 / (factors * {n!r} ** ({_arange('D_ROT', 'max(D_ROT, 1)')}))"]
        doc = (f"LongRoPE: theta'_i = 1 / (f_i * n^(2i/d_rot)), f = LONG_FACTOR beyond L0 = {original} "
               "positions, SHORT_FACTOR up to it")
    elif rope_type == "proportional":
        pairs, factor = proportional_pairs(d_model, fraction), float(keywords.get("factor", 1.0))
        body = [f"    theta = 1.0 / {n!r} ** ({_arange(2 * pairs, max(d_model, 1))})  # the first {pairs} pairs",
                f"    return torch.cat([theta, torch.zeros({d_rot // 2 - pairs}, dtype=torch.float64)]) / {factor!r}"]
        doc = (f"p-RoPE: theta_i = n^(-2i/d_model) / factor for the first int({fraction!r} * d_model // 2) pairs, "
               "0 (not rotated) for the others")
    else:
        body = [f"    return torch.tensor({_floats(frequencies)}, dtype=torch.float64)"]
        params = ", ".join(f"{k}={v!r}" for k, v in keywords.items() if k not in ("rope_type", "rotary_fraction"))
        doc = f"the {rope_type} scaling's theta'_i for {params} (computed by posenc, Hugging Face's formulas)"
    return "\n".join(lines + ["def inv_freq(seq_len: int) -> torch.Tensor:", f'    """{doc}."""'] + body)
