"""Take the code: one standalone .py file per scheme and setting (torch and the standard library only).

:func:`module_source` writes a file that defines the scheme's ``nn.Module`` with the current
settings and an ``output()`` that computes what the app shows: the table (absolute schemes),
the bias of every head by offset j − i (bias schemes; the module's ``forward`` builds the full
(heads, length, length) matrix from it) or RoPE's score q·k for q = k = (1, …, 1) by offset.
:func:`reference_output` is posenc's numpy value of the same; they agree to 1e-6 (tests run the
file in a fresh interpreter). Learned weights (learned table, Shaw's vectors, T5's scalars) are
numpy draws that torch cannot repeat, so the file carries them, base64-encoded float32. The
templates of each family are in :mod:`posenc.export.absolute`, :mod:`posenc.export.bias` and
:mod:`posenc.export.rope` and :mod:`posenc.export.xpos`.
"""

from __future__ import annotations

import base64
import re

import numpy as np

from posenc.export.absolute import LEARNED, NOPE, SINUSOIDAL
from posenc.export.bias import ALIBI, KERPLE, SHAW, T5, TRANSFORMER_XL
from posenc.export.rope import ROPE, rope_frequency_code
from posenc.export.xpos import XPOS
from posenc.schemes.registry import get_scheme


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


TEMPLATES = {"sinusoidal": SINUSOIDAL, "learned": LEARNED, "nope": NOPE, "alibi": ALIBI, "t5": T5, "shaw": SHAW,
             "rope": ROPE, "kerple": KERPLE, "transformer_xl": TRANSFORMER_XL, "xpos": XPOS}


WHAT = {"absolute": "the table PE[:length] (length × d_model)",
        "bias": "the bias of every head by offset j − i = −(length−1) … length−1 (heads × (2·length − 1))",
        "rotary": "the score q·k for q = k = (1, …, 1), the query at length − 1, the key at offset j − i",
        "xpos": "the score q'·k' for q = k = (1, …, 1) by offset j − i = −(length−1) … length−1 (2·length − 1 values)"}


def file_name(scheme: str) -> str:
    """posenc_<scheme>.py"""
    return f"posenc_{get_scheme(scheme).key}.py"


def _weights(array: np.ndarray) -> str:
    """The array as base64 of little-endian float32, in lines of 100 characters (a Python expression)."""
    text = base64.b64encode(np.ascontiguousarray(array, dtype="<f4").tobytes()).decode()
    lines = [text[i : i + 100] for i in range(0, len(text), 100)] or [""]
    return "(\n" + "\n".join(f"    {line!r}" for line in lines) + "\n)"


def _constants(scheme: str, length: int, d_model: int, base: float, options: dict) -> dict[str, str]:
    """The values substituted into the scheme's template, as Python source."""
    from posenc.schemes.shaw import shaw_embeddings, shaw_query
    from posenc.schemes.t5 import t5_bucket_values

    values = {"LENGTH": repr(int(length)), "D_MODEL": repr(int(d_model)), "BASE": repr(float(base))}
    for name, value in options.items():
        values[name.upper()] = repr(value)
    if scheme == "learned":
        from posenc.schemes.absolute import learned_absolute

        size = int(options.get("table_size", 512))
        values["WEIGHTS"] = _weights(learned_absolute(size, d_model, table_size=size, seed=options.get("seed", 0)))
    elif scheme == "shaw":
        k, seed = options.get("max_relative_position", 16), options.get("seed", 0)
        values["WEIGHTS"] = _weights(shaw_embeddings(k, d_model, seed=seed))
        values["QUERY"] = _weights(shaw_query(d_model, seed=seed))
    elif scheme == "t5":
        values["WEIGHTS"] = _weights(t5_bucket_values(options.get("num_buckets", 32), options.get("num_heads", 8),
                                                      seed=options.get("seed", 0)))
    elif scheme == "transformer_xl":
        from posenc.schemes.transformer_xl import transformer_xl_parameters

        seed = options.get("seed", 0)
        u, v, w_r = transformer_xl_parameters(d_model, d_model, seed=seed)
        values.update(U=_weights(u), V=_weights(v), WEIGHTS=_weights(w_r), QUERY=_weights(shaw_query(d_model, seed=seed)))
    elif scheme == "kerple" and min(options.get("r1", 1.0), options.get("r2", 1.0)) < 0.01:
        raise ValueError("The file's KerpleBias keeps r1 and r2 at 0.01 or more (as KERPLE's code); "
                         "use r1, r2 ≥ 0.01.")
    elif scheme == "rope":
        values["FREQUENCIES"] = rope_frequency_code(length, d_model, base, options)
    return values


def module_source(scheme: str, length: int, d_model: int, base: float = 10000.0, **options: object) -> str:
    """The standalone .py file for ``scheme`` at these settings (validated by posenc first)."""
    entry = get_scheme(scheme)
    options = entry.defaults() | dict(options)
    reference_output(scheme, min(length, 2), d_model, base, **options)  # a ValueError for bad settings
    template = TEMPLATES[entry.key]
    constants = _constants(entry.key, length, d_model, base, options)
    settings = ", ".join(f"{k}={v}" for k, v in {"length": length, "d_model": d_model, "n": base, **options}.items())
    header = (f'"""{entry.label}, generated by posenc ({entry.paper}).\n\n'
              f"Settings: {settings}.\n"
              "Standalone: imports torch and the standard library only. `python " + file_name(scheme) +
              " [out.pt]` builds the\nmodule, prints the shape of output() and saves it with torch.save when "
              f"given a path.\noutput() is {WHAT.get(entry.key, WHAT[entry.family])}.\n" + '"""\n')
    scalars = "\n".join(f"{name} = {constants[name]}" for name in ("LENGTH", "D_MODEL", "BASE"))
    body = template.format(**constants)
    module = re.search(r"^class (\w+)\(nn\.Module\)", body, re.MULTILINE).group(1)
    body += f"\n\n{module}.extra_repr = lambda self: {settings!r}  # print(module) states the settings\n"
    return header + imports(body) + "\n" + scalars + "\n" + body + MAIN


def reference_output(scheme: str, length: int, d_model: int, base: float = 10000.0, **options: object) -> np.ndarray:
    """posenc's numpy value of what the file's ``output()`` returns (float64); options default as in the app."""
    entry = get_scheme(scheme)
    options = entry.defaults() | dict(options)
    if entry.family == "absolute":
        table = entry.table(length, d_model, base, **options)
        return table[: int(options.get("table_size", length))] if entry.key == "learned" else table
    if entry.family == "bias":
        return entry.offset_bias(length, d_model, base, **options)[1]
    if entry.key == "xpos":
        from posenc.schemes.xpos import xpos_keywords, xpos_score_curve

        return xpos_score_curve(length, d_model, base, **xpos_keywords(dict(options)))[1]
    from posenc.schemes.rope.entry import rope_keywords
    from posenc.schemes.rope.rotation import rope_score_curve

    return rope_score_curve(length, d_model, base, **rope_keywords(dict(options)))[1]


def load(source: str) -> dict:
    """Run a generated file's source as a module (not as __main__) and return its namespace."""
    namespace: dict = {"__name__": "posenc_exported"}
    exec(compile(source, "<posenc export>", "exec"), namespace)  # our own file: numbers and fixed choices only
    return namespace
