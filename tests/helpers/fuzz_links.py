"""Random shared links for the app, and what every page must do with them.

A link is a dict ``key -> value or [values]`` over every query parameter the app reads:
the shared controls, every scheme's options (``rope.factor``, ``t5.num_buckets`` …) and every
page control. Values are valid, at the boundaries, or hostile (NaN, ±inf, huge, negative,
fractions, Unicode digits, empty, 10,000 characters, Markdown, HTML, repeated keys).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from hypothesis import strategies as st
from streamlit import config
from streamlit.testing.v1 import AppTest

import posenc
from posenc.figures.palettes import PALETTES
from posenc.lab import extension
from posenc.lab.names import SCHEMES as SCHEMES_OF_THE_LAB
from posenc.lab.names import TASKS as LAB_TASKS
from posenc.settings.parsing import SHARED_CONTROLS

config.set_option("client.showErrorDetails", "full")  # the tests see what a reader would not
ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGES = re.findall(r'st\.Page\("(pages/[a-z_]+\.py)"', (ROOT / "app.py").read_text())

LAB_SCHEMES = SCHEMES_OF_THE_LAB  # the registry's ten, DroPE, FIRE and CoPE
# Whole-number page controls (key -> a plausible valid range); lists are repeated keys.
PAGE_NUMBERS = {"pos": (0, 4095), "k": (-4095, 4095), "head": (1, 64), "query": (0, 4095), "key": (0, 4095),
                "shift": (0, 4095), "rope_m": (0, 4095), "rope_n": (0, 4095), "step": (1, 9), "i": (0, 511),
                "offset": (0, 4095), "window.pos": (0, 4095), "window.dim": (0, 1023),
                "grid_h": (1, 32), "grid_w": (1, 32), "frames": (1, 4), "patch_row": (0, 31), "patch_col": (0, 31),
                "map_layer": (1, 3), "stretch_map_layer": (1, 3), "own_layer": (1, 3), "own_length": (2, 10), "own_steps": (100, 1500),
                "own_seed": (0, 9999), "slide": (1, 12)}
PAGE_LISTS = {"dims": (0, 1023), "positions": (0, 4095), "pairs": (0, 511), "rope_pairs": (0, 511)}
PAGE_CHOICES = {"send_all": ("true", "false"), "present": ("true", "false"), "palette": tuple(PALETTES), "module": ("true", "false"),
                "download": ("true", "false"),
                "view": ("whole", "window"), "matrix": ("Table", "Similarity"),
                "curves": ("Against position", "Against dimension", "Wavelengths"),
                "dtype": ("float32", "float16", "bfloat16"), "task": LAB_TASKS,
                "stretch_factor": tuple(map(str, extension.FACTORS)), "stretch_steps": tuple(map(str, extension.FINETUNE_STEPS)),
                "stretch_map_method": tuple(extension.METHODS),
                "map_scheme": LAB_SCHEMES, "own_scheme": LAB_SCHEMES, "lab_table": ("true", "false"),
                "lecture": ("sinusoidal", "rope-to-128k"), "model": ("none", *posenc.models.names(), "config"), "notes": ("true", "false"), "qr": ("true", "false"),
                "room": ("ACDEF", "34679", "acdef", "0O1IL", "ACDEFG")}  # lecture rooms: none of them open
# Name lists (repeated keys): the Length generalization page's curves.
PAGE_NAMES = {"lab_schemes": LAB_SCHEMES, "stretch_methods": tuple(extension.METHODS)}

HOSTILE = (
    "nan", "NaN", "inf", "-inf", "1e400", "-1e400", "-0", "0x10", "1_000", "١٢٨", "６４", "", " ", "\t",
    "9" * 400, "x" * 10_000, "[Log in again](https://evil.example)", "![i](https://evil.example/i.png)",
    "**bold**", "_it_", ":red[red]", ":material/warning:", "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>", "$x^2$", "`code`", "a\n\n# heading", "https://evil.example",
    "<https://evil.example>", "\\", "\x00", "‮", "true", "None", "[]", "{}",
)
# Raw text that would render as something if it were not escaped: it must appear only inside code spans.
ACTIVE = re.compile(r"[\[\]()<>*_:$`#!\\~|]|https?://")


def _numbers(low: float, high: float, whole: bool):
    span = high - low
    special = [low, high, low - 1, high + 1, -1, 0, 2 * high + 7]
    values = st.integers(int(low) - 3, int(high) + 3) if whole else st.floats(low - 1, high * 2, allow_nan=False)
    fractions = st.floats(low, high, allow_nan=False).map(lambda v: v + 0.5 if whole else v)
    huge = st.floats(-1e300, 1e300, allow_nan=False) if span else st.just(0)
    return st.one_of(values, st.sampled_from(special), fractions, huge).map(
        lambda v: str(int(v)) if whole and float(v).is_integer() else repr(v))


def _value(low=None, high=None, whole=True, choices=()):
    valid = st.sampled_from(choices) if choices else _numbers(low, high, whole)
    hostile = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=20))
    single = st.one_of(valid, valid, valid, hostile)
    return st.one_of(single, single, single, st.lists(single, min_size=2, max_size=3))


def _universe() -> dict:
    strategies = {}
    for option in SHARED_CONTROLS:
        strategies[option.name] = _value(option.minimum, option.maximum, isinstance(option.default, int))
    strategies["scheme"] = _value(choices=tuple(posenc.SCHEMES))
    for key, scheme in posenc.SCHEMES.items():
        for o in scheme.options:
            strategies[f"{key}.{o.name}"] = _value(o.minimum, o.maximum, isinstance(o.default, int), o.choices)
    for key, (low, high) in PAGE_NUMBERS.items():
        strategies[key] = _value(low, high)
    for key, (low, high) in PAGE_LISTS.items():
        strategies[key] = st.lists(st.one_of(_numbers(low, high, True), st.sampled_from(HOSTILE)), max_size=10)
    for key, choices in PAGE_CHOICES.items():
        strategies[key] = _value(choices=choices)
    for key, names in PAGE_NAMES.items():
        strategies[key] = st.lists(st.one_of(st.sampled_from(names), st.sampled_from(HOSTILE)), max_size=12)
    return strategies


def _config_links():
    """``?config=``: the link form of a real config (tests/models/configs) or of a kind posenc reads
    (family_configs.py), one with a character changed, one cut,
    or hostile text (posenc/ui/your_config.py)."""
    from family_configs import ABSOLUTE_CONFIGS, BOTH_WAYS_CONFIGS, ROTARY_CONFIGS
    from posenc.models.config_link import to_link

    forms = [to_link(path.read_text()) for path in sorted((ROOT / "tests" / "models" / "configs").glob("*.json"))]
    forms += [to_link(config) for config in (ABSOLUTE_CONFIGS | BOTH_WAYS_CONFIGS | ROTARY_CONFIGS).values()]
    changed = st.tuples(st.sampled_from(forms), st.integers(0, 2000), st.characters(codec="ascii")).map(
        lambda t: t[0][:t[1] % len(t[0])] + t[2] + t[0][t[1] % len(t[0]) + 1:])
    cut = st.tuples(st.sampled_from(forms), st.integers(1, 400)).map(lambda t: t[0][:t[1]])
    single = st.one_of(st.sampled_from(forms), st.sampled_from(forms), changed, cut, st.sampled_from(HOSTILE))
    return st.one_of(single, single, single, st.lists(single, min_size=2, max_size=3))


UNIVERSE = _universe() | {"config": _config_links()}


SHARED_KEYS = ("d_model", "n", "length")
PAGE_KEYS = tuple(sorted(set(UNIVERSE) - set(SHARED_KEYS) - {"scheme"} - {k for k in UNIVERSE if "." in k}))


def _model_controls() -> dict[str, tuple[str, ...]]:
    """Each released model's key -> the URL keys of every control the model sets (posenc/ui/model_picker.py)."""
    from posenc.ui.model_picker import preset

    return {name: tuple(preset(name)[0]) for name in posenc.models.names()}


