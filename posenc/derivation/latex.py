"""LaTeX of each derivation step with the current numbers substituted (see :mod:`posenc.derivation.steps`).

Every function takes a step's computed numbers and writes the formula that produced
them, so the formula on screen is the one computed. Numbers show 6 significant digits.
"""

from __future__ import annotations

import numpy as np

from posenc.derivation.steps import (
    AngleStep,
    BlockStep,
    FormulaStep,
    ResidualStep,
    SimilarityStep,
    ThetaStep,
    TransposeStep,
    VariationStep,
)
from posenc.derivation.torch_module import ModuleStep
from posenc.schemes.scheme import latex_number


def num(value: float, digits: int = 6) -> str:
    """A number for LaTeX: 0.841471, -3.2\\times10^{-7}, 10000 (no 'e' notation)."""
    value = float(value)
    if value == 0:
        return "0"
    text = f"{value:.{digits}g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        return rf"{mantissa}\times10^{{{int(exponent)}}}"
    return text


def _exponent(i: int, d_model: int) -> str:
    return rf"{2 * i}/{d_model}"


def formula_latex(s: FormulaStep) -> list[str]:
    """The general formula with d_model and n substituted, then its value at (pos, i)."""
    n = latex_number(s.base)
    general = (rf"PE_{{(pos,\,2i)}} = \sin\!\left(\frac{{pos}}{{{n}^{{2i/{s.d_model}}}}}\right),\qquad "
               rf"PE_{{(pos,\,2i+1)}} = \cos\!\left(\frac{{pos}}{{{n}^{{2i/{s.d_model}}}}}\right)")
    frac = rf"\frac{{{s.pos}}}{{{n}^{{{_exponent(s.i, s.d_model)}}}}}"
    instance = (rf"PE_{{({s.pos},\,{2 * s.i})}} = \sin\!\left({frac}\right) = \sin({num(s.phase)}) = {num(s.sin_value)},"
                rf"\qquad PE_{{({s.pos},\,{2 * s.i + 1})}} = \cos({num(s.phase)}) = {num(s.cos_value)}")
    return [general, instance]


def theta_latex(s: ThetaStep, d_model: int, base: float) -> list[str]:
    n, i = latex_number(base), s.i
    power = (rf"\theta_{{{i}}} = \frac{{1}}{{{n}^{{{_exponent(i, d_model)}}}}} = "
             rf"{num(s.values['power float64'][i], 17)}\ \text{{(float64)}},\quad "
             rf"{num(s.values['power float32'][i], 9)}\ \text{{(float32)}}")
    exp = (rf"\theta_{{{i}}} = \exp\!\left({2 * i}\cdot\left(-\frac{{\ln {n}}}{{{d_model}}}\right)\right) = "
           rf"{num(s.values['exp float64'][i], 17)}\ \text{{(float64)}},\quad "
           rf"{num(s.values['exp float32'][i], 9)}\ \text{{(float32)}}")
    return [power, exp]


def angle_latex(s: AngleStep) -> list[str]:
    a, b, t = s.pos, s.k, rf"\theta_{{{s.i}}}"
    sin = (rf"\begin{{aligned}}\sin(({a}{b:+d})\,{t}) &= {num(s.sin_sum, 9)}\\ "
           rf"&= \sin({a}{t})\cos({b}{t}) + \cos({a}{t})\sin({b}{t}) = "
           rf"({num(s.sin_pos)})({num(s.cos_k)}) + ({num(s.cos_pos)})({num(s.sin_k)}) = {num(s.sin_rhs, 9)}"
           r"\end{aligned}")
    cos = (rf"\begin{{aligned}}\cos(({a}{b:+d})\,{t}) &= {num(s.cos_sum, 9)}\\ "
           rf"&= \cos({a}{t})\cos({b}{t}) - \sin({a}{t})\sin({b}{t}) = "
           rf"({num(s.cos_pos)})({num(s.cos_k)}) - ({num(s.sin_pos)})({num(s.sin_k)}) = {num(s.cos_rhs, 9)}"
           r"\end{aligned}")
    return [rf"\theta_{{{s.i}}} = {num(s.theta, 9)}", sin, cos]


def _matrix(m: np.ndarray, digits: int = 6) -> str:
    rows = [" & ".join(num(v, digits) for v in row) for row in np.atleast_2d(m)]
    return r"\begin{pmatrix}" + r"\\ ".join(rows) + r"\end{pmatrix}"


