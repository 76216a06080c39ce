"""The certificates behind the Jacobian maps (analysis/certificate.py): each bound holds, closes where it
should, and refuses to certify where it must not.

Tolerances: every λ̂ is a Rayleigh quotient or an exact eigenvalue of the formed Gram matrix, so the
reference (``eigvalsh``, backward stable) differs by rounding of order p·u·‖A‖² ≈ 1e-14 relative here;
hence the factors 1 ± 1e-12 around the certified bracket λ̂ ≤ λ ≤ λ̂ (1 + rtol)².
"""

import pytest
import torch
from hypothesis import given, settings, strategies as st

from rnnaudit.analysis import certificate, lapack
from rnnaudit.analysis.certificate import arrowhead_upper, gram_top, krylov, krylov_top, rayleigh_ritz, trace_bounds
from tests.conftest import DEVICES

F64 = torch.float64


def _stats():
    return {"gram": 0, "cholesky": 0, "shift_invert": 0, "dense": 0}


def _blocks(n, p, q, spectrum, seed, device="cpu"):
    """A (n, p, q) = Q diag(σ) Wᵀ with given singular values (length min(p, q)), random orthogonal Q, W."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        Q = torch.linalg.qr(torch.randn(p, p, generator=g, dtype=F64))[0]
        W = torch.linalg.qr(torch.randn(q, q, generator=g, dtype=F64))[0]
        S = torch.zeros(p, q, dtype=F64)
        S[range(len(spectrum)), range(len(spectrum))] = spectrum
        out.append(Q @ S @ W.mT)
    return torch.stack(out).to(device)


def _rows(n, k, p, seed, device="cpu"):
    g = torch.Generator().manual_seed(seed)
    return torch.linalg.qr(torch.randn(n, p, k, generator=g, dtype=F64))[0].mT.contiguous().to(device)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6), m=st.integers(1, 3))
def test_krylov_upper_bound_is_never_below_the_top_eigenvalue(seed, k, m):
    """The arrowhead bound holds for any orthonormal space, converged or not (a random spectrum)."""
    g = torch.Generator().manual_seed(seed)
    p, q = 20, 16
    A = torch.randn(3, p, q, generator=g, dtype=F64) * torch.rand(3, 1, q, generator=g, dtype=F64)
    Q, Z = krylov(A, _rows(3, k, p, seed + 1), m)
    theta, rho2, U, upper, _ = krylov_top(A, Q, Z, A.square().sum((1, 2)), 1e-10)
    lam = torch.linalg.eigvalsh(A @ A.mT)[:, -1]
    assert torch.all(upper >= lam * (1 - 1e-12))
    assert torch.all(theta[:, 0] <= lam * (1 + 1e-12))
    torch.testing.assert_close(Q @ Q.mT, torch.eye(Q.shape[1], dtype=F64).expand(3, -1, -1), rtol=0, atol=1e-13)


def test_krylov_certificate_refuses_a_space_that_misses_the_top_direction():
    """Negative control: a B-invariant start block orthogonal to the top eigenvector has zero residuals
    and Ritz value λ_2 < λ_1; only the trace bound stands between it and a false certificate, and it
    must keep the bracket open."""
    p = 12
    sigma = torch.tensor([2.0, 1.0, 0.9, 0.5] + [0.1] * 8, dtype=F64)
    A = torch.diag(sigma)[None]
    V = torch.eye(p, dtype=F64)[1:4][None]  # e_2..e_4: invariant, misses e_1
    Q, Z = krylov(A, V, 1)
    theta, rho2, _, upper, done = krylov_top(A, Q, Z, A.square().sum((1, 2)), 1e-3)
    assert float(theta[0, 0]) == pytest.approx(1.0) and float(rho2.abs().max()) < 1e-28
    assert not bool(done[0]) and float(upper[0]) >= 4.0


def test_arrowhead_bound_closes_on_converged_ritz_pairs_of_a_decaying_spectrum():
    A = _blocks(4, 30, 30, torch.logspace(0, -6, 30, dtype=F64), 3)
    lam = torch.linalg.eigvalsh(A @ A.mT)[:, -1]
    eigvecs = torch.linalg.eigh(A @ A.mT)[1][:, :, -4:].flip(-1).mT.contiguous()
    Q, Z = krylov(A, eigvecs, 1)
    theta, rho2, _, upper, done = krylov_top(A, Q, Z, A.square().sum((1, 2)), 1e-10)
    assert torch.all(done)
    assert torch.all(upper <= lam * (1 + 1e-9))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("rtol", [1e-10, 1e-3])
def test_gram_path_certifies_flat_spectra_within_rtol(device, rtol):
    """Flat spectra (σ in [0.9, 1], as for short gaps of near-orthogonal cells): no trace bound can
    work; the Gram path must still bracket λ within rtol, by Cholesky, refinement or the eigenvalue."""
    n, p = 6, 40
    flat = torch.linspace(1.0, 0.9, p, dtype=F64)
    A = _blocks(n, p, p, flat, 5, device)
    lam = torch.linalg.eigvalsh(A @ A.mT)[:, -1]
    stats = _stats()
    hint = lam * 1.001  # an upper estimate as the engine's ‖M_t‖² · previous value
    got, U, history = gram_top(A, _rows(n, 4, p, 6, device), A.square().sum((1, 2)), rtol, stats, hint)
    assert torch.all(got <= lam * (1 + 1e-12)) and torch.all(lam <= got * (1 + rtol) ** 2 * (1 + 1e-12))
    assert stats["cholesky"] + stats["dense"] == n and stats["gram"] == 0
    assert U.shape == (n, 4, p) and history.shape == (n, 2)
    torch.testing.assert_close(U @ U.mT, torch.eye(4, dtype=F64, device=device).expand(n, -1, -1), rtol=0,
                               atol=1e-12)


def test_gram_path_refines_by_shift_invert_and_falls_back_to_the_eigenvalue():
    """With a history that rules out the direct Cholesky, a good hint drives shift-invert to a certificate;
    a hint known to be far (history) and no close upper bound leave only the exact eigenvalue."""
    n, p = 4, 40
    A = _blocks(n, p, p, torch.linspace(1.0, 0.8, p, dtype=F64), 8)
    lam = torch.linalg.eigvalsh(A @ A.mT)[:, -1]
    fro2, V = A.square().sum((1, 2)), _rows(n, 4, p, 9)
    far_warm = torch.tensor([[1.0, 0.0]] * n, dtype=F64)  # warm start was 100% off, hint was exact
    stats = _stats()
    got, _, _ = gram_top(A, V, fro2, 1e-10, stats, lam * (1 + 1e-6), far_warm)
    assert stats["shift_invert"] == n and stats["cholesky"] == n and stats["dense"] == 0
    assert torch.all(lam <= got * (1 + 1e-10) ** 2 * (1 + 1e-12))
    stats = _stats()
    far_hint = torch.tensor([[1.0, 1.0]] * n, dtype=F64)
    got, _, _ = gram_top(A, V, fro2, 1e-10, stats, lam * 2, far_hint)
    assert stats["dense"] == n and stats["shift_invert"] == 0
    torch.testing.assert_close(got, lam, rtol=1e-13, atol=0)


def test_cholesky_certificate_fails_below_the_top_eigenvalue():
    """Negative control of path 2: μI − G is not positive definite for μ just below λ_max."""
    A = _blocks(3, 16, 16, torch.linspace(1.0, 0.99, 16, dtype=F64), 10)
    G = A @ A.mT
    lam = torch.linalg.eigvalsh(G)[:, -1]
    kernels = [certificate._TorchKernels] + ([certificate._LapackKernels] if lapack.available(A) else [])
    for ops in kernels:
        ok_above, _ = ops.cholesky(certificate._shifted(G, lam * (1 + 1e-9)))
        ok_below, _ = ops.cholesky(certificate._shifted(G, lam * (1 - 1e-9)))
        assert torch.all(ok_above) and not torch.any(ok_below)


@pytest.mark.skipif(not lapack.available(torch.zeros(1, dtype=F64)), reason="scipy's OpenBLAS not reachable")
def test_kernels_by_gram_order():
    """Per-matrix LAPACK from Gram order 40 (CPU float64), torch's batched kernels below it."""
    assert certificate._kernels(torch.zeros(2, 39, 50, dtype=F64)) is certificate._TorchKernels
    assert certificate._kernels(torch.zeros(2, 40, 5, dtype=F64)) is certificate._LapackKernels
    assert certificate._kernels(torch.zeros(2, 64, 64, dtype=torch.float32)) is certificate._TorchKernels


