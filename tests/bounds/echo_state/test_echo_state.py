"""echo_state: Jaeger's sufficient condition (and its extension to relu, stacked nn.RNN, IndRNN) and the zero-input
necessary condition hold, have power, and the sufficient condition's assumption fails after training."""

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.architectures import sample_arch
from rnnaudit.bounds.echo_state import necessary, sufficient
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes
from tests.bounds.models import assessed, modules, saturated, view


@pytest.mark.parametrize("claim", [sufficient, necessary], ids=lambda c: c.id)
def test_echo_state_conditions_hold_and_have_power(claim):
    result = check_claim(claim, TINY)
    assert result.verdict == "holds" and result.errors == []
    assert_has_power(with_sizes(claim, [(3, 6)]), 1.05)


@pytest.mark.slow
def test_echo_state_sufficient_is_attained():
    assert_reaches_supremum(sufficient)


def test_echo_state_necessary_needs_zero_bias():
    """Negative control: with a bias of 3 the trajectory leaves 0, tanh' ≪ 1 there, and ρ^n exceeds the growth."""
    case = sample_arch(torch.Generator().manual_seed(0), "rnn_tanh", 3, 6, norm=1.0)
    with torch.no_grad():
        case.weights[0][1].mul_(1.5 / torch.linalg.eigvals(case.weights[0][1]).abs().max())
        case.weights[0][2].fill_(3.0)
        case.x.zero_()
        case.h0.zero_()
    result = evaluate_cases(necessary, [case])
    assert result.verdict == "false" and "zero input and bias" in result.errors[0]


@pytest.mark.parametrize("name", ["rnn_tanh", "rnn_relu"])
def test_echo_state_sufficient_applies_to_torch_rnns_and_fails_after_training(name):
    assert assessed(sufficient, view(modules()[name])).verdict == "holds"
    assert not assessed(sufficient, view(saturated(modules()[name]))).assumptions_hold
    assert not assessed(sufficient, view(modules()["lstm"])).applies


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_echo_state_conditions_hold_and_have_power": {"echo_state.sufficient"},
}
