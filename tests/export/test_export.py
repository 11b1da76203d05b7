"""Take the code: each downloaded file runs in a fresh interpreter (torch only) and equals posenc to 1e-6."""

import ast
import subprocess
import sys

import numpy as np
import pytest

import posenc
from posenc.export import source as export
from posenc.schemes.rope.entry import rope_keywords

torch = pytest.importorskip("torch")

# One file per scheme, run as a script in its own interpreter (settings away from the defaults).
SCRIPTS = {
    "sinusoidal": (70, 30, 500.0, {"layout": "split", "spacing": "tensor2tensor"}),
    "learned": (40, 12, 10000.0, {"table_size": 32, "seed": 7}),
    "nope": (20, 5, 10000.0, {}),
    "rope": (90, 24, 10000.0, {"layout": "half", "rope_type": "yarn", "factor": 8.0,
                               "original_max_position_embeddings": 32}),
    "shaw": (60, 16, 10000.0, {"max_relative_position": 5, "seed": 3}),
    "t5": (300, 16, 10000.0, {"num_heads": 3, "num_buckets": 20, "max_distance": 50, "direction": "causal"}),
    "alibi": (50, 16, 10000.0, {"num_heads": 12, "direction": "causal"}),
    "kerple": (70, 16, 10000.0, {"r1": 2.5, "r2": 0.3, "variant": "log"}),
    "transformer_xl": (60, 16, 500.0, {"seed": 3}),
    "xpos": (70, 20, 500.0, {"scale_base": 64}),
}
# More settings, loaded in this interpreter (the same source text, executed as a module).
VARIANTS = [
    ("sinusoidal", 100, 7, 10000.0, {}),
    ("sinusoidal", 4096, 64, 10000.0, {}),
    ("rope", 64, 32, 10000.0, {"rope_type": "dynamic", "factor": 4.0, "original_max_position_embeddings": 16}),
    ("rope", 80, 64, 500000.0, {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 32}),
    ("rope", 40, 20, 10000.0, {"rotary_fraction": 0.5, "rope_type": "linear"}),
    ("rope", 40, 16, 10000.0, {"rope_type": "ntk"}),
    ("rope", 100, 32, 10000.0, {"rope_type": "longrope", "factor": 8.0, "original_max_position_embeddings": 64}),
    ("rope", 64, 32, 500.0, {"rope_type": "longrope", "original_max_position_embeddings": 64, "layout": "half",
                             "rotary_fraction": 0.5}),  # length ≤ L₀: the short factors
    ("rope", 90, 64, 1e6, {"rope_type": "proportional", "rotary_fraction": 0.25, "factor": 2.0}),
    ("rope", 70, 63, 10000.0, {"rope_type": "proportional", "rotary_fraction": 0.3, "layout": "half"}),
    ("xpos", 300, 64, 10000.0, {}),
    ("xpos", 128, 2, 1.0, {"scale_base": 16}),
    ("t5", 200, 8, 10000.0, {}),
    ("alibi", 30, 8, 10000.0, {"num_heads": 5}),
    ("learned", 600, 8, 10000.0, {"table_size": 512}),
    ("kerple", 300, 8, 10000.0, {"r1": 0.5, "r2": 1.7, "variant": "power"}),
    ("transformer_xl", 4096, 64, 10000.0, {"seed": 0}),
]


def same(actual: np.ndarray, expected: np.ndarray) -> None:
    assert actual.shape == expected.shape
    masked = np.isneginf(expected)
    assert np.array_equal(np.isneginf(actual), masked)
    np.testing.assert_allclose(actual[~masked], expected[~masked], rtol=0, atol=1e-6)