@pytest.mark.skipif(not lapack.available(torch.zeros(1, dtype=F64)), reason="scipy's OpenBLAS not reachable")
def test_lapack_kernels_agree_with_torch():
    g = torch.Generator().manual_seed(13)
    A = torch.randn(5, 24, 17, generator=g, dtype=F64)
    G, g2 = lapack.gram(A)
    full = A @ A.mT
    torch.testing.assert_close(G.triu(), full.triu(), rtol=1e-13, atol=1e-13)
    torch.testing.assert_close(g2, full.square().sum((1, 2)), rtol=1e-13, atol=0)
    V = _rows(5, 3, 24, 14)
    torch.testing.assert_close(lapack.symmetric_times(G, V), V @ full, rtol=1e-13, atol=1e-13)
    lam = torch.linalg.eigvalsh(full)[:, -1]
    torch.testing.assert_close(lapack.top_eigenvalue(G), lam, rtol=1e-13, atol=0)
    S = certificate._shifted(G, lam * 1.5)
    assert torch.all(lapack.cholesky(S))
    X = V.clone()
    lapack.cholesky_solve(S, X)
    torch.testing.assert_close(X @ certificate._shifted(full, lam * 1.5), V, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="float64"):
        lapack.gram(A.float())


def test_rayleigh_ritz_power_rows_are_one_more_power_step():
    A = _blocks(2, 10, 10, torch.logspace(0, -2, 10, dtype=F64), 15)
    B = A @ A.mT
    V = _rows(2, 3, 10, 16)
    theta, _, U = rayleigh_ritz(V, V @ B)
    _, _, P = rayleigh_ritz(V, V @ B, power=True)
    Bu1 = (U[:, :1] @ B)[:, 0]
    torch.testing.assert_close(P[:, 0].abs(), (Bu1 / Bu1.norm(dim=1, keepdim=True)).abs(), rtol=1e-12, atol=1e-12)
    assert torch.all(trace_bounds(theta, A.square().sum((1, 2)), 10, 10)[:, -1] >= 0)
    assert arrowhead_upper(theta, torch.zeros_like(theta), theta.new_zeros(theta.shape)).shape == (2,)
