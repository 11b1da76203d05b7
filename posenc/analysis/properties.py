"""Seed 001's criteria of a good positional encoding, measured for one scheme at one setting.

The criteria, stated for the sinusoidal encoding (Vaswani et al. 2017, arXiv:1706.03762): 1. a
unique encoding for every position; 2. the same distance between two positions at every length;
3. bounded values; 4. determinism; 5. (generalising to longer inputs, made concrete) what exists
past the length the scheme was built for. "The encoding e(p) of position p" depends on the family:
- absolute: row p of the scheme's table, built at the length measured;
- rotary: the all-ones vector rotated to position p, e(p) = R_p·(1, …, 1) (what RoPE does to a
  query or key), with the sequence length passed on (dynamic NTK depends on it); xPos (arXiv:2212.10554)
  scales a query and a key differently, so e(p) is its query side, ζ_i^(p̂/γ)·R_p·(1, …, 1) with
  p̂ = p − ⌈L/2⌉ centred on the length it is built at (torchscale's convention);
- bias: there is no vector per position; a relative scheme encodes offsets Δ = j − i, so every
  criterion is measured on b(Δ) = (b_0(Δ), …, b_{H−1}(Δ)), the logit biases of all H heads at
  offset Δ (the scheme's offset_bias); −inf (a causal mask) means the offset is not attended.
Caps keep a scheme under a second at length 4096, d_model 1024; each result states what it covered.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from posenc.analysis.distances import largest_change, max_abs, min_distance, offset_spread, pair_distances, same_bits
from posenc.analysis.verdicts import (
    bounded_verdict,
    consistent_verdict,
    past_verdict,
    unique_verdict,
)
from posenc.checks import check_d_model, check_int, check_length
from posenc.schemes.registry import SCHEMES, get_scheme
from posenc.schemes.scheme import Scheme, Setting

UNIQUE_POSITIONS = 1024  # criterion 1 compares every pair among the first 1024 positions
PAIR_POSITIONS = 256  # criterion 2 computes every ‖e(p) − e(q)‖ directly among the first 256 positions
BIAS_MATRIX_LENGTH = 256  # the (heads, n, n) bias matrices are built at n ≤ 256 (8 heads at 4096: 1 GB)
SCAN_ROWS = 512  # positions built and measured at a time (4 MiB of float64 at d_model 1024)
PAST_SAMPLES = 1024  # criterion 5 evaluates at most 1024 evenly spaced positions past the built length
MAX_MEASURED_LENGTH = 1 << 14  # the measurements build tables of 2·length rows: 32768 at most


@dataclass(frozen=True)
class SchemeProperties:
    """The measured criteria of one scheme; the str fields are verdicts ("✔ …", "≈ …", "✘ …")."""

    key: str
    label: str
    measured_on: str  # what "the encoding" is for this scheme
    measured_count: int  # positions (offsets, for a bias) compared by criterion 1
    min_distance: float  # 1: min ‖e(p) − e(q)‖ over p ≠ q (bias: min ‖b(Δ) − b(Δ')‖ over Δ ≠ Δ')
    sharing: int  # 1: positions (offsets) whose encoding is bit-for-bit another's
    unique: str
    length_change: float  # 2: max |dist at L − dist at L/2| over shared pairs
    offset_spread: float  # 2: max over Δ of (max − min over p) of ‖e(p) − e(p+Δ)‖ (bias: of B[h, i, i+Δ])
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
    """The (n, d_model) float64 encodings e(p) of ``positions`` (default 0 … length − 1) built at ``length``:
    the scheme's ``encoding`` (by family: rows of scheme.table(length, …), NaN where there is no row; the
    all-ones vector turned by its ``rotate`` as a query, seq_len=length; none for a bias scheme)."""
    scheme = _check_scheme(scheme)
    length, d_model, options = check_length(length), check_d_model(d_model), _check_options(options)
    positions = np.arange(length) if positions is None else _check_positions(positions, length, scheme)
    return scheme.encoding(Setting(length, d_model, base, options), positions)


def built_length(scheme: Scheme, length: int, options: dict) -> tuple[int, str]:
    """(the length the scheme was built for, why): a learned table's table_size, RoPE's trained
    context original_max_position_embeddings, otherwise the current length."""
    scheme, length, options = _check_scheme(scheme), check_length(length), _check_options(options)
    if scheme.family == "absolute" and "table_size" in options:
        return check_length(options["table_size"]), "table"
    if scheme.family == "rotary" and "original_max_position_embeddings" in {o.name for o in scheme.options}:
        return check_length(options.get("original_max_position_embeddings", length)), "trained"
    return length, "length"


def _check_scheme(scheme: object) -> Scheme:
    if not isinstance(scheme, Scheme):
        raise TypeError(f"scheme must be an entry of posenc.SCHEMES; got a {type(scheme).__name__}.")
    return scheme


def _check_options(options: object) -> dict:
    if not isinstance(options, dict) or not all(isinstance(name, str) for name in options):
        raise TypeError(f"options must be a dict of option names to values; got a {type(options).__name__}.")
    return options


def _check_positions(positions: object, length: int, scheme: Scheme) -> np.ndarray:
    """Whole positions ≥ 0 (rows of an absolute table: < length)."""
    positions = np.asarray(positions)
    if positions.ndim != 1 or positions.dtype.kind not in "iu" or (positions.size and positions.min() < 0):
        raise ValueError("positions must be a 1-D array of whole positions ≥ 0.")
    if scheme.family == "absolute" and positions.size and positions.max() >= length:
        raise ValueError(f"positions must be below length={length} for a table of {length} rows.")
    if positions.size and positions.max() > 1 << 53:
        raise ValueError("positions must be at most 2^53.")
    return positions


# --- the measurements ---------------------------------------------------------------------------


def _past_sample(start: int, stop: int) -> np.ndarray:
    """At most PAST_SAMPLES evenly spaced whole positions in [start, stop), both ends included."""
    return np.unique(np.linspace(start, stop - 1, min(stop - start, PAST_SAMPLES)).round().astype(np.int64))


# --- one scheme ---------------------------------------------------------------------------------


def _blocks(scheme: Scheme, length: int, d_model: int, base: float, options: dict, stop: int):
    """e(p) for p = 0 … stop − 1, built at ``length``, SCAN_ROWS positions at a time (float64): an
    absolute table is built once and handed out in slices; RoPE rotates one block of positions at a time."""
    if scheme.family == "absolute":
        table = encodings(scheme, length, d_model, base, options)
        for start in range(0, stop, SCAN_ROWS):
            yield table[start:start + SCAN_ROWS]
        return
    for start in range(0, stop, SCAN_ROWS):
        yield encodings(scheme, length, d_model, base, options, np.arange(start, min(stop, start + SCAN_ROWS)))


def _scan_twice(scheme: Scheme, length: int, d_model: int, base: float, options: dict) -> dict:
    """Two builds at L compared block by block (criterion 4), with max |value| (3) and the first
    UNIQUE_POSITIONS rows (1, 2) of the first build; no block outlives its comparison."""
    head, largest, identical, change = [], 0.0, True, 0.0
    first_build = _blocks(scheme, length, d_model, base, options, length)
    for first, second in zip(first_build, _blocks(scheme, length, d_model, base, options, length)):
        kept = sum(map(len, head))
        if kept < UNIQUE_POSITIONS:
            head.append(first[:UNIQUE_POSITIONS - kept].copy())
        largest = max(largest, max_abs(first))
        if not same_bits(first, second):  # the same bits differ by 0 wherever they are finite
            identical, change = False, max(change, largest_change(first, second))
    return dict(head=np.concatenate(head), max_at_length=largest, identical=identical, rebuild_difference=change)


def _scan_double(scheme: Scheme, length: int, d_model: int, base: float, options: dict) -> tuple[float, int]:
    """(max |value| of the build at 2L (criterion 3), how many of its positions L … 2L − 1 are finite (5))."""
    largest, finite = 0.0, 0
    for start, block in zip(range(0, 2 * length, SCAN_ROWS), _blocks(scheme, 2 * length, d_model, base, options,
                                                                        2 * length)):
        largest = max(largest, max_abs(block))
        finite += int(np.isfinite(block[max(length - start, 0):]).all(axis=1).sum())
    return largest, finite


def _measure_positions(scheme: Scheme, length: int, d_model: int, base: float, options: dict) -> dict:
    """The numbers of criteria 1–5 on the vectors e(p) of an absolute or rotary scheme. The builds at
    L (twice) and 2L are scanned block by block: memory stays near one table, not four."""
    built, reason = built_length(scheme, length, options)
    twice = _scan_twice(scheme, length, d_model, base, options)
    max_at_double, finite_double = _scan_double(scheme, length, d_model, base, options)
    if built == length:  # the build at 2L already held every position of [L, 2L)
        finite_past, sampled = finite_double / length, length
    else:
        past = encodings(scheme, 2 * built, d_model, base, options, _past_sample(built, 2 * built))
        finite_past, sampled = float(np.isfinite(past).all(axis=1).mean()), len(past)
    head = twice.pop("head")  # the first min(L, UNIQUE_POSITIONS) rows built at L
    pairs = min(max(length // 2, 2), PAIR_POSITIONS)
    distances = pair_distances(head[:pairs])  # (pairs, pairs)
    half = encodings(scheme, max(length // 2, 2), d_model, base, options, np.arange(pairs))
    distance, sharing, count = min_distance(head)
    shown = min(length, UNIQUE_POSITIONS)
    return dict(
        measured_count=count, min_distance=distance, sharing=sharing,
        note=f"positions 0…{shown - 1}" + (f", {count} with an encoding" if count < shown else ""),
        length_change=0.0 if same_bits(head[:pairs], half) else largest_change(distances, pair_distances(half)),
        offset_spread=offset_spread(distances),
        scale=max_abs(distances) if np.isfinite(distances[np.triu_indices(pairs, 1)]).any() else np.nan,
        max_at_double=max_at_double, built_for=built, finite_past=finite_past, reason=reason, sampled=sampled,
        **twice,
    )


def _measure_offsets(scheme: Scheme, length: int, d_model: int, base: float, options: dict) -> dict:
    """The numbers of criteria 1–5 on the biases b(Δ) of every head (offset_bias, (heads, 2L − 1));
    the spread on the (heads, n, n) bias matrix itself, at n = min(length, BIAS_MATRIX_LENGTH)."""
    offsets, values = scheme.offset_bias(length, d_model, base, **options)  # (heads, 2·length − 1)
    half = max(length // 2, 2)
    _, values_half = scheme.offset_bias(half, d_model, base, **options)
    double_offsets, values_double = scheme.offset_bias(2 * length, d_model, base, **options)
    _, again = scheme.offset_bias(length, d_model, base, **options)
    seen = offsets[np.isfinite(values).all(axis=0)]  # a causal mask (−inf) hides Δ > 0
    attended = np.unique(np.sign(seen))
    past = (np.abs(double_offsets) >= length) & np.isin(np.sign(double_offsets), attended)
    distance, sharing, count = min_distance(values.T)
    return dict(
        measured_count=count, min_distance=distance, sharing=sharing,
        note=f"offsets {seen.min()}…{seen.max()}, all heads".replace("-", "−"),
        length_change=largest_change(values[:, np.abs(offsets) < half], values_half),
        offset_spread=offset_spread(scheme.bias(min(length, BIAS_MATRIX_LENGTH), d_model, base, **options)),
        scale=max_abs(values), max_at_length=max_abs(values), max_at_double=max_abs(values_double),
        identical=same_bits(values, again), rebuild_difference=largest_change(values, again),
        built_for=length, finite_past=float(np.isfinite(values_double[:, past]).all(axis=0).mean()),
        reason="offsets", sampled=length,
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
    if not isinstance(scheme_key, str):
        raise TypeError(f"scheme_key must be the name of a scheme (a str); got a {type(scheme_key).__name__}.")
    scheme = get_scheme(scheme_key)
    length = check_int(length, "length", minimum=2, maximum=MAX_MEASURED_LENGTH,
                       meaning="the properties compare two positions, at length and at twice the length")
    options = _check_options(options)
    measure = _measure_offsets if scheme.family == "bias" else _measure_positions
    found = measure(scheme, length, d_model, base, options)
    what = "offset" if scheme.family == "bias" else "position"
    unique = unique_verdict(found["min_distance"], found["sharing"], found["measured_count"], what, found.pop("note"))
    reason = found.pop("reason")  # why built_for is what it is: "table" for a learned table's rows (random draws)
    return SchemeProperties(
        key=scheme.key, label=scheme.label, measured_on=scheme.measured_on,
        unique=unique.replace("an encoding", "a bias") if what == "offset" else unique,
        consistent=consistent_verdict(found["length_change"], found["offset_spread"], found.pop("scale")),
        bounded=bounded_verdict(found["max_at_length"], found["max_at_double"], drawn=reason == "table"),
        deterministic="✔ identical bits when built twice" if found.pop("identical")
        else f"✘ two builds differ by up to {found['rebuild_difference']:.3g}",
        past=past_verdict(found["finite_past"], found["built_for"], reason, found.pop("sampled")),
        **found,
    )


def measure_all(length: int, d_model: int, base: float,
                options: dict[str, dict] | None = None) -> list[SchemeProperties]:
    """measure_properties for every registered scheme, in registry order; ``options`` maps a scheme
    key to its options (a scheme not in it uses its defaults)."""
    options = _check_options(options or {})
    return [measure_properties(key, length, d_model, base, options.get(key, scheme.defaults()))
            for key, scheme in SCHEMES.items()]
