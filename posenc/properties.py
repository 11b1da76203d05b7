"""Seed 001's criteria of a good positional encoding, measured for one scheme at one setting.

The criteria (as stated for the sinusoidal encoding of Vaswani et al. 2017, arXiv:1706.03762):
1. a unique encoding for every position;
2. the same distance between two positions at every sentence length;
3. bounded values, so that longer sentences need no effort;
4. determinism;
5. (the same generalisation, made concrete) what exists past the length it was built for.

"The encoding e(p) of position p" depends on the family:
- absolute: row p of the scheme's table, built at the length measured;
- rotary: the all-ones vector rotated to position p, e(p) = R_p·(1, …, 1) (what RoPE does to a
  query or key), with the sequence length passed on (dynamic NTK depends on it);
- bias: there is no vector per position; a relative scheme encodes offsets Δ = j − i, so every
  criterion is measured on b(Δ), the logit bias of head 0 at offset Δ (the scheme's offset_curve).

Caps keep a scheme under a second at length 4096, d_model 1024; each result states what it covered.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from posenc.registry import SCHEMES, get_scheme
from posenc.rope import _rope_options, apply_rope
from posenc.scheme import Scheme

UNIQUE_POSITIONS = 1024  # criterion 1 compares every pair among the first 1024 positions
PAIR_POSITIONS = 256  # criterion 2 computes every ‖e(p) − e(q)‖ directly among the first 256 positions
BIAS_MATRIX_LENGTH = 256  # the (heads, n, n) bias matrices are built at n ≤ 256 (8 heads at 4096: 1 GB)
PAST_SAMPLES = 1024  # criterion 5 evaluates at most 1024 evenly spaced positions past the built length
UNIQUE_TOLERANCE = 1e-9  # two encodings closer than this count as the same
STEADY_GROWTH, FAST_GROWTH = 1.01, 1.5  # max|value| at 2L over max|value| at L: steady, slow, fast
_MAX_CANDIDATES = 1 << 14  # pairs re-measured directly after the Gram screen


@dataclass(frozen=True)
class SchemeProperties:
    """The measured criteria of one scheme; the str fields are verdicts ("✔ …", "≈ …", "✘ …")."""

    key: str
    label: str
    measured_on: str  # what "the encoding" is for this scheme
    measured_count: int  # positions (offsets, for a bias) compared by criterion 1
    min_distance: float  # 1: min ‖e(p) − e(q)‖ over p ≠ q (bias: min |b(Δ) − b(Δ')|)
    sharing: int  # 1: positions (offsets) whose encoding is bit-for-bit another's
    unique: str
    length_change: float  # 2: max |dist at L − dist at L/2| over shared pairs
    offset_spread: float  # 2: max over Δ of (max − min over p) of ‖e(p) − e(p+Δ)‖ (bias: of B[i, i+Δ])
    consistent: str
    max_at_length: float  # 3: max |value| at L
    max_at_double: float  # 3: max |value| at 2L
    bounded: str
    rebuild_difference: float  # 4: max |first build − second build|
    deterministic: str
    built_for: int  # 5: the length it was built for
    finite_past: float  # 5: fraction of [built_for, 2·built_for) with a finite encoding
    past: str


# --- the encodings ------------------------------------------------------------------------------


def encodings(scheme: Scheme, length: int, d_model: int, base: float, options: dict,
              positions: np.ndarray | None = None) -> np.ndarray:
    """The (n, d_model) float64 encodings e(p) of ``positions`` (default 0 … length − 1) built at ``length``.

    absolute: rows of scheme.table(length, …), NaN where no row exists; rotary:
    apply_rope(ones, positions, seq_len=length). A bias scheme has none: ValueError.
    """
    positions = np.arange(length) if positions is None else np.asarray(positions)
    if scheme.family == "absolute":
        return np.asarray(scheme.table(length, d_model, base, **options), dtype=np.float64)[positions]
    if scheme.family == "rotary":
        ones = np.ones((len(positions), d_model))
        return apply_rope(ones, positions, base, seq_len=length, **_rope_options(options))
    raise ValueError(f"{scheme.label} adds no vector per position: it encodes offsets in the attention logits.")


def built_length(scheme: Scheme, length: int, options: dict) -> tuple[int, str]:
    """(the length the scheme was built for, why): a learned table's table_size, RoPE's trained
    context original_max_position_embeddings, otherwise the current length."""
    if scheme.family == "absolute" and "table_size" in options:
        return int(options["table_size"]), "table"
    if scheme.family == "rotary":
        return int(options.get("original_max_position_embeddings", length)), "trained"
    return length, "length"


# --- the measurements ---------------------------------------------------------------------------


def min_distance(vectors: np.ndarray) -> tuple[float, int, int]:
    """(min ‖v_p − v_q‖ over p ≠ q, rows bit-for-bit equal to another row, rows compared).

    Rows holding NaN (no encoding) are left out; a 1-D input is a set of scalars, compared
    exactly after sorting. For vectors, a float64 Gram matrix ‖v_p‖² + ‖v_q‖² − 2 v_p·v_q screens
    the pairs; every pair within its rounding bound (4d + 16)·ε·max‖v‖² of the smallest is then
    measured directly, so the minimum is exact (up to 16384 such pairs). NaN if fewer than 2 rows.
    """
    vectors = np.asarray(vectors, dtype=np.float64) + 0.0  # + 0.0 turns −0.0 into 0.0
    if vectors.ndim == 1:
        values = np.sort(vectors[np.isfinite(vectors)])
        if len(values) < 2:
            return float("nan"), 0, len(values)
        gaps = np.diff(values)
        tied = np.zeros(len(values), dtype=bool)
        tied[1:] |= gaps == 0
        tied[:-1] |= gaps == 0
        return float(gaps.min()), int(tied.sum()), len(values)
    vectors = vectors[np.isfinite(vectors).all(axis=1)]
    n = len(vectors)
    if n < 2:
        return float("nan"), 0, n
    _, inverse, counts = np.unique(vectors, axis=0, return_inverse=True, return_counts=True)
    sharing = int((counts[inverse.ravel()] > 1).sum())
    if sharing:
        return 0.0, sharing, n
    gram = vectors @ vectors.T  # (n, n)
    squares = np.diag(gram).copy()
    upper = np.triu_indices(n, 1)
    screened = (squares[:, None] + squares[None, :] - 2.0 * gram)[upper]
    slack = (4 * vectors.shape[1] + 16) * np.finfo(np.float64).eps * squares.max()
    candidates = np.flatnonzero(screened <= screened.min() + 2.0 * slack)
    if candidates.size > _MAX_CANDIDATES:
        candidates = np.argpartition(screened, _MAX_CANDIDATES)[:_MAX_CANDIDATES]
    best = np.inf
    for chunk in np.array_split(candidates, max(1, candidates.size // 2048)):
        diff = vectors[upper[0][chunk]] - vectors[upper[1][chunk]]
        best = min(best, float(np.sqrt(np.einsum("ij,ij->i", diff, diff)).min()))
    return best, 0, n


def pair_distances(vectors: np.ndarray) -> np.ndarray:
    """The (n, n) matrix D[p, q] = ‖v_p − v_q‖, each entry computed directly from the difference
    (no Gram matrix, so equal distances stay equal to rounding); NaN where a row is NaN."""
    n = len(vectors)
    out = np.full((n, n), np.nan)
    index = np.arange(n)
    out[index, index] = np.where(np.isfinite(vectors).all(axis=1), 0.0, np.nan)
    for offset in range(1, n):
        diff = vectors[offset:] - vectors[:-offset]
        distance = np.sqrt(np.einsum("ij,ij->i", diff, diff))
        out[index[:-offset], index[offset:]] = distance
        out[index[offset:], index[:-offset]] = distance
    return out


def offset_spread(matrix: np.ndarray) -> float:
    """max over offsets Δ of (max − min) of the finite entries M[i, i+Δ]: 0 when M depends on Δ only."""
    n = len(matrix)
    spread = 0.0
    for offset in range(-(n - 1), n):
        diagonal = np.diagonal(matrix, offset)
        diagonal = diagonal[np.isfinite(diagonal)]
        if diagonal.size:
            spread = max(spread, float(diagonal.max() - diagonal.min()))
    return spread


def largest_change(first: np.ndarray, second: np.ndarray) -> float:
    """max |first − second| over entries finite in both; inf if an entry is finite in only one."""
    finite_first, finite_second = np.isfinite(first), np.isfinite(second)
    if np.any(finite_first != finite_second):
        return float("inf")
    both = finite_first & finite_second
    return float(np.abs(first[both] - second[both]).max()) if both.any() else 0.0


def max_abs(values: np.ndarray) -> float:
    """max |value| over the finite entries (0 if none): NaN marks no encoding, −inf a causal mask."""
    finite = values[np.isfinite(values)]
    return float(np.abs(finite).max()) if finite.size else 0.0


def _past_sample(start: int, stop: int) -> np.ndarray:
    """At most PAST_SAMPLES evenly spaced whole positions in [start, stop), both ends included."""
    return np.unique(np.linspace(start, stop - 1, min(stop - start, PAST_SAMPLES)).round().astype(np.int64))


# --- the verdicts -------------------------------------------------------------------------------


def _unique_verdict(distance: float, sharing: int, count: int, what: str, note: str) -> str:
    if np.isnan(distance):
        return f"✘ fewer than two {what}s have an encoding{note}"
    if sharing:
        return f"✘ not unique: {sharing} of {count} {what}s share an encoding with another{note}"
    if distance <= UNIQUE_TOLERANCE:
        return f"✘ not unique to 1e-9: min distance {distance:.3g}{note}"
    return f"✔ unique (min distance {distance:.3g}){note}"


def _consistent_verdict(change: float, spread: float, scale: float) -> str:
    tolerance = UNIQUE_TOLERANCE * max(1.0, scale)
    problems = []
    if change > tolerance:
        problems.append(f"changes with the length: up to {change:.3g} between L and L/2")
    if spread > tolerance:
        problems.append(f"depends on the position, not only the offset: spread {spread:.3g}")
    if problems:
        return "✘ " + "; ".join(problems)
    return f"✔ depends on the offset only (spread {spread:.2g}, change with length {change:.2g})"


def _bounded_verdict(at_length: float, at_double: float) -> str:
    ratio = at_double / at_length if at_length > 0 else (1.0 if at_double == 0 else np.inf)
    numbers = f"max |value| {at_length:.4g} at L, {at_double:.4g} at 2L"
    if ratio <= STEADY_GROWTH:
        return f"✔ does not grow: {numbers}"
    if ratio < FAST_GROWTH:
        return f"≈ grows slowly (×{ratio:.3g} when the length doubles): {numbers}"
    return f"✘ grows ×{ratio:.3g} when the length doubles: {numbers}"


def _deterministic_verdict(identical: bool, difference: float) -> str:
    return "✔ identical bits when built twice" if identical else f"✘ two builds differ by up to {difference:.3g}"


def _past_verdict(fraction: float, built: int, reason: str, sampled: int) -> str:
    window = f"[{built}, {2 * built})" + (f", {sampled} positions sampled" if sampled < built else "")
    if fraction == 0:
        return f"✘ no encoding past position {built - 1} (none in {window})"
    if fraction < 1:
        return f"✘ only {fraction:.0%} of {window} has an encoding"
    if reason == "trained":
        return f"≈ defined past the trained length {built} (all of {window}), but extrapolates to unseen angles"
    return f"✔ defined at every position: all of {window} finite"


# --- one scheme ---------------------------------------------------------------------------------


def _measure_positions(scheme: Scheme, length: int, d_model: int, base: float, options: dict) -> dict:
    """Criteria 1–5 on the vectors e(p) of an absolute or rotary scheme."""
    at_length = encodings(scheme, length, d_model, base, options)  # (length, d_model)
    at_double = encodings(scheme, 2 * length, d_model, base, options)  # (2·length, d_model)
    distance, sharing, count = min_distance(at_length[:UNIQUE_POSITIONS])
    half = max(length // 2, 2)
    pairs = min(half, PAIR_POSITIONS)
    distances = pair_distances(at_length[:pairs])
    distances_half = pair_distances(encodings(scheme, half, d_model, base, options, np.arange(pairs)))
    again = encodings(scheme, length, d_model, base, options)
    built, reason = built_length(scheme, length, options)
    past = _past_sample(built, 2 * built)
    past_encodings = at_double[past] if built == length else encodings(scheme, 2 * built, d_model, base, options, past)
    scale = float(np.nanmax(distances)) if np.isfinite(distances).any() else 1.0
    change, spread = largest_change(distances, distances_half), offset_spread(distances)
    capped = f" (positions 0…{min(length, UNIQUE_POSITIONS) - 1}" + (
        f"; {count} with an encoding)" if count < min(length, UNIQUE_POSITIONS) else ")")
    return dict(
        measured_count=count, min_distance=distance, sharing=sharing,
        unique=_unique_verdict(distance, sharing, count, "position", capped),
        length_change=change, offset_spread=spread, consistent=_consistent_verdict(change, spread, scale),
        max_at_length=max_abs(at_length), max_at_double=max_abs(at_double),
        identical=at_length.tobytes() == again.tobytes(), rebuild_difference=largest_change(at_length, again),
        built_for=built, finite_past=float(np.isfinite(past_encodings).all(axis=1).mean()), reason=reason,
        sampled=len(past),
    )


def _measure_offsets(scheme: Scheme, length: int, d_model: int, base: float, options: dict) -> dict:
    """Criteria 1–5 on the biases b(Δ) of head 0 (offset_curve); spread and determinism on the
    (heads, n, n) bias matrix at n = min(length, BIAS_MATRIX_LENGTH)."""
    offsets, values = scheme.offset_curve(length, d_model, base, **options)
    half = max(length // 2, 2)
    _, values_half = scheme.offset_curve(half, d_model, base, **options)
    double_offsets, values_double = scheme.offset_curve(2 * length, d_model, base, **options)
    distance, sharing, count = min_distance(values)
    matrix_length = min(length, BIAS_MATRIX_LENGTH)
    matrix = scheme.bias(matrix_length, d_model, base, **options)  # (heads, n, n)
    again = scheme.bias(matrix_length, d_model, base, **options)
    change = largest_change(values[np.abs(offsets) < half], values_half)
    spread = offset_spread(matrix[0])
    attended = np.unique(np.sign(offsets[np.isfinite(values)]))  # a causal mask hides Δ > 0 at every length
    past = (np.abs(double_offsets) >= length) & np.isin(np.sign(double_offsets), attended)
    note = f" (offsets −{length - 1}…{length - 1})"
    unique = _unique_verdict(distance, sharing, count, "offset", note).replace("an encoding", "a bias")
    return dict(
        measured_count=count, min_distance=distance, sharing=sharing, unique=unique,
        length_change=change, offset_spread=spread,
        consistent=_consistent_verdict(change, spread, max_abs(values)),
        max_at_length=max_abs(values), max_at_double=max_abs(values_double),
        identical=matrix.tobytes() == again.tobytes(), rebuild_difference=largest_change(matrix, again),
        built_for=length, finite_past=float(np.isfinite(values_double[past]).mean()) if past.any() else 1.0,
        reason="length", sampled=length,
    )


def measure_properties(scheme_key: str, length: int, d_model: int, base: float, options: dict) -> SchemeProperties:
    """Seed 001's criteria for the scheme ``scheme_key`` at (length, d_model, base, options).

    1. unique: min distance between the encodings of two different positions (offsets, for a bias);
    2. consistent: max change of ‖e(p) − e(q)‖ (b(Δ)) from length L to L/2 (at least 2), and the
       spread over p of ‖e(p) − e(p+Δ)‖ at fixed Δ (max over Δ of max − min);
    3. bounded: max |value| at L and at 2L;
    4. deterministic: two builds compared bit for bit;
    5. past: fraction of positions in [L_built, 2·L_built) with a finite encoding.
    A ValueError from the scheme (invalid options) is passed on.
    """
    scheme = get_scheme(scheme_key)
    if length < 2:
        raise ValueError(f"The properties compare two positions, so length must be at least 2; got {length}.")
    if scheme.family == "bias":
        found, measured_on = _measure_offsets(scheme, length, d_model, base, options), "bias b(Δ) of head 0, per offset"
    else:
        found = _measure_positions(scheme, length, d_model, base, options)
        measured_on = "table row p" if scheme.family == "absolute" else "R_p·(1, …, 1): all-ones vector rotated to p"
    return SchemeProperties(
        key=scheme.key, label=scheme.label, measured_on=measured_on,
        measured_count=found["measured_count"], min_distance=found["min_distance"], sharing=found["sharing"],
        unique=found["unique"], length_change=found["length_change"], offset_spread=found["offset_spread"],
        consistent=found["consistent"], max_at_length=found["max_at_length"], max_at_double=found["max_at_double"],
        bounded=_bounded_verdict(found["max_at_length"], found["max_at_double"]),
        rebuild_difference=found["rebuild_difference"],
        deterministic=_deterministic_verdict(found["identical"], found["rebuild_difference"]),
        built_for=found["built_for"], finite_past=found["finite_past"],
        past=_past_verdict(found["finite_past"], found["built_for"], found["reason"], found["sampled"]),
    )


def measure_all(length: int, d_model: int, base: float,
                options: dict[str, dict] | None = None) -> list[SchemeProperties]:
    """measure_properties for every registered scheme, in registry order; ``options`` maps a scheme
    key to its options (a scheme not in it uses its defaults)."""
    options = options or {}
    return [measure_properties(key, length, d_model, base, options.get(key, scheme.defaults()))
            for key, scheme in SCHEMES.items()]
