"""Pages that compute less still show the library's numbers: the comparison curves (closed forms,
no table) and the RoPE shift check (each rotation done once) against posenc's own functions."""

import numpy as np

import posenc
from apptest_helpers import charts, run
from plotly_data import decode, sent_series, xs


def test_comparison_curves_equal_the_registry_curves():
    at = run({"length": "300", "d_model": "64", "n": "500"}, "pages/compare.py")
    traces = charts(at)[0]["data"]
    assert [t["name"] for t in traces] == [s.label for s in posenc.SCHEMES.values()]
    for trace, scheme in zip(traces, posenc.SCHEMES.values()):
        offsets, values = scheme.offset_curve(300, 64, 500.0, **scheme.defaults())
        np.testing.assert_array_equal(xs(trace), offsets)
        np.testing.assert_array_equal(decode(trace["y"]), sent_series(trace, values))  # as sent


def test_rope_shift_check_scores_are_apply_rope_scores():
    at = run({"scheme": "rope", "length": "40", "d_model": "16", "query": "3", "key": "9"}, "pages/rotation.py")
    together, query_only = charts(at)[0]["data"]
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=16), rng.normal(size=16)
    shifts = np.arange(0, 40 - 9)
    want = [posenc.rope_scores(q, k, [3 + s], [9 + s], seq_len=40)[0, 0] for s in shifts]
    alone = [posenc.rope_scores(q, k, [3 + s], [9], seq_len=40)[0, 0] for s in shifts]
    np.testing.assert_allclose(decode(together["y"]), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(decode(query_only["y"]), alone, rtol=1e-12, atol=1e-12)
