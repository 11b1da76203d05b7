"""Shared AppTest helpers: open the app from URL query values, go to a page, read its charts."""

import json
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGES = re.findall(r'st\.Page\("(pages/[a-z_]+\.py)"', (ROOT / "app.py").read_text())  # in navigation order


def run(query: dict | None = None, page: str | None = None, timeout: float = 60) -> AppTest:
    """The app run with these URL query values, then switched to `page`; fails on any exception."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()  # the first run is on the default page (AppTest cannot open another page first)
    if page:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def charts(at: AppTest) -> list[dict]:
    """Every plotly chart on the page as its JSON spec (arrays as base64 bdata: plotly_data.decode)."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def chart_messages(at: AppTest) -> dict[str, bytes]:
    """Every plotly chart's element as Streamlit sends it, by the chart's key: two equal ones are sent once, the
    second as a reference to the browser's copy (posenc/ui/presenter.py ``file_name``)."""
    return {chart.proto.id.split("-", 2)[-1]: chart.proto.SerializeToString(deterministic=True)
            for chart in at.get("plotly_chart")}


def title(spec: dict) -> str:
    """A chart's (or an animation frame's) title on one line: posenc/ui/presenter.py wraps it (``<br>``) to
    the width of a phone (posenc/figures/legible.py)."""
    return re.sub(r"<br\s*/?>", " ", spec["layout"]["title"]["text"])
