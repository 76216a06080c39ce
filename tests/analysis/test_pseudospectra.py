"""Pseudospectra, transient growth and Kreiss constant (analysis.pseudospectra) against known answers.

Context: enrnn.md Sec. 2 — a matrix with spectrum in the unit disc whose pseudospectrum extends
outside it shows transient amplification (‖A^k‖ > 1 for a while) before decaying.
"""

import math

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
import torch

from rnnaudit.analysis.pseudospectra import (NORMAL_TOL, kreiss_constant, pseudospectrum, sigma_min, sigma_min_dense,
                                             transient_growth)
from rnnaudit.cells import ScoRNN
from tests.conftest import DEVICES

F64 = torch.float64


def _normal(n, seed):
    g = torch.Generator().manual_seed(seed)
    lam = torch.complex(torch.randn(n, dtype=F64, generator=g), torch.randn(n, dtype=F64, generator=g))
    Q, _ = torch.linalg.qr(torch.complex(torch.randn(n, n, dtype=F64, generator=g),
                                         torch.randn(n, n, dtype=F64, generator=g)))
    return Q @ torch.diag(lam) @ Q.mH, lam


def _nonnormal(n, seed, rho):
    """Ginibre matrix plus a random strictly upper part, scaled to spectral radius rho."""
    g = torch.Generator().manual_seed(seed)
    A = torch.randn(n, n, dtype=F64, generator=g) / math.sqrt(n) + torch.triu(torch.randn(n, n, dtype=F64,
                                                                                         generator=g), 1)
    return A * (rho / torch.linalg.eigvals(A).abs().max())


def _jordan0(n):
    return torch.diag(torch.ones(n - 1, dtype=F64), 1)


@pytest.mark.parametrize("normal_tol", [NORMAL_TOL, 0.0], ids=["distance-formula", "lanczos"])
@pytest.mark.parametrize("device", DEVICES)
def test_pseudospectrum_of_normal_matrix_is_union_of_discs(device, normal_tol):
    """For normal A, ‖(zI − A)^{-1}‖₂ = 1/min_i |z − λ_i|, so Λ_ε(A) = ∪_i D(λ_i, ε); both routes
    (the exact distance formula, and Lanczos forced by normal_tol = 0) must find it."""
    A, lam = _normal(12, 0)
    A = A.to(device)
    x = torch.linspace(-3, 3, 15, dtype=F64)
    y = torch.linspace(-2.5, 2.5, 11, dtype=F64)
    grid = pseudospectrum(A, x, y, normal_tol=normal_tol)
    assert grid.method == ("normal" if normal_tol else "lanczos")
    Z = x[None, :] + 1j * y[:, None]
    exact = (Z[..., None] - lam).abs().amin(-1)
    assert grid.sigma.shape == (11, 15) and grid.sigma.device.type == device
    # Backward stable Schur + triangular solves: absolute error ≈ n·u·‖A‖₂; Lanczos tol 1e-13 on 1/σ².
    err = (grid.sigma.cpu() - exact).abs()
    assert (err <= 1e-10 * exact + 1e-13 * float(lam.abs().max())).all()
    eps = 0.4
    torch.testing.assert_close(grid.contains(eps).cpu(), exact < eps, rtol=0, atol=0)


