"""What the lab's reproduction tests accept: the shipped lines, or what another kind of CPU computes, recorded.

The lab trains deterministically (one thread, ``torch.use_deterministic_algorithms``): the same command and
seed print the same lines, bit for bit, on one machine and torch build. Another CPU's floating point can train
another model from the same seed. The shipped data (posenc/lab/data/) were made, and CI ran them bit for bit,
on the project's machines until 2026-11-27. On 2026-11-28 a machine of the same kind had an Intel Xeon with
AVX-512 and AMX (torch 2.13.0+cpu reports AVX512; MKL 2024.2): every shipped cell tried came out otherwise from
test length 9 on (copy, ALiBi, seed 1: exact match at 11 digits 0.575 shipped, 0.265 there), the same on two
runs, and none of ``ATEN_CPU_CAPABILITY=avx2``, ``MKL_CBWR=AVX2|AVX|AVX512|COMPATIBLE`` and
``ONEDNN_MAX_CPU_ISA=AVX2`` brought the shipped lines back. On 2026-12-01 a machine of the same kind had an AMD EPYC
(AVX2 and FMA, no AVX-512; torch reports AVX2): the same from test length 9 on (copy, ALiBi, seed 1: 0.975 shipped,
0.95 there at 9 digits), the same on two runs; ``MKL_CBWR=AVX2`` printed the same lines as no setting and
``MKL_CBWR=COMPATIBLE`` a third set.

So a reproduction test passes when the command prints the shipped lines, or the lines that a CPU kind recorded
here printed (their sha256): bit for bit against that kind's own numbers, so a change of the code still fails on
every kind. A kind not recorded fails, with how to record it. README ("The lab") says which machines the shipped
numbers are exact on.
"""

from __future__ import annotations

import hashlib

AVX512_AMX = "Intel Xeon with AVX-512 and AMX (torch 2.13.0+cpu: AVX512; MKL 2024.2), seen 2026-11-28"
EPYC_AVX2 = "AMD EPYC with AVX2 and FMA, no AVX-512 (torch 2.13.0+cpu: AVX2; MKL 2024.2), seen 2026-12-01"

# cell -> {CPU kind: sha256 of the command's lines joined by "\n"}
OTHER_KINDS: dict[str, dict[str, str]] = {
    "run copy alibi 1": {AVX512_AMX: "285738d9f9aa9ab109b07f209dab1adf872fdcb01e3c8408cbf5608f1e7600b2",
                         EPYC_AVX2: "348a5132e454a6564a8bfe7e276659635e7636983eab9e236361c5a376a285ef"},
    "run copy fire 2": {AVX512_AMX: "bc1ca37407a6d788cbcd9c766fe3cec4686d72eb3f2dcb01a57ab02796832362",
                        EPYC_AVX2: "4ec28e26e8bf42d29ef406fcda837aab2b3f8cfc5fcc28e507318b73eb26a63e"},
    "run selective_copy cope 1": {AVX512_AMX: "32ceb0719f6262a503a46e7ef1d0b6ab8060394d530b850c9034b82b6f007a38",
                                  EPYC_AVX2: "80e775b4c2d46db833d774eab9075976d849687c84edd9f248ac10730cc922db"},
    "extend reverse yarn 2 0 2": {AVX512_AMX: "56511e7e9790ff46c1508d143e62ce0427edd7a5523f0cf27729ecf5c81337a0",
                                  EPYC_AVX2: "e86cdd13a5a81155a1adb4a5f87910d96f6ee00e8766527687702ece0ee6b0ca"},
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
    EPYC_AVX2: {
        "accuracy": [(1, 1.0), (2, 1.0), (3, 1.0), (4, 1.0), (5, 0.98), (6, 0.995), (7, 0.995), (8, 0.895),
                     (9, 0.84), (10, 0.88), (11, 0.85), (12, 0.83), (13, 0.87), (14, 0.8), (15, 0.655),
                     (16, 0.685), (17, 0.625), (18, 0.56), (19, 0.535), (20, 0.505), (21, 0.555), (22, 0.535),
                     (23, 0.57), (24, 0.56), (25, 0.655), (26, 0.725), (27, 0.665), (28, 0.595), (29, 0.53),
                     (30, 0.51), (31, 0.295), (32, 0.205)],
        "sha256": "44d7b02de0627291823b392ad4757d56106ed735ff99f2c56406e19038154197",
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
