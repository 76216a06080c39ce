"""nc_gru.eq18 and nc_gru.eq18.corrected: the Neumann series and Algorithm 1, inside and outside the
Neumann condition, against known answers and against the cells' updater."""

import math

import pytest
import torch

from rnnaudit.bounds import evaluate_cases, measure_case
from rnnaudit.bounds.nc_gru import eq18, eq18_corrected
from rnnaudit.bounds.nc_gru.eq18 import NeumannCase, neumann_algorithm1, sample_neumann_case
from rnnaudit.cells import NCGRU, NeumannCayleyUpdater
from tests.bounds.nc_gru.cases import F64, NEUMANN_SIZES, J, assert_holds_inside_assumptions


@pytest.mark.parametrize("claim", [eq18, eq18_corrected], ids=lambda c: c.id)
def test_claim_holds_inside_its_assumptions(claim, tmp_path):
    assert_holds_inside_assumptions(claim, NEUMANN_SIZES, tmp_path)


def test_eq18_diverges_outside_the_neumann_condition():
    """A^(0) = 0, δA = 2J: M = 2J has spectral radius 2, the series of eq. 18 diverges (‖M‖₂ = 2 ≥ 1)."""
    case = NeumannCase(torch.zeros(2, 2, dtype=F64), (2 * J)[None], torch.ones(2, dtype=F64))
    result = evaluate_cases(eq18, [case])
    assert result.verdict == "false"
    assert any(f.startswith("‖(I + A^(k−1))^{-1}δA^(k)‖₂ < 1") for f in result.records[0].failed_assumptions)
    assert result.records[0].parts["eq. 17–18 converge: spectral radius ρ((I + A^(k−1))^(-1)δA^(k)) < 1"] == \
        pytest.approx(2.0, rel=1e-12)


def test_eq18_corrected_violated_for_non_skew_A():
    """A^(0) = −0.9I is not skew: ‖(I + A)^{-1}‖₂ ≈ 10, so ‖Ã − (I + A)^{-1}‖₂ = ‖R(I + A)^{-1}‖₂ ≈ 10 b_k."""
    case = NeumannCase(-0.9 * torch.eye(2, dtype=F64), (0.01 * J)[None], torch.ones(2, dtype=F64))
    result = evaluate_cases(eq18_corrected, [case])
    assert result.verdict == "false"
    failed = result.records[0].failed_assumptions
    assert failed and all(f.startswith("A^(k), δA^(k) skew-symmetric") for f in failed)


def test_eq18_tail_bound_nearly_attained_and_error_identity():
    """2×2 blocks A = aJ, δA = sJ: M = s(aI + J)/(1 + a²) has eigenvalues near q, so the tail bound
    q^{p+1}‖X‖/(1 − q) is nearly attained (ratio → 1 as a → ∞). Also E_p = M^{p+1}(I + A^(k))^{-1}
    exactly (1e-12): eq. 18's error needs no convergence condition to be ≤ q^{p+1}, only to be small."""
    a = 1e3
    s = 0.9 * math.sqrt(1 + a * a)
    case = NeumannCase(a * J, (s * J)[None], torch.ones(2, dtype=F64))
    parts = measure_case(eq18, case)[1]
    assert min(v for k, v in parts.items() if k.startswith("eq. 18, order")) > 0.99
    eye = torch.eye(2, dtype=F64)
    X = torch.linalg.inv(eye + a * J)
    M = X @ (s * J)
    exact = torch.linalg.inv(eye + (a - s) * J)
    S2 = (eye + M + M @ M) @ X
    torch.testing.assert_close(exact - S2, torch.linalg.matrix_power(M, 3) @ exact, rtol=0, atol=1e-12)


def test_eq18_printed_error_does_not_cover_algorithm1_accumulation():
    """Eq. 18's O(q^{p+1}) is the error of one step from the exact inverse. Algorithm 1 keeps the stored
    Ã, so after K steps its error is ≈ Σ_k c_k^{p+1}: K = 8 equal steps with c ≈ 0.3 exceed the one-step
    bound c_K^{p+1}/(1 − c_K) by ≈ K(1 − c), while eq18.corrected's recursion b_K holds (1e-9 ratio slack)."""
    K, p = 8, 2
    case = NeumannCase(torch.zeros(2, 2, dtype=F64), (0.3 * J).expand(K, 2, 2).clone(), torch.ones(2, dtype=F64))
    X = neumann_algorithm1(case.A0, case.dA, p)
    A = case.iterates()
    eye = torch.eye(2, dtype=F64)
    error = float(torch.linalg.matrix_norm(X[-1] - torch.linalg.inv(eye + A[-1]), ord=2))
    c = float(torch.linalg.matrix_norm(X[-2] @ case.dA[-1], ord=2))
    assert error > 3 * c ** (p + 1) / (1 - c)
    assert measure_case(eq18_corrected, case)[0] <= 1 + eq18_corrected.tolerance


def test_eq18_sign_of_delta_A_matters():
    """Alg. 1 line 6 defines A^(k) = A^(k−1) − δA^(k), matching eq. 16's I + A^(k−1) − δA^(k): δA is minus
    the optimizer's step. Feeding the step itself (+Δ) into line 7 approximates (I + A^(k−1) + Δ)^{-1}
    instead, an O(q) error that no O(q³) bound covers."""
    case = sample_neumann_case(torch.Generator().manual_seed(4), 6, 1)
    A0, dA = case.A0, case.dA[0]
    eye = torch.eye(6, dtype=F64)
    X = torch.linalg.inv(eye + A0)
    target = torch.linalg.inv(eye + A0 - dA)
    q = float(torch.linalg.matrix_norm(X @ dA, ord=2))
    right = neumann_algorithm1(A0, dA[None], 2)[-1]
    wrong = neumann_algorithm1(A0, -dA[None], 2)[-1]
    err = lambda Y: float(torch.linalg.matrix_norm(Y - target, ord=2))  # noqa: E731
    assert err(right) <= q ** 3 / (1 - q) + 1e-12
    assert err(wrong) > 10 * q ** 3 / (1 - q) + 1e-12


@pytest.mark.parametrize("order", [1, 2, 3])
def test_neumann_algorithm1_matches_the_cells_updater(order):
    """bounds.nc_gru.eq18.neumann_algorithm1 (differentiable, used by the checks) and cells' NeumannCayleyUpdater
    compute the same Ã^(k) over 4 steps (1e-13: the same products in the same order)."""
    cell = NCGRU(2, 5, generator=torch.Generator().manual_seed(0), dtype=F64)
    blk = cell.cayley["c"]
    upd = NeumannCayleyUpdater(cell, order=order, reset_every=100, record=False)
    gen = torch.Generator().manual_seed(1)
    A0, steps = blk.A.detach().clone(), []
    for _ in range(4):
        B = torch.randn(5, 5, generator=gen, dtype=F64) * 0.05
        steps.append(B - B.mT)
        with torch.no_grad():
            blk.A.sub_(steps[-1])
        upd.step()
    X = neumann_algorithm1(A0, torch.stack(steps), order)
    torch.testing.assert_close(X[-1], blk.A_inv, rtol=0, atol=1e-13)