def test_lanczos_sigma_min_matches_dense_svd():
    """The EigTool route equals one dense SVD per point, in each code path: one point at a time
    (≤ 8 points: scipy.linalg.solve_triangular), blocked multi-shift solves with several chunks
    (chunk = 7 also exercises the switch to single solves as points converge), and the grid."""
    A = _nonnormal(40, 1, rho=0.95)
    rng = np.random.default_rng(0)
    z = rng.uniform(-1.5, 1.5, 60) + 1j * rng.uniform(-1.5, 1.5, 60)
    dense = sigma_min_dense(A, z)
    scale = float(torch.linalg.matrix_norm(A, 2))
    # Both are backward stable: |Δσ| ≲ n·u·‖A‖₂ ≈ 1e-13 here; Lanczos stops at 1e-13 on 1/σ².
    for kw in ({}, {"chunk": 7}):
        fast = sigma_min(A, z, **kw)
        assert ((fast - dense).abs() <= 1e-10 * dense + 1e-13 * scale).all()
    few = sigma_min(A, z[:3])
    assert ((few - dense[:3]).abs() <= 1e-10 * dense[:3] + 1e-13 * scale).all()
    x, y = np.linspace(-1.2, 1.3, 9), np.linspace(-1.0, 1.1, 7)
    grid = pseudospectrum(A, x, y)
    d = sigma_min_dense(A, x[None, :] + 1j * y[:, None])
    assert ((grid.sigma - d).abs() <= 1e-10 * d + 1e-13 * scale).all()
    # A complex input matrix takes the same route.
    Ac = A.to(torch.complex128) * complex(math.cos(0.3), math.sin(0.3))
    torch.testing.assert_close(sigma_min(Ac, z[:20]), sigma_min_dense(Ac, z[:20]), rtol=1e-10, atol=1e-13 * scale)


def _orthogonal(n, seed):
    Q, _ = torch.linalg.qr(torch.randn(n, n, dtype=F64, generator=torch.Generator().manual_seed(seed)))
    return Q


def test_orthogonal_matrix_takes_the_exact_distance_formula():
    """An orthogonal Q is normal: σ_min(zI − Q) = min_i |z − λ_i| with every |λ_i| = 1. Its computed
    Schur factor is diagonal up to rounding (‖N‖_F ≈ 40u·‖Q‖_F, far below NORMAL_TOL), so the grid
    takes the distance formula, with no Lanczos step, and agrees with a dense SVD per point to the
    SVD's own accuracy (≈ n·u·‖Q‖₂ = 3e-14 for n = 128)."""
    Q = _orthogonal(128, 0)
    axis = np.linspace(-1.2, 1.2, 201)
    grid = pseudospectrum(Q, axis, axis)
    assert grid.method == "normal" and int(grid.lanczos_steps.abs().max()) == 0
    assert grid.departure <= NORMAL_TOL * math.sqrt(128)
    lam = torch.linalg.eigvals(Q)
    torch.testing.assert_close(lam.abs(), torch.ones(128, dtype=F64), rtol=0, atol=1e-13)
    rng = np.random.default_rng(0)
    rows, cols = rng.integers(0, 201, 40), rng.integers(0, 201, 40)
    dense = sigma_min_dense(Q, axis[cols] + 1j * axis[rows])
    assert (grid.sigma[rows, cols] - dense).abs().max() <= 1e-13
    # at the centre every eigenvalue is at distance 1
    assert float(grid.sigma[100, 100]) == pytest.approx(1.0, abs=1e-13)


def test_departure_from_normality_decides_the_route_and_bounds_the_formula_error():
    """A = Q(D + δN)Qᵀ with ‖δN‖_F = 1e-3·‖A‖_F is not normal to within NORMAL_TOL: it must take
    the Lanczos route, which matches a dense SVD, while the distance formula is measurably wrong
    there (so the test of the departure matters). With the tolerance raised above its departure the
    formula is used and is off by at most ‖N‖₂ ≤ ‖N‖_F (Weyl's inequality for singular values)."""
    n = 20
    g = torch.Generator().manual_seed(3)
    rng = np.random.default_rng(3)
    D = torch.diag(torch.rand(n, dtype=F64, generator=g) * 1.8 - 0.9)
    N = torch.triu(torch.randn(n, n, dtype=F64, generator=g), 1)
    Q = _orthogonal(n, 4)
    A0 = Q @ D @ Q.T
    delta = 1e-3 * float(torch.linalg.matrix_norm(A0)) / float(torch.linalg.matrix_norm(N))
    A = Q @ (D + delta * N) @ Q.T
    # irregular points: where two eigenvalues are equidistant from z, σ_min is nearly double and
    # the Lanczos stopping rule is less accurate than its tolerance, which is not tested here
    x, y = np.sort(rng.uniform(-1.2, 1.2, 13)), np.sort(rng.uniform(0.05, 0.4, 7))
    Z = x[None, :] + 1j * y[:, None]
    dense = sigma_min_dense(A, Z)
    grid = pseudospectrum(A, x, y)
    assert grid.method == "lanczos" and int(grid.lanczos_steps.min()) > 0
    scale = float(torch.linalg.matrix_norm(A, 2))
    assert ((grid.sigma - dense).abs() <= 1e-10 * dense + 1e-13 * scale).all()
    dist = (torch.as_tensor(Z)[..., None] - torch.linalg.eigvals(A)).abs().amin(-1)
    assert float((dist - dense).abs().max()) > 1e-8  # the formula would be off here
    loose = pseudospectrum(A, x, y, normal_tol=0.1)
    assert loose.method == "normal"
    assert float((loose.sigma - dense).abs().max()) <= loose.departure * (1 + 1e-6)
    torch.testing.assert_close(sigma_min(A, Z[0]), dense[0], rtol=1e-10, atol=1e-13 * scale)


