"""Training until certified: a tanh RNN, GRU and LSTM trained on the digits under the projection of
rnnaudit.training.contraction are certified by each contraction claim's audit hook, with an accuracy above chance;
the same training without the projection fails each certificate with its value."""

import functools
import math

import pytest
import torch
from torch import nn

from rnnaudit.analysis.contraction import Box, perron_weight
from rnnaudit.bounds.contraction import data_box, gated_box, weighted_inf
from rnnaudit.bounds.on_model import ModelView, assess
from rnnaudit.cells.adapters import wrap
from rnnaudit.training.contraction import (TARGET, certificate_rate, gate_ceiling, layer_weights, project_,
                                           train_digits)

pytest.importorskip("sklearn", reason="the digits need scikit-learn (the 'data' extra)")

#: small and short, so the fast suite can afford three kinds twice: the accuracies are far below a full run's
#: (scripts or docs report those), and every 10 steps a projection (the last step always)
SMALL = dict(hidden=8, steps=120, every=10)
#: the digits have 10 classes, about 10 % each; twice that is well above chance for 359 held-out digits
#: (the binomial standard error at p = 0.1 is 1.6 %)
ABOVE_CHANCE = 0.2

_BOX01 = Box(torch.zeros(1, dtype=torch.float64), torch.ones(1, dtype=torch.float64))


def _view(rnn: nn.Module) -> ModelView:
    from rnnaudit.tasks.digits import digits_splits

    x = digits_splits()["test"][0][:4].double()
    return ModelView(wrap(rnn.eval()), x)


_CERTIFICATE = {"rnn_tanh": "weighted_inf", "gru": "gated_box", "lstm": "gated_box"}


@functools.lru_cache(maxsize=None)
def _runs(kind: str):
    """(certified run, plain run) of ``kind``, trained once per session."""
    return train_digits(kind, certificate=_CERTIFICATE[kind], **SMALL), train_digits(kind, **SMALL)


def _certified(claim, rnn) -> bool:
    r = assess(claim, _view(rnn))
    assert r.applies, (claim.id, r.reason)
    return r.assumptions_hold and r.verdict == "holds"


@pytest.mark.parametrize("kind, claims", [("rnn_tanh", (weighted_inf, gated_box, data_box)),
                                          ("gru", (gated_box, data_box)), ("lstm", (gated_box, data_box))])
def test_a_model_trained_under_the_projection_is_certified_by_each_claim_and_learns(kind, claims):
    certified, _ = _runs(kind)
    assert certified.accuracy > ABOVE_CHANCE, certified.accuracy
    assert all(r <= TARGET for r in certified.rates), certified.rates
    for claim in claims:
        assert _certified(claim, certified.rnn), claim.id


@pytest.mark.parametrize("kind, claims", [("rnn_tanh", (weighted_inf, gated_box)), ("gru", (gated_box,)),
                                          ("lstm", (gated_box,))])
def test_the_same_training_without_the_projection_fails_each_certificate_with_its_value(kind, claims):
    _, plain = _runs(kind)
    assert plain.accuracy > ABOVE_CHANCE, plain.accuracy
    for claim in claims:
        r = assess(claim, _view(plain.rnn))
        assert r.applies and not r.assumptions_hold, claim.id
        assert "layer 0: ‖" in r.assumptions[0]["detail"], r.assumptions[0]["detail"]


def test_the_weighted_inf_projection_scales_the_perron_root_to_the_target_exactly():
    torch.manual_seed(0)
    rnn = nn.RNN(1, 6, num_layers=2).double()
    before = [perron_weight(layer_weights(rnn, k)[1].abs())[1] for k in range(2)]
    assert min(before) > TARGET
    rates = project_(rnn, _BOX01, certificate="weighted_inf")
    after = [perron_weight(layer_weights(rnn, k)[1].abs())[1] for k in range(2)]
    assert rates == after and all(TARGET * (1 - 1e-6) <= r <= TARGET for r in after), after


def test_a_saturated_update_or_forget_gate_is_lowered_to_the_ceiling_and_the_layer_certified():
    """Scaling W_hh alone cannot certify a gate whose bias keeps it near 1 (the rate's floor is that gate's
    largest value): the projection lowers that bias too."""
    torch.manual_seed(0)
    for module, gate in ((nn.GRU(1, 5), 1), (nn.LSTM(1, 5), 1)):
        H = 5
        with torch.no_grad():
            module.bias_hh_l0[gate * H:(gate + 1) * H] = 8.0
        w = layer_weights(module, 0)
        floor = certificate_rate("gated_box", "gru" if isinstance(module, nn.GRU) else "lstm",
                                 (w[0], torch.zeros_like(w[1]), w[2], w[3]), _BOX01)
        assert floor > TARGET
        (rate,) = project_(module, _BOX01, certificate="gated_box")
        assert rate <= TARGET
        assert float(module.bias_hh_l0.detach()[gate * H:(gate + 1) * H].max()) < 8.0
        assert gate_ceiling(TARGET) < TARGET


def test_the_projection_refuses_what_it_cannot_keep():
    with pytest.raises(ValueError, match="weighted_inf certificate covers"):
        project_(nn.GRU(1, 3), _BOX01, certificate="weighted_inf")
    with pytest.raises(ValueError, match="target must be in"):
        project_(nn.RNN(1, 3), _BOX01, target=1.0)
    with pytest.raises(ValueError, match="input size"):
        project_(nn.RNN(2, 3), _BOX01)
    with pytest.raises(TypeError, match="unidirectional"):
        project_(nn.LSTM(1, 3, bidirectional=True), _BOX01)
    with pytest.raises(ValueError, match="every must be"):
        train_digits("gru", every=0)
    assert math.isinf(certificate_rate("gated_box", "lstm", _saturated_lstm(), _BOX01))


def _saturated_lstm() -> tuple:
    """An LSTM layer whose forget gate reaches 1 in float64 (bias 40): no bounded invariant box."""
    m = nn.LSTM(1, 3)
    with torch.no_grad():
        m.bias_ih_l0[3:6] = 40.0
    return layer_weights(m, 0)


#: Cases the full suite runs (python -m pytest --full): the gated cells' trainings; the fast suite keeps the tanh RNN's
SLOW_CASES = {
    "test_a_model_trained_under_the_projection_is_certified_by_each_claim_and_learns": {"gru-claims1", "lstm-claims2"},
    "test_the_same_training_without_the_projection_fails_each_certificate_with_its_value": {"gru-claims1",
                                                                                             "lstm-claims2"},
}
