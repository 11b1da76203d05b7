"""One scheme, one entry: no code outside posenc/schemes/ branches on a scheme's name.

A layer that needs more of a scheme than the registry gives (its offset curve, its chart cells, its torch
attention, its precision variant, its export template, its How it works view) keeps a table keyed by the
scheme's key, checked complete by a test next to that layer's other tests. This test reads the source
(the AST, not the text): a comparison (``==``, ``!=``, ``in``, ``not in``) or a ``match`` case with a
scheme's key as one of its constants is a branch on that scheme and is refused, with the line named.
Tables (dict literals keyed by the schemes' keys) are what the rule asks for and are not comparisons.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import posenc
from posenc.lab.names import SCHEMES as LAB_SCHEMES

ROOT = Path(__file__).resolve().parents[1]
KEYS = frozenset(posenc.SCHEMES) | frozenset(LAB_SCHEMES)
"""Every scheme's key: the registry's and the lab's own (DroPE and the lab's learned schemes)."""

SOURCES = sorted(
    path.relative_to(ROOT).as_posix()
    for path in [ROOT / "app.py", *ROOT.glob("pages/*.py"), *ROOT.glob("posenc/**/*.py")]
    if "schemes" not in path.relative_to(ROOT).parts[:2]
)


def _names_in(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and n.value in KEYS]


def branches_on_names(source: str) -> list[tuple[int, str]]:
    """(line, code) of every comparison or match case that tests a scheme's key."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            if any(_names_in(operand) for operand in (node.left, *node.comparators)):
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.match_case) and _names_in(node.pattern):
            found.append((node.pattern.lineno, ast.unparse(node.pattern)))
    return found


def test_the_rule_sees_branches():
    code = 'if scheme == "rope": pass\nok = c.scheme in ("xpos", "t5")\nmatch s:\n    case "alibi": pass\n'
    assert [line for line, _ in branches_on_names(code)] == [1, 2, 4]
    assert branches_on_names('TABLE = {"rope": 1, "xpos": 2}\nfamily == "rotary"\nlayout == "split"\n') == []


def test_the_sources_are_found():
    assert "app.py" in SOURCES and "pages/details.py" in SOURCES and "posenc/lab/model.py" in SOURCES
    assert not any(path.startswith("posenc/schemes/") for path in SOURCES)


@pytest.mark.parametrize("path", SOURCES)
def test_no_branch_on_a_scheme_name(path):
    found = branches_on_names((ROOT / path).read_text(encoding="utf-8"))
    assert not found, f"{path} branches on a scheme's name; use its layer's table keyed by the scheme:\n" + "\n".join(
        f"  line {line}: {code}" for line, code in found)
