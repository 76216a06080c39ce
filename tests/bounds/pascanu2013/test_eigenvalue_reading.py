"""pascanu2013: the checked statement is the ICML version's (λ₁ = largest singular value of W_rec); the arXiv
preprint's 'largest eigenvalue' is a reading, false, with W = [[0.5, 3], [0, 0.5]] and a switching tanh case."""

import pytest
import torch

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.architectures import product_norms, step_jacobians
from rnnaudit.bounds.pascanu2013 import exploding, vanishing
from rnnaudit.bounds.pascanu2013.cases import (A_LAMBDA, A_RADIUS, eta, growth, switching_case, triangular_case)
from tests.bounds.helpers import TINY

#: ‖W^τ‖₂ for W = [[0.5, 3], [0, 0.5]], τ = 1…5, computed independently of the package: W^τ = 0.5^τ [[1, 6τ], [0, 1]].
def _triangular_power_norm(tau: int) -> float:
    M = torch.tensor([[1.0, 6.0 * tau], [0.0, 1.0]], dtype=torch.float64) * 0.5 ** tau
    return float(torch.linalg.svdvals(M)[0])


@pytest.mark.parametrize("claim", [vanishing, exploding], ids=lambda c: c.id)
def test_pascanu2013_icml_singular_value_version_holds_and_the_arxiv_eigenvalue_reading_is_false(claim):
    result = check_claim(claim, TINY)
    assert "ICML" in claim.source and "singular value" in claim.statement
    assert result.verdict == "holds", (result.worst_ratio, result.errors)
    (reading,) = result.readings
    assert "eigenvalue" in reading.reading.name
    assert reading.verdict == "false" and reading.worst_ratio > 1.5


def test_pascanu2013_triangular_w_has_radius_half_but_every_step_expands_and_gradients_grow_for_four_steps():
    case = triangular_case(2, 5)
    assert A_RADIUS.check(case)[0] and not A_LAMBDA.check(case)[0]  # ρ = 0.5 < 1 = 1/γ, ‖W‖₂ = 3.08 > 1
    assert float(eta(case)) == pytest.approx(_triangular_power_norm(1), rel=1e-12)  # eq. (6)'s η < 1 fails
    J, _ = step_jacobians(case)
    prods, _, taus = product_norms(J)
    for tau in range(1, 6):  # ‖∂h_τ/∂h_0‖₂ measured through autograd = ‖W^τ‖₂ computed by hand
        assert float(prods[taus == tau].max()) == pytest.approx(_triangular_power_norm(tau), rel=1e-12)
    assert [round(_triangular_power_norm(t), 2) for t in range(1, 6)] == [3.08, 3.02, 2.26, 1.5, 0.94]
    # the reading's bound (γρ)^τ is exceeded by ‖W^τ‖₂/0.5^τ, largest at τ = 5 here (≈ 6τ)
    ratio, _ = measure_case(vanishing, case, vanishing.readings[0])
    assert ratio == pytest.approx(_triangular_power_norm(5) / 0.5 ** 5, rel=1e-9)
    # negative control: the same case against the singular-value bound (γ‖W‖₂)^τ is within it
    assert measure_case(vanishing, case)[0] <= 1 + 1e-12


def test_pascanu2013_switching_tanh_case_grows_without_bound_with_radius_0_9():
    case = switching_case(2, 40)
    assert A_RADIUS.check(case)[0]
    W = case.weights[0][1]
    assert float(torch.linalg.eigvals(W).abs().max()) == pytest.approx(0.9, rel=1e-12)
    assert float(growth(case)) > 1e4  # ≈ 1.27^40
    ratio, _ = measure_case(exploding, case, exploding.readings[0])
    assert ratio == pytest.approx(1 / 0.9, rel=1e-12)  # a growing gradient with ρ < 1/γ: the necessity fails
    assert measure_case(exploding, case)[0] < 1  # and ‖W‖₂ = 2.7 > 1/γ: the ICML form is not contradicted


def test_pascanu2013_eigenvalue_reading_holds_on_a_normal_w_where_radius_is_the_norm():
    """Negative control: where ρ = ‖W‖₂ (a symmetric W), the two readings agree and the bound holds."""
    case = triangular_case(3, 6)
    with torch.no_grad():
        W = case.weights[0][1]
        W.copy_(0.45 * (W + W.mT) / float(torch.linalg.matrix_norm(W + W.mT, ord=2)))
    assert measure_case(vanishing, case, vanishing.readings[0])[0] <= 1 + 1e-12


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_pascanu2013_icml_singular_value_version_holds_and_the_arxiv_eigenvalue_reading_is_false": {
        "pascanu2013.vanishing",
    },
}
