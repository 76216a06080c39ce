"""Probes against cases with known answers."""

import pytest
import torch

from rnnaudit.analysis import gradient_norms, hidden_jacobian_norms, parameter_gradients, step_jacobians
from rnnaudit.cells import FastRNN, SGORNN
from tests.conftest import DEVICES

F64 = torch.float64


@pytest.mark.parametrize("device", DEVICES)
def test_linear_rnn_jacobian_map_is_matrix_powers(device):
    """With σ = identity, h_t = (αU + βI) h_{t−1} + αWx_t, so ∂h_t/∂h_s = A^{t−s} exactly."""
    cell = FastRNN(2, 6, activation="identity", dtype=F64, generator=torch.Generator().manual_seed(0)).to(device)
    with torch.no_grad():
        cell.U.mul_(3.0)  # make A non-normal-ish and growing, so the powers are not all ≈ 1
    x = torch.randn(12, 2, dtype=F64, device=device)
    M = hidden_jacobian_norms(cell, x)
    A = (cell.alpha * cell.U + cell.beta * torch.eye(6, dtype=F64, device=device)).detach()
    for t in range(13):
        for s in range(13):
            expected = torch.linalg.matrix_norm(torch.linalg.matrix_power(A, t - s), ord=2) if s <= t else 0.0
            # 12 chained float64 products: relative error ≲ 12 · 6 · 2⁻⁵³ ≈ 1e-14
            assert float(M[t, s]) == pytest.approx(float(expected), rel=1e-12, abs=1e-300)


def test_jacobian_map_matches_autograd_on_a_nonlinear_cell():
    cell = SGORNN(2, 8, dtype=F64, generator=torch.Generator().manual_seed(1), alpha_init=-0.5, beta_init=-1.0)
    x = torch.randn(6, 2, dtype=F64)
    M = hidden_jacobian_norms(cell, x, ord="fro")
    h0 = torch.zeros(8, dtype=F64)
    for s, t in [(0, 6), (2, 5), (3, 3)]:
        def h_t_from_h_s(hs):
            h = hs[None]
            for k in range(s, t):
                h = cell.step(x[k][None], h)
            return h[0]

        _, states = step_jacobians(cell, x, h0)
        J = torch.autograd.functional.jacobian(h_t_from_h_s, states[s])
        assert float(M[t, s]) == pytest.approx(float(torch.linalg.matrix_norm(J)), rel=1e-12)


def test_jacobian_map_rejects_a_batch():
    with pytest.raises(ValueError, match="one sequence"):
        hidden_jacobian_norms(SGORNN(2, 4, dtype=F64), torch.randn(2, 5, 2, dtype=F64))
    with pytest.raises(ValueError, match="ord"):
        hidden_jacobian_norms(SGORNN(2, 4, dtype=F64), torch.randn(5, 2, dtype=F64), ord=1)


def test_parameter_gradient_norms_match_autograd():
    cell = SGORNN(2, 8, dtype=F64, generator=torch.Generator().manual_seed(2))
    x = torch.randn(3, 20, 2, dtype=F64)
    grads = parameter_gradients(cell, x, lambda hs: hs[:, -1].sum())
    cell.zero_grad()
    cell(x)[:, -1].sum().backward()
    for role, p in cell.parameters_by_role().items():
        torch.testing.assert_close(grads[role], p.grad, rtol=1e-13, atol=1e-15)
    norms = gradient_norms(grads)
    assert norms["Theta"]["max"] == pytest.approx(float(cell.phi.theta.grad.abs().max()))
    assert norms["W"]["spectral"] == pytest.approx(float(torch.linalg.matrix_norm(cell.W.grad, ord=2)))
    assert norms["W"]["max"] <= norms["W"]["spectral"] <= norms["W"]["fro"]


def test_parameter_gradients_rejects_unknown_roles_and_vector_losses():
    cell, x = SGORNN(2, 4, dtype=F64), torch.randn(1, 3, 2, dtype=F64)
    with pytest.raises(ValueError, match="roles"):
        parameter_gradients(cell, x, lambda hs: hs.sum(), roles=("V",))
    with pytest.raises(ValueError, match="scalar"):
        parameter_gradients(cell, x, lambda hs: hs.sum(0))
