"""What the lab's reproduction tests accept: the shipped lines, or what another kind of CPU computes, recorded.

The lab trains deterministically (one thread, ``torch.use_deterministic_algorithms``): the same command and
seed print the same lines, bit for bit, on one machine and torch build. Another CPU's floating point can train
another model from the same seed. The shipped data (posenc/lab/data/) were made, and CI ran them bit for bit,
on the project's machines until 2026-11-27. On 2026-11-28 a machine of the same kind had an Intel Xeon with
AVX-512 and AMX (torch 2.13.0+cpu reports AVX512; MKL 2024.2): every shipped cell tried came out otherwise from
test length 9 on (copy, ALiBi, seed 1: exact match at 11 digits 0.575 shipped, 0.265 there), the same on two
runs, and none of ``ATEN_CPU_CAPABILITY=avx2``, ``MKL_CBWR=AVX2|AVX|AVX512|COMPATIBLE`` and
``ONEDNN_MAX_CPU_ISA=AVX2`` brought the shipped lines back.

So a reproduction test passes when the command prints the shipped lines, or the lines that a CPU kind recorded
here printed (their sha256): bit for bit against that kind's own numbers, so a change of the code still fails on
every kind. A kind not recorded fails, with how to record it. README ("The lab") says which machines the shipped
numbers are exact on.
"""

from __future__ import annotations

import hashlib

AVX512_AMX = "Intel Xeon with AVX-512 and AMX (torch 2.13.0+cpu: AVX512; MKL 2024.2), seen 2026-11-28"

# cell -> {CPU kind: sha256 of the command's lines joined by "\n"}
OTHER_KINDS: dict[str, dict[str, str]] = {
    "run copy alibi 1": {AVX512_AMX: "285738d9f9aa9ab109b07f209dab1adf872fdcb01e3c8408cbf5608f1e7600b2"},
    "run copy fire 2": {AVX512_AMX: "bc1ca37407a6d788cbcd9c766fe3cec4686d72eb3f2dcb01a57ab02796832362"},
    "run selective_copy cope 1": {AVX512_AMX: "32ceb0719f6262a503a46e7ef1d0b6ab8060394d530b850c9034b82b6f007a38"},
    "extend reverse yarn 2 0 2": {AVX512_AMX: "56511e7e9790ff46c1508d143e62ce0427edd7a5523f0cf27729ecf5c81337a0"},
}

# The extension maps' cell (copy, no method, x4, 200 steps, seed 0) on another kind: the stretched model's exact
# match at every test length (what extension.jsonl says on the shipped data's kind) and the sha256 of the maps
# written (every array's key and bytes, in key order).
OTHER_MAPS: dict[str, dict] = {
    AVX512_AMX: {
        "accuracy": [(1, 1.0), (2, 1.0), (3, 1.0), (4, 1.0), (5, 1.0), (6, 0.985), (7, 0.995), (8, 0.925),
                     (9, 0.845), (10, 0.91), (11, 0.865), (12, 0.84), (13, 0.79), (14, 0.895), (15, 0.745),
                     (16, 0.74), (17, 0.675), (18, 0.6), (19, 0.585), (20, 0.575), (21, 0.48), (22, 0.43),
                     (23, 0.485), (24, 0.61), (25, 0.57), (26, 0.705), (27, 0.695), (28, 0.7), (29, 0.58),
                     (30, 0.445), (31, 0.38), (32, 0.25)],
        "sha256": "da9e69839c0774742fa60743b23abf95b9f492a6a4a104080642c1680173fa38",
    },
}


def digest(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def assert_reproduces(cell: str, shipped: list[str], printed: list[str]) -> None:
    """The command printed the shipped lines, or exactly what a recorded CPU kind prints for ``cell``."""
    assert shipped, f"{cell}: no shipped lines"
    if printed == shipped:
        return
    found = digest(printed)
    kinds = [kind for kind, known in OTHER_KINDS.get(cell, {}).items() if known == found]
    assert kinds, (f"{cell}: the command printed other lines than the shipped ones and than every CPU kind recorded in "
                   f"tests/helpers/lab_machines.py (sha256 {found}). A change of the code, or a CPU kind not "
                   f"recorded: if the code did not change, record this kind's digest there.\nfirst difference: "
                   + next((f"{a!r} -> {b!r}" for a, b in zip(shipped, printed) if a != b), "(lengths differ)"))


def maps_digest(arrays) -> str:
    """sha256 of an .npz's arrays, every key and its bytes in key order."""
    h = hashlib.sha256()
    for key in sorted(arrays.files):
        h.update(key.encode())
        h.update(arrays[key].tobytes())
    return h.hexdigest()
