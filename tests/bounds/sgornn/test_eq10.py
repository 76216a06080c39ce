"""sgornn.eq10: the toolkit's addition problem follows Sec. 3.1, and its baseline MSE is 1/6 ≈ 0.167."""

import dataclasses

import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.sgornn import eq10
from rnnaudit.bounds.sgornn.eq10 import AdditionCase
from tests.bounds.helpers import TINY


def test_eq10_holds_on_the_generator():
    result = check_claim(eq10, TINY)
    assert result.verdict == "holds" and result.exact.verdict == "proved"


def test_eq10_catches_a_generator_with_a_misplaced_marker_or_a_shifted_target():
    x = torch.zeros(4, 6, 2, dtype=torch.float64)
    x[..., 0] = 0.5
    x[:, 0, 1] = 1
    x[:, 1, 1] = 1                                                    # both markers in the first half
    out = evaluate_cases(eq10, [AdditionCase(x, torch.ones(4, dtype=torch.float64))])
    assert out.verdict == "false"

    def shifted(case):
        return eq10.evaluate(AdditionCase(case.x, case.y + 0.1))
    assert check_claim(dataclasses.replace(eq10, evaluate=shifted), TINY).verdict == "false"
