r"""RoPE's registry entry: its options, the formula it computes (in LaTeX) and its offset curve.

The scheme's options (layout, rotary_fraction, rope_type and the parameters of every
scaling) become :func:`~posenc.schemes.rope.rotation.apply_rope` keywords through
:func:`rope_keywords`; the formula shows θ_i, or the scaling's θ'_i, with the current
numbers (RoFormer, Su et al., arXiv:2104.09864).

A link cannot carry LongRoPE's two lists of per-pair factors, so unless they are given the
app uses two rules of :data:`~posenc.schemes.rope.scalings.LONGROPE_RULES`: short factors all
1.0 (θ_i unchanged up to L₀) and long factors rising geometrically from 1 on the fastest pair
to the scaling factor s on the slowest, f_i = s^(i/(n − 1)) over the n = d_rot/2 pairs, the
shape LongRoPE's search finds (Ding et al., arXiv:2402.13753). Library callers pass the lists
a model was trained with.
"""

from __future__ import annotations

import numpy as np

from posenc.checks import (
    check_base,
    check_choice,
    check_d_model,
)
from posenc.schemes.offsets import all_offsets, cosine_sums, cosine_sums_every_offset
from posenc.schemes.rope.frequencies import rope_inv_freq
from posenc.schemes.rope.rotation import LAYOUTS, apply_rope, rope_score_curve
from posenc.schemes.rope.scalings import (
    ROPE_SCALINGS,
    proportional_pairs,
    rope_scaling_parameters,
    yarn_correction_range,
)
from posenc.schemes.scheme import Option, Scheme, Setting, latex_number

_SCALING_KEYS = {name for rope_type in ROPE_SCALINGS for name in rope_scaling_parameters(rope_type)}
APP_LONGROPE_FACTORS = {"short_factor": "ones", "long_factor": "geometric"}
"""The factor lists the app uses for LongRoPE (a link cannot carry lists): see the module docstring."""


def rope_keywords(options: dict[str, object]) -> dict[str, object]:
    """The scheme's options as apply_rope keywords: drop parameters of other scalings; under
    longrope, the app's factor lists (:data:`APP_LONGROPE_FACTORS`) where none are given."""
    known = {"layout", "rope_type", "rotary_fraction"} | _SCALING_KEYS
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"RoPE has no option {', '.join(unknown)}; "
                         f"its options are {', '.join(sorted(known))}.")
    rope_type = options.get("rope_type", "default")
    accepted = rope_scaling_parameters(rope_type)
    keywords = {k: v for k, v in options.items() if k not in _SCALING_KEYS or k in accepted}
    if rope_type == "longrope":
        keywords = APP_LONGROPE_FACTORS | keywords
    return keywords


def _rope_rotate(x: np.ndarray, positions: np.ndarray, base: float, *, key: bool = False, seq_len: int | None = None,
                 **options: object) -> np.ndarray:
    """The registry's ``rotate``: :func:`apply_rope` with the scheme's options; a key turns as a query does."""
    return apply_rope(x, positions, base, **rope_keywords(dict(options)), seq_len=seq_len)


def _rope_offset_curve(length: int, d_model: int, base: float, **options: object,
                       ) -> tuple[np.ndarray, np.ndarray]:
    offsets, scores = rope_score_curve(length, d_model, base, **rope_keywords(options))
    return offsets, scores / d_model


def _factor_list_latex(values: object, factor: float, pairs: int) -> str:
    """LongRoPE's factor list: its rule with the numbers, or its first and last entries."""
    if values == "ones":
        return "1"
    if values == "geometric":
        return rf"{latex_number(factor)}^{{i/{max(pairs - 1, 1)}}}"
    listed = [latex_number(v) for v in np.asarray(values, dtype=np.float64)]
    shown = listed if len(listed) <= 4 else [*listed[:3], r"\dots", listed[-1]]
    return r"\left(" + ", ".join(shown) + r"\right)_i"


