"""nc_gru.eq5: the scaled Cayley gradient Vᵀ − V agrees with autograd over skew A's free entries, with
cells.scaled_cayley_gradient, and not with the unconstrained gradient."""

import dataclasses

import pytest
import torch

from rnnaudit.bounds import evaluate_cases, measure_case
from rnnaudit.bounds.nc_gru import eq5
from rnnaudit.bounds.nc_gru.eq5 import cayley, cayley_loss, sample_cayley_gradient_case
from rnnaudit.cells import scaled_cayley_gradient
from tests.bounds.nc_gru.cases import EQ5_SIZES, F64, assert_holds_inside_assumptions


@pytest.mark.parametrize("claim", [eq5], ids=lambda c: c.id)
def test_claim_holds_inside_its_assumptions(claim, tmp_path):
    assert_holds_inside_assumptions(claim, EQ5_SIZES, tmp_path)


def test_eq5_violated_for_the_unconstrained_gradient():
    """Eq. 5 is the gradient over skew A's free entries; autograd over all h² entries gives −V instead."""
    case = sample_cayley_gradient_case(torch.Generator().manual_seed(0), 5, 3)
    case = dataclasses.replace(case, parametrization="full")
    result = evaluate_cases(eq5, [case])
    assert result.verdict == "false"
    assert any(f.startswith("∇_A L over the free entries") for f in result.records[0].failed_assumptions)


def test_eq5_formula_matches_cells_scaled_cayley_gradient():
    """The eq. 5–6 formula written in the check agrees with cells.scaled_cayley_gradient (1e-12 relative)."""
    case = sample_cayley_gradient_case(torch.Generator().manual_seed(2), 7, 3)
    U = cayley(case.A, case.d).requires_grad_()
    (G,) = torch.autograd.grad(cayley_loss(case, U), [U])
    ref = scaled_cayley_gradient(case.A, case.d, G)
    assert measure_case(eq5, case)[0] <= 1
    eye = torch.eye(7, dtype=F64)
    V = torch.linalg.solve((eye + case.A).mT, G @ (torch.diag(case.d) + U.detach().mT))
    torch.testing.assert_close(V.mT - V, ref, rtol=1e-12, atol=1e-14)
