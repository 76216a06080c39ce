"""The package layout: one import package, layers that import one way, claim files named after their
ids, records without splats, modules of readable length, and installs that work from anywhere."""

import ast
import os
import re
import shutil
import site
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {"cells": 0, "analysis": 1, "bounds": 2, "figures": 3}  # the user's folders, bottom to top
#: imported by any layer: they import nothing else of rnnaudit
LEAVES = ("rnnaudit.tasks", "rnnaudit.atomic", "rnnaudit.untrusted", "rnnaudit.limits", "rnnaudit.names",
          "rnnaudit.outputs", "rnnaudit.provenance", "rnnaudit.progress")


def _modules(folder: str):
    return sorted((ROOT / folder).rglob("*.py"))


def _rnnaudit_imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out += [a.name for a in node.names]
    return [m for m in out if m == "rnnaudit" or m.startswith("rnnaudit.")]


def _run(code: str, cwd: Path, python: str = sys.executable) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([python, "-c", code], cwd=cwd, capture_output=True, text=True, env=env, timeout=300)


def test_layers_import_one_way():
    """cells ← analysis ← bounds ← figures ← the application layer; the leaves import no layer."""
    bad = []
    for folder, rank in LAYERS.items():
        for path in _modules(folder):
            for module in _rnnaudit_imports(path):
                if module.startswith(LEAVES):
                    continue
                parts = module.split(".")
                target = parts[1] if len(parts) > 1 else "rnnaudit"
                if target not in LAYERS or LAYERS[target] > rank:
                    bad.append(f"{path.relative_to(ROOT)} imports {module}")
    for leaf in ("rnnaudit/tasks", "rnnaudit/atomic.py", "rnnaudit/untrusted.py", "rnnaudit/limits.py",
                 "rnnaudit/names.py", "rnnaudit/outputs.py", "rnnaudit/provenance.py", "rnnaudit/progress.py"):
        paths = _modules(leaf) if (ROOT / leaf).is_dir() else [ROOT / leaf]
        for path in paths:
            bad += [f"{path.relative_to(ROOT)} imports {m}" for m in _rnnaudit_imports(path)
                    if not m.startswith(LEAVES)]
    assert bad == []


def test_bounds_core_imports_nothing_else_of_bounds():
    assert [m for m in _rnnaudit_imports(ROOT / "bounds" / "core.py") if m.startswith("rnnaudit.bounds")] == []


def test_every_claim_lives_in_the_file_its_id_names():
    from rnnaudit.bounds import all_claims

    for claim in all_claims():
        paper, label = claim.id.split(".", 1)
        label = label.removesuffix(".corrected").replace(".", "_")
        path = ROOT / "bounds" / paper / f"{label}.py"
        assert path.is_file(), f"{claim.id}: no {path.relative_to(ROOT)}"
        assert f'id="{claim.id}"' in path.read_text(), f"{claim.id} is not defined in {path.relative_to(ROOT)}"


def test_claim_records_have_no_splats_and_spell_out_their_fields():
    required = {"id", "source", "statement", "assumptions", "measure", "bound", "evaluate", "cases"}
    for path in _modules("bounds"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Claim":
                names = [k.arg for k in node.keywords]
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                assert None not in names, f"{where}: ** splat in a Claim record"
                assert required <= set(names), f"{where}: missing {required - set(names)}"


def test_no_bounds_module_is_longer_than_about_400_lines():
    long = {str(p.relative_to(ROOT)): n for p in _modules("bounds") if (n := len(p.read_text().splitlines())) > 420}
    assert long == {}


def test_every_package_folder_is_listed_for_installation():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed, dirs = set(config["packages"]), config["package-dir"]
    found = set()
    for folder in ("rnnaudit", *LAYERS):
        base = "rnnaudit" if folder == "rnnaudit" else f"rnnaudit.{folder}"
        assert folder == "rnnaudit" or dirs[base] == folder
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([base, *rel.parts]))
    assert found == listed


