"""nc_gru.eq2 and nc_gru.scaling_d: the scaled Cayley map of eq. 2 is orthogonal with det W = (−1)^ρ, I + A is never
singular for skew A (against Sec. 2.2's rationale for D), and Kahan's D bounds A by 1."""

import math

import pytest
import torch

from rnnaudit.bounds import evaluate_cases, measure_case
from rnnaudit.bounds.nc_gru import eq2, scaling_d
from rnnaudit.bounds.nc_gru.eq2 import CayleyCase
from rnnaudit.bounds.nc_gru.scaling_d import OrthogonalCase, best_generator
from tests.bounds.nc_gru.cases import F64, assert_holds_inside_assumptions

INVERTIBLE = "Sec. 2.2: I + A invertible for every skew A, ‖(I + A)^(-1)‖₂ ≤ 1"


@pytest.mark.parametrize("claim, sizes", [(eq2, [(1, 1), (3, 1), (8, 1)]), (scaling_d, [(2, 1), (4, 1)])],
                         ids=lambda x: getattr(x, "id", ""))
def test_claim_holds_inside_its_assumptions(claim, sizes, tmp_path):
    assert_holds_inside_assumptions(claim, sizes, tmp_path)


def test_skew_A_never_makes_I_plus_A_singular():
    """A = aJ: I + A has singular values √(1 + a²) ≥ 1, so ‖(I + A)^{-1}‖₂ = 1/√(1 + a²) (1e-12), for every a."""
    J = torch.tensor([[0.0, 1.0], [-1.0, 0.0]], dtype=F64)
    for a in (0.0, 1.0, 1e3):
        parts = measure_case(eq2, CayleyCase(a * J, torch.tensor([1.0, -1.0], dtype=F64)))[1]
        assert parts[INVERTIBLE] == pytest.approx(1 / math.sqrt(1 + a * a), rel=1e-12)


def test_det_w_is_fixed_by_the_parity_of_rho():
    """det W = (−1)^ρ: one −1 in D gives det W = −1 whatever A is (the sign a fixed ρ cannot change)."""
    B = torch.randn(4, 4, generator=torch.Generator().manual_seed(0), dtype=F64)
    A = B - B.mT
    for d in ([1.0, 1, 1, 1], [1.0, 1, 1, -1], [1.0, -1, 1, -1]):
        d = torch.tensor(d, dtype=F64)
        W = torch.linalg.solve(torch.eye(4, dtype=F64) + A, torch.eye(4, dtype=F64) - A) * d
        assert float(torch.linalg.det(W)) == pytest.approx(float(d.prod()), abs=1e-12)


def test_eq2_violated_for_a_matrix_that_is_not_skew():
    """A = −0.9I is not skew: I + A = 0.1I, ‖(I + A)^{-1}‖₂ = 10 and W = 19I is not orthogonal."""
    result = evaluate_cases(eq2, [CayleyCase(-0.9 * torch.eye(2, dtype=F64), torch.ones(2, dtype=F64))])
    assert result.verdict == "false"
    assert any(f.startswith("A skew-symmetric") for f in result.records[0].failed_assumptions)


def test_kahan_bound_is_attained_by_the_quarter_turn():
    """The rotation by π/2: D = ±I give A = ±[[0, 1], [−1, 0]] (max|a_ij| = 1), the mixed D make I + WD singular."""
    W = torch.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=F64)
    size, d = best_generator(W)
    assert float(size) == pytest.approx(1.0, rel=1e-12)
    A = torch.linalg.solve(torch.eye(2, dtype=F64) + W * d, torch.eye(2, dtype=F64) - W * d)
    W_back = torch.linalg.solve(torch.eye(2, dtype=F64) + A, torch.eye(2, dtype=F64) - A) * d
    torch.testing.assert_close(W_back, W, rtol=0, atol=1e-14)


def test_scaling_d_flags_a_matrix_that_is_not_orthogonal():
    result = evaluate_cases(scaling_d, [OrthogonalCase(3 * torch.eye(2, dtype=F64))])
    assert any(f.startswith("W orthogonal") for f in result.records[0].failed_assumptions)
