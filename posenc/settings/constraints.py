"""The settings every scheme can take, and the nearest valid settings for any others.

The sidebar bounds each control on its own (d_model 2 … 1024, n 1 … 1e9, length 2 … 4096,
every option within its :class:`~posenc.schemes.scheme.Option` range). Some settings are invalid
only in combination; the library refuses them with a ValueError, and :func:`valid_settings`
corrects them first, so a page never computes with them:

- sinusoidal, layout "split": d_model must be even (d_model/2 sines, then d_model/2 cosines);
- rope: d_rot = int(d_model·rotary_fraction) must be even (pairs are rotated); "ntk" and
  "dynamic" raise the factor to d_rot/(d_rot − 2), so d_rot = 2 is refused; "yarn" divides
  by ln n, so n must be greater than 1; "longrope" needs an even d_rot like the others (its
  factor lists follow d_rot, its attention factor divides by ln L₀ ≥ ln 16); "proportional"
  (p-RoPE) takes every d_model and fraction (it rotates ⌊fraction·d_model/2⌋ pairs and leaves
  the rest, an odd last dimension included), so nothing is corrected for it;
- t5: max_distance must exceed the e exact buckets, e = (num_buckets // 2) // 2 when
  bidirectional, num_buckets // 2 when causal;
- transformer_xl: d_model must be even (R_Δ holds d_model/2 sines, then d_model/2 cosines);
- xpos: d_model must be even (every pair is rotated and scaled, as torchscale's XPOS);
- learned, nope, shaw, alibi, kerple: nothing beyond each control's own range.

Beyond the sidebar the library has its own bounds (posenc.checks): base in [1, 1e300], length
≤ 2^20, widths ≤ 2^16, heads and buckets ≤ 4096, at most 2^24 numbers per returned array, RoPE
factor ≤ 1e6; the sidebar's ranges are inside all of them.

Messages name the URL key of the setting (``d_model``, ``n``, ``length``, ``rope.factor``) and
show numbers and fixed names only: never text taken from the request.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import replace

from posenc.schemes.registry import SCHEMES, get_scheme
from posenc.schemes.scheme import Option, Setting
from posenc.settings.parsing import SHARED_CONTROLS

_SHARED = {o.name: o for o in SHARED_CONTROLS}  # d_model, n, length
_NEEDS_PAIRS = ("ntk", "dynamic")  # d_rot/(d_rot − 2): d_rot = 2 divides by zero
_ANY_WIDTH = ("proportional",)  # p-RoPE counts its own pairs, ⌊fraction·d_model/2⌋: no parity to keep


def _number(value: object) -> float | None:
    """``value`` as a finite-or-infinite float, or None when it is not a number (NaN included)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if not isinstance(value, numbers.Real):
        return None
    value = float(value)
    return None if math.isnan(value) else value


def _bounded(option: Option, key: str, value: object, messages: list[str]) -> int | float | str:
    """``value`` made valid for ``option`` alone: a known choice, a number in range, whole if needed."""
    if option.choices:
        if isinstance(value, str) and value in option.choices:
            return value
        messages.append(f"{key} must be one of {', '.join(option.choices)}; using {option.default}.")
        return option.default
    number = _number(value)
    if number is None:
        messages.append(f"{key} is not a number; using the default {option.default}.")
        return option.default
    whole = isinstance(option.default, int)
    clamped = min(max(number, option.minimum), option.maximum)
    if clamped != number:
        clamped = int(clamped) if whole else float(clamped)
        messages.append(f"{key}={number:g} is outside {option.minimum} … {option.maximum}; using {clamped}.")
        return clamped
    if whole and not number.is_integer():
        messages.append(f"{key}={number:g} must be a whole number; using {round(number)}.")
        return round(number)
    return int(number) if whole else number


def _nearest(start: int, low: int, high: int, ok) -> int:
    """The value in [low, high] nearest to ``start`` with ok(value); the smaller one on a tie."""
    for step in range(0, high - low + 1):
        for candidate in (start - step, start + step):
            if low <= candidate <= high and ok(candidate):
                return candidate
    raise ValueError(f"no valid value in {low} … {high}")  # unreachable for the registry's ranges


