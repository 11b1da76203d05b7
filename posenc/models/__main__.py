"""``python -m posenc.models check CONFIG.json``: what is wrong with a config's positions (exit 1 on an error).

Prints one line per finding of :func:`posenc.models.check`, errors first, as ``severity  field: message``,
then a count; a file that cannot be read as a config prints why. Exit status: 1 when there is an error
(or the file cannot be read), 0 otherwise, so a CI job can run it on a checkpoint's config.
"""

from __future__ import annotations

import argparse
import sys

from posenc.models.check import check


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m posenc.models",
                                     description="Check a model's config.json for positional mistakes.")
    commands = parser.add_subparsers(dest="command", required=True)
    check_command = commands.add_parser("check", help="print the findings about CONFIG (exit 1 on an error)")
    check_command.add_argument("config", metavar="CONFIG", help="a config.json (or '-' to read it from stdin)")
    arguments = parser.parse_args(argv)
    source = sys.stdin.read() if arguments.config == "-" else arguments.config
    try:
        findings = check(source)
    except ValueError as error:
        print(f"error: {error}")
        return 1
    for finding in findings:
        print(f"{finding.severity:<8} {finding.field or '(config)'}: {finding.message}")
    errors = sum(f.severity == "error" for f in findings)
    warnings = sum(f.severity == "warning" for f in findings)
    print(f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}, "
          f"{len(findings) - errors - warnings} info.")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