def test_a_real_matrix_has_a_pseudospectrum_symmetric_about_the_real_axis_and_a_complex_one_need_not():
    """σ_min(z̄I − A) = σ_min(zI − A) for a real A (conj(zI − A) = z̄I − A): the grid's rows y and −y are equal,
    and agree with a dense SVD at the points computed. Control: a complex A (a Jordan block with eigenvalue 0.3i)
    has rows ±y that differ, and is not mirrored."""
    x, y = np.linspace(-1.5, 1.5, 7), np.array([-1.0, -0.25, 0.0, 0.25, 1.0])
    A = torch.as_tensor(np.random.default_rng(3).standard_normal((6, 6)) / 3)
    grid = pseudospectrum(A, x, y)
    torch.testing.assert_close(grid.sigma, grid.sigma.flip(0), rtol=0, atol=0)
    Z = x[None, :] + 1j * y[:, None]
    torch.testing.assert_close(grid.sigma, sigma_min_dense(A, Z), rtol=1e-10, atol=1e-13)
    C = _jordan0(6).to(torch.complex128) + 0.3j * torch.eye(6, dtype=torch.complex128)
    cgrid = pseudospectrum(C, x, y)
    torch.testing.assert_close(cgrid.sigma, sigma_min_dense(C, Z), rtol=1e-10, atol=1e-13)
    assert float((cgrid.sigma - cgrid.sigma.flip(0)).abs().max()) > 1e-3


def test_pseudospectrum_reports_progress_over_every_grid_point():
    seen = []
    x, y = np.linspace(-1, 1, 9), np.linspace(-1, 1, 5)
    pseudospectrum(_orthogonal(6, 1), x, y, progress=seen.append)
    assert sum(seen) == 45
    seen.clear()
    pseudospectrum(_jordan0(6), x, y, chunk=10, progress=seen.append)
    # a real matrix: the rows ±y are computed once, |y| ∈ {0, 0.5, 1}, so 27 points in 3 chunks stand for all 45
    assert sum(seen) == 45 and len(seen) == 3
    with pytest.raises(TypeError, match="progress"):
        pseudospectrum(_jordan0(3), x, y, progress=3)


