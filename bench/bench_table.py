"""How fast is ``posenc.sinusoidal`` against the usual ways of building the same table?

Run from the repository root:

    python bench/bench_table.py            # about 15 s on a 2-core CPU

It prints one table. Each row is the best of several timed runs (``timeit``, so the
garbage collector is off while timing) of:

- ``posenc.sinusoidal`` at 8192 x 4096 in float32, and the Annotated Transformer's torch
  construction of the same table (Rush et al., "The Annotated Transformer", the
  ``PositionalEncoding`` module; torch's default float32);
- the double Python loop of seed 001 (``getPositionEncoding``), re-implemented below as a
  baseline, against ``posenc.sinusoidal`` at 256 x 128 in float64 (the loop's dtype).

The last column is the largest absolute difference between each baseline and posenc,
both computed in float64, to show that the tables agree and the speed is not bought
with accuracy.
"""

from __future__ import annotations

import math
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere

import posenc  # noqa: E402

LARGE = (8192, 4096)  # (length, d_model)
SMALL = (256, 128)


def seed001_double_loop(seq_len: int, d: int, n: float = 10000.0) -> np.ndarray:
    """Baseline: seed 001's ``getPositionEncoding``, one element at a time (float64).

    P[k, 2i] = sin(k / n^(2i/d)),  P[k, 2i+1] = cos(k / n^(2i/d)).
    """
    table = np.zeros((seq_len, d))
    for k in range(seq_len):
        for i in np.arange(int(d / 2)):
            denominator = np.power(n, 2 * i / d)
            table[k, 2 * i] = np.sin(k / denominator)
            table[k, 2 * i + 1] = np.cos(k / denominator)
    return table


def annotated_transformer_torch(max_len: int, d_model: int, *, float64: bool = False) -> np.ndarray:
    """Baseline: the Annotated Transformer's ``PositionalEncoding`` table, built with torch.

    div_term = exp(2i · −ln(10000)/d_model); pe[:, 0::2] = sin(pos·div_term),
    pe[:, 1::2] = cos(pos·div_term). torch is imported here so the rest never needs it.
    """
    import torch

    dtype = torch.float64 if float64 else torch.float32
    pe = torch.zeros(max_len, d_model, dtype=dtype)
    position = torch.arange(0, max_len, dtype=dtype).unsqueeze(1)  # (max_len, 1)
    div_term = torch.exp(
        torch.arange(0, d_model, 2, dtype=dtype) * -(math.log(10000.0) / d_model)
    )  # (d_model/2,)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe.numpy()


def best_seconds(make: Callable[[], object], repeat: int) -> float:
    """Seconds per call: the fastest of ``repeat`` timings, each of enough calls for ~0.2 s."""
    timer = timeit.Timer(make)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=repeat, number=number)) / number


def max_abs_difference(a: np.ndarray, b: np.ndarray) -> float:
    """max |a − b| over the whole table, in float64."""
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))


def large_rows(repeat: int) -> list[tuple[str, tuple[int, int], str, float, float]]:
    """posenc and the torch construction at LARGE, float32: (what, size, dtype, s, diff)."""
    length, d_model = LARGE
    ours = best_seconds(lambda: posenc.sinusoidal(length, d_model, dtype=np.float32), repeat)
    theirs = best_seconds(lambda: annotated_transformer_torch(length, d_model), repeat)
    reference = posenc.sinusoidal(length, d_model, dtype=np.float64)
    diff = max_abs_difference(annotated_transformer_torch(length, d_model, float64=True), reference)
    return [
        ("posenc.sinusoidal", LARGE, "float32", ours, 0.0),
        ("Annotated Transformer (torch)", LARGE, "float32", theirs, diff),
    ]


def small_rows(repeat: int) -> list[tuple[str, tuple[int, int], str, float, float]]:
    """posenc and seed 001's double loop at SMALL, float64: (what, size, dtype, s, diff)."""
    length, d_model = SMALL
    ours = best_seconds(lambda: posenc.sinusoidal(length, d_model, dtype=np.float64), repeat)
    theirs = best_seconds(lambda: seed001_double_loop(length, d_model), repeat)
    diff = max_abs_difference(seed001_double_loop(length, d_model), posenc.sinusoidal(length, d_model))
    return [
        ("posenc.sinusoidal", SMALL, "float64", ours, 0.0),
        ("seed 001 double loop (numpy)", SMALL, "float64", theirs, diff),
    ]


def format_table(rows: list[tuple[str, tuple[int, int], str, float, float]]) -> str:
    """Rows as aligned text; the ratio is against the posenc row of the same size."""
    posenc_seconds = {size: s for what, size, _, s, _ in rows if what.startswith("posenc")}
    header = f"{'what':<30} {'size':>11} {'dtype':>7} {'seconds':>10} {'x posenc':>9} {'max|diff| f64':>14}"
    lines = [header, "-" * len(header)]
    for what, size, dtype, seconds, diff in rows:
        ratio = seconds / posenc_seconds[size]
        size_text = f"{size[0]}x{size[1]}"
        diff_text = "(reference)" if what.startswith("posenc") else f"{diff:.2e}"
        lines.append(
            f"{what:<30} {size_text:>11} {dtype:>7} {seconds:>10.3g} {ratio:>9.1f} {diff_text:>14}"
        )
    return "\n".join(lines)


def versions() -> str:
    """The versions the numbers were measured on (torch imported here, for its version)."""
    import torch

    return (
        f"python {sys.version.split()[0]}, numpy {np.__version__}, "
        f"torch {torch.__version__} ({torch.get_num_threads()} threads)"
    )


def main(repeat: int = 5) -> None:
    """Time every row and print the table with the versions it was measured on."""
    print(f"{versions()}; best of {repeat} repeats")
    print(format_table(large_rows(repeat) + small_rows(repeat)))


if __name__ == "__main__":
    main()
