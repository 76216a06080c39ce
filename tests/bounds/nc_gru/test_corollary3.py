"""nc_gru.corollary3 and nc_gru.corollary3.corrected: the printed bound fails inside every assumption, a free
U_r (NC-GRU(U_c)) breaks it, and a stale Ã (U_c not orthogonal) breaks the corrected form."""

import pytest
import torch

from rnnaudit.bounds import evaluate_cases, measure_case
from rnnaudit.bounds.nc_gru import corollary3, corollary3_corrected
from rnnaudit.bounds.nc_gru.cases import GRUCase
from rnnaudit.cells import NCGRU
from tests.bounds.nc_gru.cases import (F64, STEP_SIZES, assert_holds_inside_assumptions,
                                       assert_violated_inside_assumptions, logit)


def _ncgru_step_case(orthogonal, h=3, eps=0.1, seed=0):
    gen = torch.Generator().manual_seed(seed)
    cell = NCGRU(1, h, orthogonal=orthogonal, generator=gen, dtype=F64)
    with torch.no_grad():
        for name, p in cell.named_parameters():
            if not name.startswith("cayley."):
                p.zero_()
    return GRUCase(cell, torch.zeros(1, 1, 1, dtype=F64), torch.ones(h, dtype=F64), eps, "vectors", 1, 1)


def _saturate_up(case):
    """Biases so that every pre-activation of r_t and u_t is exactly +L (gates at 1 − ε)."""
    L = logit(1 - case.eps)
    U = case.cell.recurrent_matrices()
    with torch.no_grad():
        case.cell.b_r.copy_(L - U["U_r"] @ case.h0)
        case.cell.b_u.copy_(L - U["U_u"] @ case.h0)


@pytest.mark.parametrize("claim", [corollary3_corrected], ids=lambda c: c.id)
def test_claim_holds_inside_its_assumptions(claim, tmp_path):
    assert_holds_inside_assumptions(claim, STEP_SIZES, tmp_path)


@pytest.mark.parametrize("claim", [corollary3], ids=lambda c: c.id)
def test_printed_claim_is_violated_inside_its_assumptions(claim, tmp_path):
    """Corollary 3 ("≲" read as ≤ y(1 + ε)) fails on cases that satisfy every assumption; the saved
    counterexample reloads and reproduces its ratio."""
    assert_violated_inside_assumptions(claim, STEP_SIZES, tmp_path)


def test_corollary3_violated_in_ncgru_uc_with_large_ur():
    """NC-GRU(U_c) (Sec. 4's main model) has a free U_r: with U_r = 100·I, h_{t−1} = 1 and gates at 1 − ε,
    the δ_r‖U_r‖₂ term makes ‖∂h_t/∂h_{t−1}‖₂ ≈ 9, although every other assumption holds."""
    case = _ncgru_step_case(("c",))
    with torch.no_grad():
        case.cell.U_r.copy_(100 * torch.eye(3, dtype=F64))
    _saturate_up(case)
    result = evaluate_cases(corollary3, [case])
    assert result.fails
    assert [f for f in result.records[0].failed_assumptions if f.startswith("U_r(A_r), U_c(A_c) orthogonal")]
    assert len(result.records[0].failed_assumptions) == 1
    # the corrected form, which keeps ‖U_r‖₂, accounts for it
    assert measure_case(corollary3_corrected, case)[0] <= 1 + corollary3_corrected.tolerance


def test_corollary3_corrected_violated_when_uc_is_not_orthogonal():
    """A edited without resetting Ã (Alg. 1 between resets, taken to the extreme): U_c = Ã(I − A)D is no
    longer orthogonal, ‖U_c‖₂ ≫ 1, and with U_r = U_u = 0 the bound 2 + 0 is exceeded."""
    case = _ncgru_step_case(("c",), h=4, eps=0.01)
    blk = case.cell.cayley["c"]
    with torch.no_grad():
        B = torch.randn(4, 4, generator=torch.Generator().manual_seed(3), dtype=F64)
        blk.A.add_(20 * (B - B.mT))  # stays skew, but Ã is stale
    _saturate_up(case)
    assert float(torch.linalg.matrix_norm(case.cell.recurrent_matrices()["U_c"].detach(), ord=2)) > 5
    result = evaluate_cases(corollary3_corrected, [case])
    assert result.verdict == "false"
    assert [f for f in result.records[0].failed_assumptions if f.startswith("U_c(A_c) orthogonal")]


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_printed_claim_is_violated_inside_its_assumptions": {"nc_gru.corollary3"},
}
