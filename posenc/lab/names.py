"""The names the lab accepts, and their checks: numpy-free and torch-free, shared by results and training."""

from __future__ import annotations

from posenc.checks import check_choice

TASKS: tuple[str, ...] = ("copy", "reverse", "selective_copy")
"""copy: the digits again, in order; reverse: the digits in reverse order; selective_copy: the non-zero digits in
order, then the zeros (the blanks) moved to the end (posenc.lab.tasks has the exact formats)."""

SCHEMES: tuple[str, ...] = ("sinusoidal", "learned", "nope", "rope", "xpos", "shaw", "t5", "alibi", "kerple",
                            "transformer_xl", "drope", "fire", "cope")
"""The ten keys of posenc.schemes.registry.SCHEMES, in its order, then DroPE (arXiv:2512.12167), then two learned
positions of the lab only (not in the registry): FIRE (arXiv:2310.04418) and CoPE (arXiv:2405.18719)."""

SCHEME_LABELS: dict[str, str] = {
    "sinusoidal": "Sinusoidal", "learned": "Learned", "nope": "NoPE", "rope": "RoPE", "xpos": "xPos",
    "shaw": "Shaw", "t5": "T5 bias", "alibi": "ALiBi", "kerple": "KERPLE", "transformer_xl": "Transformer-XL",
    "drope": "DroPE", "fire": "FIRE", "cope": "CoPE",
}

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
