"""Spectral probes (analysis.spectra) on matrices with known answers: diagonal, orthogonal/unitary,
normal, Jordan blocks. Context: enrnn.md Sec. 2 (eigenvalues vs singular values vs non-normality)."""

import json
import math

import numpy as np
import pytest
import torch
from scipy.spatial import ConvexHull

from rnnaudit.analysis.spectra import (as_square_matrix, condition_number, eigenvalues, henrici_departure,
                                       numerical_radius, numerical_range, orthogonality_distance, schur_departure,
                                       singular_values, spectral_radius, spectral_summary)
from rnnaudit.cells import ENRNN, ScoRNN
from tests.conftest import DEVICES

F64 = torch.float64
U64 = 2.0 ** -53  # unit roundoff of float64


def _orthogonal(n, seed, complex_=False):
    g = torch.Generator().manual_seed(seed)
    M = torch.randn(n, n, dtype=F64, generator=g)
    if complex_:
        M = torch.complex(M, torch.randn(n, n, dtype=F64, generator=g))
    Q, _ = torch.linalg.qr(M)
    return Q


def _normal(n, seed, complex_=True):
    """A = Q Λ Q^H: complex normal with random eigenvalues, or real normal from 2×2 blocks
    r(cos t, −sin t; sin t, cos t) (eigenvalues r e^{±it}) conjugated by a real orthogonal Q."""
    g = torch.Generator().manual_seed(seed + 100)
    if complex_:
        lam = torch.complex(torch.randn(n, dtype=F64, generator=g), torch.randn(n, dtype=F64, generator=g))
        Q = _orthogonal(n, seed, complex_=True)
        return Q @ torch.diag(lam) @ Q.mH, lam
    assert n % 2 == 0
    r, t = torch.rand(n // 2, dtype=F64, generator=g) + 0.2, torch.rand(n // 2, dtype=F64, generator=g) * math.pi
    B = torch.zeros(n, n, dtype=F64)
    for j in range(n // 2):
        B[2 * j:2 * j + 2, 2 * j:2 * j + 2] = r[j] * torch.tensor([[math.cos(t[j]), -math.sin(t[j])],
                                                                  [math.sin(t[j]), math.cos(t[j])]], dtype=F64)
    lam = torch.cat([torch.polar(r, t), torch.polar(r, -t)])
    Q = _orthogonal(n, seed)
    return Q @ B @ Q.T, lam


def _jordan(n, lam=0.0, dtype=F64):
    return lam * torch.eye(n, dtype=dtype) + torch.diag(torch.ones(n - 1, dtype=dtype), 1)


@pytest.mark.parametrize("device", DEVICES)
def test_diagonal_matrix_has_its_entries_as_spectrum(device):
    d = torch.tensor([0.5, -2.0, 1.5, 0.25, -0.75], dtype=F64, device=device)
    D = torch.diag(d)
    s = spectral_summary(D)
    # A diagonal matrix is already in Schur form: LAPACK returns its entries up to rounding (≤ few u).
    torch.testing.assert_close(eigenvalues(D), torch.tensor([-2.0, 1.5, -0.75, 0.5, 0.25], dtype=torch.complex128,
                                                            device=device), rtol=1e-14, atol=1e-15)
    assert float(spectral_radius(D)) == pytest.approx(2.0, rel=1e-14)
    torch.testing.assert_close(singular_values(D), d.abs().sort(descending=True).values, rtol=1e-14, atol=0)
    assert float(condition_number(D)) == pytest.approx(2.0 / 0.25, rel=1e-14)
    assert float(orthogonality_distance(D)) == pytest.approx(float((d ** 2 - 1).abs().max()), rel=1e-14)
    assert float(orthogonality_distance(D, "fro")) == pytest.approx(float((d ** 2 - 1).norm()), rel=1e-14)
    # Normal: both departures vanish. T = D has no strictly upper part, so the Schur route gives 0
    # exactly; the eigenvalue route subtracts two sums of size ‖D‖_F² ≈ 7.4: ≤ sqrt(n·u)·‖D‖_F ≈ 3e-8.
    assert s.schur_departure == 0.0 and s.henrici_departure <= 1e-7
    assert s.n == 5 and s.spectral_norm == pytest.approx(2.0, rel=1e-14) and s.min_singular_value == 0.25


@pytest.mark.parametrize("complex_", [False, True])
@pytest.mark.parametrize("device", DEVICES)
def test_orthogonal_and_unitary_matrices(complex_, device):
    n = 12
    Q = _orthogonal(n, 0, complex_).to(device)
    lam = eigenvalues(Q)
    # Backward-stable QR and eig: |λ| = 1 and σ_i = 1 up to a small multiple of n·u.
    tol = 100 * n * U64
    torch.testing.assert_close(lam.abs(), torch.ones(n, dtype=F64, device=device), rtol=0, atol=tol)
    torch.testing.assert_close(singular_values(Q), torch.ones(n, dtype=F64, device=device), rtol=0, atol=tol)
    assert float(condition_number(Q)) == pytest.approx(1.0, abs=tol)
    assert float(orthogonality_distance(Q)) <= tol and float(orthogonality_distance(Q, "fro")) <= tol * math.sqrt(n)
    # Unitary ⇒ normal: Schur departure ≈ u‖Q‖_F; the Henrici formula cancels, ≈ sqrt(u)·‖Q‖_F.
    assert float(schur_departure(Q)) <= tol * math.sqrt(n)
    assert float(henrici_departure(Q)) <= 10 * math.sqrt(n * U64) * math.sqrt(n)
    # Normal ⇒ W(Q) = hull of eigenvalues on the unit circle, w = 1; the m-angle estimate is
    # low by at most a factor cos(π/m) (documented bound), never high.
    w = float(numerical_radius(Q, n_angles=64))
    assert math.cos(math.pi / 64) - 1e-12 <= w <= 1 + 1e-12


@pytest.mark.parametrize("n", [2, 5, 9])
def test_jordan_block_spectra(n):
    """J_n(λ) = λI + N: eigenvalue λ (n-fold), ‖A‖_F² − Σ|λ_i|² = n − 1 so dep_F = sqrt(n − 1);
    J_n(0) has singular values 1 (n − 1 times) and 0, and ‖J^T J − I‖ = 1 in both norms."""
    lam = 0.7
    J = _jordan(n, lam)
    # J is upper triangular, i.e. already its own Schur form: the QR algorithm deflates at once
    # and returns the diagonal (no u^{1/n} eigenvalue perturbation, which a rotated J would show).
    torch.testing.assert_close(eigenvalues(J), torch.full((n,), lam, dtype=torch.complex128), rtol=1e-14, atol=0)
    assert float(schur_departure(J)) == pytest.approx(math.sqrt(n - 1), rel=1e-14)
    assert float(henrici_departure(J)) == pytest.approx(math.sqrt(n - 1), rel=1e-12)
    J0 = _jordan(n, 0.0)
    s = singular_values(J0)
    torch.testing.assert_close(s, torch.tensor([1.0] * (n - 1) + [0.0], dtype=F64), rtol=0, atol=1e-15)
    assert math.isinf(float(condition_number(J0)))
    assert float(orthogonality_distance(J0)) == pytest.approx(1.0, rel=1e-14)
    assert float(orthogonality_distance(J0, "fro")) == pytest.approx(1.0, rel=1e-14)


@pytest.mark.parametrize("n", [2, 3, 6])
def test_numerical_range_of_nilpotent_jordan_block_is_a_disc(n):
    """W(J_n(0)) is the closed disc of radius cos(π/(n + 1)) (Haagerup & de la Harpe 1992;
    n = 2: radius 1/2). Every rotation gives the same λ_max(H_θ), so every boundary point found
    has modulus cos(π/(n + 1)) and the numerical radius estimate is exact."""
    radius = math.cos(math.pi / (n + 1))
    p = numerical_range(_jordan(n), n_angles=64)
    # λ_max of a symmetric tridiagonal via eigh, then x^H A x: a few u each.
    torch.testing.assert_close(p.abs(), torch.full((64,), radius, dtype=F64), rtol=1e-13, atol=0)
    assert float(numerical_radius(_jordan(n))) == pytest.approx(radius, rel=1e-13)


@pytest.mark.parametrize("complex_", [True, False])
def test_numerical_range_of_normal_matrix_is_convex_hull_of_eigenvalues(complex_):
    """For normal A, W(A) = conv{λ_i}: the support function of W in direction θ,
    λ_max(H_θ), equals max_i Re(e^{iθ} λ_i), and every boundary point lies in the hull."""
    A, lam = _normal(8, 3, complex_)
    m = 128
    p = numerical_range(A, n_angles=m)
    theta = torch.arange(m, dtype=F64) * (2 * math.pi / m)
    rot = torch.polar(torch.ones(m, dtype=F64), theta)
    support_hull = (rot[:, None] * lam[None, :]).real.amax(dim=1)
    # eigh of a Hermitian 8×8 and x^H A x: absolute error ≈ n·u·‖A‖ ≈ 1e-14 here.
    torch.testing.assert_close((rot * p).real, support_hull, rtol=0, atol=1e-12)
    hull = ConvexHull(np.stack([lam.real.numpy(), lam.imag.numpy()], 1))
    pts = np.stack([p.real.numpy(), p.imag.numpy()], 1)
    # hull.equations: rows (a, b, c) with a·x + b·y + c ≤ 0 inside.
    assert (pts @ hull.equations[:, :2].T + hull.equations[:, 2]).max() <= 1e-12
    assert float(numerical_radius(A, n_angles=m)) <= float(lam.abs().max()) + 1e-12


@pytest.mark.parametrize("complex_", [True, False])
def test_henrici_departure_vanishes_for_normal_matrices(complex_):
    A, _ = _normal(10, 4, complex_)
    fro = float(torch.linalg.matrix_norm(A))
    # Schur route: backward stable, ≈ n·u·‖A‖_F. Eigenvalue route: the difference of two numbers
    # of size ‖A‖_F² cancels, leaving ≈ sqrt(n·u)·‖A‖_F.
    assert float(schur_departure(A)) <= 100 * 10 * U64 * fro
    assert float(henrici_departure(A)) <= 10 * math.sqrt(10 * U64) * fro


def test_henrici_two_ways_agree_on_a_non_normal_matrix():
    g = torch.Generator().manual_seed(5)
    A = torch.randn(20, 20, dtype=F64, generator=g) / math.sqrt(20)
    dep_s, dep_h = float(schur_departure(A)), float(henrici_departure(A))
    assert dep_s > 1.0  # a Ginibre matrix is far from normal: dep_F² ≈ ‖A‖_F²/2
    # The formula's rounding error ≈ u‖A‖_F²/dep plus eigenvalue errors (condition ≲ 1e3 here).
    assert dep_h == pytest.approx(dep_s, rel=1e-9)


def test_numerical_range_properties_of_a_non_normal_matrix():
    """Toeplitz–Hausdorff/Bendixson facts: σ(A) ⊂ W(A), so each eigenvalue satisfies every
    supporting half-plane Re(e^{iθ}λ) ≤ λ_max(H_θ); ρ ≤ w ≤ ‖A‖₂ ≤ 2w; and the point p_θ attains
    the support value Re(e^{iθ}p_θ) = λ_max(H_θ)."""
    g = torch.Generator().manual_seed(6)
    A = torch.randn(15, 15, dtype=F64, generator=g) / math.sqrt(15) + torch.triu(torch.ones(15, 15, dtype=F64), 1)
    m = 256
    p = numerical_range(A, n_angles=m)
    theta = torch.arange(m, dtype=F64) * (2 * math.pi / m)
    rot = torch.polar(torch.ones(m, dtype=F64), theta)
    Ac = A.to(torch.complex128)
    H = (rot[:, None, None] * Ac + (rot[:, None, None] * Ac).mH) / 2
    support = torch.linalg.eigvalsh(H)[:, -1]
    scale = float(torch.linalg.matrix_norm(A, 2))
    torch.testing.assert_close((rot * p).real, support, rtol=0, atol=1e-12 * scale)
    lam = eigenvalues(A)
    assert ((rot[:, None] * lam[None, :]).real <= support[:, None] + 1e-12 * scale).all()
    w, rho = float(numerical_radius(A, m)), float(spectral_radius(A))
    # w estimate is low by at most a factor cos(π/m).
    assert rho <= w * (1 + 1e-12) and w <= scale * (1 + 1e-12) and scale <= 2 * w / math.cos(math.pi / m)


def test_summary_of_an_orthogonal_cell_and_of_an_enrnn_cell():
    """scoRNN's W = (I + A)^{-1}(I − A)D is orthogonal (nc_gru.md eq. 19). ENRNN at its eq. 5
    initialisation: W^(L) orthogonal and T = diag(γ_j R(t_j)) normal, so with the coupling block
    W = [[W^(L), W^(C)], [0, W^(S)]] (enrnn.md eq. 2) has ‖W‖_F² − Σ|λ|² = ‖W^(C)‖_F²: the
    coupling is exactly the departure from normality, and q eigenvalues lie on the unit circle."""
    g = torch.Generator().manual_seed(7)
    s = spectral_summary(ScoRNN(3, 10, num_negative=3, generator=g, dtype=F64))
    assert s.orthogonality_distance_2 <= 1e-13 and s.spectral_radius == pytest.approx(1.0, abs=1e-13)
    assert s.condition_number == pytest.approx(1.0, abs=1e-13) and s.schur_departure <= 1e-12
    json.dumps(s.to_dict())  # JSON-ready for the report writer
    assert len(s.to_dict()["eigenvalues"]) == 10
    cell = ENRNN(3, 6, 8, coupling=True, generator=g, dtype=F64)
    e = spectral_summary(cell)
    # Schur form of a 14×14 matrix: error ≈ n·u·‖W‖_F.
    assert e.schur_departure == pytest.approx(float(torch.linalg.matrix_norm(cell.W_C.detach())), rel=1e-12)
    on_circle = (e.eigenvalues.abs() - 1).abs() <= 1e-12
    assert int(on_circle.sum()) == 6 and e.spectral_radius == pytest.approx(1.0, abs=1e-12)
    uncoupled = spectral_summary(ENRNN(3, 6, 8, coupling=False, generator=g, dtype=F64))
    assert uncoupled.schur_departure <= 1e-12


def test_array_likes_are_accepted_and_bad_input_rejected():
    # Integer nested lists become float64 (the documented default).
    assert as_square_matrix([[1, 2], [3, 4]]).dtype == F64
    assert float(spectral_radius(np.diag([3.0, -1.0]))) == pytest.approx(3.0, rel=1e-15)
    with pytest.raises(ValueError, match="square"):
        spectral_summary(torch.zeros(2, 3, dtype=F64))
    with pytest.raises(ValueError, match="square"):
        eigenvalues(torch.zeros(2, 2, 2, dtype=F64))
    with pytest.raises(ValueError, match="n >= 1"):
        singular_values(torch.zeros(0, 0, dtype=F64))
    with pytest.raises(ValueError, match="finite"):
        henrici_departure(torch.tensor([[1.0, float("nan")], [0.0, 1.0]], dtype=F64))
    with pytest.raises(ValueError, match="W must"):
        spectral_summary(torch.ones(3, dtype=F64))
    with pytest.raises(ValueError, match="n_angles"):
        numerical_range(torch.eye(2, dtype=F64), n_angles=2)
    with pytest.raises(ValueError, match="ord"):
        orthogonality_distance(torch.eye(2, dtype=F64), ord=1)
    with pytest.raises(ValueError, match="numeric"):
        eigenvalues(np.array([["a", "b"], ["c", "d"]]))


def test_huge_matrices_give_inf_or_the_scaled_departure_never_nan():
    """‖A‖² overflows at ‖A‖ ≈ 1e154: the orthogonality distance (≈ 1e600) is not a float, so inf; the
    departure from normality is homogeneous, so it is computed on A/max|A| and scaled back."""
    eye = torch.eye(3, dtype=torch.float64)
    assert orthogonality_distance(1e300 * eye).item() == math.inf
    assert henrici_departure(1e300 * eye).item() == 0.0
    jordan = torch.tensor([[1.0, 1.0], [0.0, 1.0]], dtype=torch.float64)
    assert henrici_departure(1e300 * jordan).item() == pytest.approx(1e300, rel=1e-12)
    assert henrici_departure(1e-300 * jordan).item() == pytest.approx(1e-300, rel=1e-12, abs=0)
    assert henrici_departure(torch.zeros(2, 2, dtype=torch.float64)).item() == 0.0


def test_schur_departure_does_not_overflow_where_the_value_is_a_float():
    """[[1e300, 1e300], [0, 1]] is its own Schur form: ‖N‖_F = 1e300 exactly; squaring the entry overflowed."""
    from rnnaudit.analysis.spectra import schur_departure
    assert float(schur_departure(torch.tensor([[1e300, 1e300], [0.0, 1.0]], dtype=torch.float64))) == 1e300
    assert float(schur_departure(torch.tensor([[1e-300, 1e-300], [0.0, 1.0]], dtype=torch.float64))) == pytest.approx(
        1e-300, rel=4e-16)
    assert float(schur_departure(torch.eye(3, dtype=torch.float64))) == 0.0


def test_an_expanded_matrix_too_large_for_memory_is_refused_before_anything_is_allocated():
    """A zero-stride (expanded) tensor of 8 bytes describes a 10⁶ × 10⁶ matrix: the probes refuse it from its
    shape, naming the argument and the memory it needs (it was a RuntimeError from the allocator, after
    isfinite tried to allocate 10¹² booleans). Control: the same expansion at 3 × 3 is probed."""
    from rnnaudit.analysis.spectra import check_dense_memory

    huge = torch.zeros(1, dtype=F64).expand(10**6, 10**6)
    for probe, name in ((spectral_summary, "W"), (eigenvalues, "A"), (numerical_radius, "A")):
        with pytest.raises(ValueError, match=rf"^{name}: a \(1000000, 1000000\) matrix needs about .* GiB .*"
                                             "above the memory limit"):
            probe(huge)
    assert spectral_summary(torch.ones(1, dtype=F64).expand(3, 3)).spectral_radius == pytest.approx(3.0)
    with pytest.raises(ValueError, match="W: a \\(100, 100\\) matrix needs about"):
        check_dense_memory("W", 100, 8, memory_limit=100 * 100 * 16)
    check_dense_memory("W", 100, 1, memory_limit=100 * 100 * 16)  # exactly at the limit: accepted
    for bad in ("abc", None, {"a": 1}):
        with pytest.raises(TypeError, match="W must be a numeric"):
            spectral_summary(bad)


def test_the_numerical_range_by_blocks_of_angles_is_the_same_and_its_angles_are_bounded(monkeypatch):
    """The rotated matrices e^{iθ}A are formed a block of angles at a time (the whole (m, n, n) stack was 4 GiB
    at n = 1,000): blocks of one angle give the same points and radius; n_angles above 2¹⁶ is refused."""
    import rnnaudit.analysis.spectra as spectra

    A = torch.randn(5, 5, dtype=F64, generator=torch.Generator().manual_seed(3))
    whole, radius = numerical_range(A, n_angles=16), numerical_radius(A, n_angles=16)
    monkeypatch.setattr(spectra, "_ANGLE_ENTRIES", 1)
    torch.testing.assert_close(numerical_range(A, n_angles=16), whole, rtol=0, atol=1e-14)
    assert float(numerical_radius(A, n_angles=16)) == pytest.approx(float(radius), rel=1e-15)
    with pytest.raises(ValueError, match="n_angles must be an integer in"):
        spectral_summary(A, n_angles=10**9)
