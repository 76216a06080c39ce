"""pascanu2013: γ, eq. (5) as printed (false), the vanishing and exploding conditions (vanilla and any-cell forms): each
holds where it should, has power (a wrong bound or a case outside the assumptions fails), applies to the models the
audit meets, and its assumption fails on a model where it should."""

import pytest
import torch
from torch import nn

from rnnaudit.bounds import check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.pascanu2013 import (eq5, eq5_corrected, exploding, exploding_general, gamma, vanishing,
                                         vanishing_general)
from rnnaudit.bounds.pascanu2013.cases import linear_regime_case
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes
from tests.bounds.models import IndRNN, assessed, modules, saturated, view


@pytest.mark.parametrize("claim", [gamma, eq5_corrected, vanishing, vanishing_general, exploding, exploding_general],
                         ids=lambda c: c.id)
def test_pascanu2013_claims_hold(claim):
    result = check_claim(claim, TINY)
    assert result.verdict == "holds" and result.errors == [], (result.worst_ratio, result.errors)


@pytest.mark.slow
def test_pascanu2013_gamma_is_1_for_tanh_and_a_quarter_for_sigmoid_exactly():
    assert gamma.exact().verdict == "proved"
    assert_reaches_supremum(gamma)


def test_pascanu2013_eq5_as_printed_is_false_and_its_correction_holds():
    result = check_claim(eq5, TINY)
    assert result.verdict == "false" and eq5.readings == ()  # no reading of the printed form is the Jacobian
    assert result.fails and result.counterexample_case.failed_assumptions == []
    assert result.worst_ratio > 1e6  # an O(1) error against a 1e-12 tolerance: not rounding
    # a symmetric W_rec makes the printed form right (the transpose does nothing)
    case = result.counterexample_case.case
    W = case.weights[0][1]
    with torch.no_grad():
        W.copy_(W + W.mT)
    assert measure_case(eq5, case)[0] <= 1


@pytest.mark.parametrize("claim", [vanishing, vanishing_general], ids=lambda c: c.id)
def test_pascanu2013_vanishing_is_attained_and_has_power(claim):
    assert_reaches_supremum(claim)
    assert_has_power(with_sizes(claim, [(2, 5)]), 1.05)


@pytest.mark.parametrize("claim", [exploding, exploding_general], ids=lambda c: c.id)
def test_pascanu2013_exploding_has_power(claim):
    assert_has_power(with_sizes(claim, [(2, 5)]), 4.0)


def test_pascanu2013_exploding_fails_on_a_growing_case_with_a_small_norm_claimed():
    """Negative control: a growing linear regime (J = 2·I) against the claim 'λ₁ > 4/γ' (bound scaled) fails."""
    case = linear_regime_case(3, 4, 2.0)
    ((m, b),) = exploding.evaluate(case).values()
    assert float(m / (b / 4)) > 1 and float(m / b) <= 1


@pytest.mark.parametrize("name", ["rnn_tanh", "rnn_relu"])
def test_pascanu2013_vanilla_conditions_apply_to_torch_rnns_and_fail_after_training(name):
    for claim in (vanishing, exploding):
        on = assessed(claim, view(modules()[name]))
        assert on.applies and on.assumptions
    grown = assessed(vanishing, view(saturated(modules()[name])))
    assert grown.applies and not grown.assumptions_hold and "1.5" in grown.assumptions[0]["detail"]


@pytest.mark.parametrize("name", ["lstm", "lstmcell", "gru1", "gru2"])
def test_pascanu2013_vanilla_conditions_do_not_apply_to_gated_models(name):
    assert not assessed(vanishing, view(modules()[name])).applies


@pytest.mark.parametrize("name", ["lstm", "lstmcell", "gru1", "gru2", "rnn_tanh", "rnn_relu", "indrnn"])
def test_pascanu2013_general_conditions_apply_to_every_model(name):
    model = IndRNN(3, 6) if name == "indrnn" else modules()[name]
    for claim in (vanishing_general, exploding_general):
        on = assessed(claim, view(model))
        assert on.applies and on.assumptions and on.verdict == "holds", (claim.id, on.reason, on.verdict)


def test_pascanu2013_eta_fails_on_an_indrnn_with_u_above_1_and_a_saturated_lstm():
    expanding = IndRNN(3, 6, u=1.5)
    with torch.no_grad():
        expanding.inp.bias.fill_(2.0)  # every unit on: J_t = diag(u) = 1.5·I
    on = assessed(vanishing_general, view(expanding))
    assert not on.assumptions_hold and "η" in on.assumptions[0]["detail"]
    assert assessed(exploding_general, view(expanding)).assumptions_hold  # and its gradient grows
    assert not assessed(vanishing_general, view(saturated(nn.LSTM(3, 6)))).assumptions_hold


def test_pascanu2013_a_case_outside_the_assumptions_is_listed():
    result = evaluate_cases(vanishing, [linear_regime_case(2, 4, 1.5)])
    assert result.verdict == "holds" and result.errors and "λ₁ < 1/γ" in result.errors[0]


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_pascanu2013_vanishing_is_attained_and_has_power": {"pascanu2013.vanishing"},
}
