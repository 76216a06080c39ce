"""A failing assumption's note gives a remedy only where one is right: a norm bound on an ordinary W gets
spectral_norm, an orthogonal W is told why none applies, and a note without a remedy carries no "remedy"."""

import torch
from torch import nn
from torch.nn.utils import parametrizations

from rnnaudit import wrap
from rnnaudit.auditing.notes import assumption_notes, remedy
from rnnaudit.auditing.summary import model_summary

NORM = "‖W‖₂ < 1/L_ρ in every layer (ρ = tanh or relu, L_ρ = 1)"


def _result(module, assumption, detail):
    module = module.double()
    return {"model": model_summary(module, wrap(module), torch.float32),
            "claims": [{"id": "p.t", "applies": True, "assumptions": [{"name": assumption, "holds": False,
                                                                       "detail": detail}]}]}


def test_an_orthogonal_rnn_is_not_told_to_use_spectral_norm():
    torch.manual_seed(0)
    rnn = parametrizations.orthogonal(nn.RNN(3, 8), "weight_hh_l0")
    (note,) = assumption_notes(_result(rnn, NORM, "max ‖W‖₂ = 1"))
    assert "remedy" not in note and "spectral_norm" not in note["line"] and "None" not in note["line"]
    assert "by design" in note["by_design"] and "orthogonal" in note["line"]


def test_an_ordinary_rnn_above_the_bound_is_told_to_use_spectral_norm():
    torch.manual_seed(0)
    rnn = nn.RNN(3, 8)
    with torch.no_grad():
        rnn.weight_hh_l0.mul_(5)
    (note,) = assumption_notes(_result(rnn, NORM, "max ‖W‖₂ = 2.3"))
    assert "spectral_norm" in note["remedy"] and "remedy: " in note["line"] and "by_design" not in note


def test_a_data_condition_on_an_lstm_gets_no_remedy_key_and_no_none():
    torch.manual_seed(0)
    eta = "η = max_t ‖∂s_t/∂s_(t−1)‖₂ < 1 on the data, s the whole state (every step contracts)"
    (note,) = assumption_notes(_result(nn.LSTM(3, 4), eta, "η = 1.7"))
    assert "remedy" not in note and "by_design" not in note and "None" not in note["line"]
    assert remedy(eta) is None