@pytest.mark.parametrize("n", [2, 6])
def test_jordan_block_sigma_min_structure(n):
    """J = J_n(0): (zI − J)^{-1} = Σ_{k<n} J^k / z^{k+1}, so |z|^{-n} (its (1, n) entry) ≤ ‖(zI − J)^{-1}‖
    ≤ Σ_{k=1}^n |z|^{-k}, i.e. 1/Σ_{k=1}^n r^{-k} ≤ σ_min ≤ r^n with r = |z|; σ_min depends on r
    only (D J D^{-1} = e^{iφ} J with D = diag(e^{ikφ}) unitary); σ_min(0) = 0. For n = 2,
    σ_max σ_min = r² and σ_max² + σ_min² = 2r² + 1 give σ_min² = 2r⁴/(2r² + 1 + sqrt(4r² + 1))."""
    J = _jordan0(n)
    r = torch.tensor([0.05, 0.3, 0.7, 1.0, 1.6], dtype=F64)
    phi = torch.tensor([0.0, 0.9, 2.5, -1.7], dtype=F64)
    Z = r[:, None] * torch.polar(torch.ones_like(phi), phi)[None, :]
    s = sigma_min(J, Z)
    # Rotation invariance: the four angles agree to the Lanczos accuracy.
    torch.testing.assert_close(s, s[:, :1].expand_as(s), rtol=1e-11, atol=0)
    lower = 1 / sum(r ** -k for k in range(1, n + 1))
    assert (s[:, 0] >= lower * (1 - 1e-11)).all() and (s[:, 0] <= r ** n * (1 + 1e-11)).all()
    if n == 2:
        exact = torch.sqrt(2 * r ** 4 / (2 * r ** 2 + 1 + torch.sqrt(4 * r ** 2 + 1)))
        torch.testing.assert_close(s[:, 0], exact, rtol=1e-11, atol=0)
    assert float(sigma_min(J, 0.0)) == 0.0
    # The pseudospectrum is (nearly) the disc of radius ε^{1/n}: the bounds decide most points.
    x = np.linspace(-1, 1, 21)
    grid = pseudospectrum(J, x, x)
    R = torch.as_tensor(np.abs(x[None, :] + 1j * x[:, None]))
    eps = 1e-2
    inside = grid.contains(eps)
    assert inside[R ** n < eps].all()
    assert not inside[1 / sum(R ** -k for k in range(1, n + 1)) >= eps].any()


def test_transient_growth_known_curves():
    """‖J_n(0)^k‖ = 1 for k < n and 0 for k ≥ n; ‖Q^k‖ = 1 for orthogonal Q; ‖D^k‖ = ρ^k for
    diagonal D; for A = [[λ, c], [0, λ]], A^k = [[λ^k, kcλ^{k−1}], [0, λ^k]] whose norm is
    (|b| + sqrt(b² + 4a²))/2 with a = λ^k, b = kcλ^{k−1}."""
    n, K = 5, 12
    tg = transient_growth(_jordan0(n), K)
    torch.testing.assert_close(tg.curve, torch.tensor([1.0] * n + [0.0] * (K - n + 1), dtype=F64), rtol=0, atol=1e-15)
    assert tg.peak == 1.0 and tg.k_peak == 0
    Q, _ = torch.linalg.qr(torch.randn(8, 8, dtype=F64, generator=torch.Generator().manual_seed(2)))
    # k products of an orthogonal matrix drift from orthogonality by ≈ k·n·u.
    torch.testing.assert_close(transient_growth(Q, 50).curve, torch.ones(51, dtype=F64), rtol=0, atol=1e-12)
    D = torch.diag(torch.tensor([0.9, -0.5, 0.2], dtype=F64))
    torch.testing.assert_close(transient_growth(D, 30, batch=7).curve, 0.9 ** torch.arange(31, dtype=F64),
                               rtol=1e-13, atol=0)
    lam, c = 0.8, 3.0
    A = torch.tensor([[lam, c], [0.0, lam]], dtype=F64)
    k = torch.arange(41, dtype=F64)
    a, b = lam ** k, k * c * lam ** (k - 1)
    exact = (b.abs() + torch.sqrt(b ** 2 + 4 * a ** 2)) / 2
    tg = transient_growth(A, 40)
    torch.testing.assert_close(tg.curve, exact, rtol=1e-13, atol=0)
    assert tg.k_peak == int(torch.argmax(exact)) and tg.peak == pytest.approx(float(exact.max()), rel=1e-13)
    assert tg.peak > 1  # transient amplification although ρ(A) = 0.8 < 1


def test_kreiss_constant_of_normal_and_unstable_matrices():
    """Normal A with ρ ≤ 1: (|z| − 1)/dist(z, Λ) ≤ 1 with limit 1 as |z| → ∞, so K(A) = 1.
    ρ(A) > 1: (|z| − 1)‖(zI − A)^{-1}‖ is unbounded near an eigenvalue outside the disc."""
    A, lam = _normal(6, 3)
    A = A * (0.9 / float(lam.abs().max()))
    est = kreiss_constant(A, refine=1)
    # Values on the grid are < 1 by at least rounding: the |z| → ∞ limit 1 is returned.
    assert est.value == pytest.approx(1.0, abs=1e-12) and est.rho == pytest.approx(0.9, rel=1e-12)
    assert math.isinf(kreiss_constant(torch.diag(torch.tensor([1.1, 0.5], dtype=F64))).value)