def _longrope_latex(d_rot: int, attention: float, params: dict) -> list[str]:
    original, factor = params["original_max_position_embeddings"], params.get("factor")
    if factor is None:  # HF: max_position_embeddings / L₀
        factor = params["max_position_embeddings"] / original
    pairs = d_rot // 2
    short = _factor_list_latex(params["short_factor"], factor, pairs)
    long = _factor_list_latex(params["long_factor"], factor, pairs)
    s = latex_number(factor)
    note = (rf"\sqrt{{1 + \ln {s} / \ln {original}}} = " if params.get("attention_factor") is None and factor > 1
            else "")
    return [rf"\theta'_i = \theta_i / f_i,\quad f_i = \begin{{cases}} f^{{\text{{short}}}}_i = {short} & "
            rf"L \le {original} \\ f^{{\text{{long}}}}_i = {long} & L > {original} \end{{cases}}"
            r"\quad (L = \text{sequence length})",
            rf"\cos, \sin \;\times\; {note}{attention:.4f}"]


def _scaling_latex(rope_type: str, d_rot: int, base: float, attention: float, params: dict) -> list[str]:
    """Lines of LaTeX: how ``rope_type`` turns θ_i into θ'_i, with the current values."""
    factor = float(params.get("factor") or 1.0)
    s, original = latex_number(factor), params.get("original_max_position_embeddings")
    exponent = rf"{d_rot}/{d_rot - 2}"
    if rope_type == "linear":
        return [rf"\theta'_i = \theta_i / {s} \quad \text{{(position interpolation: }} m \mapsto m/{s})"]
    if rope_type == "ntk":
        new_base = latex_number(base * factor ** (d_rot / (d_rot - 2)))
        return [rf"b' = {latex_number(base)} \cdot {s}^{{{exponent}}} = {new_base},"
                rf"\quad \theta'_i = b'^{{-2i/{d_rot}}}"]
    if rope_type == "dynamic":
        return [rf"b' = {latex_number(base)}\left(\tfrac{{{s}\,L}}{{{original}}} - {latex_number(factor - 1)}"
                rf"\right)^{{{exponent}}} \text{{ for a length }} L > {original},"
                rf"\quad \theta'_i = b'^{{-2i/{d_rot}}}"]
    if rope_type == "yarn":
        low, high = yarn_correction_range(d_rot, base, int(original), params.get("beta_fast") or 32.0,
                                          params.get("beta_slow") or 1.0, params.get("truncate", True))
        ramp = rf"\tfrac{{i - {latex_number(low)}}}{{{latex_number(high)} - {latex_number(low)}}}"
        mscale, mscale_all_dim = params.get("mscale"), params.get("mscale_all_dim")
        if params.get("attention_factor") is not None:
            note = ""
        elif mscale and mscale_all_dim:  # DeepSeek's ratio (yarn_attention_factor), as transformers computes it
            note = (rf"\frac{{0.1 \cdot {latex_number(mscale)}\,\ln {s} + 1}}"
                    rf"{{0.1 \cdot {latex_number(mscale_all_dim)}\,\ln {s} + 1}} = ")
        else:
            note = rf"(0.1 \ln {s} + 1) = "
        return [rf"\theta'_i = r_i\,\theta_i/{s} + (1 - r_i)\,\theta_i,\quad "
                rf"r_i = \operatorname{{clamp}}\!\left({ramp}, 0, 1\right)",
                rf"\cos, \sin \;\times\; {note}{attention:.4f}"]
    if rope_type == "llama3":
        lo = latex_number(params.get("low_freq_factor", 1.0))
        hi = latex_number(params.get("high_freq_factor", 4.0))
        sigma = rf"\tfrac{{{original}/\lambda_i - {lo}}}{{{hi} - {lo}}}"
        return [rf"\lambda_i = \frac{{2\pi}}{{\theta_i}},\quad \sigma_i = {sigma},\quad "
                rf"\theta'_i = \begin{{cases}} \theta_i & \lambda_i < {original}/{hi} \\ "
                rf"\theta_i/{s} & \lambda_i > {original}/{lo} \\ "
                rf"(1-\sigma_i)\,\theta_i/{s} + \sigma_i\theta_i & \text{{otherwise}} \end{{cases}}"]
    if rope_type == "longrope":
        return _longrope_latex(d_rot, attention, params)
    return []