def fraction_for(d_rot: int, d_model: int) -> float:
    """The shortest decimal f in [0, 1] with int(d_model·f) = d_rot (what rotary_dims computes)."""
    for digits in range(1, 18):
        fraction = round(d_rot / d_model, digits)
        if 0.0 <= fraction <= 1.0 and int(d_model * fraction) == d_rot:
            return fraction
    fraction = d_rot / d_model
    while int(d_model * fraction) < d_rot:  # rounding of the product fell just below d_rot
        fraction = math.nextafter(fraction, 2.0)
    return fraction


def _fix_rope(setting: Setting, messages: list[str]) -> Setting:
    """Even d_rot (not 2 under ntk/dynamic; any under proportional); n > 1 under yarn."""
    rope_type, fraction = setting.options["rope_type"], float(setting.options["rotary_fraction"])
    d_model_option = _SHARED["d_model"]

    def ok(d_rot: int) -> bool:
        if rope_type in _ANY_WIDTH:
            return True
        return d_rot % 2 == 0 and not (rope_type in _NEEDS_PAIRS and d_rot == 2)

    d_model = setting.d_model
    if not ok(int(d_model * fraction)):
        why = ("an even number other than 2 (ntk and dynamic raise the factor to d_rot/(d_rot − 2))"
               if rope_type in _NEEDS_PAIRS else "even (RoPE rotates pairs of dimensions)")
        if fraction == 1.0:  # every dimension is rotated: the width itself must change
            new = _nearest(d_model, int(d_model_option.minimum), int(d_model_option.maximum), ok)
            messages.append(f"d_model={d_model}: the rotated dimensions d_model·rope.rotary_fraction must be "
                            f"{why}; using d_model={new}.")
            setting = replace(setting, d_model=new)
        else:
            d_rot = _nearest(int(d_model * fraction), 0, d_model, ok)
            new = fraction_for(d_rot, d_model)
            messages.append(f"rope.rotary_fraction={fraction:g} rotates int({d_model}·{fraction:g}) = "
                            f"{int(d_model * fraction)} dimensions, which must be {why}; "
                            f"using rope.rotary_fraction={new:g} ({d_rot} dimensions).")
            setting = replace(setting, options=dict(setting.options) | {"rotary_fraction": new})
    if rope_type == "yarn" and setting.base <= 1.0:
        messages.append(f"n={setting.base:g}: YaRN divides by ln n, so n must be greater than 1; using n=2.")
        setting = replace(setting, base=2.0)
    return setting


def _even_d_model(setting: Setting, messages: list[str], why: str) -> Setting:
    """An odd d_model becomes the nearest even one, with a message that says ``why`` pairs are needed."""
    if setting.d_model % 2 == 0:
        return setting
    new = _nearest(setting.d_model, 2, int(_SHARED["d_model"].maximum), lambda d: d % 2 == 0)
    messages.append(f"d_model={setting.d_model}: {why}, so d_model must be even; using d_model={new}.")
    return replace(setting, d_model=new)


def _fix_sinusoidal(setting: Setting, messages: list[str]) -> Setting:
    """The split layout needs an even d_model."""
    if setting.options["layout"] != "split":
        return setting
    return _even_d_model(setting, messages, "the split layout puts d_model/2 sines before d_model/2 cosines")


def _fix_t5(setting: Setting, messages: list[str]) -> Setting:
    """max_distance must exceed the exact buckets."""
    options = setting.options
    per_side = options["num_buckets"] if options["direction"] == "causal" else options["num_buckets"] // 2
    exact = per_side // 2
    if options["max_distance"] > exact:
        return setting
    messages.append(f"t5.max_distance={options['max_distance']} must be larger than the {exact} exact "
                    f"buckets of t5.num_buckets={options['num_buckets']} ({options['direction']}); "
                    f"using t5.max_distance={exact + 1}.")
    return replace(setting, options=dict(options) | {"max_distance": exact + 1})