def test_orthogonal_recurrent_matrix_has_no_transient_amplification():
    """enrnn.md Sec. 2: an orthogonal W preserves norms, ‖W^k‖ = 1 for all k, and being normal
    with ρ = 1 it has K(W) = 1 (scoRNN's W, nc_gru.md eq. 19). Its eigenvalues lie on the unit
    circle, so the search comes within s_lo = 1e-8 of them, where f = (|z| − 1)/σ_min has
    rounding ≈ u/s_lo. By contrast J_2(1) = [[1, 1], [0, 1]] has K = ∞ (‖J^k‖ = O(k)); with ρ = 1
    the estimate cannot say ∞ but must be huge: f((1 + s)) ≈ 1/s at s = s_lo gives ≈ 1e8."""
    cell = ScoRNN(2, 16, num_negative=4, generator=torch.Generator().manual_seed(4), dtype=F64)
    W = cell.recurrent_matrix().detach()
    # 60 products of an orthogonal matrix: drift ≈ k·n·u ≪ 1e-12.
    torch.testing.assert_close(transient_growth(W, 60).curve, torch.ones(61, dtype=F64), rtol=0, atol=1e-12)
    est = kreiss_constant(cell)
    assert est.value == pytest.approx(1.0, abs=1e-7) and est.rho == pytest.approx(1.0, abs=1e-13)
    assert kreiss_constant(torch.tensor([[1.0, 1.0], [0.0, 1.0]], dtype=F64)).value > 1e7


@pytest.mark.parametrize("lam", [0.0, 0.5])
def test_kreiss_constant_of_a_2x2_jordan_type_matrix(lam):
    """A = [[λ, c], [0, λ]], λ ≥ 0 real: zI − A = [[a, −c], [0, a]], a = z − λ, with
    σ_min² = (2|a|² + c² − sqrt((2|a|² + c²)² − 4|a|⁴))/2, increasing in |a|; for fixed |z| = r,
    |a| is smallest at z = r, so K(A) = max_{r>1} (r − 1)/σ_min(|r − λ|) — a 1-D maximisation
    done here with the closed form, independently of the Lanczos code."""
    c = 4.0
    A = torch.tensor([[lam, c], [0.0, lam]], dtype=F64)

    def f(r):
        s = abs(r - lam)
        smin2 = 2 * s ** 4 / (2 * s ** 2 + c ** 2 + math.sqrt(c ** 4 + 4 * s ** 2 * c ** 2))  # stable form
        return (r - 1) / math.sqrt(smin2)

    res = scipy.optimize.minimize_scalar(lambda t: -f(1 + math.exp(t)), bounds=(-10, 6), method="bounded",
                                         options={"xatol": 1e-12})
    ref = -res.fun
    est = kreiss_constant(A)
    # Lower estimate: never above the sup (up to σ_min's relative accuracy ~1e-12); Nelder–Mead
    # locates the smooth maximum to ≲ 1e-9 relatively.
    assert ref > 1.2 and est.value <= ref * (1 + 1e-11) and est.value >= ref * (1 - 1e-9)
    assert abs(est.z) > 1 and est.value == pytest.approx((abs(est.z) - 1) / float(sigma_min_dense(A, est.z)),
                                                         rel=1e-10)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kreiss_matrix_theorem_bounds(seed):
    """Kreiss matrix theorem (Trefethen & Embree 2005, Thm. 18.1, with Spijker's e·n):
    K(A) ≤ sup_k ‖A^k‖₂ ≤ e·n·K(A). The estimate is a lower bound of K(A) attained at a point z,
    so value ≤ sup_k ‖A^k‖ must hold; the upper inequality holds for the estimate when it is close
    to K(A), and the e·n factor leaves ample room. A = Q(D + N)Qᵀ with |D_ii| ≤ 0.8 and a large
    strictly upper N: ρ(A) ≤ 0.8 but strong transient growth. With K = 400 steps the tail
    ‖A^k‖ has decayed (checked), so the max over k ≤ 400 is the sup."""
    n = 8
    g = torch.Generator().manual_seed(seed)
    T = torch.diag(torch.rand(n, dtype=F64, generator=g) * 1.6 - 0.8) + 2 * torch.triu(
        torch.randn(n, n, dtype=F64, generator=g), 1)
    Q, _ = torch.linalg.qr(torch.randn(n, n, dtype=F64, generator=g))
    A = Q @ T @ Q.T
    est = kreiss_constant(A)
    tg = transient_growth(A, 400)
    assert float(tg.curve[-1]) < 1e-6 * tg.peak
    assert est.value > 5  # genuinely non-normal: K(A) well above its normal value 1
    assert est.value <= tg.peak * (1 + 1e-12)
    assert tg.peak <= math.e * n * est.value
    # The returned value is (|z| − 1)/σ_min(zI − A) at the returned z (dense SVD check).
    dense = scipy.linalg.svdvals(est.z * np.eye(n) - A.numpy())[-1]
    assert est.value == pytest.approx((abs(est.z) - 1) / dense, rel=1e-10)


