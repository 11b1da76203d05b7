"""posenc.lab.findings: a gap between two sets of seeds is a finding only when the sets do not overlap."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc.lab.findings import seeds_verdict

scores = st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=1, max_size=5)


def test_known_cases():
    assert seeds_verdict([0.6, 0.7, 0.8], [0.3, 0.5, 0.55]) is True
    assert seeds_verdict([0.4, 0.7, 0.9], [0.3, 0.5, 0.6]) is None  # copy: NoPE against ALiBi overlaps alike
    assert seeds_verdict([0.1, 0.2, 0.3], [0.3, 0.5, 0.6]) is False  # 0.3 ties 0.3: a tie does not beat
    assert seeds_verdict([0.895], [0.9], tolerance=0.01) is True  # matches, within the tolerance
    assert seeds_verdict([0.85, 0.95], [0.9], tolerance=0.01) is None
    assert seeds_verdict([0.8], [0.9], tolerance=0.01) is False
    with pytest.raises(ValueError, match="at least one seed"):
        seeds_verdict([], [0.5])


@given(scores, scores)
def test_a_finding_is_every_seed_against_every_seed(ours, theirs):
    verdict = seeds_verdict(ours, theirs)
    assert verdict is (True if min(ours) > max(theirs) else False if max(ours) <= min(theirs) else None)
    if verdict is True:
        assert seeds_verdict(theirs, ours) is False
    if verdict is not False:  # a tolerance only helps
        assert seeds_verdict(ours, theirs, 0.01) is not False
    if verdict is True:  # a finding agrees with the means (to their rounding: three equal seeds' mean is 1 ulp up)
        assert np.mean(ours) >= np.mean(theirs) - 1e-12
    elif verdict is False:
        assert np.mean(ours) <= np.mean(theirs) + 1e-12
