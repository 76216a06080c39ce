"""The claims speak to the models researchers train: for each model of issue 25's Done-when list (torch LSTM,
LSTMCell, GRU with one and two layers, RNN with tanh and relu, a hand-written IndRNN step), at least five claims apply
with measured assumptions and a measured bound."""

import pytest
import torch

from rnnaudit.bounds import all_claims
from tests.bounds.models import IndRNN, assessed, modules, view


@pytest.mark.parametrize("name", ["lstm", "lstmcell", "gru1", "gru2", "rnn_tanh", "rnn_relu", "indrnn"])
def test_at_least_five_claims_apply_to_each_standard_model(name):
    model = IndRNN(3, 4) if name == "indrnn" else modules()[name]
    v = view(model, torch.randn(1, 8, 3, generator=torch.Generator().manual_seed(0)))
    applied = [r for r in (assessed(c, v) for c in all_claims()) if r.applies and r.assumptions]
    assert len(applied) >= 5, [r.id for r in applied]
    for r in applied:
        assert r.verdict in ("holds", "vacuous") and all(a["detail"] for a in r.assumptions), (r.id, r.verdict)
