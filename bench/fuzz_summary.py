"""Summarise long fuzz runs (tests/pages/test_fuzz_app.py with POSENC_FUZZ_LOG): links, page runs,
problems, and the AppTest time per page run (script time plus AppTest's own overhead: an upper
bound on the server time of the request).

    python bench/fuzz_summary.py fuzz1.jsonl fuzz2.jsonl
"""

import json
import sys

import numpy as np


def main(paths: list[str]) -> None:
    records = [json.loads(line) for path in paths for line in open(path, encoding="utf-8")]
    seconds = {}
    for record in records:
        for page, value in record["seconds"].items():
            seconds.setdefault(page, []).append(value)
    problems = [p for record in records for p in record["problems"]]
    every = np.concatenate([np.array(v) for v in seconds.values()]) if seconds else np.zeros(1)
    print(f"{len(records)} links, {every.size} page runs, {len(problems)} problems, "
          f"{int((every > 1.0).sum())} page runs over 1 s")
    print(f"{'page':28} {'runs':>6} {'p50 s':>7} {'p95 s':>7} {'max s':>7}")
    for page, values in sorted(seconds.items()):
        v = np.array(values)
        print(f"{page:28} {v.size:6d} {np.median(v):7.3f} {np.percentile(v, 95):7.3f} {v.max():7.3f}")
    for problem in problems[:20]:
        print("problem:", problem[:200])


if __name__ == "__main__":
    main(sys.argv[1:])
