"""srnn.hidden_gradient: ∂h_T/∂h_t does not grow but does decay (tanh); the corrected exact form diag(π) W_p^{T−t}
holds, reaches its supremum 1, and catches a misplaced σ' factor."""

import math

import pytest
import torch

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.srnn import hidden_gradient, hidden_gradient_corrected
from rnnaudit.bounds.srnn.cases import affine_case
from rnnaudit.bounds.srnn.hidden_gradient import hidden_jacobians, path_products
from tests.bounds.helpers import (TINY, assert_has_power, assert_reaches_supremum, assert_reproducible_violation,
                                  with_sizes)
from tests.bounds.srnn.cases import assert_exact_agrees, with_evaluate

SIZES = [(1, 1), (2, 3), (4, 5)]


def test_no_decay_is_violated_by_tanh_and_sympy_agrees(tmp_path):
    case = assert_reproducible_violation(with_sizes(hidden_gradient, SIZES), TINY, tmp_path)
    assert case.cell.activation == "tanh"
    result = check_claim(with_sizes(hidden_gradient, SIZES), TINY, seed=0)
    assert_exact_agrees(result)
    assert result.worst_parts()["no growth: ‖∂h_T/∂h_t‖₂ ≤ 1"] <= 1 + 1e-12


def test_tanh_one_step_known_answer():
    """d_h = 1, T = 1, σ = tanh, b ≡ 1, h_0 = 0: ∂h_1/∂h_0 = sech²(1), so the no-decay ratio is cosh²(1)."""
    case = affine_case([0.0], [1.0], [0.0], activation="tanh")
    parts = measure_case(hidden_gradient, case)[1]
    assert parts["no decay (uniform reading): ‖∂h_T/∂h_t‖₂ ≥ 1, i.e. 1/‖·‖₂ ≤ 1"] == pytest.approx(math.cosh(1) ** 2,
                                                                                                   rel=1e-12)


def test_corrected_form_holds_reaches_one_and_has_power():
    result = check_claim(with_sizes(hidden_gradient_corrected, SIZES), TINY, seed=1)
    assert result.verdict == "holds" and result.errors == []
    assert_exact_agrees(result)
    assert_reaches_supremum(hidden_gradient_corrected)
    assert_has_power(with_sizes(hidden_gradient_corrected, SIZES), 2)


def test_corrected_form_catches_the_path_products_of_printed_eq9():
    """π built from σ'(z_1..z_{T−t}) (the steps *before*, as eq. 9 prints its product) instead of the steps after."""
    def wrong(case):
        J = hidden_jacobians(case)
        d_h, T = case.size()
        with torch.no_grad():
            z, _ = case.cell.preactivations(case.x, case.h0)
        D = (1 - torch.tanh(z[0]) ** 2) if case.cell.activation == "tanh" else (z[0] > 0).double()
        pi = path_products(D.flip(0))
        formula = torch.stack([torch.diag(pi[t]) @ torch.linalg.matrix_power(
            torch.roll(torch.eye(d_h, dtype=J.dtype), -1, 0), T - t) for t in range(T)])
        return {"wrong path": ((J - formula).abs().max(), 1e-12 * J.abs().max().clamp(min=1), J.abs().max())}
    case = affine_case([0.5, -0.3, 0.2], [0.1, 0.2, 0.3], [1.0, -1.0, 2.0, 0.5], activation="tanh")
    assert measure_case(with_evaluate(hidden_gradient_corrected, wrong), case)[0] > 1
    assert measure_case(hidden_gradient_corrected, case)[0] <= 1 + 1e-12
