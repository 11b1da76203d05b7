"""The names the lab accepts, and their checks: torch-free, shared by results and training."""

from __future__ import annotations

from posenc.checks import check_choice
from posenc.schemes.registry import SCHEMES as REGISTRY

TASKS: tuple[str, ...] = ("copy", "reverse", "selective_copy")
"""copy: the digits again, in order; reverse: the digits in reverse order; selective_copy: the non-zero digits in
order, then the zeros (the blanks) moved to the end (posenc.lab.tasks has the exact formats)."""

LAB_ONLY_SCHEMES: dict[str, str] = {"drope": "DroPE", "fire": "FIRE", "cope": "CoPE"}
"""The lab's schemes that are not in the registry, by key, with their labels: DroPE (arXiv:2512.12167), then
two learned positions, FIRE (arXiv:2310.04418) and CoPE (arXiv:2405.18719)."""

SCHEMES: tuple[str, ...] = (*REGISTRY, *LAB_ONLY_SCHEMES)
"""The keys of posenc.schemes.registry.SCHEMES, in its order, then the lab's own (:data:`LAB_ONLY_SCHEMES`)."""

SCHEME_LABELS: dict[str, str] = {key: scheme.short_label for key, scheme in REGISTRY.items()} | LAB_ONLY_SCHEMES
"""Each lab scheme's name on the charts: the registry entry's short label, or the lab's own."""

DIGITS = 10
SEP, BOS, PAD = 10, 11, 12
VOCAB = 13
TOKEN_NAMES: tuple[str, ...] = (*(str(d) for d in range(DIGITS)), "|", "^", "·")
"""How each token is shown: digits 0–9, "|" the separator, "^" the start (BOS), "·" the padding."""

SEEDS: tuple[int, ...] = (0, 1, 2)
"""The seeds of the shipped set."""


def check_task(task: object) -> str:
    """One of TASKS, or a ValueError listing them."""
    return check_choice(task, "task", TASKS)


def check_scheme(scheme: object) -> str:
    """One of SCHEMES, or a ValueError listing them."""
    return check_choice(scheme, "scheme", SCHEMES)
