"""posenc as a package: installable with numpy alone, its layers as stated, torch and streamlit where they belong.

import-linter (``lint-imports``, configured in pyproject.toml) checks the layers and forbidden imports
in CI; these tests pin what it cannot see: where torch is imported at module level, that no name is
re-exported outside an ``__init__.py``, that no private name is imported from another module, and that ``pip install .`` in a fresh venv gives the library.
"""

import ast
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "posenc"
# the only modules that import torch when they are imported: the nn.Modules, and the lab's training side
TORCH_PARTS = ("posenc/modules/", "posenc/lab/tasks.py", "posenc/lab/model.py", "posenc/lab/schemes.py",
               "posenc/lab/train.py", "posenc/lab/extension_training.py", "posenc/lab/evaluate.py")


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def top_level_imports(path: Path) -> set[str]:
    """The root names of the modules imported by ``path`` when it is imported (not inside functions)."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_torch_is_imported_at_module_level_only_by_the_torch_parts():
    eager = {str(p.relative_to(ROOT)) for p in modules() if "torch" in top_level_imports(p)}
    assert eager and all(path.startswith(TORCH_PARTS) for path in eager), eager


def test_streamlit_is_imported_only_by_posenc_ui():
    importers = {str(p.relative_to(ROOT)) for p in modules()
                 if "streamlit" in {n.split(".")[0] for n in _all_imports(p)}}
    assert importers and all(path.startswith("posenc/ui/") for path in importers), importers


def _all_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_reexport_outside_init_files():
    """A name is imported from where it lives: no unused import kept (F401 silenced) to re-export it."""
    code = [p for p in [*ROOT.glob("*.py"), *ROOT.glob("pages/*.py"), *ROOT.glob("bench/*.py"),
                        *ROOT.glob("tests/**/*.py"), *modules()] if p.name != "__init__.py"]
    kept_unused = "noqa: " + "F401"  # spelled in two pieces so that this file does not match itself
    assert [str(p.relative_to(ROOT)) for p in code if kept_unused in p.read_text()] == []


def test_no_private_name_is_imported_across_modules():
    """A name another module needs is public where it lives (shared checks in posenc/checks.py): no
    ``from posenc.x import _name`` in the package, the pages or app.py."""
    code = [*ROOT.glob("*.py"), *ROOT.glob("pages/*.py"), *modules()]
    private = [f"{p.relative_to(ROOT)}:{node.lineno} {alias.name}" for p in code
               for node in ast.walk(ast.parse(p.read_text()))
               if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("posenc")
               for alias in node.names if alias.name.startswith("_")]
    assert private == []


def test_import_posenc_loads_neither_streamlit_nor_torch_nor_plotly():
    check = ("import sys, posenc; posenc.sinusoidal(8, 4); "
             "print(sorted({m.split('.')[0] for m in sys.modules} & {'streamlit', 'torch', 'plotly', 'pandas'}))")
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


@pytest.mark.skipif(os.environ.get("POSENC_SKIP_INSTALL") == "1", reason="POSENC_SKIP_INSTALL=1")
def test_pip_install_gives_the_library_with_numpy_alone(tmp_path):
    """``pip install .`` in a fresh venv (no system packages): posenc.sinusoidal(8, 4) works, and
    neither streamlit nor torch is installed or imported."""
    source = tmp_path / "source"  # a copy: building in place would leave build/ and *.egg-info in the checkout
    shutil.copytree(ROOT / "posenc", source / "posenc", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    venv.create(tmp_path / "venv", with_pip=True)
    python = str(tmp_path / "venv" / "bin" / "python")
    quiet = dict(capture_output=True, text=True, timeout=600)
    install = subprocess.run([python, "-m", "pip", "install", "--disable-pip-version-check", "--no-cache-dir",
                              str(source)], **quiet)
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-2000:]
    check = ("import importlib.util, sys, posenc; table = posenc.sinusoidal(8, 4); "
             "print(table.shape, float(table[1, 0]), "
             "[name for name in ('streamlit', 'torch', 'plotly') if importlib.util.find_spec(name)], "
             "sorted({m.split('.')[0] for m in sys.modules} & {'streamlit', 'torch'}))")
    result = subprocess.run([python, "-c", check], cwd=tmp_path, **quiet)  # not ROOT: the installed copy
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "(8, 4) 0.8414709848078965 [] []"
    where = subprocess.run([python, "-c", "import posenc; print(posenc.__file__)"], cwd=tmp_path, **quiet)
    assert "site-packages" in where.stdout
    shipped = ("from posenc.lab import shipped, extension; print([p.is_file() for p in (shipped.RESULTS_PATH, "
               "shipped.ATTENTION_PATH, extension.EXTENSION_PATH, extension.EXTENSION_ATTENTION_PATH)])")
    data = subprocess.run([python, "-c", shipped], cwd=tmp_path, **quiet)  # the lab's data folder is installed
    assert data.stdout.strip() == "[True, True, True, True]", data.stderr[-2000:]
    tables = ("from posenc.models import from_config; print(len(from_config({'model_type': 'llama'}).layer_types), "
              "from_config({'model_type': 'posenc_none', 'architectures': ['DeepseekV3ForCausalLM']})"
              ".positional('full_attention').options['layout'])")
    read = subprocess.run([python, "-c", tables], cwd=tmp_path, **quiet)  # models' data: class defaults, classes
    assert read.stdout.strip() == "32 interleaved", read.stderr[-2000:]
