"""spectral_rnn.theorem2: M_{1,1} reaches ℝ^{n×n}; with k1 = k2 = 3 it does not."""

import torch

from rnnaudit.bounds import evaluate_cases
from rnnaudit.bounds.spectral_rnn import theorem2
from rnnaudit.bounds.spectral_rnn.cases import MatrixCase
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside, failed, gen


def test_theorem2_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside(theorem2, [(1, 1), (3, 1), (5, 1)], tmp_path)


def test_theorem2_violated_with_k1_k2_equal_3():
    A = torch.randn(5, 5, generator=gen(2), dtype=F64)
    result = evaluate_cases(theorem2, [MatrixCase(A, 3, 3)])
    assert result.verdict == "false" and failed(result, "k1 = k2 = 1")
