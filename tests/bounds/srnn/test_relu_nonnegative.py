"""srnn.relu_nonnegative: with ReLU and h_0 ≥ 0 previous states only add; a negative h_0 breaks it at t = 1."""

import math

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.srnn import relu_nonnegative
from rnnaudit.bounds.srnn.cases import affine_case
from tests.bounds.helpers import TINY, with_sizes


def test_relu_nonnegative_holds():
    result = check_claim(with_sizes(relu_nonnegative, [(1, 2), (3, 5)]), TINY, seed=0)
    assert result.verdict == "holds" and result.errors == [] and result.worst_ratio == 0


def test_a_negative_initial_state_is_caught():
    case = affine_case([0.0, 0.0], [1.0, 1.0], [0.0, 0.0], h0=[-2.0, 0.0])
    result = evaluate_cases(relu_nonnegative, [case])
    assert result.verdict == "false"
    assert any(f.startswith("h_0 ≥ 0") for f in result.records[0].failed_assumptions)
    assert math.isinf(result.records[0].parts["W_p h_{t−1} ≥ 0 (no negative contribution from previous states)"])
