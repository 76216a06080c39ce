"""nc_gru.corollary1 and nc_gru.corollary1.corrected: they hold inside their assumptions and are violated
when h_0 ≠ 0."""

import pytest
import torch

from rnnaudit.bounds import evaluate_cases
from rnnaudit.bounds.nc_gru import corollary1, corollary1_corrected
from rnnaudit.bounds.nc_gru.cases import GRUCase
from tests.bounds.nc_gru.cases import F64, TRAJECTORY_SIZES, assert_holds_inside_assumptions, zero_gru


@pytest.mark.parametrize("claim", [corollary1, corollary1_corrected], ids=lambda c: c.id)
def test_claim_holds_inside_its_assumptions(claim, tmp_path):
    assert_holds_inside_assumptions(claim, TRAJECTORY_SIZES, tmp_path)


@pytest.mark.parametrize("claim", [corollary1, corollary1_corrected], ids=lambda c: c.id)
def test_corollary1_violated_when_h0_is_not_zero(claim):
    """h_0 = 3·1 and u_1 ≈ 0: h_1 ≈ 3, breaking [h_t]_i ≤ 1 (the induction of eq. 47–52 starts at h_0 = 0)."""
    cell = zero_gru(2)
    with torch.no_grad():
        cell.b_u.fill_(-10.0)
    case = GRUCase(cell, torch.zeros(1, 3, 2, dtype=F64), torch.full((2,), 3.0, dtype=F64))
    result = evaluate_cases(claim, [case])
    assert result.verdict == "false"
    assert any(f.startswith("h_0 = 0") for f in result.records[0].failed_assumptions)
