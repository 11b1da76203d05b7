"""The offset curve every scheme shares, computed at chosen offsets without building a table.

The registry's ``offset_curve`` builds what it measures (the sinusoidal table and its
autocorrelation by FFT: about 1 s at 4096 × 1024). For the schemes with a closed form the
same numbers come from the frequencies alone; the tests pin them to the registry's curves.
"""

from __future__ import annotations

import numpy as np

from posenc._checks import check_d_model, check_length
from posenc.absolute import DEFAULT_TABLE_SIZE
from posenc.analysis import offset_similarity
from posenc.registry import get_scheme
from posenc.rope import rope_keywords
from posenc.rope_scaling import rope_inv_freq, rotary_dims
from posenc.sinusoidal import frequencies


def _offsets(length: int) -> np.ndarray:
    return np.arange(-(length - 1), length)


def _cosine_sum(offsets: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Σ_i cos(Δ·θ_i) for every Δ in ``offsets``, in blocks of 1024 offsets (bounded memory)."""
    out = np.empty(len(offsets))
    for start in range(0, len(offsets), 1024):
        block = offsets[start:start + 1024].astype(np.float64)
        out[start:start + 1024] = np.cos(block[:, None] * theta).sum(axis=1)
    return out


def sinusoidal_similarity(length: int, d_model: int, base: float = 10000.0, *, layout: str = "interleaved",
                          spacing: str = "vaswani") -> tuple[np.ndarray, np.ndarray]:
    """(offsets Δ, mean over i of PE[i]·PE[i+Δ]) of the sinusoidal table, from its frequencies.

    Each (sin, cos) pair contributes sin(iθ)sin((i+Δ)θ) + cos(iθ)cos((i+Δ)θ) = cos(Δθ), the
    same for every i, so s(Δ) = Σ_i cos(Δθ_i) (Vaswani et al. 2017, arXiv:1706.03762, §3.5).
    With an odd d_model the last column (a sine without its cosine) is averaged directly.
    """
    length, d_model = check_length(length), check_d_model(d_model)
    if layout == "split" and d_model % 2:
        raise ValueError(f"The split layout needs an even d_model; got {d_model}.")
    offsets = _offsets(length)
    theta = frequencies(d_model, base, spacing=spacing)
    values = _cosine_sum(offsets, theta[: d_model // 2])
    if d_model % 2:
        last = np.sin(np.arange(length) * theta[-1])[:, None]  # the unpaired sine column
        values = values + offset_similarity(last)[1]
    return offsets, values


def rope_scores_at(offsets: object, length: int, d_model: int, base: float = 10000.0,
                   **options: object) -> np.ndarray:
    """RoPE's score q·k / d for q = k = (1, …, 1) at each offset Δ = n − m (RoFormer, arXiv:2104.09864).

    A rotated pair of ones is s·(cos mθ − sin mθ, sin mθ + cos mθ); two of them multiply to
    2s²·cos((n − m)θ), and the d − d_rot dimensions left unrotated add 1 each:
    score(Δ) = (2s²·Σ_i cos(Δθ_i) + d − d_rot) / d, with θ and s the scaling's (seq_len = length).
    """
    length, d_model = check_length(length), check_d_model(d_model)
    keywords = rope_keywords(dict(options))
    keywords.pop("layout", None)
    fraction = keywords.pop("rotary_fraction", 1.0)
    theta, scale = rope_inv_freq(d_model, base, seq_len=max(length, 1), rotary_fraction=fraction, **keywords)
    d_rot = rotary_dims(d_model, fraction)
    offsets = np.asarray(offsets, dtype=np.int64)
    return (2.0 * scale**2 * _cosine_sum(offsets, theta) + (d_model - d_rot)) / d_model


def learned_similarity(length: int, d_model: int, base: float = 10000.0, **options: object,
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The learned table's mean PE[i]·PE[i+Δ] over defined rows: only the rows the table has
    (NaN for offsets no pair of them reaches), instead of the full length."""
    length = check_length(length)
    rows = min(length, int(options.get("table_size", DEFAULT_TABLE_SIZE)))
    table = get_scheme("learned").table(rows, d_model, base, **options)
    offsets, inside = offset_similarity(table)
    values = np.full(2 * length - 1, np.nan) if length else np.zeros(0)
    values[length - rows: length + rows - 1] = inside
    return _offsets(length), values


def offset_curve(scheme: str, length: int, d_model: int, base: float, **options: object,
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The scheme's ``offset_curve`` (the registry's numbers), without the full table where a
    closed form exists (sinusoidal, RoPE) or without the rows a table does not have (learned)."""
    if scheme == "sinusoidal":
        return sinusoidal_similarity(length, d_model, base, **options)
    if scheme == "rope":
        offsets = _offsets(check_length(length))
        return offsets, rope_scores_at(offsets, length, d_model, base, **options)
    if scheme == "learned":
        return learned_similarity(length, d_model, base, **options)
    return get_scheme(scheme).offset_curve(length, d_model, base, **options)
