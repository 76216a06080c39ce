"""enrnn.theorem3.1.general: Theorem 3.1's argument for any vanilla RNN with a 1-Lipschitz σ holds, is attained, has
power, applies to torch's nn.RNN (stacked too) and its hypothesis ‖W‖₂ < 1 fails after training."""

import pytest
from torch import nn

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.enrnn import theorem3_1_general
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes
from tests.bounds.models import assessed, contractive, modules, saturated, view


@pytest.mark.slow
def test_enrnn_theorem31_general_holds_is_attained_and_has_power():
    result = check_claim(theorem3_1_general, TINY)
    assert result.verdict == "holds" and result.errors == []
    assert_reaches_supremum(theorem3_1_general)
    assert_has_power(with_sizes(theorem3_1_general, [(2, 5)]), 1.05)


@pytest.mark.parametrize("model", [nn.RNN(3, 5), nn.RNN(3, 5, nonlinearity="relu"), nn.RNN(3, 5, 2)],
                         ids=["tanh", "relu", "two_layers"])
def test_enrnn_theorem31_general_applies_to_torch_rnns(model):
    on = assessed(theorem3_1_general, view(contractive(model)))
    assert on.applies and on.assumptions_hold and on.verdict == "holds"


def test_enrnn_theorem31_general_hypothesis_fails_after_training():
    on = assessed(theorem3_1_general, view(saturated(modules()["rnn_tanh"])))
    assert on.applies and not on.assumptions_hold and on.verdict == "holds"
    assert not assessed(theorem3_1_general, view(modules()["gru1"])).applies
