"""srnn.eq4: W_p is a permutation, hence orthogonal; a matrix that is not one breaks the check."""

import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.srnn import eq4
from rnnaudit.bounds.srnn.eq4 import PermutationCase, measure_eq4
from rnnaudit.cells import shift_matrix
from tests.bounds.helpers import TINY
from tests.bounds.srnn.cases import F64, assert_exact_agrees, small, with_evaluate


def test_eq4_holds_inside_its_assumptions(tmp_path):
    result = check_claim(small(eq4), TINY, seed=1, out_dir=tmp_path)
    assert result.verdict == "holds", result.notes_text()
    assert result.errors == []
    assert result.worst_ratio <= 1 + eq4.tolerance


def test_eq4_violated_for_a_matrix_that_is_not_a_permutation():
    """The shift with one extra 1 (row 0 maps two units): not orthogonal, and its powers grow ‖y‖."""
    W = shift_matrix(5, dtype=F64)
    W[0, 3] = 1
    result = evaluate_cases(eq4, [PermutationCase(W, torch.ones(5, dtype=F64), 4)])
    assert result.verdict == "false"
    assert any(f.startswith("W_p is a permutation") for f in result.records[0].failed_assumptions)


def test_eq4_exact_verdict_and_a_transposed_matrix_is_caught():
    """Eq. 4 read with the ones below the diagonal (W_pᵀ, the shift the other way) no longer matches the cell."""
    assert_exact_agrees(check_claim(small(eq4), TINY, seed=0))
    wrong = with_evaluate(eq4, lambda c: measure_eq4(c, lambda d_h, like: shift_matrix(d_h, dtype=like.dtype).T))
    case = PermutationCase(shift_matrix(4, dtype=F64), torch.arange(4, dtype=F64), 2)
    assert evaluate_cases(wrong, [case]).verdict == "false"
    assert evaluate_cases(eq4, [case]).verdict == "holds"
