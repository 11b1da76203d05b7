"""Shared test settings: the hypothesis budget.

POSENC_FUZZ selects a profile: "ci" (default, fixed seed, a budget CI runs in seconds) or
"long" (a long local run: ``POSENC_FUZZ=long python -m pytest tests/test_library_*.py``).
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=60, derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=2000, derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("POSENC_FUZZ", "ci"))