def block_latex(s: BlockStep) -> list[str]:
    k, i = s.k, s.i
    block = (rf"B_{{{i}}} = \begin{{pmatrix}}\cos({k}\theta_{{{i}}}) & \sin({k}\theta_{{{i}}})\\ "
             rf"-\sin({k}\theta_{{{i}}}) & \cos({k}\theta_{{{i}}})\end{{pmatrix}} = {_matrix(s.block)},\quad "
             rf"{k}\theta_{{{i}}} = {num(s.angle)}\ \text{{rad}},\quad \det B_{{{i}}} = {num(s.determinant, 12)}")
    whole = (rf"M_{{{k}}} = \operatorname{{diag}}(B_0, B_1, \dots, B_{{{s.d_model // 2 - 1}}})"
             rf"\quad ({s.d_model}\times{s.d_model})")
    return [block, whole]


def pair_block_latex(s: AngleStep) -> str:
    """The 2×2 block of pair i from the angle-addition numbers (it exists for an odd d_model too)."""
    k, i = s.k, s.i
    block = np.array([[s.cos_k, s.sin_k], [-s.sin_k, s.cos_k]])
    return (rf"B_{{{i}}} = \begin{{pmatrix}}\cos({k}\theta_{{{i}}}) & \sin({k}\theta_{{{i}}})\\ "
            rf"-\sin({k}\theta_{{{i}}}) & \cos({k}\theta_{{{i}}})\end{{pmatrix}} = {_matrix(block)}")


def residual_latex(s: ResidualStep, i: int) -> list[str]:
    pair = slice(2 * i, 2 * i + 2)
    block = np.array([[s.rotated[2 * i], s.target[2 * i]], [s.rotated[2 * i + 1], s.target[2 * i + 1]]])
    product = (rf"B_{{{i}}}\begin{{pmatrix}}PE_{{({s.pos},\,{2 * i})}}\\ PE_{{({s.pos},\,{2 * i + 1})}}\end{{pmatrix}} "
               rf"= B_{{{i}}}{_matrix(s.pe_pos[pair][:, None], 9)} = {_matrix(block[:, :1], 9)}"
               rf"\quad\text{{vs}}\quad PE_{{({s.pos + s.k},\,{2 * i}:{2 * i + 1})}} = {_matrix(block[:, 1:], 9)}")
    worst = rf"\max_j \left\lvert (M_{{{s.k}}}\,PE_{{{s.pos}}})_j - PE_{{{s.pos + s.k},\,j}} \right\rvert = {num(s.max_abs, 3)}"
    return [product, worst]


def transpose_latex(s: TransposeStep, pos: int) -> list[str]:
    k, i = s.k, s.i
    blocks = rf"B_{{{i}}}(M_{{{-k}}}) = {_matrix(s.block_minus)} = B_{{{i}}}(M_{{{k}}})^\top = {_matrix(s.block_transposed)}"
    gap = rf"\max\,\lvert M_{{{-k}}} - M_{{{k}}}^\top\rvert = {num(s.gap, 3)}"
    back = rf"\max_j \left\lvert (M_{{{k}}}^\top PE_{{{pos + k}}})_j - PE_{{{pos},\,j}}\right\rvert = {num(s.back_residual, 3)}"
    return [blocks, gap, back]


def similarity_latex(s: SimilarityStep, d_model: int) -> list[str]:
    pairs = d_model // 2
    lone = rf" + PE_{{{s.pos},\,{d_model - 1}}}PE_{{{s.pos + s.k},\,{d_model - 1}}}" if d_model % 2 else ""
    lone_value = rf" + ({num(s.lone_sine)})" if d_model % 2 else ""
    dot = (rf"PE_{{{s.pos}}}\cdot PE_{{{s.pos + s.k}}} = \sum_{{i=0}}^{{{pairs - 1}}} \cos({s.k}\,\theta_i){lone}"
           rf" = {num(s.cos_sum, 9)}{lone_value} = {num(s.dot, 9)}")
    flat = (rf"\max_p PE_p\cdot PE_{{p{s.k:+d}}} - \min_p PE_p\cdot PE_{{p{s.k:+d}}} = {num(s.spread, 3)}"
            rf"\quad ({len(s.positions)}\ \text{{positions}})")
    return [dot, flat]


def variation_latex(s: VariationStep) -> list[str]:
    i = s.i
    return [rf"({s.length}-1)\,\theta_{{{i}}} = {num(s.phase_span)}\ \text{{rad}}:\quad "
            rf"\operatorname{{range}}(PE_{{\cdot,\,{2 * i}}}) = {num(s.pair_ranges[0])},\quad "
            rf"\operatorname{{range}}(PE_{{\cdot,\,{2 * i + 1}}}) = {num(s.pair_ranges[1])}"]


def module_latex(s: ModuleStep) -> list[str]:
    p = num(s.dropout)
    return [rf"y = \operatorname{{dropout}}_{{p={p}}}(x + PE_{{[:4]}}),\qquad "
            rf"y_j \in \left\{{0,\ \frac{{(x + PE)_j}}{{1 - {p}}} = {num(s.scale)}\,(x + PE)_j\right\}}"]
