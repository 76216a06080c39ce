"""srnn.relu_vanishing: the three readings of 'vanish iff some z_{t'} < 0' fail on the constructions; the
path-by-path form holds and catches a path followed the wrong way round."""

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.srnn import relu_vanishing, relu_vanishing_corrected
from rnnaudit.bounds.srnn.cases import affine_case, sample_relu_case
from rnnaudit.bounds.srnn.relu_vanishing import measure_paths
from tests.bounds.helpers import TINY, assert_reproducible_violation, with_sizes
from tests.bounds.srnn.cases import assert_exact_agrees, with_evaluate

SIZES = [(1, 2), (2, 2), (3, 4)]
SOME, EVERY, WHOLE = ("∂h_t/∂z_i = 0 ⟺ z_{t',r} ≤ 0 for some t' ∈ [i, t] and some unit r",
                      "∂h_t/∂z_i = 0 ⟺ z_{t'} ≤ 0 in every unit at some t' ∈ [i, t]",
                      "∂h_t/∂b_k = 0 (with some ∂b(x_i)/∂b_k ≠ 0) ⟹ z_{t',r} ≤ 0 for some t' ≤ t, r")


def test_relu_vanishing_is_violated_and_sympy_agrees(tmp_path):
    assert_reproducible_violation(with_sizes(relu_vanishing, SIZES), TINY, tmp_path)
    assert_exact_agrees(check_claim(with_sizes(relu_vanishing, SIZES), TINY, seed=0))


@pytest.mark.parametrize("case, part", [
    (affine_case([0.0, 0.0], [2.0, -1.0], [0.0, 0.0]), SOME),  # one unit off at t = 1, the other carries on
    (affine_case([-1.0, -4.0], [2.0, -1.0], [0.0, 1.0]), EVERY),  # both paths die, at different steps
    (affine_case([1.0], [3.0], [1.0, -1.0]), WHOLE),  # every z > 0, yet ∂h_2/∂w = 1 − 1 = 0
], ids=["some unit", "every unit", "whole gradient"])
def test_each_reading_fails_on_its_construction(case, part):
    _, parts = measure_case(relu_vanishing, case)
    assert parts[part] >= 2  # at least one mismatch (the ratio is twice their number)
    assert measure_case(relu_vanishing_corrected, case)[0] == 0


def test_corrected_holds_and_sympy_proves_it():
    result = check_claim(with_sizes(relu_vanishing_corrected, SIZES + [(5, 5)]), TINY, seed=1)
    assert result.verdict == "holds" and result.errors == []
    assert_exact_agrees(result)


def test_corrected_catches_a_path_followed_the_wrong_way():
    """With the shift's direction reversed the predicted path differs from d_h = 3 on (at d_h = 2 both coincide)."""
    wrong = with_evaluate(relu_vanishing_corrected, lambda c: measure_paths(c, direction=+1))
    cases = [sample_relu_case(torch.Generator().manual_seed(s), 4, 6) for s in range(6)]
    assert evaluate_cases(wrong, cases).verdict == "violated"
    assert evaluate_cases(relu_vanishing_corrected, cases).verdict == "holds"
