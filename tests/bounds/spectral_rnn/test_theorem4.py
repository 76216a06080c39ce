"""spectral_rnn.theorem4: 2 min(m, n) reflectors reach ℝ^{m×n}; one fewer does not; the printed second case's
k1 = n − m + 1 names reflectors that do not exist for m ≥ n + 2 (misprinted: the proof's k1 = m − n + 1)."""

import dataclasses

import torch

from rnnaudit.bounds import evaluate_cases
from rnnaudit.bounds.spectral_rnn import theorem4
from rnnaudit.bounds.spectral_rnn.cases import MatrixCase
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside, failed, gen


def test_theorem4_holds_inside_its_assumptions_read_with_the_proofs_k1(tmp_path):
    as_read = dataclasses.replace(theorem4, evaluate=theorem4.readings[0].evaluate, readings=())
    assert_holds_inside(as_read, [(2, 1), (4, 1), (6, 1)], tmp_path)


def test_theorem4_printed_k1_fails_on_matrices_two_or_more_rows_taller_only():
    """m ≥ n + 2 names reflectors H^m_k with k ≤ −1; at m = n + 1 the printed k1 = 0 gives H^m_0 = I (eq. 1, ℝ⁰ = {0})
    and the printed case holds; wide matrices hold."""
    tall, wide = torch.randn(5, 3, generator=gen(1), dtype=F64), torch.randn(3, 5, generator=gen(2), dtype=F64)
    one_taller = torch.randn(4, 3, generator=gen(3), dtype=F64)
    assert evaluate_cases(theorem4, [MatrixCase(wide, 3, 3)]).verdict == "holds"
    assert evaluate_cases(theorem4, [MatrixCase(one_taller, 3, 3)]).verdict == "holds"
    result = evaluate_cases(theorem4, [MatrixCase(tall, 3, 3)])
    assert result.fails and result.readings[0].verdict == "holds"


def test_theorem4_violated_with_one_reflector_short():
    A = torch.randn(3, 5, generator=gen(4), dtype=F64)
    result = evaluate_cases(theorem4, [MatrixCase(A, 3, 2)])
    assert result.verdict == "false" and failed(result, "k1, k2 as in Theorem 4")
