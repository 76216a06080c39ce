"""spectral_rnn.assumption1: ReLU, tanh and leaky ReLU satisfy Assumption 1(b), the sigmoid does not (σ(0) = 1/2);
the corrected bounds for the sigmoid hold and are attained."""

import math

import pytest
import torch

from rnnaudit.bounds import evaluate_cases, measure_case
from rnnaudit.bounds.spectral_rnn import assumption1, assumption1_corrected
from rnnaudit.bounds.spectral_rnn.assumption1 import ActivationCase
from tests.bounds.helpers import TINY, assert_has_power, assert_reproducible_violation, with_sizes
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside


def _case(name, x, y):
    return ActivationCase(torch.tensor([x], dtype=F64), torch.tensor([y], dtype=F64), name)


def test_assumption1_corrected_holds_and_has_power(tmp_path):
    assert_holds_inside(assumption1_corrected, [(1, 1), (3, 1)], tmp_path)
    assert_has_power(with_sizes(assumption1_corrected, [(2, 1)]), 2)


def test_printed_assumption1_is_violated_by_the_sigmoid_and_reloads(tmp_path):
    case = assert_reproducible_violation(with_sizes(assumption1, [(1, 1), (2, 1)]), TINY, tmp_path)
    assert case.activation == "sigmoid"


@pytest.mark.parametrize("name", ["relu", "tanh", "leaky_relu"])
def test_named_activations_satisfy_assumption_1b(name):
    result = evaluate_cases(assumption1, [_case(name, [0.3, -2.0], [0.1, 4.0]), _case(name, [1e-4, 0], [0, 1e-4])])
    assert result.verdict == "holds"


def test_sigmoid_at_zero():
    """‖σ(0)‖ = √n/2 against ‖0‖ = 0: infinite ratio; the corrected bound √n/2 + ‖x‖/4 is attained there."""
    case = _case("sigmoid", [0.0, 0.0], [1.0, 1.0])
    assert math.isinf(measure_case(assumption1, case)[0])
    assert measure_case(assumption1_corrected, case)[1]["sigmoid: ‖σ(x)‖ ≤ √n/2 + ‖x‖/4"] == pytest.approx(1.0)


def test_exact_verdicts_agree_with_the_checks():
    assert assumption1.exact().verdict == "violated" and assumption1_corrected.exact().verdict == "proved"