def _proportional_latex(d_model: int, base: float, fraction: float, params: dict) -> str:
    """p-RoPE's frequencies: the first k pairs with the whole head's exponent, the others at rest."""
    rotated, pairs = proportional_pairs(d_model, fraction), d_model // 2
    factor = float(params.get("factor", 1.0))
    scaled = "" if factor == 1.0 else rf" / {latex_number(factor)}"
    rows = []
    if rotated:
        rows.append(rf"{latex_number(base)}^{{-2i/{d_model}}}{scaled} & i = 0, \dots, {rotated - 1}")
    if rotated < pairs:
        rows.append(rf"0 \;\text{{(not rotated)}} & i = {rotated}, \dots, {pairs - 1}")
    cases = r" \\ ".join(rows)
    return (rf"\theta'_i = \begin{{cases}} {cases} \end{{cases}}\quad "
            rf"k = \lfloor {latex_number(fraction)} \cdot {d_model} / 2 \rfloor = {rotated}")


def _rope_formula(d_model: int, base: float, **options: object) -> str:
    """KaTeX of the frequencies, the scaling and the rotation computed with these values."""
    params = rope_keywords(options)
    layout = check_choice(params.pop("layout", "interleaved"), "layout", LAYOUTS)
    rope_type, fraction = params.pop("rope_type", "default"), params.pop("rotary_fraction", 1.0)
    d_model, base = check_d_model(d_model), check_base(base)
    inv_freq, attention = rope_inv_freq(d_model, base, rope_type=rope_type, rotary_fraction=fraction, **params)
    d_rot = 2 * len(inv_freq)  # the dimensions rotated (p-RoPE: all pairs of the head, some by θ = 0)
    if d_rot == 0:
        return r"x' = x \quad \text{(no dimension is rotated)}"
    theta = r"\theta'_i" if rope_type != "default" else r"\theta_i"
    first, second = ("2i", "2i+1") if layout == "interleaved" else ("i", f"i+{d_rot // 2}")
    if rope_type == "proportional":
        lines = [_proportional_latex(d_model, base, fraction, params)]
    else:
        lines = [rf"\theta_i = {latex_number(base)}^{{-2i/{d_rot}}},\quad i = 0, \dots, {d_rot // 2 - 1}"]
        lines += _scaling_latex(rope_type, d_rot, base, attention, params)
    lines.append(rf"\begin{{pmatrix}} x'_{{{first}}} \\ x'_{{{second}}} \end{{pmatrix}} = "
                 rf"\begin{{pmatrix}} \cos m{theta} & -\sin m{theta} \\ \sin m{theta} & \cos m{theta}"
                 rf"\end{{pmatrix}} \begin{{pmatrix}} x_{{{first}}} \\ x_{{{second}}} \end{{pmatrix}}")
    if d_rot < d_model:
        rest = f"{d_rot}" if d_rot == d_model - 1 else rf"{d_rot}, \dots, {d_model - 1}"
        lines.append(rf"x'_j = x_j \quad \text{{for }} j = {rest}")
    return r"\begin{gathered} " + r" \\ ".join(lines) + r" \end{gathered}"