def test_bad_arguments_are_rejected():
    A = torch.eye(3, dtype=F64)
    with pytest.raises(ValueError, match="square"):
        sigma_min(torch.zeros(2, 3, dtype=F64), [0.5])
    with pytest.raises(ValueError, match="z must be finite"):
        sigma_min(A, [complex("nan")])
    with pytest.raises(ValueError, match="tol"):
        sigma_min(A, [2.0], tol=0.0)
    with pytest.raises(ValueError, match="maxiter"):
        sigma_min(A, [2.0], maxiter=1)
    with pytest.raises(ValueError, match="chunk"):
        pseudospectrum(A, [0.0], [0.0], chunk=0)
    for bad in (-1e-3, 1.0, float("nan"), True):
        with pytest.raises(ValueError, match="normal_tol"):
            pseudospectrum(A, [0.0], [0.0], normal_tol=bad)
    with pytest.raises(ValueError, match="normal_tol"):
        sigma_min(A, [2.0], normal_tol=-1)
    with pytest.raises(ValueError, match="x must be a non-empty 1-D"):
        pseudospectrum(A, np.zeros((2, 2)), [0.0])
    with pytest.raises(ValueError, match="y must be a non-empty 1-D"):
        pseudospectrum(A, [0.0], [])
    with pytest.raises(ValueError, match="x must be real"):
        pseudospectrum(A, [1j], [0.0])
    with pytest.raises(ValueError, match="eps"):
        pseudospectrum(A, [2.0], [0.0]).contains(0.0)
    with pytest.raises(ValueError, match="K must"):
        transient_growth(A, -1)
    with pytest.raises(ValueError, match="n_radii"):
        kreiss_constant(A, n_radii=1)
    with pytest.raises(ValueError, match="rho_tol"):
        kreiss_constant(A, rho_tol=-1.0)


def test_transient_growth_reports_overflowed_powers_as_inf():
    """‖(2I)^k‖₂ = 2^k is a float up to k = 1023 and inf after, never a LinAlgError from a matrix of infs."""
    from rnnaudit.analysis import transient_growth

    growth = transient_growth(2 * torch.eye(3, dtype=torch.float64), 2000)
    assert growth.curve[1023].item() == 2.0 ** 1023 and torch.isinf(growth.curve[1024:]).all()
    assert growth.peak == math.inf and growth.k_peak == 1024


