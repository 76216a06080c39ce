"""The distance formula certified point by point by Weyl's inequality (analysis.pseudospectra, distance_rtol).

With the Schur form A = U(D + N)U^H, |σ_min(zI − A) − min_i |z − λ_i|| ≤ δ, δ = ‖N‖_F plus the Schur form's backward
error; where d = min_i |z − λ_i| ≥ δ(1 + rtol)/rtol the distance is σ_min to relative error ≤ δ/(d − δ) ≤ rtol.
Context: enrnn.md Sec. 2 (pseudospectra); a float32 checkpoint of an orthogonal U = φ(Θ) (sgornn.md Sec. 2) is normal
only to ~1e-7, and its grid would otherwise take inverse Lanczos at every point.
"""

import math

import numpy as np
import pytest
import torch

from rnnaudit.analysis.pseudospectra import NORMAL_TOL, _ShiftedSchur, pseudospectrum, sigma_min_dense

F64 = torch.float64
RTOL = 1e-3
#: Error of the dense reference itself: a backward-stable SVD of zI − A errs by ≲ n·u·‖zI − A‖₂ (n ≤ 40, |z| ≤ 2).
_DENSE_ABS = 40 * 2.2e-16 * 4


def _orthogonal(n, seed):
    Q, _ = torch.linalg.qr(torch.randn(n, n, dtype=F64, generator=torch.Generator().manual_seed(seed)))
    return Q


def _nearly_orthogonal(n, seed, size=1e-7):
    """An orthogonal matrix plus a random perturbation of Frobenius norm ``size``·√n: normal only to ~size."""
    E = torch.randn(n, n, dtype=F64, generator=torch.Generator().manual_seed(seed + 1))
    return _orthogonal(n, seed) + size * math.sqrt(n) * E / torch.linalg.matrix_norm(E)


def _grid_with_eigenvalue_closeups(A, half=1.3, points=21, seed=0):
    """A coarse grid over [−half, half]² plus, to reach the points the criterion must reject, fine x values around
    the real part of one eigenvalue; the y values include its imaginary part (rounded into the grid)."""
    lam = torch.linalg.eigvals(A)
    pick = lam[int(torch.argmax(lam.imag))]
    x = np.sort(np.concatenate([np.linspace(-half, half, points), float(pick.real) + np.linspace(-1e-3, 1e-3, 9)]))
    y = np.sort(np.concatenate([np.linspace(-half, half, points), [float(pick.imag)]]))
    return x, y


def _dense(A, x, y):
    return sigma_min_dense(A, x[None, :] + 1j * y[:, None])


@pytest.mark.parametrize("make", [lambda: _nearly_orthogonal(40, 0),
                                  lambda: _sgornn_float32(32)], ids=["orthogonal+1e-7", "sgornn-float32"])
def test_a_nearly_normal_matrix_takes_the_certified_distance_away_from_its_eigenvalues_within_the_bound(make):
    """The mixed grid agrees with one dense SVD per point: at the points certified by the distance formula within
    the relative bound rtol (and within δ absolutely), at the others (near an eigenvalue, where the criterion must
    reject) by inverse Lanczos within the Lanczos route's own accuracy. Both kinds of points occur."""
    A = make()
    scale = float(torch.linalg.matrix_norm(A))
    x, y = _grid_with_eigenvalue_closeups(A)
    grid = pseudospectrum(A, x, y, distance_rtol=RTOL)
    assert grid.departure > NORMAL_TOL * scale  # not normal to the default tolerance: Lanczos everywhere before
    assert grid.method == "mixed" and grid.distance_rtol == RTOL
    cert = grid.from_distance
    assert 0.9 * cert.numel() <= int(cert.sum()) < cert.numel()
    assert int(grid.lanczos_steps[cert].abs().max()) == 0 and int(grid.lanczos_steps[~cert].min()) > 0
    dense = _dense(A, x, y)
    err = (grid.sigma - dense).abs()
    # the certificate: relative error ≤ rtol at every certified point, and the Weyl radius bounds it absolutely
    assert (err[cert] <= RTOL * dense[cert] + _DENSE_ABS).all()
    assert float(err[cert].max()) <= grid.weyl_radius + _DENSE_ABS
    # δ is Henrici's departure plus rounding-sized terms, not a loose overestimate
    assert grid.departure <= grid.weyl_radius <= grid.departure * 1.01 + 1e-12 * scale
    # Lanczos where the criterion rejected: as accurate as the all-Lanczos route
    assert (err[~cert] <= 1e-10 * dense[~cert] + 1e-13 * scale).all()


