"""The README's two set-up commands against what runs them: CI's script (.ci/run) runs the README's test command,
word for word, so that a fresh machine set up from the README installs what CI installs (Debian's Chromium, HAProxy
and redis-server: without redis-server the tests of rooms in Redis skip)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    """The README's indented one-line commands of its set-up section, in order."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^    (\S.*)$", section, flags=re.MULTILINE)


def readme_test_command() -> str:
    return next(c for c in readme_commands() if "pytest" in c and "requirements-dev.txt" in c)


def test_ci_runs_the_readme_test_command_word_for_word():
    assert readme_test_command() in (ROOT / ".ci" / "run").read_text()


def test_the_readme_test_command_installs_every_debian_package_ci_installs():
    ci_packages = set(re.findall(r"apt-get install -y (\S+?)\)", (ROOT / ".ci" / "run").read_text()))
    assert ci_packages == {"chromium", "haproxy", "redis-server"}
    assert set(re.findall(r"apt-get install -y (\S+?)\)", readme_test_command())) == ci_packages


def test_the_readme_app_command_installs_the_requirements_and_starts_the_app():
    assert readme_commands()[0] == "pip install -r requirements.txt && streamlit run app.py"