MODEL_CONTROLS = _model_controls()


@st.composite
def links(draw) -> dict:
    """A link: the scheme most often, each shared control half the time, the scheme's own options
    half the time each, and a few other keys (page controls, other schemes' options). One link in three
    names a released model with each control the model sets half the time (a student moved it, then shared)."""
    if draw(st.integers(0, 2)) == 0:
        return draw(model_links())
    keys = [key for key in SHARED_KEYS if draw(st.booleans())]
    keys += ["scheme"] if draw(st.integers(0, 3)) else []
    keys += draw(st.lists(st.sampled_from(PAGE_KEYS), max_size=4, unique=True))
    keys += draw(st.lists(st.sampled_from(sorted(k for k in UNIVERSE if "." in k)), max_size=2, unique=True))
    link = {key: draw(UNIVERSE[key]) for key in dict.fromkeys(keys)}
    scheme = link.get("scheme")
    if isinstance(scheme, str) and scheme in posenc.SCHEMES:
        for o in posenc.SCHEMES[scheme].options:
            if draw(st.booleans()):
                link[f"{scheme}.{o.name}"] = draw(UNIVERSE[f"{scheme}.{o.name}"])
    return {k: v for k, v in link.items() if v != []}


@st.composite
def model_links(draw) -> dict:
    """``model=`` with every control that model sets drawn half the time each (valid, at the bounds or hostile),
    and a page control or two."""
    model = draw(st.sampled_from(sorted(MODEL_CONTROLS) + ["config"]))
    link = {"model": model}
    if model == "config":  # the reader's own config.json, carried by the link (posenc/ui/your_config.py)
        link["config"] = draw(UNIVERSE["config"])
        model = draw(st.sampled_from(sorted(MODEL_CONTROLS)))  # the controls a config sets are a preset's
    link |= {key: draw(UNIVERSE[key]) for key in MODEL_CONTROLS[model] if draw(st.booleans())}
    link |= {key: draw(UNIVERSE[key]) for key in draw(st.lists(st.sampled_from(PAGE_KEYS), max_size=2, unique=True))
             if key != "model"}
    return {k: v for k, v in link.items() if v != []}


