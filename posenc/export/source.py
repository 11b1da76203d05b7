"""Take the code: one standalone .py file per scheme and setting (torch and the standard library only).

:func:`module_source` writes a file that defines the scheme's ``nn.Module`` with the current
settings and an ``output()`` that computes what the app shows: the table (absolute schemes),
the bias of every head by offset j − i (bias schemes; the module's ``forward`` builds the full
(heads, length, length) matrix from it) or RoPE's score q·k for q = k = (1, …, 1) by offset.
:func:`reference_output` is posenc's numpy value of the same; they agree to 1e-6 (tests run the
file in a fresh interpreter). Learned weights (learned table, Shaw's vectors, T5's scalars) are
numpy draws that torch cannot repeat, so the file carries them, base64-encoded float32.

What each scheme's file needs is its entry in :data:`EXPORTS`, keyed by the registry's key: its
template (:mod:`posenc.export.absolute`, :mod:`posenc.export.bias`, :mod:`posenc.export.rope`,
:mod:`posenc.export.xpos`), and where it differs from its family's, the constants the template adds to
the settings, what its ``output()`` is and posenc's value of it (:func:`export_of` fills the rest in).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from posenc.export.absolute import LEARNED, NOPE, SINUSOIDAL
from posenc.export.bias import ALIBI, KERPLE, SHAW, T5, TRANSFORMER_XL
from posenc.export.rope import ROPE, rope_frequency_code
from posenc.export.xpos import XPOS
from posenc.schemes.registry import get_scheme
from posenc.schemes.scheme import Scheme, Setting


def imports(body: str) -> str:
    """The import lines a file with this body needs: torch, and base64 / math / sys when used."""
    stdlib = [name for name in ("base64", "math") if f"{name}." in body] + ["sys"]
    return "".join(f"import {name}\n" for name in stdlib) + "\nimport torch\nfrom torch import nn\n"


MAIN = '''

if __name__ == "__main__":
    result = output()
    print(f"output(): shape {{tuple(result.shape)}}, dtype {{result.dtype}}")
    if len(sys.argv) > 1:
        torch.save(result, sys.argv[1])
'''.replace("{{", "{").replace("}}", "}")


WHAT = {"absolute": "the table PE[:length] (length × d_model)",
        "bias": "the bias of every head by offset j − i = −(length−1) … length−1 (heads × (2·length − 1))",
        "rotary": "the score q·k for q = k = (1, …, 1), the query at length − 1, the key at offset j − i"}
"""What ``output()`` is, by family (each scheme's own sentence is its entry's ``output``)."""
XPOS_OUTPUT = "the score q'·k' for q = k = (1, …, 1) by offset j − i = −(length−1) … length−1 (2·length − 1 values)"


def file_name(scheme: str) -> str:
    """posenc_<scheme>.py"""
    return f"posenc_{get_scheme(scheme).key}.py"


def _weights(array: np.ndarray) -> str:
    """The array as base64 of little-endian float32, in lines of 100 characters (a Python expression)."""
    text = base64.b64encode(np.ascontiguousarray(array, dtype="<f4").tobytes()).decode()
    lines = [text[i : i + 100] for i in range(0, len(text), 100)] or [""]
    return "(\n" + "\n".join(f"    {line!r}" for line in lines) + "\n)"


# The constants a template needs besides the settings, as Python source: (setting) -> {NAME: source}, the
# setting's options complete (the registry's defaults merged).

def _no_constants(setting: Setting) -> dict[str, str]:
    """The settings alone: the template needs nothing else."""
    return {}


def _learned_constants(setting: Setting) -> dict[str, str]:
    """WEIGHTS: the learned table's initial rows, all ``table_size`` of them."""
    from posenc.schemes.absolute import learned_absolute

    d_model, options = setting.d_model, setting.options
    size = int(options["table_size"])
    return {"WEIGHTS": _weights(learned_absolute(size, d_model, table_size=size, seed=options["seed"]))}


def _shaw_constants(setting: Setting) -> dict[str, str]:
    """WEIGHTS: Shaw's 2K + 1 vectors a_r; QUERY: the fixed query the app draws the bias with."""
    from posenc.schemes.shaw import shaw_embeddings, shaw_query

    d_model, options = setting.d_model, setting.options
    seed = options["seed"]
    return {"WEIGHTS": _weights(shaw_embeddings(options["max_relative_position"], d_model, seed=seed)),
            "QUERY": _weights(shaw_query(d_model, seed=seed))}