def test_import_rnnaudit_loads_neither_torch_nor_matplotlib(tmp_path):
    result = _run("import sys, rnnaudit; assert 'torch' not in sys.modules and 'matplotlib' not in sys.modules, "
                  "sorted(m for m in sys.modules if m.startswith(('torch', 'matplotlib'))); "
                  "rnnaudit.check_claim; rnnaudit.hidden_jacobian_maps; rnnaudit.audit_checkpoint; "
                  "assert 'matplotlib' not in sys.modules; print(rnnaudit.__version__)", tmp_path)
    assert result.returncode == 0, result.stderr


@pytest.mark.slow
def test_stray_modules_named_like_our_folders_change_nothing(tmp_path):
    """Research code often has its own analysis.py or figures.py beside it: they must not shadow ours."""
    for name in ("analysis", "cells", "bounds", "figures", "training", "tasks"):
        (tmp_path / f"{name}.py").write_text("raise ImportError('the user’s own module was imported')\n")
    result = _run("import rnnaudit; from rnnaudit.bounds.sgornn import theorem2; import rnnaudit.cli, "
                  "rnnaudit.figures, rnnaudit.training, rnnaudit.auditing; print(theorem2.id)", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "sgornn.theorem2"


def test_no_generic_top_level_module_is_installed(tmp_path):
    result = _run("import analysis", tmp_path)
    assert result.returncode != 0 and "No module named 'analysis'" in result.stderr


@pytest.mark.slow
def test_a_built_wheel_installs_and_imports_from_anywhere(tmp_path):
    """``pip wheel .`` then a regular (non-editable) install into a fresh virtual environment."""
    dist, venv, src = tmp_path / "dist", tmp_path / "venv", tmp_path / "src"
    # build from a copy: setuptools writes build/ and *.egg-info beside the sources it builds
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info",
                                                             "__pycache__", ".hypothesis", ".pytest_cache",
                                                             "audit-report", "runs"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                            str(dist), str(src)], capture_output=True, text=True, timeout=600)
    if "invalid command 'bdist_wheel'" in built.stderr:  # a setuptools older than 70 without the wheel package
        pytest.skip("this environment's setuptools cannot build wheels without the 'wheel' package")
    assert built.returncode == 0, built.stderr
    (wheel,) = dist.glob("rnnaudit-*.whl")
    names = subprocess.run([sys.executable, "-m", "zipfile", "-l", str(wheel)], capture_output=True, text=True,
                           check=True).stdout
    assert not re.search(r"^(cells|analysis|bounds|figures)/", names, flags=re.M)
    # A plain venv: with --system-site-packages it would see the base interpreter's packages, which lack torch
    # when the tests themselves run in a virtual environment (as the README's commands may)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    # pip of the environment running the tests installs into the fresh venv's site-packages
    venv_site = subprocess.run([python, "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True,
                               text=True, check=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", venv_site,
                    str(wheel)], check=True, capture_output=True, timeout=600)
    # -S: no .pth files, so an editable install of this checkout (in this environment or elsewhere) cannot fill
    # in what the wheel lacks; the site-packages of the environment running the tests come after the wheel's,
    # for torch and numpy, whether that is a virtual environment or the system Python
    site_dirs = [venv_site, *site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        site_dirs.append(site.getusersitepackages())
    code = (f"import sys; sys.path += {site_dirs!r}; "
            "import rnnaudit, rnnaudit.cli, rnnaudit.figures, rnnaudit.auditing; "
            "from rnnaudit.bounds import all_claims; claims = all_claims(); "
            "files = {m.__file__ for n, m in sys.modules.items() if n.startswith('rnnaudit')}; "
            "print(len(claims)); print('\\n'.join(sorted(files)))")
    result = subprocess.run([python, "-S", "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    count, *files = result.stdout.split("\n")
    assert int(count) >= 50 and all(f.startswith(str(venv)) for f in files if f), files


def test_every_eigenvalue_call_goes_through_cells_linalg():
    """torch.linalg.eigvals/eig overwrite a column-major CUDA input (cells/linalg.py says where it was measured):
    the package calls them only through rnnaudit.cells.linalg, which hands the CUDA routine a copy."""
    pattern = re.compile(r"torch\.linalg\.eig(vals)?\(")
    bad = [f"{path.relative_to(ROOT)}:{i}" for folder in (*LAYERS, "rnnaudit") for path in _modules(folder)
           if path != ROOT / "cells" / "linalg.py"
           for i, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert bad == []
