"""nc_gru.corollary2 and nc_gru.corollary2.corrected: the printed "≲" fails inside every assumption because
the dropped error term scales with ‖U‖₂, the corrected bound holds, and unsaturated gates break both."""

import math

import pytest
import torch

from rnnaudit.bounds import Profile, check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.nc_gru import corollary2, corollary2_corrected
from rnnaudit.bounds.nc_gru.cases import EPS_GRID, GRUCase
from tests.bounds.helpers import with_sizes
from tests.bounds.nc_gru.cases import (F64, STEP_SIZES, assert_holds_inside_assumptions,
                                       assert_violated_inside_assumptions, logit, zero_gru)


def saturated_gru_case(eps, kappa_u, kappa_r, H=1 - 1e-9, C_pre=20.0, regime="entries"):
    """A one-step GRU case with known α + β: h = 2, h_{t−1} = H·1, U_u = κ_u[[1, −1], [−1, 1]]/2
    (‖U_u‖₂ = κ_u, U_u h_{t−1} = 0), U_r = κ_r I, U_c = 0; biases put u_t = (ε, 1 − ε), r_t = (1 − ε)·1 and
    c_t = tanh(C_pre)·1. Then α = ε(1 − ε)(H + C)κ_u + 1 − ε, β = (1 − ε)(ε(1 − ε)κ_r H + 1 − ε)."""
    cell = zero_gru(2, n=1)
    L = logit(1 - eps)
    with torch.no_grad():
        cell.U_u.copy_(kappa_u * torch.tensor([[1.0, -1.0], [-1.0, 1.0]], dtype=F64) / 2)
        cell.U_r.copy_(kappa_r * torch.eye(2, dtype=F64))
        cell.b_u.copy_(torch.tensor([-L, L], dtype=F64))
        cell.b_r.fill_(L - kappa_r * H)
        cell.b_c.fill_(C_pre)
    return GRUCase(cell, torch.zeros(1, 1, 1, dtype=F64), torch.full((2,), H, dtype=F64), eps, regime, 1, 1)


@pytest.mark.parametrize("claim", [corollary2_corrected], ids=lambda c: c.id)
def test_claim_holds_inside_its_assumptions(claim, tmp_path):
    assert_holds_inside_assumptions(claim, STEP_SIZES, tmp_path)


@pytest.mark.parametrize("claim", [corollary2], ids=lambda c: c.id)
def test_printed_claim_is_violated_inside_its_assumptions(claim, tmp_path):
    """Corollary 2 ("≲" read as ≤ y(1 + ε)) fails on cases that satisfy every assumption; the saved
    counterexample reloads and reproduces its ratio."""
    assert_violated_inside_assumptions(claim, STEP_SIZES, tmp_path)


@pytest.mark.parametrize("claim", [corollary2, corollary2_corrected], ids=lambda c: c.id)
def test_corollary2_violated_for_unsaturated_gates(claim):
    """u_t = r_t = 1/2 (δ = 1/4 > ε(1 − ε)) with ‖U_u‖₂ = 40: α + β ≈ 10, far above both bounds."""
    cell = zero_gru(2, n=1)
    with torch.no_grad():
        cell.U_u.copy_(20 * torch.tensor([[1.0, -1.0], [-1.0, 1.0]], dtype=F64))
        cell.b_c.fill_(5.0)
    case = GRUCase(cell, torch.zeros(1, 1, 1, dtype=F64), torch.full((2,), 0.9, dtype=F64), 0.01, "entries")
    result = evaluate_cases(claim, [case])
    assert result.fails
    assert any(f.startswith("every [u_t]_i, [r_t]_i within ε") for f in result.records[0].failed_assumptions)


@pytest.mark.parametrize("eps", EPS_GRID)
def test_corollary2_error_term_is_eps_times_weight_norms(eps):
    """Known answer: α + β = ε(1 − ε)(H + C)κ_u + (1 − ε) + (1 − ε)(ε(1 − ε)κ_r H + 1 − ε) exactly (1e-12,
    rounding of a few products). The printed "≲ 2" read as ≤ 2(1 + ε) holds at κ = 1 and fails once
    ε(1 − ε)κ(3 − ε) > ε(5 − ε) (κ_u = κ_r = κ ≳ 5/3), e.g. κ = 3, at every ε: the hidden error scales
    with ‖U‖₂, not with ε alone. The corrected bound always holds here."""
    for kappa, printed_holds in ((1.0, True), (3.0, False)):
        case = saturated_gru_case(eps, kappa, kappa)
        assert all(a.check(case)[0] for a in corollary2.assumptions)
        H, C = 1 - 1e-9, math.tanh(20.0)
        k = eps * (1 - eps)
        expected = k * (H + C) * kappa + 1 - eps + (1 - eps) * (k * kappa * H + 1 - eps)
        parts = corollary2.evaluate(case)
        total = parts[f"eq. 14 (ε = {eps:g}), uniform reading: α + β ≤ 2(1 + ε), |·| α, β"][0]
        assert float(total.detach()) == pytest.approx(expected, rel=1e-12)
        assert (measure_case(corollary2, case)[0] <= 1) == printed_holds
        assert measure_case(corollary2_corrected, case)[0] <= 1


@pytest.mark.parametrize("eps", EPS_GRID)
def test_corollary2_fails_from_the_zero_state(eps):
    """The counterexample needs no unreachable state: at h_{t−1} = h_0 = 0 (eq. 1), with u_t = (ε, 1 − ε),
    r_t = (1 − ε)·1 and ‖U_u‖₂ = 8, α + β = 8ε(1 − ε)C + (1 − ε) + (1 − ε)², above 2(1 + ε) at every ε."""
    case = saturated_gru_case(eps, 8.0, 0.0, H=0.0)
    C = math.tanh(20.0)
    expected = 8 * eps * (1 - eps) * C + (1 - eps) + (1 - eps) ** 2
    result = evaluate_cases(corollary2, [case])
    assert result.verdict == "misprinted" and result.records[0].failed_assumptions == []
    assert result.records[0].ratio == pytest.approx(expected / (2 * (1 + eps)), rel=1e-12)


def test_corollary2_reports_ratio_per_eps():
    """Every part name carries its ε, so worst_parts is the ratio as a function of the saturation tolerance."""
    result = check_claim(with_sizes(corollary2, STEP_SIZES), Profile("quick", n_random=12, restarts=0, ascent_steps=0),
                         seed=0)
    eps_in_parts = {float(k.split("ε = ")[1].split(")")[0]) for k in result.worst_parts() if "ε = " in k}
    assert eps_in_parts <= set(EPS_GRID) and len(eps_in_parts) >= 2