def _sgornn_float32(n):
    """U = φ(Θ) of an SGORNN built in float32 (as a float32 checkpoint holds it), read in float64."""
    from rnnaudit.cells.registry import build_cell

    torch.manual_seed(0)
    cell = build_cell("sgornn", 1, n, dtype=torch.float32)
    return cell.recurrent_matrices()["U"].detach().double()


def test_a_jordan_block_is_certified_nowhere_near_its_spectrum_and_matches_the_lanczos_grid():
    """A Jordan block J_8(0.3) has ‖N‖_F = √7: the criterion needs dist ≥ 2,650, so on the window [−1.5, 1.5]² it
    certifies no point and the grid is exactly the all-Lanczos one (same points, same start vectors); on far points
    (|z| ~ 10⁵) it certifies, and those agree with a dense SVD within rtol."""
    n = 8
    J = torch.diag(torch.ones(n - 1, dtype=F64), 1) + 0.3 * torch.eye(n, dtype=F64)
    axis = np.linspace(-1.5, 1.5, 13)
    mixed = pseudospectrum(J, axis, axis, distance_rtol=RTOL)
    plain = pseudospectrum(J, axis, axis)
    assert mixed.method == "mixed" and not bool(mixed.from_distance.any())
    assert plain.method == "lanczos" and not bool(plain.from_distance.any())
    assert torch.equal(mixed.sigma, plain.sigma) and torch.equal(mixed.lanczos_steps, plain.lanczos_steps)
    dense = _dense(J, axis, axis)
    assert ((mixed.sigma - dense).abs() <= 1e-10 * dense + 1e-13 * 3).all()
    far = np.array([-2e5, -1e3, 1e3, 2e5])
    grid = pseudospectrum(J, far, far, distance_rtol=RTOL)
    cert = grid.from_distance
    assert bool(cert[0, 0]) and not bool(cert[1, 1])  # |z| ≈ 2.8e5 certified, |z| ≈ 1.4e3 not (below 2,650)
    dense = _dense(J, far, far)
    assert ((grid.sigma - dense).abs()[cert] <= RTOL * dense[cert]).all()


def _coupled_pair(c):
    """Q·T·Qᵀ, T = diag(e^{iθ_k}, …) with a 2 × 2 block [[0.5, c], [0, 0.5]]: ‖N‖_F = c, and at distance d ≫ c from
    0.5 the distance formula is off by ≈ c/2 (σ_min of [[d, −c], [0, d]] is (√(c² + 4d²) − c)/2), so Weyl's δ = c
    is tight to a factor of 2 there: the certified relative error c/(2d) reaches rtol/2 at the threshold."""
    T = torch.zeros(6, 6, dtype=F64)
    T[:2, :2] = torch.tensor([[0.5, c], [0.0, 0.5]], dtype=F64)
    for k, th in enumerate((0.4, 1.9)):  # two rotations: eigenvalues e^{±iθ} on the unit circle
        i = 2 + 2 * k
        T[i:i + 2, i:i + 2] = torch.tensor([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]], dtype=F64)
    Q = _orthogonal(6, 11)
    return Q @ T @ Q.T


def test_a_forged_departure_certifies_points_where_the_distance_is_wrong_so_the_check_can_fail(monkeypatch):
    """The check has teeth: with the true δ (= c + rounding) the certified points are within rtol of a dense SVD,
    the worst within a factor 2.5 of rtol (the bound is nearly attained); with δ forged a million times smaller the
    criterion certifies points near the coupled pair, where the distance formula is off by far more than rtol."""
    c = 1e-4
    A = _coupled_pair(c)
    x = np.concatenate([0.5 + np.linspace(-0.2, 0.2, 81), [-1.5, -0.9, 1.3]])
    y = np.array([0.0, 3e-4, 3e-3, 0.6, 1.4])
    dense = _dense(A, x, y)
    honest = pseudospectrum(A, x, y, distance_rtol=RTOL)
    assert honest.weyl_radius == pytest.approx(c, rel=1e-6)
    cert = honest.from_distance
    assert 0 < int(cert.sum()) < cert.numel()
    rel = (honest.sigma - dense).abs() / dense
    assert RTOL / 2.5 <= float(rel[cert].max()) <= RTOL
    true_radius = _ShiftedSchur.weyl_radius
    monkeypatch.setattr(_ShiftedSchur, "weyl_radius", lambda self: true_radius(self) * 1e-6)
    forged = pseudospectrum(A, x, y, distance_rtol=RTOL)
    assert int(forged.from_distance.sum()) > int(cert.sum())
    rel = (forged.sigma - dense).abs() / dense
    assert float(rel[forged.from_distance].max()) > 10 * RTOL


