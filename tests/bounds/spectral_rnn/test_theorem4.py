"""spectral_rnn.theorem4: 2 min(m, n) reflectors reach ℝ^{m×n}; one fewer does not."""

import torch

from rnnaudit.bounds import evaluate_cases
from rnnaudit.bounds.spectral_rnn import theorem4
from rnnaudit.bounds.spectral_rnn.cases import MatrixCase
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside, failed, gen


def test_theorem4_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside(theorem4, [(2, 1), (4, 1), (6, 1)], tmp_path)


def test_theorem4_violated_with_one_reflector_short():
    A = torch.randn(3, 5, generator=gen(4), dtype=F64)
    result = evaluate_cases(theorem4, [MatrixCase(A, 3, 2)])
    assert result.verdict == "false" and failed(result, "k1, k2 as in Theorem 4")
