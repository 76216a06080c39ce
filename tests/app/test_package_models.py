"""Pip implementations through ``--model`` and ``rnnaudit.audit``: lru-pytorch's LRU, mambapy's MambaBlock and
mingru-pytorch's minGRU, each mapped onto its reference cell (cells/packages.py). Every command runs, the audit
names the reference cell and the float64 difference from the module's own forward, at least 4 claims apply, and
their assumptions are seen to fail where they must. Skipped where a package is missing."""

import json

import numpy as np
import pytest
import torch

import rnnaudit
from tests.conftest import cli_status

FACTORY = '''
import torch


def lru():
    from LRU_pytorch import LRU
    torch.manual_seed(0)
    return LRU(2, 2, 3, rmin=0.4, rmax=0.95)


def mamba():
    from mambapy.mamba import MambaBlock, MambaConfig
    torch.manual_seed(0)
    return MambaBlock(MambaConfig(d_model=2, n_layers=1, d_state=2, expand_factor=1))


def mingru():
    from minGRU_pytorch.minGRU import minGRU
    torch.manual_seed(0)
    return minGRU(2)


def lru_reference():
    from rnnaudit.cells import LRU
    return LRU(2, 3, r_min=0.5, r_max=0.9, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
'''

PACKAGES = {"lru": "LRU_pytorch", "mamba": "mambapy", "mingru": "minGRU_pytorch"}


@pytest.fixture
def factory(tmp_path, monkeypatch):
    (tmp_path / "pkg_factory.py").write_text(FACTORY)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


#: mingru-pytorch's modules also go through --model in tests/app/test_modern_cli.py; the full suite runs them here too
SLOW_CASES = {"test_heatmap_spectrum_and_lyapunov_run_on_each_pip_module_through_model": {"mingru", "mamba"}}


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_heatmap_spectrum_and_lyapunov_run_on_each_pip_module_through_model(factory, name, capsys):
    pytest.importorskip(PACKAGES[name])
    for command in ("heatmap", "spectrum", "lyapunov"):
        length = [] if command == "spectrum" else ["--T", "12"]  # spectrum: the task's own T where it reads inputs
        assert cli_status([command, "--model", f"pkg_factory:{name}", *length, "--out", f"{command}.png"]) == 0
        assert (factory / f"{command}.png").exists()
    out = capsys.readouterr().out
    assert "is probed as rnnaudit.cells." in out and "float64 max difference from the module's own forward" in out


@pytest.mark.parametrize("name, reference, own", [("lru", "rnnaudit.cells.LRU", "lru.stability"),
                                                  ("mamba", "rnnaudit.cells.SelectiveSSM", "mamba.theorem1"),
                                                  ("mingru", "rnnaudit.cells.MinGRU", "min_rnn.jacobian")])
def test_audit_of_a_pip_module_names_its_reference_cell_and_the_float64_difference(factory, name, reference, own):
    pytest.importorskip(PACKAGES[name])
    assert cli_status(["audit", "--model", f"pkg_factory:{name}", "--T", "10", "--out", "a"]) == 0
    doc = json.loads((factory / "a" / "audit.json").read_text())
    mapping = doc["model"]["mapping"]
    assert mapping["reference"].startswith(reference)
    assert 0 <= mapping["max_abs_difference_float64"] <= mapping["tolerance"] <= 1e-11
    applied = {c["id"] for c in doc["latest"]["claims"] if c["applies"]}
    assert own in applied and len(applied) >= 4, applied
    report = (factory / "a" / "report.md").read_text()
    assert f"| audited as | {reference}" in report and "float64 max difference from the module's own forward" in report


def test_a_pip_module_whose_forward_differs_from_its_reference_cell_is_refused_in_one_line(factory, monkeypatch,
                                                                                           capsys):
    LRU_pytorch = pytest.importorskip("LRU_pytorch")
    forward = LRU_pytorch.LRU.forward
    monkeypatch.setattr(LRU_pytorch.LRU, "forward", lambda self, x, state=None: 1.001 * forward(self, x, state))
    assert cli_status(["heatmap", "--model", "pkg_factory:lru", "--T", "12", "--out", "h.png"]) == 2
    err = capsys.readouterr().err.strip()
    assert "does not compute rnnaudit.cells.LRU" in err and "\n" not in err and not (factory / "h.png").exists()


def _applied(report) -> dict:
    return {c["id"]: {a["name"]: a["holds"] for a in c["assumptions"]} for c in report["claims"] if c["applies"]}


