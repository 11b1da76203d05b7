"""``python -m posenc.lectures check [FILE…]``: every problem of each lecture file (the shipped ones when no
file is given), one line each; exit status 1 when there is one. ``python -m posenc.lectures list``: the
shipped lectures and their slides."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from posenc.lectures.check import problems
from posenc.lectures.lecture import FILES, LectureError, read


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m posenc.lectures", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="name every problem of lecture files")
    check.add_argument("files", nargs="*", type=Path, help="TOML files (default: the shipped lectures)")
    commands.add_parser("list", help="the shipped lectures and their slides")
    args = parser.parse_args(argv)
    files = sorted(FILES.glob("*.toml")) if args.command == "list" or not args.files else args.files
    found = 0
    for path in files:
        try:
            lecture = read(path)
        except LectureError as error:
            print(error)
            found += 1
            continue
        if args.command == "list":
            print(f"{lecture.name}: {lecture.title} ({len(lecture.slides)} slides)")
            for number, slide in enumerate(lecture.slides, start=1):
                print(f"  {number:2d}. {slide.title}  [{slide.link()}]")
            continue
        lines = problems(lecture)
        print("\n".join(lines) if lines else f"{path.name}: {len(lecture.slides)} slides, no problem")
        found += len(lines)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
