"""M_φ from φ's product structure (bounds/sgornn/m_phi.py) against jacfwd of the VPRNN map itself."""

import pytest
import torch
from torch.func import jacfwd

from rnnaudit.bounds.sgornn.m_phi import vprnn_M_phi, vprnn_factors
from rnnaudit.cells.orthogonal import VPRNNRotations

F64 = torch.float64


@pytest.mark.parametrize("h,k", [(2, 1), (2, 3), (4, 4), (6, 2), (8, 6), (16, 8)])
def test_factors_rebuild_phi_and_M_phi_equals_jacfwd(h, k):
    """The factors multiply to φ(Θ) (the module's own matrix), and M_φ equals max |∂φ/∂Θ_pi| by jacfwd: both
    are sums of at most k·h products of unit-bounded numbers, so 1e-12 is many times their rounding."""
    phi = VPRNNRotations(h, k, generator=torch.Generator().manual_seed(h + k), dtype=F64)
    theta = phi.theta.detach()
    R, Q = vprnn_factors(phi, theta)
    U = torch.eye(h, dtype=F64)
    for R_i, Q_i in zip(R, Q):
        U = U @ R_i @ Q_i
    assert torch.allclose(U, phi.matrix(theta), rtol=0, atol=1e-12)
    reference = jacfwd(phi.matrix)(theta).abs().amax()
    assert vprnn_M_phi(phi, theta).item() == pytest.approx(reference.item(), rel=1e-12)


def test_a_wrong_derivative_block_is_caught():
    """The check above has power: the transposed derivative block (the sign a careless derivation gives) is
    a different matrix, and its max entry differs from jacfwd's at a generic Θ."""
    phi = VPRNNRotations(8, 6, generator=torch.Generator().manual_seed(0), dtype=F64)
    theta = phi.theta.detach()
    wrong = vprnn_M_phi(phi, theta + torch.pi / 2)       # ∂R/∂θ = R(θ + π/2): a shift misapplied to every layer
    assert wrong.item() != pytest.approx(jacfwd(phi.matrix)(theta).abs().amax().item(), rel=1e-6)


def test_bad_theta_shape_raises():
    phi = VPRNNRotations(4, 2, dtype=F64)
    with pytest.raises(ValueError, match="theta"):
        vprnn_M_phi(phi, torch.zeros(3, 2, dtype=F64))
