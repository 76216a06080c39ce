"""rnnaudit.cells.linalg: eigenvalues on every device without writing to the input (torch 2.11's CUDA eigvals
overwrote a column-major input on an H200), the same values as torch's on the CPU, and autograd through them."""

import pytest
import torch

from rnnaudit.cells.linalg import eig, eigvals
from tests.conftest import DEVICES

F64 = torch.float64


def _column_major_orthogonal(n: int, device: str) -> torch.Tensor:
    Q, _ = torch.linalg.qr(torch.randn(n, n, dtype=F64, generator=torch.Generator().manual_seed(0)))
    Q = Q.to(device)
    assert Q.stride() == (1, n)  # LAPACK's layout, kept by .to(): the layout the CUDA routine overwrote
    return Q


@pytest.mark.parametrize("device", DEVICES)
def test_eigenvalues_leave_a_column_major_matrix_as_it_was(device):
    Q = _column_major_orthogonal(12, device)
    before = Q.clone()
    lam = eigvals(Q)
    lam2, V = eig(Q)
    assert torch.equal(Q, before)
    # |λ| = 1 for an orthogonal matrix, to a small multiple of n·u (backward-stable eig)
    torch.testing.assert_close(lam.abs(), torch.ones(12, dtype=F64, device=device), rtol=0, atol=100 * 12 * 2.0 ** -53)
    torch.testing.assert_close(Q.to(V.dtype) @ V, V * lam2, rtol=0, atol=1e-12)
    assert torch.linalg.svdvals(Q).sub(1).abs().max() < 1e-12  # the matrix is still orthogonal afterwards


def test_on_the_cpu_the_values_are_torchs_own():
    A = torch.randn(9, 9, dtype=F64, generator=torch.Generator().manual_seed(1))
    assert torch.equal(eigvals(A), torch.linalg.eigvals(A))
    assert all(torch.equal(a, b) for a, b in zip(eig(A), torch.linalg.eig(A)))


@pytest.mark.parametrize("device", DEVICES)
def test_the_spectral_radius_is_differentiated_through_the_copy(device):
    A = torch.randn(6, 6, dtype=F64, generator=torch.Generator().manual_seed(2)).to(device).requires_grad_()
    eigvals(A).abs().amax().backward()
    A0 = A.detach().cpu().requires_grad_()
    torch.linalg.eigvals(A0).abs().amax().backward()
    torch.testing.assert_close(A.grad.cpu(), A0.grad, rtol=1e-10, atol=1e-12)
