"""miller_hardt2019: the vanilla-RNN stability condition and data-dependent stability hold, are attained, have power,
apply to the models they are about, and their assumptions fail where training breaks them."""

import pytest
import torch

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.miller_hardt2019 import data_dependent, rnn_stable
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes
from tests.bounds.models import IndRNN, assessed, modules, saturated, view


@pytest.mark.parametrize("claim", [rnn_stable, data_dependent], ids=lambda c: c.id)
def test_miller_hardt2019_claims_hold_are_attained_and_have_power(claim):
    result = check_claim(claim, TINY)
    assert result.verdict == "holds" and result.errors == []
    assert_reaches_supremum(claim)
    assert_has_power(with_sizes(claim, [(3, 5)]), 1.05)


@pytest.mark.parametrize("name", ["rnn_tanh", "rnn_relu"])
def test_miller_hardt2019_rnn_stable_applies_to_torch_rnns_and_fails_after_training(name):
    on = assessed(rnn_stable, view(modules()[name]))
    assert on.applies and on.verdict == "holds"
    grown = assessed(rnn_stable, view(saturated(modules()[name])))
    assert not grown.assumptions_hold and "L_ρ‖W‖₂" in grown.assumptions[0]["detail"]


@pytest.mark.parametrize("name", ["lstm", "gru2"])
def test_miller_hardt2019_rnn_stable_is_not_about_gated_models(name):
    assert not assessed(rnn_stable, view(modules()[name])).applies


@pytest.mark.parametrize("name", ["lstm", "lstmcell", "gru1", "gru2", "rnn_tanh", "rnn_relu", "indrnn"])
def test_miller_hardt2019_data_dependent_applies_to_every_model(name):
    on = assessed(data_dependent, view(IndRNN(3, 6) if name == "indrnn" else modules()[name]))
    assert on.applies and on.assumptions and on.verdict == "holds"


def test_miller_hardt2019_data_dependent_stability_fails_on_an_expanding_indrnn():
    expanding = IndRNN(3, 6, u=1.2)
    with torch.no_grad():
        expanding.inp.bias.fill_(2.0)
    on = assessed(data_dependent, view(expanding))
    assert not on.assumptions_hold and on.verdict == "holds"  # the bound holds, but the theorem says nothing


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_miller_hardt2019_claims_hold_are_attained_and_have_power": {"miller_hardt2019.rnn_stable"},
}
