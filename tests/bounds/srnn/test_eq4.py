"""srnn.eq4: W_p is a permutation, hence orthogonal; a matrix that is not one breaks the check."""

import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.srnn import eq4
from rnnaudit.bounds.srnn.eq4 import PermutationCase
from rnnaudit.cells import shift_matrix
from tests.bounds.helpers import TINY
from tests.bounds.srnn.cases import F64, small


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
    assert result.verdict == "violated"
    assert any(f.startswith("W_p is a permutation") for f in result.records[0].failed_assumptions)
