"""Properties: seed 001's criteria of a good positional encoding, measured for every scheme."""

import math

import pandas as pd
import streamlit as st

import posenc
from posenc.analysis import properties, verdicts
from posenc.ui import accessibility, compute, sidebar

COLUMNS = {  # column -> SchemeProperties field, criterion by criterion; each is followed by its verdict
    "1 · min distance": "min_distance", "1 · sharing": "sharing", "1 · unique": "unique",
    "2 · change L → L/2": "length_change", "2 · spread over p": "offset_spread", "2 · same distance": "consistent",
    "3 · max |value| at L": "max_at_length", "3 · max |value| at 2L": "max_at_double", "3 · bounded": "bounded",
    "4 · rebuild difference": "rebuild_difference", "4 · deterministic": "deterministic",
    "5 · built for": "built_for", "5 · finite past it": "finite_past", "5 · past the built length": "past",
}
VERDICTS = ("unique", "consistent", "bounded", "deterministic", "past")


def row(label: str, result: properties.SchemeProperties | str) -> dict:
    """One table row: the measured numbers and verdicts, or the scheme's error message."""
    if isinstance(result, str):
        return {"scheme": label, "encoding measured": "—"} | {
            column: (f"✘ not built: {result}" if field == "unique" else "—") if field in VERDICTS else math.nan
            for column, field in COLUMNS.items()}
    return {"scheme": label, "encoding measured": result.measured_on} | {
        column: getattr(result, field) for column, field in COLUMNS.items()}


c = sidebar.controls()
st.title("Properties")
c = sidebar.for_view(c, every_scheme=True)
st.markdown(
    "Seed 001 lists what a good positional encoding should satisfy. Each criterion is **measured** here, "
    f"for every scheme, at length L = {c.length}, d_model = {c.d_model}, n = {c.base:g}:\n"
    "1. *It should output a unique encoding for each time-step*: the smallest distance between the "
    "encodings of two different positions must not be 0.\n"
    "2. *Distance between any two time-steps should be consistent across sentences with different "
    "lengths*: the same pair of positions, built at L and at L/2, should be equally far apart; and, "
    "for a relative view, the distance should depend only on how far apart the positions are.\n"
    "3. *Its values should be bounded*: the largest value should not grow when the length doubles.\n"
    "4. *It must be deterministic*: building it twice gives the same bits.\n"
    "5. *It should generalize to longer sentences without any efforts*: does an encoding exist at all "
    "for positions beyond the length the scheme was built (or trained) for?"
)
relative = ", ".join(s.short_label for s in posenc.SCHEMES.values() if s.family == "bias")
query_read = " and ".join(f"{s.short_label}'s" for s in posenc.SCHEMES.values() if s.reads_query)
st.info(f"Each scheme uses its default options, except **{posenc.SCHEMES[c.scheme].label}** (chosen in "
        f"the sidebar), which uses the sidebar's options. Relative schemes ({relative}) add no vector "
        "per position: their rows measure b(Δ), the biases of every head at offset Δ = j − i, instead"
        + (f" ({query_read} for one fixed seeded unit query: their terms read the query too)." if query_read
           else "."), icon=":material/tune:")

def measured_or_error(key: str) -> properties.SchemeProperties | str:
    """The scheme's measurements under the current settings, or why it cannot be built."""
    options = c.options if key == c.scheme else tuple(posenc.SCHEMES[key].defaults().items())
    try:
        return compute.properties(key, c.length, c.d_model, c.base, options)
    except ValueError as err:  # e.g. RoPE needs an even number of rotated dimensions
        return str(err)


COST = {"rotary": 0, "absolute": 1, "bias": 2}  # the most expensive first, so the two threads end together
order = sorted(posenc.SCHEMES, key=lambda key: COST[posenc.SCHEMES[key].family])
with st.spinner("Measuring every scheme …"):  # two at a time: numpy releases the GIL (0.9 s → 0.55 s at the caps)
    results = dict(zip(order, compute.in_threads(measured_or_error, order)))
rows = [row(scheme.label, results[key]) for key, scheme in posenc.SCHEMES.items()]

verdict_columns = [column for column, field in COLUMNS.items() if field in VERDICTS]
with st.container(key=accessibility.WIDE_CELLS):  # its sentences keep a readable width on a phone, scrolled sideways
    st.table(pd.DataFrame(rows).set_index("scheme")[verdict_columns])  # wraps: readable on a projector
number = st.column_config.NumberColumn(format="%.4g")
st.subheader("Every measured number")
st.dataframe(
    pd.DataFrame(rows), hide_index=True, key="properties",
    column_config={column: number for column, field in COLUMNS.items() if field not in VERDICTS}
    | {"1 · sharing": st.column_config.NumberColumn(format="%d"),
       "5 · built for": st.column_config.NumberColumn(format="%d"),
       "5 · finite past it": st.column_config.NumberColumn(format="percent")},
)
st.caption(
    "How each number is measured. The encoding e(p) of position p is the table row p (absolute), "
    "or the all-ones vector rotated to p, R_p·(1, …, 1) (RoPE, as a query or key); for a relative "
    "scheme it is b(Δ), the biases of all heads at offset Δ. "
    f"**1** min ‖e(p) − e(q)‖ over p ≠ q among the first {properties.UNIQUE_POSITIONS} positions that have "
    "an encoding (exact: a float64 Gram screen, then the closest pairs recomputed directly), and how many "
    "of them share their encoding bit for bit with another; unique if > 1e-9. Relative schemes: every "
    f"offset −(L−1) … L−1 that is attended, exactly. **2** ‖e(p) − e(q)‖ for every pair among the first {properties.PAIR_POSITIONS} "
    "positions, computed directly, built at L and at L/2: the largest change, and the spread "
    "max − min over p of ‖e(p) − e(p+Δ)‖ for fixed Δ (largest over Δ). Relative: b(Δ) at L and L/2, "
    f"and the spread along each diagonal of the bias matrix at min(L, {properties.BIAS_MATRIX_LENGTH}). "
    f"**3** max |value| of every encoding (bias) at L and at 2L; ✔ if it grows less than "
    f"×{verdicts.STEADY_GROWTH}, ≈ below ×{verdicts.FAST_GROWTH}, ✘ from there. **4** the largest difference "
    "between two builds at L, and whether their bits are identical. **5** the share of positions "
    "(offsets) in [L_built, 2·L_built) with a finite encoding, where L_built is the learned table's "
    "size, RoPE's trained context L₀ (original_max_position_embeddings), or else L (every position "
    f"of [L, 2L) evaluated; past a table or L₀, at most {properties.PAST_SAMPLES} evenly spaced ones). "
    "Relative: offsets L ≤ |Δ| < 2L in the directions the scheme attends (a causal mask hides Δ > 0)."
)
