"""contraction: the three certificates hold on their own cases and have power; on torch models they certify a
model whose recurrent weights are small and fail, with the value, on one as training can leave it; the weighted ℓ∞
certificate covers a matrix the spectral-norm condition cannot."""

import pytest
import torch
from torch import nn

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.contraction import data_box, gated_box, weighted_inf
from rnnaudit.bounds.miller_hardt2019.rnn_stable import A_W_BELOW
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes
from tests.bounds.models import IndRNN, assessed, contractive, modules, saturated, view

CLAIMS = [weighted_inf, gated_box, data_box]


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_contraction_certificates_hold_and_have_power(claim):
    result = check_claim(claim, TINY)
    assert result.verdict == "holds" and result.errors == [], (result.verdict, result.errors)
    assert_has_power(with_sizes(claim, [(3, 6)]), 1.05)


@pytest.mark.slow
@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_contraction_certificates_are_attained(claim):
    assert_reaches_supremum(claim)


def test_weighted_inf_certifies_a_matrix_the_spectral_norm_condition_cannot():
    case = weighted_inf.cases.starts(3, 6)["triangular, ‖W‖₂ > 1 > ρ(|W|)"]
    holds, detail = weighted_inf.assumptions[0].check(case)
    assert holds and "ρ(|W|) = 0.5" in detail
    assert not A_W_BELOW.check(case)[0]


def _small(model: nn.Module, norm: float = 0.2) -> nn.Module:
    """A model whose recurrent blocks have ‖·‖₂ = ``norm`` (as weight decay or a stability penalty leaves them)."""
    return contractive(model, norm)


@pytest.mark.parametrize("name, norm", [("rnn_tanh", 0.2), ("gru2", 0.2), ("lstm", 0.05)])
def test_gated_and_data_certificates_certify_small_recurrences_and_fail_with_the_value_after_saturation(name, norm):
    """An LSTM needs smaller blocks than a GRU: its c-box (|c| ≤ ī/(1 − f̄)) widens every gate's factor."""
    for claim in (gated_box, data_box):
        certified = assessed(claim, view(_small(modules()[name], norm)))
        assert certified.assumptions_hold and certified.verdict == "holds", (claim.id, certified.assumptions)
        failed = assessed(claim, view(saturated(modules()[name])))
        assert failed.applies and not failed.assumptions_hold
        assert "‖M‖_∞,η = " in failed.assumptions[0]["detail"]


@pytest.mark.parametrize("name", ["rnn_tanh", "rnn_relu"])
def test_weighted_inf_applies_to_torch_rnns_and_reports_the_rate_and_weight(name):
    certified = assessed(weighted_inf, view(_small(modules()[name])))
    assert certified.assumptions_hold and certified.verdict == "holds"
    assert "Perron weight η" in certified.assumptions[0]["detail"]
    assert not assessed(weighted_inf, view(saturated(modules()[name]))).assumptions_hold
    assert not assessed(weighted_inf, view(modules()["lstm"])).applies


def test_a_custom_step_is_refused_with_the_reason_the_certificates_need_the_weights():
    """The interval bounds need the cell's equations; a user's step (here an IndRNN written by hand) is refused."""
    for claim in CLAIMS:
        r = assessed(claim, view(IndRNN(3, 6, u=0.5)))
        assert not r.applies and "given by their weights" in r.reason


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_contraction_certificates_hold_and_have_power": {"contraction.gated_box", "contraction.data_box"},
}
