"""docs/your-model.md, 'Figures of your own model', runs as printed: every figure command's figure drawn from
Python for a wrapped custom step; its factory serves `rnnaudit spectrum --model`, and the unwrapped step gets
one line naming the fix."""

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import cli_status

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "your-model.md"
SECTION = "## Figures of your own model"


def _code() -> str:
    section = PAGE.read_text().split(SECTION, 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)\n```", section, flags=re.S)
    return code


def _definitions() -> str:
    """The section's imports, class and factory: what --model imports (the figures below them are not run)."""
    head, sep, _ = _code().partition("\ncell = make_model()")
    assert sep, "the section no longer builds its cell with make_model()"
    return head


@pytest.fixture
def module_dir(tmp_path, monkeypatch):
    """The section's code as an importable module ``figures_doc`` in a fresh directory, the current one."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("figures_doc", "figures_doc_bare"):
        sys.modules.pop(name, None)


@pytest.mark.slow
def test_the_figures_section_draws_every_figure_of_a_wrapped_custom_step(module_dir):
    namespace: dict = {"__name__": "figures_doc"}
    exec(compile(_code(), str(PAGE), "exec"), namespace)
    for stem, beside in (("heat", ".npz"), ("spectrum", ".npz"), ("lyapunov", ".csv"), ("compare", ".csv"),
                         ("trajectory", ".csv")):
        assert (module_dir / f"{stem}.png").stat().st_size > 0, stem
        assert (module_dir / f"{stem}{beside}").stat().st_size > 0, stem
    heat = np.load(module_dir / "heat.npz")  # no pickle: plain arrays and one JSON string
    assert set(heat.files) == {"jacobian_norm", "t", "s", "rtol", "sequences", "labels"}  # sequences: how aggregated
    assert heat["jacobian_norm"].shape == (heat["t"].size, heat["s"].size)
    assert r"\partial h_t/\partial h_s" in json.loads(str(heat["labels"]))["jacobian_norm"]
    spectrum = np.load(module_dir / "spectrum.npz")
    assert {k for k in spectrum.files if k.startswith("W__")} == {
        "W__eigenvalues", "W__singular_values", "W__grid_x", "W__grid_y", "W__sigma_min", "W__from_distance"}
    W = namespace["cell"].recurrent_matrix().detach().numpy()
    np.testing.assert_allclose(spectrum["W__singular_values"], np.linalg.svd(W, compute_uv=False), rtol=1e-12)

    # the same factory on the command line: spectrum draws its W (control: the unwrapped step is refused below)
    (module_dir / "figures_doc.py").write_text(_definitions())
    assert cli_status(["spectrum", "--model", "figures_doc:make_model", "--out", "cli.png"]) == 0
    sv = np.load(module_dir / "cli.npz")["W__singular_values"]  # of the factory's own (fresh) weights
    assert sv.shape == (16,) and (np.diff(sv) <= 0).all() and sv[-1] >= 0


def test_spectrum_of_an_unwrapped_custom_step_names_the_fix_in_one_line(module_dir, capsys):
    """The old refusal read "has no square recurrent matrix (roles [])"; it names wrap(recurrent=...) now, with
    the model's square parameter as the path to pass, and exits 2 without writing anything."""
    (module_dir / "figures_doc_bare.py").write_text(_definitions() + "\n\ndef bare():\n    m = MyCell()\n"
                                                    "    m.input_size, m.hidden_size = 2, 16\n    return m\n\n\n"
                                                    "def step(x_t, h):\n    return h\n")
    assert cli_status(["spectrum", "--model", "figures_doc_bare:bare", "--out", "s.png"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "roles []" not in err
    assert "recurrent={'W': 'rec.weight'}" in err and "rnnaudit.wrap(" in err
    assert not (module_dir / "s.png").exists() and not (module_dir / "s.npz").exists()
    # a step function itself given as --model: named as a step, with the factory to write instead
    assert cli_status(["spectrum", "--model", "figures_doc_bare:step", "--out", "s.png"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "a step function" in err and "rnnaudit.wrap(step" in err
    # heatmap and lyapunov need no recurrent matrix: the bare step draws them
    for command in ("heatmap", "lyapunov"):
        assert cli_status([command, "--model", "figures_doc_bare:bare", "--T", "12", "--out", f"{command}.png"]) == 0
