"""app.py's navigation as the tests read it: each page's URL path ('' for the default page) and its file."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _routes() -> dict[str, str]:
    routes = {}
    for stem, rest in re.findall(r'st\.Page\("pages/([a-z_]+)\.py"([^)]*)\)', (ROOT / "app.py").read_text()):
        url_path = re.search(r'url_path="([^"]*)"', rest)
        routes["" if "default=True" in rest else url_path.group(1) if url_path else stem] = f"pages/{stem}.py"
    return routes


ROUTES = _routes()
"""URL path -> page file, in navigation order."""


def page_paths() -> list[str]:
    """The URL path of every page in app.py's navigation ('' for the default page)."""
    return list(ROUTES)