@pytest.mark.parametrize("scheme", list(SCRIPTS))
def test_downloaded_file_runs_alone_and_reproduces_posenc(scheme, tmp_path):
    length, d_model, base, options = SCRIPTS[scheme]
    path = tmp_path / export.file_name(scheme)
    path.write_text(export.module_source(scheme, length, d_model, base, **options))
    out = tmp_path / "out.pt"
    # -I: isolated (no user site, no PYTHONPATH, not the checkout): posenc cannot be imported.
    run = subprocess.run([sys.executable, "-I", str(path), str(out)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "output(): shape" in run.stdout
    same(torch.load(out).double().numpy(), export.reference_output(scheme, length, d_model, base, **options))


def test_every_scheme_has_one_export_entry():
    assert list(export.EXPORTS) == list(posenc.SCHEMES)  # complete, nothing extra (in the registry's order)
    assert all(export.export_of(key).output and export.export_of(key).reference for key in posenc.SCHEMES)


def test_a_rotation_states_its_reference(monkeypatch):
    monkeypatch.setitem(export.EXPORTS, "rope", export.Export(export.EXPORTS["rope"].template))
    with pytest.raises(ValueError, match="'rope'.s export entry has no reference"):
        export.export_of("rope")


def test_each_scheme_says_what_its_output_is():
    assert export.export_of("xpos").output != export.export_of("rope").output  # xPos's scores are damped by ζ^(Δ/γ)
    for scheme in export.EXPORTS:
        assert f"output() is {export.export_of(scheme).output}." in export.module_source(scheme, 20, 8, 10000.0)


@pytest.mark.parametrize("scheme", list(posenc.SCHEMES))
def test_files_import_only_torch_and_the_standard_library(scheme):
    tree = ast.parse(export.module_source(scheme, 20, 8, 10000.0))
    names = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    names |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert names <= {"torch", "base64", "math", "sys"} and "torch" in names


@pytest.mark.parametrize(("scheme", "length", "d_model", "base", "options"), VARIANTS)
def test_more_settings_reproduce_posenc(scheme, length, d_model, base, options):
    namespace = export.load(export.module_source(scheme, length, d_model, base, **options))
    same(namespace["output"]().detach().double().numpy(),
         export.reference_output(scheme, length, d_model, base, **options))


@pytest.mark.parametrize("scheme", ["alibi", "t5", "shaw", "kerple", "transformer_xl"])
def test_bias_modules_forward_is_the_full_bias_matrix(scheme):
    options = posenc.get_scheme(scheme).defaults() | ({"direction": "causal"} if scheme in ("alibi", "t5") else {})
    namespace = export.load(export.module_source(scheme, 40, 16, 10000.0, **options))
    module = next(v for k, v in namespace.items() if isinstance(v, type) and issubclass(v, torch.nn.Module))()
    full = posenc.get_scheme(scheme).bias(40, 16, 10000.0, **options)
    with torch.no_grad():  # Shaw's forward gives the vectors a_clip(j − i); its entry makes the bias q·a / √d
        same(export.export_of(scheme).forward_bias(module, 40, 16).double().numpy(), full)


def test_only_bias_schemes_have_a_forward_bias():
    assert {key for key in export.EXPORTS if export.export_of(key).forward_bias} == {
        key for key, scheme in posenc.SCHEMES.items() if scheme.family == "bias"}


@pytest.mark.parametrize("options", [
    {"layout": "half", "rotary_fraction": 0.5},
    {"layout": "half", "rope_type": "longrope", "original_max_position_embeddings": 20},  # 30 > L₀: long factors
    {"rope_type": "proportional", "rotary_fraction": 0.4, "factor": 3.0},
])
def test_rope_module_rotates_like_apply_rope(options):
    namespace = export.load(export.module_source("rope", 30, 12, 10000.0, **options))
    keywords = rope_keywords(posenc.get_scheme("rope").defaults() | options)
    x = np.random.default_rng(0).normal(size=(2, 30, 12))
    for length in (30, 10):  # longrope: 10 ≤ L₀, the short factors
        rotated = namespace["RotaryEmbedding"]()(torch.from_numpy(x[:, :length])).numpy()
        np.testing.assert_allclose(rotated, posenc.apply_rope(x[:, :length], None, 10000.0, **keywords), atol=1e-12)


def test_xpos_module_is_posencs_with_torchscales_interface():
    from posenc.modules import XPos

    namespace = export.load(export.module_source("xpos", 30, 12, 500.0, scale_base=32))
    x = torch.from_numpy(np.random.default_rng(0).normal(size=(2, 9, 12)))
    module = namespace["XPos"]()
    for offset, downscale in ((0, False), (21, True), (5, False)):
        expected = XPos(12, 32, base=500.0)(x, offset, downscale)
        torch.testing.assert_close(module(x, offset, downscale), expected, rtol=0, atol=1e-12)


def test_learned_file_refuses_positions_past_its_table():
    namespace = export.load(export.module_source("learned", 40, 4, 10000.0, table_size=8))
    with pytest.raises(ValueError, match="no row"):
        namespace["LearnedPositionalEmbedding"]()(torch.zeros(1, 9, 4))


def test_bad_settings_are_a_sentence_not_a_file():
    with pytest.raises(ValueError, match="split layout"):
        export.module_source("sinusoidal", 10, 7, 10000.0, layout="split")


@pytest.mark.parametrize("scheme", list(posenc.SCHEMES))
def test_a_downloaded_modules_repr_states_its_settings(scheme):
    namespace = export.load(export.module_source(scheme, 40, 16, 500.0))
    module = next(value for name, value in namespace.items()
                  if isinstance(value, type) and issubclass(value, torch.nn.Module) and value.__module__ == "posenc_exported")
    assert "length=40, d_model=16, n=500.0" in repr(module())  # built with the file's own defaults


def test_every_scheme_s_downloaded_file_is_run_alone():
    # SCRIPTS is kept by hand: a scheme added to the registry without a line there would have no file run alone
    assert sorted(SCRIPTS) == sorted(posenc.SCHEMES)