def _orthogonal(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.linalg.qr(torch.randn(n, n, generator=g, dtype=torch.float64))[0]


@pytest.mark.slow  # a fine search over the whole circle: 10-15 s
def test_kreiss_constant_of_an_orthogonal_matrix_is_one_within_its_documented_rounding():
    """K(Q) = 1 for Q orthogonal: exactly 1 by the normal route; by the Lanczos route (normal_tol = 0) f carries
    the documented relative rounding (2 + ‖A‖₂)·u/s at s = 1e-8, which was exceeded as 1.0000000222 was
    documented as ≲ 1e-8."""
    Q = _orthogonal(6)
    assert kreiss_constant(Q).value == 1.0
    lanczos = kreiss_constant(Q, normal_tol=0).value
    assert 1.0 <= lanczos <= 1 + 3 * np.finfo(float).eps / 2 / 1e-8
    # the negative control: a non-normal contraction still gets its grid search and a K above 1
    assert kreiss_constant(torch.tensor([[0.5, 4.0], [0.0, 0.5]], dtype=torch.float64)).value > 1.5


def test_pseudospectral_abscissa_and_radius_of_normal_matrices_are_max_re_plus_eps_and_rho_plus_eps():
    from rnnaudit.analysis.pseudospectra import pseudospectral_abscissa, pseudospectral_radius
    D = torch.diag(torch.tensor([0.3, -0.8, 0.55], dtype=torch.float64))
    assert float(pseudospectral_abscissa(D, 0.125)) == 0.55 + 0.125
    assert float(pseudospectral_radius(D, 0.125)) == 0.8 + 0.125
    Q = 0.9 * _orthogonal(5, seed=1)
    lam = torch.linalg.eigvals(Q)
    for normal_tol in (NORMAL_TOL, 0.0):  # the formula, and the Hamiltonian search that must agree with it
        assert float(pseudospectral_abscissa(Q, 0.1, normal_tol=normal_tol)) == pytest.approx(
            float(lam.real.max()) + 0.1, abs=1e-10)
        assert float(pseudospectral_radius(Q, 0.1, normal_tol=normal_tol)) == pytest.approx(0.9 + 0.1, abs=1e-10)


@pytest.mark.slow
def test_pseudospectral_abscissa_and_radius_agree_with_a_dense_svd_grid():
    """A non-normal matrix: every grid point with σ_min ≤ ε (dense SVD) lies within the returned extents, and the
    extents exceed the grid's by less than the grid spacing (the boundary point is within one cell of a grid
    point inside)."""
    from rnnaudit.analysis.pseudospectra import pseudospectral_abscissa, pseudospectral_radius
    g = torch.Generator().manual_seed(0)
    A = 0.4 * torch.randn(6, 6, generator=g, dtype=torch.float64) + torch.diag(torch.ones(5, dtype=torch.float64), 1)
    eps, step = 0.1, 0.01
    x = np.arange(-2.5, 2.5 + step / 2, step)
    X, Y = np.meshgrid(x, x)
    Z = X + 1j * Y
    inside = sigma_min_dense(A, torch.from_numpy(Z)).numpy() <= eps
    alpha, rho = float(pseudospectral_abscissa(A, eps)), float(pseudospectral_radius(A, eps))
    assert X[inside].max() <= alpha <= X[inside].max() + step
    assert np.abs(Z[inside]).max() <= rho <= np.abs(Z[inside]).max() + step * math.sqrt(2)
    assert alpha > float(torch.linalg.eigvals(A).real.max()) + eps  # non-normal: beyond the discs


def test_pseudospectral_extents_refuse_bad_arguments():
    from rnnaudit.analysis.pseudospectra import pseudospectral_abscissa, pseudospectral_radius
    A = torch.eye(2, dtype=torch.float64)
    for f in (pseudospectral_abscissa, pseudospectral_radius):
        for eps in (0, -1.0, math.inf, math.nan, True):
            with pytest.raises(ValueError, match="eps must be a finite number > 0"):
                f(A, eps)
        with pytest.raises(ValueError, match="n_grid"):
            f(A, 0.1, n_grid=1)


def test_expanded_matrices_and_grids_too_large_for_memory_are_refused_before_allocation():
    """kreiss_constant, pseudospectrum, sigma_min and the outermost extents check the dense size of the Schur route
    from A's shape (an 8-byte expanded 10⁶ × 10⁶ tensor was a RuntimeError of the allocator), and pseudospectrum the
    grid x × y before building it (two expanded axes of 10⁶ points describe 10¹² points). Controls: the expanded
    3 × 3 matrix and a 2 × 2 grid work."""
    from rnnaudit.analysis.pseudospectra import pseudospectral_abscissa

    huge = torch.zeros(1, dtype=torch.float64).expand(10**6, 10**6)
    for call in (lambda: kreiss_constant(huge), lambda: pseudospectrum(huge, [0.0], [0.0]),
                 lambda: sigma_min(huge, 0.5), lambda: pseudospectral_abscissa(huge, 0.1)):
        with pytest.raises(ValueError, match=r"^A: a \(1000000, 1000000\) matrix needs about .* above the memory"):
            call()
    axis = torch.zeros(1, dtype=torch.float64).expand(10**6)
    with pytest.raises(ValueError, match=r"^the grid x × y: 1000000000000 grid points need about"):
        pseudospectrum(torch.eye(2, dtype=torch.float64), axis, axis)
    with pytest.raises(ValueError, match=r"^the grid n_radii × n_angles"):
        kreiss_constant(torch.eye(2, dtype=torch.float64), n_radii=10**7, n_angles=10**7)
    with pytest.raises(TypeError, match="x must be a 1-D array"):
        pseudospectrum(torch.eye(2, dtype=torch.float64), "0", [0.0])
    small = torch.full((1,), 0.25, dtype=torch.float64).expand(3, 3)  # symmetric, ρ = 0.75: K = 1
    assert kreiss_constant(small).value == pytest.approx(1.0)
    assert pseudospectrum(small, [0.0, 1.0], [0.0, 1.0]).sigma.shape == (2, 2)

#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    'test_kreiss_matrix_theorem_bounds': {'2', '1'},
    'test_kreiss_constant_of_a_2x2_jordan_type_matrix': {'0.0'},
}