@pytest.mark.parametrize("bad", [0, 1, 1.5, -1e-3, True, float("nan"), "1e-3"])
def test_distance_rtol_outside_zero_one_is_refused_in_one_line(bad):
    """rtol ≥ 1 would certify points where σ_min may be 0 (d − δ ≤ 0): refused, as is anything not a number."""
    with pytest.raises(ValueError, match="distance_rtol must be None or a number in"):
        pseudospectrum(torch.eye(3, dtype=F64), [0.0, 1.0], [0.0, 1.0], distance_rtol=bad)


def test_the_normal_route_is_within_the_weyl_radius_of_a_dense_svd_and_keeps_its_method():
    """An orthogonal matrix (‖N‖_F ≈ 40u‖A‖_F) still takes the distance formula everywhere, with or without
    distance_rtol (method "normal", every point marked as from the distance); its error against a dense SVD is within
    the Weyl radius δ that the certificate uses (departure plus the Schur form's backward error)."""
    Q = _orthogonal(40, 5)
    axis = np.linspace(-1.3, 1.3, 17)
    for kw in ({}, {"distance_rtol": RTOL}):
        grid = pseudospectrum(Q, axis, axis, **kw)
        assert grid.method == "normal" and bool(grid.from_distance.all()) and grid.distance_rtol is None
    radius = _ShiftedSchur(Q).weyl_radius()
    assert radius <= 1e-12 * float(torch.linalg.matrix_norm(Q))
    assert float((grid.sigma - _dense(Q, axis, axis)).abs().max()) <= radius + _DENSE_ABS


def test_the_progress_of_a_mixed_grid_sums_to_the_grid_points():
    A = _nearly_orthogonal(12, 7)
    seen = []
    x, y = _grid_with_eigenvalue_closeups(A, points=11)
    pseudospectrum(A, x, y, distance_rtol=RTOL, progress=seen.append)
    assert sum(seen) == x.size * y.size and len(seen) >= 2


@pytest.mark.parametrize("scale", [1e-170, 1e-300, 1e100, 1e160])
def test_a_non_normal_matrix_far_outside_the_unit_range_is_neither_passed_as_normal_nor_certified_wrongly(scale):
    """numpy's Frobenius norm squares the entries: at ‖A‖ ≲ 1e−162 the departure and ‖A‖_F read 0 and at ≳ 1e154 inf,
    which passed [[0, 1], [0, 0.5]]·scale as normal (0 ≤ 0, inf ≤ inf) and took the distance formula, off by 170 %
    to 320 %; inverse Lanczos squared 1/σ and stopped after one step above ~1e80 (errors of 50 %). Both run on A
    scaled by a power of two now, and every point matches a dense SVD."""
    A = torch.tensor([[0.0, 1.0], [0.0, 0.5]], dtype=torch.float64) * scale
    x = np.array([0.1, 0.25, 0.3, 0.9]) * scale
    y = np.array([0.0, 0.2]) * scale
    for kwargs in ({"distance_rtol": 1e-3}, {"distance_rtol": 1e-3, "normal_tol": 0.0}, {}):
        grid = pseudospectrum(A, x, y, **kwargs)
        assert grid.method != "normal" and grid.departure == pytest.approx(scale, rel=1e-14)
        want = sigma_min_dense(A, x[None, :] + 1j * y[:, None])
        assert float(((grid.sigma - want).abs() / want).max()) <= 1e-12
        assert torch.allclose(grid.eigenvalues.abs().sort().values,
                              torch.tensor([0.0, 0.5], dtype=torch.float64) * scale, rtol=1e-14, atol=0)