def _fix_transformer_xl(setting: Setting, messages: list[str]) -> Setting:
    """R_Δ needs an even d_model."""
    return _even_d_model(setting, messages, "Transformer-XL's R_Δ holds d_model/2 sines, then d_model/2 cosines")


def _fix_xpos(setting: Setting, messages: list[str]) -> Setting:
    """xPos rotates and scales pairs: an even d_model."""
    return _even_d_model(setting, messages, "xPos rotates and scales pairs of dimensions")


def _no_fix(setting: Setting, messages: list[str]) -> Setting:
    """Every combination of the scheme's controls in their ranges is accepted."""
    return setting


FIXES = {"sinusoidal": _fix_sinusoidal, "rope": _fix_rope, "t5": _fix_t5, "transformer_xl": _fix_transformer_xl,
         "xpos": _fix_xpos}
"""registry key -> the corrections of the combinations a scheme refuses, for the schemes that refuse some:
fn(setting, messages) -> the corrected Setting, each change said in messages. A scheme that accepts every
combination of its controls in their ranges has no entry (:func:`_no_fix`); tests/settings checks every key
is the registry's."""


def valid_settings(scheme: str, length: object, d_model: object, base: object,
                   options: dict[str, object] | None = None, *, even_d_model: bool = False,
                   ) -> tuple[dict[str, object], list[str]]:
    """The nearest settings every callable of ``scheme`` accepts, and one message per change.

    Returns ({"length": int, "d_model": int, "base": float, "options": {name: value}}, messages).
    ``options`` holds the scheme's options by name (missing ones get their defaults, unknown ones
    are dropped); values may be numbers or strings, as from a URL. Each control is first brought
    into its own range (not a number: the default; outside: the nearest bound; a fraction for a
    whole number: rounded), then the combinations above are corrected. ``even_d_model=True`` also
    asks for an even d_model (a page that pairs dimensions, e.g. the sinusoidal rotation check).
    A scheme key that is not registered raises ValueError (the app checks it as a choice first).
    """
    entry = get_scheme(scheme)
    messages: list[str] = []
    settings = {
        "length": _bounded(_SHARED["length"], "length", length, messages),
        "d_model": _bounded(_SHARED["d_model"], "d_model", d_model, messages),
        "base": float(_bounded(_SHARED["n"], "n", base, messages)),
    }
    given = dict(options or {})
    unknown = [name for name in given if name not in {o.name for o in entry.options}]
    if unknown:
        messages.append(f"{len(unknown)} option(s) that {scheme} does not have were ignored.")
    chosen = {o.name: _bounded(o, f"{scheme}.{o.name}", given.get(o.name, o.default), messages)
              for o in entry.options}
    setting = Setting(settings["length"], settings["d_model"], settings["base"], chosen)
    if even_d_model:
        setting = _even_d_model(setting, messages, "this view pairs dimensions (sin, cos)")
    setting = FIXES.get(scheme, _no_fix)(setting, messages)
    return {"length": setting.length, "d_model": setting.d_model, "base": setting.base,
            "options": dict(setting.options)}, messages


def valid_for_all(length: object, d_model: object, base: object) -> tuple[dict[str, object], list[str]]:
    """Shared settings (length, d_model, base) that every scheme accepts with its default options.

    For pages that draw every scheme at once (comparison, properties). Returns
    ({"length", "d_model", "base"}, messages); today this means an even d_model (RoPE rotates
    every dimension by default).
    """
    messages: list[str] = []
    shared = {"length": length, "d_model": d_model, "base": base}
    for _ in range(3):  # a fixed point after one pass; the loop guards future constraints
        changed = False
        for key in SCHEMES:
            settings, found = valid_settings(key, shared["length"], shared["d_model"], shared["base"])
            new = {name: settings[name] for name in ("length", "d_model", "base")}
            if new != shared:
                changed = True
                messages += [m for m in found if m not in messages]
                shared = new
        if not changed:
            break
    return {"length": int(shared["length"]), "d_model": int(shared["d_model"]),
            "base": float(shared["base"])}, messages