def _markdown_of(at: AppTest) -> list[str]:
    """Every Markdown body on the page: warnings, infos, errors, markdown, captions."""
    bodies = []
    for kind in ("warning", "info", "error", "success", "markdown", "caption"):
        bodies += [element.value for element in at.get(kind)]
    bodies += [element.proto.label for element in at.get("metric")]
    return [b for b in bodies if isinstance(b, str)]


_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", re.S)


def outside_code(markdown: str) -> str:
    return _CODE_SPAN.sub("", markdown)


def rendered_url_text(at: AppTest, link: dict) -> list[str]:
    """Raw URL values with active Markdown/HTML characters that appear outside a code span."""
    raw = [v for value in link.values() for v in (value if isinstance(value, list) else [value])]
    active = [v for v in raw if len(v) >= 3 and ACTIVE.search(v)]
    found = []
    for body in _markdown_of(at):
        plain = outside_code(body)
        found += [v for v in active if v[:40] in plain]
    return found


def check_page(at: AppTest, link: dict, page: str) -> list[str]:
    """What is wrong with the page as drawn: exceptions, error boxes, rendered URL text."""
    problems = [f"{page}: exception {e.value}" for e in at.exception]
    problems += [f"{page}: error box {e.value}" for e in at.error]
    problems += [f"{page}: URL text rendered: {v[:60]!r}" for v in rendered_url_text(at, link)]
    if not at.get("title") and not at.exception:
        problems.append(f"{page}: no title")
    return problems


def open_page(link: dict, page: str, timeout: float = 60) -> AppTest:
    """``page`` opened from ``link`` as a browser would open a shared deep link."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in link.items():
        at.query_params[key] = value
    return at.switch_page(page).run()


def run_link(link: dict, pages=None) -> tuple[list[str], dict[str, float]]:
    """Open ``link`` on every page in turn; (problems, seconds per page)."""
    problems, seconds = [], {}
    for page in pages or PAGES:
        start = time.perf_counter()
        at = open_page(link, page)
        seconds[page] = time.perf_counter() - start
        problems += check_page(at, link, page)
    return problems, seconds


def describe(link: dict) -> str:
    return json.dumps(link, ensure_ascii=True)[:400]
