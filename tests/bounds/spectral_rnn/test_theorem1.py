"""spectral_rnn.theorem1: M_1 reaches O(n); outside O(n), or with fewer than n reflectors, it does not."""

import torch

from rnnaudit.bounds import evaluate_cases
from rnnaudit.bounds.spectral_rnn import theorem1
from rnnaudit.bounds.spectral_rnn.cases import MatrixCase
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside, failed, haar


def test_theorem1_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside(theorem1, [(1, 1), (2, 1), (5, 1)], tmp_path)


def test_theorem1_violated_for_a_non_orthogonal_matrix():
    """Proposition 1 still factors A = QR, but R ≠ I, so M_1(a) = Q ≠ A."""
    A = torch.triu(torch.ones(4, 4, dtype=F64)) + torch.eye(4, dtype=F64)
    result = evaluate_cases(theorem1, [MatrixCase(A, 4, 0)])
    assert result.verdict == "false" and failed(result, "A ∈ O(n)")


def test_theorem1_violated_with_fewer_than_n_reflectors():
    result = evaluate_cases(theorem1, [MatrixCase(haar(5, 1), 3, 0)])
    assert result.verdict == "false" and failed(result, "k = 1")
