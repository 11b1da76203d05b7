"""Random shared links through every page (hypothesis + AppTest): no exception, no error box,
no URL text rendered as Markdown.

CI draws POSENC_FUZZ_LINKS links (default 100) from a fixed seed; a long local run sets e.g.
``POSENC_FUZZ_LINKS=2000 python -m pytest tests/test_fuzz_app.py`` (README).
Failures found this way are pinned by name in tests/test_app_regressions.py.
"""

import os

from fuzz_links import describe, links, run_link
from hypothesis import HealthCheck, given, settings

LINKS = int(os.environ.get("POSENC_FUZZ_LINKS", "100"))


@settings(max_examples=LINKS, deadline=None, derandomize=True, database=None, print_blob=True,
          suppress_health_check=list(HealthCheck))
@given(links())
def test_every_page_survives_any_link(link):
    problems, _seconds = run_link(link)
    assert not problems, f"{describe(link)}\n" + "\n".join(problems)
