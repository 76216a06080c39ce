"""NC-GRU Neumann-series monitor (analysis/neumann.py) against nc_gru.md eq. 16–18 and Algorithm 1."""

import numpy as np
import pytest
import torch

from rnnaudit.analysis.neumann import NeumannMonitor, neumann_arrays, series_truncation_errors
from rnnaudit.cells import NCGRU, NeumannCayleyUpdater

F64 = torch.float64


def _skew(h, scale, g):
    P = torch.randn(h, h, generator=g, dtype=F64) * scale
    return P - P.mT


def test_truncation_error_is_the_next_power_times_the_exact_inverse():
    """Eq. 17–18: (I + A^(k))⁻¹ − Σ_{i≤p} M^i B = M^{p+1}(I + A^(k))⁻¹, and ‖(I + A)⁻¹‖₂ ≤ 1 for
    skew A, so the error is at most ‖M‖₂^{p+1}. Both sides are formed from 10 × 10 solves:
    rounding ≈ 1e-15, far below the 1e-8 relative tolerance at errors ≳ 1e-10."""
    g = torch.Generator().manual_seed(0)
    A_prev = _skew(10, 0.5, g)
    A_next = A_prev - _skew(10, 0.02, g)
    r = series_truncation_errors(A_prev, A_next, orders=(1, 2, 3))
    eye = torch.eye(10, dtype=F64)
    B = torch.linalg.solve(eye + A_prev, eye)
    X = torch.linalg.solve(eye + A_next, eye)
    M = B @ (A_prev - A_next)
    assert r["convergence"] == pytest.approx(float(torch.linalg.matrix_norm(M, 2)), rel=1e-12)
    assert r["convergence"] < 1
    for p, err, bound in zip((1, 2, 3), r["error"], r["bound"]):
        expected = float(torch.linalg.matrix_norm(torch.linalg.matrix_power(M, p + 1) @ X, 2))
        assert err == pytest.approx(expected, rel=1e-8)
        assert err <= bound * (1 + 1e-12)
    assert r["error"][0] > r["error"][1] > r["error"][2]


def test_sec_5_3_condition_is_sufficient_not_necessary():
    """Sec. 5.3 calls ‖(I + A^(k−1))⁻¹δA^(k)‖ < 1 the "necessary condition" for eq. 18. It is
    sufficient; the series converges iff ρ(M) < 1. Skew A^(k−1) = P − Pᵀ (P ~ 3·N(0, 1), 4 × 4) and
    δA = 0.4(D − Dᵀ) from seed 0's 9th draw give ‖M‖₂ ≈ 1.23 > 1 with ρ(M) ≈ 0.41, and the
    partial sums still converge (error ≤ 1e-14 by order 48)."""
    g = torch.Generator().manual_seed(0)
    for _ in range(9):
        A_prev = _skew(4, 3.0, g)
        dA = _skew(4, 0.4, g)
    r = series_truncation_errors(A_prev, A_prev - dA, orders=(0, 12, 24, 48))
    assert r["convergence"] > 1 > r["spectral_radius"]
    assert r["error"][-1] < 1e-14 and r["error"] == sorted(r["error"], reverse=True)


def _train(orthogonal=("c",), order=2, reset_every=4, steps=10, seed=1):
    g = torch.Generator().manual_seed(seed)
    cell = NCGRU(3, 8, orthogonal=orthogonal, generator=g, dtype=F64)
    updater = NeumannCayleyUpdater(cell, order=order, reset_every=reset_every)
    monitor = NeumannMonitor(updater)
    opt = torch.optim.SGD(cell.parameters(), lr=0.05)
    monitor.attach(opt)
    x = torch.randn(4, 6, 3, dtype=F64, generator=g)
    for _ in range(steps):
        opt.zero_grad()
        cell(x)[:, -1].square().sum().backward()
        opt.step()
    return updater, monitor


