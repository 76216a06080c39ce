"""enrnn.proof3.1 (Sec. 8.1): every step of Theorem 3.1's proof holds on ReLU ENRNNs whatever ‖W^(S)‖₂ (the
hypothesis no step uses); a chain rule without the input's gate is caught."""

import dataclasses

import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.enrnn import proof3_1
from rnnaudit.bounds.enrnn.proof3_1 import proof31_parts
from tests.bounds.enrnn.cases import assert_holds_inside_its_assumptions, case_of, hand_cell, small
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum


def test_proof3_1_steps_hold_without_the_norm_hypothesis(tmp_path):
    result = assert_holds_inside_its_assumptions(proof3_1, tmp_path)
    assert result.to_json()["relative_error"] < 1e-12


def test_proof3_1_steps_hold_for_a_non_normal_W_with_norm_above_one():
    """‖W^(S)‖₂ = 2.06 > 1 (T = [[0.5, 2], [0, 0.5]], ρ = 0.5): inside this claim's assumptions, every step holds."""
    cell = hand_cell(1, 2, [[0.5, 2.0], [0.0, 0.5]], b=1.0)
    assert float(torch.linalg.matrix_norm(cell.short_term_matrix().detach(), ord=2)) > 2
    result = evaluate_cases(proof3_1, [case_of(cell, T=6)])
    assert result.verdict == "holds" and result.records[0].failed_assumptions == []


def test_proof3_1_catches_a_missing_gate():
    wrong = dataclasses.replace(proof3_1, evaluate=lambda c: proof31_parts(c, drop_gate=True))
    assert check_claim(small(wrong), TINY, seed=0).verdict == "false"


def test_proof3_1_reaches_its_supremum_and_has_power():
    assert_reaches_supremum(proof3_1)
    assert_has_power(small(proof3_1), 2, TINY)
