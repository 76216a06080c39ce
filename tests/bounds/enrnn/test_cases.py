"""The shared ENRNN case saves and reloads through the generic rule of rnnaudit.bounds.cases."""

import torch

from rnnaudit.bounds import case_from_state, case_state, measure_case
from rnnaudit.bounds.enrnn import coupling
from rnnaudit.bounds.enrnn.cases import ENRNNCase
from rnnaudit.bounds.enrnn.coupling import sample_coupling_case


def test_enrnn_case_state_round_trip():
    case = sample_coupling_case(torch.Generator().manual_seed(1), 6, 3)
    again = case_from_state(ENRNNCase, case_state(case))
    assert measure_case(coupling, again) == measure_case(coupling, case)
    # the cell comes back in eval mode, so forming W^(S) never latches the normalisation
    assert not again.cell.training and bool(again.cell.normalizing) == bool(case.cell.normalizing)