def rope_scores_at(offsets: object, length: int, d_model: int, base: float = 10000.0, *, every: bool = False,
                   **options: object) -> np.ndarray:
    """RoPE's score q·k / d for q = k = (1, …, 1) at each offset Δ = n − m (RoFormer, arXiv:2104.09864).

    A rotated pair of ones is s·(cos mθ − sin mθ, sin mθ + cos mθ); two of them multiply to
    2s²·cos((n − m)θ), and the d − d_rot dimensions left unrotated add 1 each:
    score(Δ) = (2s²·Σ_i cos(Δθ_i) + d − d_rot) / d, with θ and s the scaling's (seq_len = length)
    and d_rot = 2·len(θ) (p-RoPE's pairs at θ = 0 are in the sum, adding 2s² each). ``every``: the
    offsets are every offset of a length (the sum by angle addition).
    """
    d_model = check_d_model(d_model)
    keywords = rope_keywords(dict(options))
    keywords.pop("layout", None)
    fraction = keywords.pop("rotary_fraction", 1.0)
    theta, scale = rope_inv_freq(d_model, base, seq_len=max(length, 1), rotary_fraction=fraction, **keywords)
    d_rot = 2 * len(theta)  # under "proportional", every pair of the head (θ = 0 for those it leaves)
    sums = (cosine_sums_every_offset if every else cosine_sums)(np.asarray(offsets, dtype=np.int64), theta)
    return (2.0 * scale**2 * sums + (d_model - d_rot)) / d_model


def _scores_every_offset(setting: Setting) -> tuple[np.ndarray, np.ndarray]:
    offsets = all_offsets(setting.length)
    return offsets, rope_scores_at(offsets, setting.length, setting.d_model, setting.base, every=True,
                                   **setting.options)


def _scores_at(setting: Setting, offsets: np.ndarray) -> np.ndarray:
    return rope_scores_at(offsets, setting.length, setting.d_model, setting.base, **setting.options)


SCHEMES: tuple[Scheme, ...] = (
    Scheme(
        key="rope",
        label="RoPE (rotary)",
        short_label="RoPE",
        family="rotary",
        paper="Su et al. 2021, RoFormer: Enhanced Transformer with Rotary Position Embedding, "
              "arXiv:2104.09864",
        formula=_rope_formula,
        offset_curve=_rope_offset_curve,
        rotate=_rope_rotate,
        offset_curve_fast=_scores_every_offset,
        offset_curve_at=_scores_at,
        checks_own_options=True,
        curve_label="q·k / d_model for q = k = (1, …, 1), key at offset j − i from the query "
                    "(1 at offset 0 unless YaRN or LongRoPE scale cos and sin)",
        options=(
            Option("layout", "Pair layout", "interleaved", choices=LAYOUTS,
                   help="interleaved: pairs (2i, 2i+1) as RoFormer/GPT-J; "
                        "half: pairs (i, i+d/2) as GPT-NeoX/Llama."),
            Option("rope_type", "Context-extension scaling", "default", choices=tuple(ROPE_SCALINGS),
                   help="Hugging Face's rope_type: how the frequencies change for longer contexts."),
            Option("factor", "Scaling factor s", 4.0, minimum=1.0, maximum=64.0,
                   help="How many times longer the new context is (unused by 'default'; longrope: its long "
                        "factors rise from 1 to s, and s sets the attention factor; proportional divides θ by s)."),
            Option("original_max_position_embeddings", "Original context L₀", 512,
                   minimum=16, maximum=2 ** 19,
                   help="The context length the model was trained on (dynamic, yarn, llama3, longrope): up to "
                        "524,288, so that a released model's fits (Qwen's 32,768; a dynamic scaling's is its whole "
                        "context), and twice it is still a length posenc measures (Properties)."),
            Option("rotary_fraction", "Rotated fraction", 1.0, minimum=0.0, maximum=1.0,
                   help="Share of the dimensions that are rotated (HF partial_rotary_factor); "
                        "int(d·fraction) must be even. proportional (p-RoPE) rotates the first "
                        "⌊fraction·d/2⌋ pairs with θ_i = n^(−2i/d) over the whole head d and leaves the others."),
        ),
    ),
)