def test_monitor_follows_algorithm_1_between_resets():
    updater, monitor = _train()
    a = neumann_arrays(monitor.records)
    assert a["k"].tolist() == list(range(1, 11)) and updater.k == 10
    assert a["reset"].tolist() == [k % 4 == 0 for k in range(1, 11)]
    assert a["since_reset"].tolist() == [1, 2, 3, 0, 1, 2, 3, 0, 1, 2]
    assert a["cycle"].tolist() == [0, 0, 0, 1, 1, 1, 1, 2, 2, 2]
    # at a reset Ã is the exact inverse and U orthogonal (to rounding of 8 × 8 solves)
    assert np.all(a["stored_inverse_error"][a["reset"]] < 1e-14)
    assert np.all(a["orthogonality_defect"][a["reset"]] < 1e-14)
    # right after a reset (and at the start) Ã^(k−1) is exact: line 7 uses the M of eq. 18, and the
    # stored Ã^(k) is the order-2 partial sum, whose error is the local truncation error
    first = a["since_reset"] == 1
    np.testing.assert_allclose(a["convergence_used"][first], a["convergence_exact"][first], rtol=1e-10)
    order2 = list(a["orders"]).index(2)
    # (the two differ by the rounding of the update's 8 × 8 products, ~1e-16 absolute)
    np.testing.assert_allclose(a["stored_inverse_error"][first], a["truncation_error"][first, order2],
                               rtol=1e-6, atol=1e-15)
    # drift between resets: positive off the reset steps, largest per cycle above the reset value
    assert np.all(a["orthogonality_defect"][~a["reset"]] > 0)
    assert np.all(a["convergence_exact"] < 1) and np.all(a["spectral_radius"] <= a["convergence_exact"] + 1e-15)
    assert np.all(a["truncation_error"] <= a["truncation_bound"] * (1 + 1e-9))
    assert a["cycle_max_defect"].shape == a["cycle_ids"].shape == (3,)


def test_reset_every_step_is_scornn_exact_update():
    """K = 1 resets at every step: Ã is always the exact inverse (scoRNN's eq. 4)."""
    _, monitor = _train(reset_every=1, steps=4)
    a = neumann_arrays(monitor.records)
    assert np.all(a["reset"]) and np.all(a["stored_inverse_error"] < 1e-14)


def test_arrays_from_updater_records_and_several_maps():
    updater, monitor = _train(orthogonal=("r", "c"), steps=3)
    with pytest.raises(ValueError, match="map_name"):
        neumann_arrays(monitor.records)
    a = neumann_arrays(updater.records, map_name="cayley.c")
    assert set(a) == {"k", "reset", "order", "convergence", "delta_norm", "inverse_residual",
                      "orthogonality_defect"}
    m = neumann_arrays(monitor.records, map_name="cayley.r")
    np.testing.assert_allclose(m["convergence_used"], neumann_arrays(updater.records, "cayley.r")["convergence"],
                               rtol=1e-12)
    with pytest.raises(ValueError, match="no records"):
        neumann_arrays(monitor.records, map_name="cayley.u")
    with pytest.raises(ValueError, match="empty"):
        neumann_arrays([])
    with pytest.raises(ValueError, match="NeumannCayleyUpdater"):
        NeumannMonitor(object())
    with pytest.raises(ValueError, match="square"):
        series_truncation_errors(torch.zeros(2, 3, dtype=F64), torch.zeros(2, 3, dtype=F64))


@pytest.mark.parametrize("A_prev, A_next, match", [
    (torch.zeros(0, 0, dtype=F64), torch.zeros(0, 0, dtype=F64), "non-empty square"),
    ([[0.0]], [[0.0]], "non-empty square tensors"),
    (torch.tensor([[0.0, 1.0], [-1.0, float("nan")]], dtype=F64), torch.zeros(2, 2, dtype=F64), "A_prev holds NaN"),
    (torch.zeros(2, 2, dtype=F64), torch.tensor([[0.0, 1.0], [0.5, 0.0]], dtype=F64), "A_next must be skew"),
], ids=["empty", "lists", "nan", "not-skew"])
def test_truncation_errors_refuse_what_the_bound_does_not_cover(A_prev, A_next, match):
    with pytest.raises(ValueError, match=match):
        series_truncation_errors(A_prev, A_next)


@pytest.mark.parametrize("orders", [(), (1.5,), (True,), (-1,)])
def test_truncation_errors_need_integer_orders(orders):
    A = torch.tensor([[0.0, 0.3], [-0.3, 0.0]], dtype=F64)
    with pytest.raises(ValueError, match="orders"):
        series_truncation_errors(A, 0.9 * A, orders=orders)