def test_the_largest_ritz_value_by_newton_matches_a_dense_eigvalsh_on_every_kind_of_tridiagonal():
    """_largest_ritz (Newton from Gershgorin's bound on the Sturm recurrence) against numpy's dense eigvalsh, column
    by column: random and Lanczos-like tridiagonals (a dominant eigenvalue with a near-double copy, as loss of
    orthogonality makes), a zero β (an invariant subspace), one row, entries near 1e300 and 1e-300 (scaled, not
    overflowing), a zero matrix; a non-finite column gives NaN. Relative error ≤ 1e-13."""
    from rnnaudit.analysis.pseudospectra import _ShiftedSchur

    rng = np.random.default_rng(0)
    m, G = 12, 400
    alphas, betas = rng.random((m, G)) * 3, rng.standard_normal((m - 1, G))
    alphas[:, 1] = [5.0, 5.0 + 1e-12] + [0.1] * (m - 2)  # a near-double top pair
    betas[:, 1] = [1e-9] + [0.05] * (m - 2)
    betas[4, 2] = 0.0
    alphas[:, 3], betas[:, 3] = alphas[:, 3] * 1e300, betas[:, 3] * 1e299
    alphas[:, 4], betas[:, 4] = alphas[:, 4] * 1e-300, betas[:, 4] * 1e-301
    alphas[:, 5], betas[:, 5] = 0.0, 0.0
    alphas[2, 6] = np.inf
    theta = _ShiftedSchur._largest_ritz(alphas, betas)
    i = np.arange(m)
    Tm = np.zeros((G, m, m))
    Tm[:, i, i], Tm[:, i[:-1], i[1:]], Tm[:, i[1:], i[:-1]] = alphas.T, betas.T, betas.T
    finite = np.isfinite(Tm).all(axis=(1, 2))
    ref = np.full(G, np.nan)
    ref[finite] = np.linalg.eigvalsh(Tm[finite])[:, -1]
    assert np.isnan(theta[6]) and np.isnan(theta).sum() == 1 and theta[5] == 0.0
    ok = finite & (ref != 0)
    assert (np.abs(theta[ok] - ref[ok]) <= 1e-13 * np.abs(ref[ok])).all()
    one = _ShiftedSchur._largest_ritz(alphas[:1], betas[:0])
    np.testing.assert_array_equal(one[np.isfinite(one)], alphas[0][np.isfinite(alphas[0])])
