"""A seeded random walk in a real browser, as a student clicking around (issue 38): every page, visited by
the sidebar's links and by the address bar; sliders moved by keys, numbers typed (valid and hostile: 1e309,
-1, nan, 0, huge, fractions, the field's bounds), selectboxes' options chosen, released models and "none"
picked in the sidebar's model picker and the controls under them moved, checkboxes toggled, expanders
opened ("Chart data" under the charts among them), tabs switched, multiselects emptied and added to.

After every action: no exception, no error box, no traceback. After every 6th action and every model pick,
the copied link opened in a new visitor's tab shows every control as the walk's page does (a chart's
"Chart data" expander is not in the URL: the walk closes it first). The driver: tests/helpers/random_walk.py.

Environment variables:
  POSENC_WALK_ACTIONS  the actions of the whole walk, shared by its parts (default 45, CI's; more for a
                       long local run, e.g. POSENC_WALK_ACTIONS=2000)
  POSENC_WALK_SEED     the seed (default 38); part p walks with seed "<POSENC_WALK_SEED>:<p>"
  POSENC_WALK_PARTS    the parts, each in a tab of its own (default 1)

CI walks one part of 45 actions, the fewest that must visit every page: the part "38:0" CI walked before
2026-12-06, when a second part of 45 ("38:1") took another 110-145 s of CI's 33 minutes. Each session's long walks
(300 actions, a new seed) go further.

A failure prints the part's seed, the action's number and every action so far; the same seed and
POSENC_WALK_ACTIONS replay the same walk, e.g.
  POSENC_WALK_SEED=7 POSENC_WALK_ACTIONS=1000 python -m pytest -p no:xdist -o addopts="" tests/browser/test_random_walk.py
"""

import os

import pytest

from live_app import require_chromium

pytestmark = pytest.mark.browser
require_chromium()

from posenc import models  # noqa: E402
from random_walk import Walk  # noqa: E402

ACTIONS = int(os.environ.get("POSENC_WALK_ACTIONS", "45"))
SEED = os.environ.get("POSENC_WALK_SEED", "38")
PARTS = int(os.environ.get("POSENC_WALK_PARTS", "1"))  # each walks every page, with its own seed and tab


@pytest.mark.parametrize("part", range(PARTS))
def test_a_random_walk_finds_no_error_and_every_link_reproduces(pages, app, part):
    count = ACTIONS // PARTS + (part < ACTIONS % PARTS)
    replay = (f"replay: POSENC_WALK_SEED={SEED} POSENC_WALK_ACTIONS={ACTIONS} POSENC_WALK_PARTS={PARTS} python -m pytest"
              f" -p no:xdist -o addopts='' 'tests/browser/test_random_walk.py::{test_a_random_walk_finds_no_error_and_every_link_reproduces.__name__}[{part}]'")
    walk = Walk(pages, app, f"{SEED}:{part}", models=models.names(), replay=replay)
    walk.run(count)
    assert walk.visited == set(walk.paths) or count < 45, (f"seed {walk.seed!r}: only {sorted(walk.visited)}",
                                                           walk.actions)
