"""enrnn.proof3.2 (Sec. 8.2): eq. 6–8 are right, the final display drops ε; at ε = 0 the display is right; a
transposed S is caught."""

import dataclasses

import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.enrnn import proof3_2
from rnnaudit.bounds.enrnn.eigen import sample_grad_case
from rnnaudit.bounds.enrnn.proof3_2 import proof_step_parts
from tests.bounds.enrnn.cases import small
from tests.bounds.helpers import TINY, assert_reproducible_violation


def test_proof3_2_final_display_is_violated_while_steps_6_to_8_hold(tmp_path):
    case = assert_reproducible_violation(small(proof3_2), TINY, tmp_path)
    result = check_claim(small(proof3_2), TINY, seed=0)
    parts = result.worst_parts()
    assert all(v <= 1 for k, v in parts.items() if k.startswith("eq. ("))
    assert all(v > 1 for k, v in parts.items() if k.startswith("final display"))
    assert case.eps > 0


def test_proof3_2_final_display_is_right_at_eps_zero():
    case = sample_grad_case(torch.Generator().manual_seed(3), 4, 1)
    case.eps = 0.0
    result = evaluate_cases(proof3_2, [case])
    assert result.verdict == "holds"
    assert result.records[0].failed_assumptions[0].startswith("ε > 0")


def test_proof3_2_catches_a_transposed_S():
    wrong = dataclasses.replace(proof3_2, evaluate=lambda c: {
        k: v for k, v in proof_step_parts(c, transpose_S=True).items() if k.startswith("eq. (8)")})
    assert check_claim(small(wrong), TINY, seed=0).verdict == "false"