def _t5_constants(setting: Setting) -> dict[str, str]:
    """WEIGHTS: T5's learned scalar of every bucket and head."""
    from posenc.schemes.t5 import t5_bucket_values

    options = setting.options
    return {"WEIGHTS": _weights(t5_bucket_values(options["num_buckets"], options["num_heads"], seed=options["seed"]))}


def _transformer_xl_constants(setting: Setting) -> dict[str, str]:
    """U, V, WEIGHTS (W_R): Transformer-XL's parameters; QUERY: the fixed query the app draws the bias with."""
    from posenc.schemes.shaw import shaw_query
    from posenc.schemes.transformer_xl import transformer_xl_parameters

    d_model, options = setting.d_model, setting.options
    seed = options["seed"]
    u, v, w_r = transformer_xl_parameters(d_model, d_model, seed=seed)
    return {"U": _weights(u), "V": _weights(v), "WEIGHTS": _weights(w_r), "QUERY": _weights(shaw_query(d_model, seed=seed))}


def _kerple_constants(setting: Setting) -> dict[str, str]:
    """The settings alone, once r1 and r2 are inside the file's range (KerpleBias clamps them at 0.01)."""
    options = setting.options
    if min(options["r1"], options["r2"]) < 0.01:
        raise ValueError("The file's KerpleBias keeps r1 and r2 at 0.01 or more (as KERPLE's code); "
                         "use r1, r2 ≥ 0.01.")
    return {}


def _rope_constants(setting: Setting) -> dict[str, str]:
    """FREQUENCIES: the code of θ_i, or of the scaling's θ'_i (:func:`posenc.export.rope.rope_frequency_code`)."""
    length, d_model, base, options = setting.length, setting.d_model, setting.base, setting.options
    return {"FREQUENCIES": rope_frequency_code(length, d_model, base, options)}


# posenc's numpy value of output(): (entry, setting) -> float64 array.

def _table(entry: Scheme, setting: Setting) -> np.ndarray:
    """The table PE[:length], (length, d_model)."""
    return entry.table(setting.length, setting.d_model, setting.base, **setting.options)


def _learned_table(entry: Scheme, setting: Setting) -> np.ndarray:
    """The learned table's rows up to ``table_size`` (positions past it have none)."""
    return _table(entry, setting)[: int(setting.options["table_size"])]


def _bias_by_offset(entry: Scheme, setting: Setting) -> np.ndarray:
    """The bias of every head by offset j − i, (heads, 2·length − 1)."""
    return entry.offset_bias(setting.length, setting.d_model, setting.base, **setting.options)[1]


def _rope_score(entry: Scheme, setting: Setting) -> np.ndarray:
    """RoPE's score of ones vectors by offset j − i (:func:`posenc.schemes.rope.rotation.rope_score_curve`)."""
    from posenc.schemes.rope.entry import rope_keywords
    from posenc.schemes.rope.rotation import rope_score_curve

    return rope_score_curve(setting.length, setting.d_model, setting.base, **rope_keywords(dict(setting.options)))[1]


def _xpos_score(entry: Scheme, setting: Setting) -> np.ndarray:
    """xPos's score of ones vectors by offset j − i (:func:`posenc.schemes.xpos.xpos_score_curve`)."""
    from posenc.schemes.xpos import xpos_keywords, xpos_score_curve

    return xpos_score_curve(setting.length, setting.d_model, setting.base, **xpos_keywords(dict(setting.options)))[1]


# The full bias matrix from the file's module: (module, length, d_model) -> (heads, length, length) tensor.

def _forward_is_the_bias(module, length: int, d_model: int):
    """forward(length) is the bias itself."""
    return module(length)


def _shaw_forward_bias(module, length: int, d_model: int):
    """forward(length) gives Shaw's vectors a_clip(j − i), (length, length, d): the bias is q·a/√d."""
    return ((module(length).double() @ module.query.double()) / np.sqrt(d_model))[None]


@dataclass(frozen=True)
class Export:
    """What a scheme's standalone file is made of, stating what differs from its family's (None: the family's).

    ``template``: the file's code, ``str.format``-ed with the settings (LENGTH, D_MODEL, BASE and each
    option in capitals) and ``constants(setting)``; ``output``: what its ``output()`` returns, in words (by
    default the family's, :data:`WHAT`); ``reference(entry, setting)``: posenc's float64 value of that
    ``output()`` (by default the table, or the bias by offset); ``forward_bias(module, length, d_model)``: a
    bias scheme's full (heads, length, length) bias from its module's ``forward(length)`` (by default
    ``forward`` is the bias; None for the other families).
    """

    template: str
    output: str | None = None
    reference: Callable[[Scheme, Setting], np.ndarray] | None = None
    constants: Callable[[Setting], dict[str, str]] = _no_constants
    forward_bias: Callable[..., object] | None = None


