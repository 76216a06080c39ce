"""spectral_rnn.eq24: the activation bound holds under Assumption 1 and fails outside it."""

import pytest
import torch

from rnnaudit.bounds import evaluate_cases
from rnnaudit.bounds.spectral_rnn import eq24
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside, failed, rnn_case


def test_eq24_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside(eq24, [(2, 1), (4, 8), (8, 20)], tmp_path)


@pytest.mark.parametrize("kwargs,assumption", [
    (dict(activation="sigmoid", x_scale=1e-3), "‖φ(x)‖ ≤ ‖x‖"),
    (dict(b=torch.ones(3, dtype=F64), x_scale=1e-3), "no bias"),
    (dict(h0=torch.ones(3, dtype=F64), x_scale=1e-3), "h^(0) = 0")], ids=["sigmoid", "bias", "h0"])
def test_eq24_violated_outside_assumption_1(kwargs, assumption):
    """Sec. 6 lists the sigmoid among activations satisfying Assumption 1(b); σ(0) = 1/2 breaks ‖φ(x)‖ ≤ ‖x‖
    and eq. 24 with it."""
    result = evaluate_cases(eq24, [rnn_case(**kwargs)])
    assert result.verdict == "false" and failed(result, assumption)
