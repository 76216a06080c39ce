"""``rnnaudit heatmap``/``lyapunov``/``audit`` with ``--model pkg:factory`` on the modern cells (a factory module
the test writes) and on the ``mingru-pytorch`` package's modules wrapped by their sequential step: the heatmap's
values are the cells' exact diagonal products, the Lyapunov exponents the LRU's log|λ|, and the audit applies the
cell's own claims."""

import json
import math

import numpy as np
import pytest
import torch

from tests.conftest import cli_status

#: the fast suite keeps a sample of the cells for each command; the full suite (--full) runs every cell
SLOW_CASES = {"test_audit_of_a_modern_cell_factory_applies_its_papers_claims": {
    "s4d-s4d.stability", "minlstm-min_rnn.bounded", "mlstm-xlstm.mlstm_stabiliser"},
    "test_heatmap_and_lyapunov_run_on_each_modern_cell_factory": {"s4d", "mingru", "minlstm", "mlstm"},
    "test_spectrum_runs_on_each_modern_cell_factory": {"s4d", "slstm", "mingru", "minlstm"},
    "test_heatmap_and_lyapunov_run_on_the_mingru_pytorch_package_through_model": {"package_minlstm"}}

FACTORY = '''
import torch
from torch import nn

from rnnaudit import wrap
from rnnaudit.cells import LRU, MLSTM, MinGRU, MinLSTM, S4D, SelectiveSSM, SLSTM


def gen():
    return torch.Generator().manual_seed(0)


def lru():
    return LRU(2, 3, r_min=0.5, r_max=0.99, generator=gen(), dtype=torch.float64)


def ssm():
    return SelectiveSSM(2, 3, generator=gen(), dtype=torch.float64)


def s4d():
    return S4D(2, 2, generator=gen(), dtype=torch.float64)


def mingru():
    return MinGRU(2, 3, generator=gen(), dtype=torch.float64)


def minlstm():
    return MinLSTM(2, 3, generator=gen(), dtype=torch.float64)


def slstm():
    return SLSTM(2, 2, generator=gen(), dtype=torch.float64)


def mlstm():
    return MLSTM(2, 2, generator=gen(), dtype=torch.float64)


class PackageStep(nn.Module):
    """A mingru-pytorch module stepped in its sequential mode (one step, prev_hidden given)."""

    def __init__(self, module, n):
        super().__init__()
        self.module, self.input_size, self.hidden_size = module, n, n

    def step(self, x_t, h):
        return self.module(x_t[:, None, :], prev_hidden=h[:, None, :])[:, 0]


def package_mingru():
    from minGRU_pytorch.minGRU import minGRU
    torch.manual_seed(0)
    return wrap(PackageStep(minGRU(2).double(), 2))


def package_minlstm():
    from minGRU_pytorch.minLSTM import minLSTM
    torch.manual_seed(0)
    return wrap(PackageStep(minLSTM(2).double(), 2))
'''


@pytest.fixture
def factory(tmp_path, monkeypatch):
    (tmp_path / "modern_factory.py").write_text(FACTORY)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_heatmap_and_lyapunov_of_an_lru_factory_are_its_exact_lambda_values(factory, capsys):
    import modern_factory

    lam = modern_factory.lru().lambdas().detach()
    assert cli_status(["heatmap", "--model", "modern_factory:lru", "--T", "20", "--out", "h.png"]) == 0
    capsys.readouterr()
    M = np.load(factory / "h.npz")["jacobian_norm"]
    assert math.isclose(float(M[-1, 0]), float(lam.abs().max()) ** 20, rel_tol=1e-10)  # max_j |λ_j|^(t−s)
    assert cli_status(["lyapunov", "--model", "modern_factory:lru", "--T", "40", "--out", "l.png"]) == 0
    out = capsys.readouterr().out
    assert f"{float(lam.abs().log().max()):.4g}" in out and "probed as (Re z, Im z)" in out, out


@pytest.mark.parametrize("name", ["ssm", "s4d", "mingru", "minlstm", "slstm", "mlstm"])
def test_heatmap_and_lyapunov_run_on_each_modern_cell_factory(factory, name, capsys):
    assert cli_status(["heatmap", "--model", f"modern_factory:{name}", "--T", "12", "--out", "h.png"]) == 0
    assert cli_status(["lyapunov", "--model", f"modern_factory:{name}", "--T", "20", "--out", "l.png"]) == 0
    assert (factory / "h.npz").exists() and (factory / "l.png").exists()


