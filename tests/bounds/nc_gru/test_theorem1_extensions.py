"""nc_gru.theorem1_torch.layers and nc_gru.theorem1_lstm: Theorem 1's argument for every layer of a stacked torch GRU
and for torch's LSTM holds, is attained, has power, applies to those models, and the LSTM claim's assumption (the step
bound below 1) fails when the forget gates saturate."""

import pytest
import torch
from torch import nn

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.architectures import sample_arch
from rnnaudit.bounds.nc_gru import theorem1_lstm, theorem1_torch_layers
from rnnaudit.bounds.nc_gru.theorem1_torch_layers import gru_layer_cases_from_model
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes
from tests.bounds.models import assessed, modules, saturated, view


@pytest.mark.parametrize("claim", [theorem1_torch_layers, theorem1_lstm], ids=lambda c: c.id)
def test_nc_gru_theorem1_extensions_hold_are_attained_and_have_power(claim):
    result = check_claim(claim, TINY)
    assert result.verdict == "holds" and result.errors == []
    assert_reaches_supremum(claim)
    assert_has_power(with_sizes(claim, [(2, 4)]), 1.05)


def test_nc_gru_theorem1_layers_gives_one_case_per_sequence_and_layer():
    cases = gru_layer_cases_from_model(view(nn.GRU(3, 4, 3)))
    assert len(cases) == 2 * 3 and cases[1].x.shape == (12, 4) and cases[0].x.shape == (12, 3)
    on = assessed(theorem1_torch_layers, view(modules()["gru2"]))
    assert on.applies and on.verdict == "holds"
    assert not assessed(theorem1_torch_layers, view(modules()["lstm"])).applies


@pytest.mark.parametrize("name", ["lstm", "lstmcell"])
def test_nc_gru_theorem1_lstm_applies_and_fails_when_forget_gates_saturate(name):
    on = assessed(theorem1_lstm, view(modules()[name]))
    assert on.applies and on.verdict == "holds"
    worn = assessed(theorem1_lstm, view(saturated(modules()[name])))
    assert worn.applies and not worn.assumptions_hold and worn.verdict == "holds"


def test_nc_gru_theorem1_lstm_is_checked_on_every_layer_of_a_stacked_lstm():
    case = sample_arch(torch.Generator().manual_seed(0), "lstm", 3, 5, layers=2, norm=0.2)
    parts = theorem1_lstm.evaluate(case)
    assert set(parts) == {"‖∂s_t/∂s_(t−1)‖₂ ≤ B_t", "‖∂s_t/∂s_k‖₂ ≤ ∏ B_j"}
    assert evaluate_cases(theorem1_lstm, [case]).verdict == "holds"


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_nc_gru_theorem1_extensions_hold_are_attained_and_have_power": {"nc_gru.theorem1_lstm",
                                                                         "nc_gru.theorem1_torch.layers"},
}
