"""``rnnaudit heatmap``/``lyapunov``/``spectrum`` on a ``--model pkg:factory`` whose module has a complex diagonal
state: the state is probed as (Re z, Im z), the figures say so, and the numbers are the diagonal's exact ones."""

import math

import numpy as np
import torch

from tests.conftest import cli_status

FACTORY = '''
import torch
from torch import nn


class ComplexDiagonal(nn.Module):
    """z' = λ ⊙ z + B x with complex λ (an LRU's linear recurrence), declaring its diagonal Jacobian."""

    def __init__(self):
        super().__init__()
        self.input_size, self.hidden_size = 2, 3
        self.lam = nn.Parameter(torch.tensor([0.9 + 0.3j, 0.5 - 0.5j, 0.8j], dtype=torch.complex64))
        self.B = nn.Parameter(torch.ones(3, 2, dtype=torch.complex64))

    def step(self, x_t, z):
        return self.lam * z + x_t.to(z.dtype) @ self.B.T

    def diagonal_jacobian(self, x_t, z):
        return self.lam.expand(x_t.shape[0], -1)

    def recurrent_matrices(self):
        return {"Lambda": torch.diag(self.lam)}


def make():
    return ComplexDiagonal()
'''


def test_heatmap_lyapunov_and_spectrum_run_on_a_complex_diagonal_model_factory(tmp_path, capsys, monkeypatch):
    (tmp_path / "cdiag_factory.py").write_text(FACTORY)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    lam = torch.tensor([0.9 + 0.3j, 0.5 - 0.5j, 0.8j], dtype=torch.complex64).to(torch.complex128)
    assert cli_status(["heatmap", "--model", "cdiag_factory:make", "--T", "30", "--out", "h.png"]) == 0
    out = capsys.readouterr()
    assert (tmp_path / "h.png").exists(), out.err
    data = np.load(tmp_path / "h.npz")
    M, t, s = data["jacobian_norm"], data["t"], data["s"]
    assert t[-1] == 30 and s[0] == 0
    top = float(lam.abs().max())
    assert math.isclose(float(M[-1, 0]), top ** 30, rel_tol=1e-10)  # max_i |λ_i|^(t−s), the complex norm
    assert cli_status(["lyapunov", "--model", "cdiag_factory:make", "--T", "50", "--out", "l.png"]) == 0
    out = capsys.readouterr().out
    exps = sorted(torch.log(lam.abs()).tolist() * 2, reverse=True)
    assert f"{exps[0]:.4g}, {exps[1]:.4g}" in out and f"{exps[-1]:.4g}" in out, out
    assert "complex state z ∈ ℂ^3, probed as (Re z, Im z) ∈ ℝ^6" in out
    assert cli_status(["spectrum", "--model", "cdiag_factory:make", "--out", "s.png"]) == 0
    assert (tmp_path / "s.png").exists() and (tmp_path / "l.png").exists()