def _x(n, T=10):
    return torch.randn(2, T, n, generator=torch.Generator().manual_seed(3))


def test_python_audit_of_lru_pytorch_sees_the_gamma_normalisation_fail_once_gamma_moves():
    """lru.forward_norm assumes γ_j = sqrt(1 − |λ_j|²), as the package initialises it; a trained γ breaks it, and the
    ring lemma's "λ as drawn by the initialisation (≥ 1000 modes)" fails on 3 modes."""
    LRU_pytorch = pytest.importorskip("LRU_pytorch")
    torch.manual_seed(0)
    module = LRU_pytorch.LRU(2, 2, 3)
    report = rnnaudit.audit(module, _x(2), diagnostics=False)
    applied = _applied(report)
    assert len(applied) >= 4 and report["model"]["mapping"]["reference"] == "rnnaudit.cells.LRU"
    gamma = next(k for k in applied["lru.forward_norm"] if k.startswith("γ_j"))
    assert applied["lru.forward_norm"][gamma] is True
    assert not all(applied["lru.lemma_ring"].values())
    with torch.no_grad():
        module.gamma_log.add_(0.5)
    assert _applied(rnnaudit.audit(module, _x(2), diagnostics=False))["lru.forward_norm"][gamma] is False


def test_python_audit_of_a_mambapy_block_sees_theorem1s_n_equals_1_and_a_equals_minus_1_fail_and_hold():
    mamba = pytest.importorskip("mambapy.mamba")
    torch.manual_seed(0)
    wide = mamba.MambaBlock(mamba.MambaConfig(d_model=2, n_layers=1, d_state=2, expand_factor=1))
    applied = _applied(rnnaudit.audit(wide, _x(2), diagnostics=False))
    assert len(applied) >= 4
    assert applied["mamba.theorem1"]["N = 1"] is False and applied["mamba.theorem1"]["A = −1"] is False
    narrow = mamba.MambaBlock(mamba.MambaConfig(d_model=2, n_layers=1, d_state=1, expand_factor=1))
    with torch.no_grad():
        narrow.A_log.zero_()  # A = −exp(0) = −1
    applied = _applied(rnnaudit.audit(narrow, _x(2), diagnostics=False))
    assert applied["mamba.theorem1"]["N = 1"] is True and applied["mamba.theorem1"]["A = −1"] is True


def test_python_audit_of_mingru_pytorch_applies_its_claims_and_the_growth_assumption_fails():
    """minGRU's ∂h_t/∂h_{t−1} = diag(1 − z_t) contracts: the vanishing-gradient assumption holds and Pascanu's
    exploding-gradient one ("the gradient grows") fails on it."""
    module = pytest.importorskip("minGRU_pytorch.minGRU").minGRU(2)
    applied = _applied(rnnaudit.audit(module, _x(2), diagnostics=False))
    assert {"min_rnn.bounded", "min_rnn.jacobian"} <= set(applied) and len(applied) >= 4
    assert all(applied["pascanu2013.vanishing.general"].values())
    assert not all(applied["pascanu2013.exploding.general"].values())


def test_spectrum_of_a_mambapy_block_shows_abar_t_of_every_step_of_the_given_inputs(factory):
    pytest.importorskip("mambapy")
    import pkg_factory

    x = torch.randn(1, 15, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    torch.save(x, factory / "x.pt")
    assert cli_status(["spectrum", "--model", "pkg_factory:mamba", "--inputs", "x.pt", "--out", "s.png"]) == 0
    got = np.load(factory / "s.npz")["Abar_t__eigenvalues"]
    cell = rnnaudit.wrap(pkg_factory.mamba())
    want = cell.transition(cell.package_mapping.inputs(x)).detach().numpy()
    assert got.shape == want.shape == (1, 15, 2 * 2)
    assert np.allclose(got, want, rtol=0, atol=1e-15) and (np.abs(got) < 1).all() and (got.imag == 0).all()


def test_spectrum_draws_the_lru_ring_when_the_cell_records_it_and_not_for_lru_pytorch(factory):
    assert cli_status(["spectrum", "--model", "pkg_factory:lru_reference", "--out", "s.png"]) == 0
    assert np.load(factory / "s.npz")["Lambda__ring"].tolist() == [0.5, 0.9]
    pytest.importorskip("LRU_pytorch")
    assert cli_status(["spectrum", "--model", "pkg_factory:lru", "--out", "p.png"]) == 0
    assert "Lambda__ring" not in np.load(factory / "p.npz").files  # the package keeps no record of its ring