_FAMILY_EXPORT = {"absolute": {"reference": _table, "forward_bias": None},
                  "bias": {"reference": _bias_by_offset, "forward_bias": _forward_is_the_bias},
                  "rotary": {"reference": None, "forward_bias": None}}

EXPORTS: dict[str, Export] = {
    "sinusoidal": Export(SINUSOIDAL),
    "learned": Export(LEARNED, reference=_learned_table, constants=_learned_constants),
    "nope": Export(NOPE),
    "rope": Export(ROPE, reference=_rope_score, constants=_rope_constants),
    "xpos": Export(XPOS, output=XPOS_OUTPUT, reference=_xpos_score),
    "shaw": Export(SHAW, constants=_shaw_constants, forward_bias=_shaw_forward_bias),
    "t5": Export(T5, constants=_t5_constants),
    "alibi": Export(ALIBI),
    "kerple": Export(KERPLE, constants=_kerple_constants),
    "transformer_xl": Export(TRANSFORMER_XL, constants=_transformer_xl_constants),
}
"""The export entry of every scheme, keyed by the registry's key (posenc.SCHEMES): its template (in the module
of its family) and what differs from its family's. tests/export checks that every key has one."""


def export_of(scheme: str) -> Export:
    """The scheme's export entry with its family's defaults filled in, or a ValueError naming what is missing."""
    entry = get_scheme(scheme)
    if entry.key not in EXPORTS:
        raise ValueError(f"The scheme {entry.key!r} has no export entry (posenc.export.source.EXPORTS).")
    own, family = EXPORTS[entry.key], _FAMILY_EXPORT[entry.family]
    reference = own.reference or family["reference"]
    if reference is None:
        raise ValueError(f"The scheme {entry.key!r}'s export entry has no reference: a {entry.family} scheme "
                         "states posenc's value of its output().")
    return Export(own.template, own.output or WHAT[entry.family], reference, own.constants,
                  own.forward_bias or family["forward_bias"])


def _constants(export: Export, setting: Setting) -> dict[str, str]:
    """The values substituted into the scheme's template, as Python source."""
    values = {"LENGTH": repr(int(setting.length)), "D_MODEL": repr(int(setting.d_model)),
              "BASE": repr(float(setting.base))}
    for name, value in setting.options.items():
        values[name.upper()] = repr(value)
    return values | export.constants(setting)


def module_source(scheme: str, length: int, d_model: int, base: float = 10000.0, **options: object) -> str:
    """The standalone .py file for ``scheme`` at these settings (validated by posenc first)."""
    entry = get_scheme(scheme)
    options = entry.defaults() | dict(options)
    reference_output(scheme, min(length, 2), d_model, base, **options)  # a ValueError for bad settings
    export = export_of(scheme)
    constants = _constants(export, Setting(length, d_model, base, options))
    settings = ", ".join(f"{k}={v}" for k, v in {"length": length, "d_model": d_model, "n": base, **options}.items())
    header = (f'"""{entry.label}, generated by posenc ({entry.paper}).\n\n'
              f"Settings: {settings}.\n"
              "Standalone: imports torch and the standard library only. `python " + file_name(scheme) +
              " [out.pt]` builds the\nmodule, prints the shape of output() and saves it with torch.save when "
              f"given a path.\noutput() is {export.output}.\n" + '"""\n')
    scalars = "\n".join(f"{name} = {constants[name]}" for name in ("LENGTH", "D_MODEL", "BASE"))
    body = export.template.format(**constants)
    module = re.search(r"^class (\w+)\(nn\.Module\)", body, re.MULTILINE).group(1)
    body += f"\n\n{module}.extra_repr = lambda self: {settings!r}  # print(module) states the settings\n"
    return header + imports(body) + "\n" + scalars + "\n" + body + MAIN


def reference_output(scheme: str, length: int, d_model: int, base: float = 10000.0, **options: object) -> np.ndarray:
    """posenc's numpy value of what the file's ``output()`` returns (float64); options default as in the app."""
    entry = get_scheme(scheme)
    options = entry.defaults() | dict(options)
    return export_of(scheme).reference(entry, Setting(length, d_model, base, options))


def load(source: str) -> dict:
    """Run a generated file's source as a module (not as __main__) and return its namespace."""
    namespace: dict = {"__name__": "posenc_exported"}
    exec(compile(source, "<posenc export>", "exec"), namespace)  # our own file: numbers and fixed choices only
    return namespace