@pytest.mark.parametrize("name, own", [("lru", "lru.stability"), ("ssm", "mamba.theorem1"),
                                       ("mingru", "min_rnn.jacobian"), ("s4d", "s4d.stability"),
                                       ("minlstm", "min_rnn.bounded"), ("slstm", "xlstm.stabiliser"),
                                       ("mlstm", "xlstm.mlstm_stabiliser")])
def test_audit_of_a_modern_cell_factory_applies_its_papers_claims(factory, name, own, capsys):
    assert cli_status(["audit", "--model", f"modern_factory:{name}", "--T", "10", "--out", "a"]) == 0
    claims = json.loads((factory / "a" / "audit.json").read_text())["latest"]["claims"]
    applied = {c["id"] for c in claims if c["applies"]}
    assert own in applied and len(applied) >= 4, applied


@pytest.mark.parametrize("name", ["package_mingru", "package_minlstm"])
def test_heatmap_and_lyapunov_run_on_the_mingru_pytorch_package_through_model(factory, name, capsys):
    pytest.importorskip("minGRU_pytorch")
    assert cli_status(["heatmap", "--model", f"modern_factory:{name}", "--T", "12", "--out", "h.png"]) == 0
    M = np.load(factory / "h.npz")["jacobian_norm"]
    assert 0 < float(M[-1, 0]) < 1  # the gates' convex mixing contracts h
    assert cli_status(["lyapunov", "--model", f"modern_factory:{name}", "--T", "20", "--out", "l.png"]) == 0


@pytest.mark.parametrize("name, role", [("lru", "Lambda"), ("s4d", "Abar")])
def test_spectrum_of_an_lru_or_s4d_shows_the_eigenvalues_of_lambda_not_their_realification(factory, name, role):
    """N eigenvalues, the cell's own λ (or Ā = exp(ΔA)), none of the realification's conjugates λ̄."""
    import modern_factory

    cell = getattr(modern_factory, name)()
    want = (cell.lambdas() if name == "lru" else cell.discretised()[0].reshape(-1)).detach().numpy()
    assert cli_status(["spectrum", "--model", f"modern_factory:{name}", "--out", "s.png"]) == 0
    got = np.load(factory / "s.npz")[f"{role}__eigenvalues"]
    assert got.shape == want.shape
    assert np.allclose(np.sort_complex(got), np.sort_complex(want), rtol=0, atol=1e-12)


def test_spectrum_of_an_mlstm_draws_f_prime_t_the_eigenvalue_of_its_step_jacobian_at_every_step(factory):
    """mLSTM's gates see x_t only: with the state ordered [m, (C, n)] the step Jacobian is block triangular, and f′_t
    is its eigenvalue of multiplicity d² + d at every step (autograd on the whole state, at the states the inputs
    reach); the figure's data holds exactly those values, and a wrong model's would differ."""
    import modern_factory

    x = torch.randn(2, 5, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    torch.save(x, factory / "x.pt")
    assert cli_status(["spectrum", "--model", "modern_factory:mlstm", "--inputs", "x.pt", "--out", "s.png"]) == 0
    got = np.load(factory / "s.npz")["f_prime_t__eigenvalues"]
    assert got.shape == (2, 5, 1)
    cell = modern_factory.mlstm()
    d = 2
    with torch.no_grad():
        states = cell(x)
    before = torch.cat([torch.zeros(2, 1, cell.hidden_size, dtype=torch.float64), states[:, :-1]], dim=1)
    for i in range(2):
        for t in range(5):
            J = torch.autograd.functional.jacobian(lambda h: cell.step(x[i, t][None], h[None])[0], before[i, t])
            eig = torch.linalg.eigvals(J)
            near = (eig - complex(got[i, t, 0])).abs() <= 1e-12
            assert int(near.sum()) == d * d + d, (i, t, eig)
    assert not np.allclose(got, 1.0 - got)  # the comparison can fail: 1 − f′_t is not f′_t here


@pytest.mark.parametrize("name", ["lru", "s4d", "slstm", "ssm", "mingru", "minlstm", "mlstm"])
def test_spectrum_runs_on_each_modern_cell_factory(factory, name):
    """Fixed recurrent matrices (LRU's Λ, S4D's Ā, sLSTM's R) from the weights; input-dependent transitions
    (Ā_t, 1 − z_t, f′_t) at every step of --T steps of the default task."""
    argv = ["spectrum", "--model", f"modern_factory:{name}", "--out", "s.png"]
    assert cli_status(argv + (["--T", "6"] if name in ("ssm", "mingru", "minlstm", "mlstm") else [])) == 0
    data = np.load(factory / "s.npz")
    assert all(np.isfinite(data[k]).all() for k in data.files if data[k].dtype.kind in "fc")
