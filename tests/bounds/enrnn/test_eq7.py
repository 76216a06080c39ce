"""enrnn.eq7 (Sec. 8.2, eq. 7): Proposition 3.2's hypotheses (λ simple, |λ| = ρ(T)) allow another eigenvalue of
modulus ρ(T), where ρ is not differentiable and eq. 7 gives the wrong one-sided derivative; with λ, λ̄ the only
dominant eigenvalues (the corrected hypothesis) it is right."""

import torch

from rnnaudit.bounds import check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.enrnn import eq7, eq7_corrected
from rnnaudit.bounds.enrnn.eigen import GradCase
from rnnaudit.bounds.enrnn.eq7 import one_sided_derivative
from tests.bounds.enrnn.cases import assert_exact_agrees, assert_holds_inside_its_assumptions, small
from tests.bounds.helpers import TINY, assert_reproducible_violation

F64 = torch.float64


def test_eq7_is_violated_at_a_tie_and_the_smallest_counterexample_is_diag_2_minus_2(tmp_path):
    case = assert_reproducible_violation(small(eq7), TINY, tmp_path)
    assert torch.allclose(case.T, torch.diag(torch.tensor([2.0, -2.0], dtype=F64)))
    assert_exact_agrees(eq7, check_claim(small(eq7), TINY, seed=0))


def test_eq7_one_sided_derivative_at_diag_2_minus_2():
    """Along E = −e₂e₂ᵀ the eigenvalue −2 − h takes over: D⁺(1/(ρ + ε)) = −1/2.1², eq. 7 predicts 0."""
    ratio, parts = measure_case(eq7, GradCase(torch.diag(torch.tensor([2.0, -2.0], dtype=F64)),
                                              torch.ones(2, 2, dtype=F64), 0.1))
    assert ratio > 1e3


def test_eq7_corrected_holds_and_rejects_ties(tmp_path):
    assert_holds_inside_its_assumptions(eq7_corrected, tmp_path)
    tie = GradCase(torch.diag(torch.tensor([2.0, -2.0, 0.5], dtype=F64)), torch.ones(3, 3, dtype=F64), 0.1)
    result = evaluate_cases(eq7_corrected, [tie])
    assert result.verdict == "false"
    assert any(f.startswith("λ and λ̄ the only eigenvalues") for f in result.records[0].failed_assumptions)


def test_eq7_holds_along_directions_where_lambda_stays_dominant():
    """At the tie, moving T_11 up keeps λ = 2 + h dominant: the one-sided derivative there matches eq. 7, which is
    why a search along random directions can miss the failure and the check aims E at the competing eigenvalue."""
    T0 = torch.diag(torch.tensor([2.0, -2.0], dtype=F64))
    E = torch.zeros(2, 2, dtype=F64)
    E[0, 0] = 1.0
    truth = one_sided_derivative(lambda X: 1 / (torch.linalg.eigvals(X).abs().max() + 0.1), T0, E)
    assert abs(float(truth) + 1 / 2.1**2) < 1e-6
