"""enrnn.spectral_norm (Sec. 2): ρ(A) ≤ ‖A‖ for the 1-, 2-, ∞- and Frobenius norms, attained by diagonal and
rank-one matrices, with a sympy proof of Schur's inequality for 2×2."""

import dataclasses

import torch

from rnnaudit.bounds import evaluate_cases
from rnnaudit.bounds.enrnn import spectral_norm
from rnnaudit.bounds.enrnn.spectral_norm import MatrixCase
from tests.bounds.enrnn.cases import assert_exact_agrees, assert_holds_inside_its_assumptions
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes


def test_spectral_norm_holds_and_its_exact_proof_agrees(tmp_path):
    result = assert_holds_inside_its_assumptions(spectral_norm, tmp_path)
    assert_exact_agrees(spectral_norm, result)


def test_spectral_norm_search_reaches_the_supremum_one():
    assert_reaches_supremum(spectral_norm)


def test_spectral_norm_check_has_power():
    assert_has_power(with_sizes(spectral_norm, [(3, 1)]), 2, TINY)


def test_spectral_norm_fails_for_the_entrywise_max_which_is_not_a_matrix_norm():
    """The check's rule measured against max |a_ij| (not submultiplicative): ρ(11ᵀ) = 2 > 1."""
    A = torch.ones(2, 2, dtype=torch.float64)
    entrywise = dataclasses.replace(spectral_norm, evaluate=lambda c: {
        "ρ(A) ≤ max |a_ij|": (torch.linalg.eigvals(c.A).abs().max().to(c.A.dtype), c.A.abs().max())})
    assert evaluate_cases(entrywise, [MatrixCase(A)]).verdict == "false"
