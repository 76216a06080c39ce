"""nc_gru.theorem1 and nc_gru.theorem1.corrected: the printed signed maxima fail on all-negative states inside
every assumption, the |·| reading holds, and a steep candidate (outside Φ = tanh) breaks both."""

import math

import pytest
import torch

from rnnaudit.bounds import evaluate_cases, measure_case
from rnnaudit.bounds.nc_gru import theorem1, theorem1_corrected
from rnnaudit.bounds.nc_gru.cases import GRUCase
from rnnaudit.cells import GRU
from tests.bounds.nc_gru.cases import (F64, TRAJECTORY_SIZES, assert_holds_inside_assumptions,
                                       assert_violated_inside_assumptions, zero_gru)


def all_negative_case(h=4, a=0.9, b=0.05, kappa=8.0, T=2):
    """Inside Theorem 1's assumptions (eq. 1, tanh, h_0 = 0): x_1 drives u_1 ≈ 1 and c_1 = −a, so
    h_1 ≈ −a·1; then U_u = κ(P − I) (P a cyclic shift) maps the constant h_1 to 0, so u_2 = 1/2, and
    c_2 = −b. The printed max_i [h_1]_i + max_i [c_2]_i = −a − b < 0 makes eq. 9's α negative."""
    cell = zero_gru(h)
    eye = torch.eye(h, dtype=F64)
    with torch.no_grad():
        cell.U_u.copy_(kappa * (torch.roll(eye, 1, 0) - eye))
        cell.W_u[:, 0] = 40.0
        cell.W_c[:, 0] = math.atanh(-a)
        cell.W_c[:, 1] = math.atanh(-b)
    x = torch.zeros(1, T, 2, dtype=F64)
    x[0, 0, 0] = 1.0
    x[0, 1:, 1] = 1.0
    return GRUCase(cell, x, torch.zeros(h, dtype=F64))


class SteepGRU(GRU):
    """Eq. 1 with Φ(z) = tanh(3z): |Φ'| up to 3, outside Theorem 1's Φ = tanh (the proof uses |Φ'| ≤ 1)."""

    def _candidate(self, z):
        return torch.tanh(3 * (z + self.b_c))


@pytest.mark.parametrize("claim", [theorem1_corrected], ids=lambda c: c.id)
def test_claim_holds_inside_its_assumptions(claim, tmp_path):
    assert_holds_inside_assumptions(claim, TRAJECTORY_SIZES, tmp_path)


@pytest.mark.parametrize("claim", [theorem1], ids=lambda c: c.id)
def test_printed_claim_is_violated_inside_its_assumptions(claim, tmp_path):
    """Theorem 1 (signed maxima) fails on cases that satisfy every assumption; the saved counterexample
    reloads and reproduces its ratio."""
    assert_violated_inside_assumptions(claim, TRAJECTORY_SIZES, tmp_path)


def test_theorem1_printed_max_fails_on_all_negative_states_and_abs_reading_holds():
    """Eq. 9–10 print max_i [h_{t−1}]_i, max_i [c_t]_i; eq. 41 needs ‖diag(v)‖₂ = max_i |v_i|. On the
    all-negative trajectory (inside every assumption) the printed bound is negative, so any Jacobian
    exceeds it, while the |·| reading holds."""
    case = all_negative_case()
    printed = evaluate_cases(theorem1, [case])
    assert printed.verdict == "misprinted" and printed.records[0].failed_assumptions == []
    assert measure_case(theorem1_corrected, case)[0] <= 1 + theorem1_corrected.tolerance
    # a milder member (a = 0.3, b = 0, κ = 2, ‖U_u‖₂ = 4): the printed bound at t = 2 is
    # 1/2 − (1/4)(0.3)(4) = 0.2 > 0, while ∂h_2/∂h_1 = I/2 + 0.15(P − I) has norm 1/2: ratio 2.5
    mild = all_negative_case(a=0.3, b=0.0, kappa=2.0)
    assert measure_case(theorem1, mild)[0] == pytest.approx(2.5, rel=1e-6)


def test_theorem1_violated_for_a_steep_candidate():
    """Φ = tanh(3z) (|Φ'| ≤ 3): ∂h_1/∂h_0 = (1/2 + 3κ/4)I at zero weights and U_c = κI, above both readings
    of α + β‖U_c‖₂ = 1/2 + κ/4."""
    cell = zero_gru(3, cls=SteepGRU)
    with torch.no_grad():
        cell.U_c.copy_(4.0 * torch.eye(3, dtype=F64))
    case = GRUCase(cell, torch.zeros(1, 1, 2, dtype=F64), torch.zeros(3, dtype=F64))
    for claim in (theorem1, theorem1_corrected):
        result = evaluate_cases(claim, [case])
        assert result.verdict == "false"
        assert any(f.startswith("GRU of eq. 1 with Φ = tanh") for f in result.records[0].failed_assumptions)
    assert measure_case(theorem1_corrected, case)[0] == pytest.approx((0.5 + 3.0) / (0.5 + 1.0), rel=1e-12)
