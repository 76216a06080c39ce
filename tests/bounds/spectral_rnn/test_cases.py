"""The shared cases of spectral_rnn.md: saving and reloading every claim's cases, moving them to each
device, and the hidden states of eq. 17."""

import pytest
import torch

from rnnaudit.bounds import case_from_state, case_state, measure_case
from rnnaudit.bounds.spectral_rnn import CLAIMS, algorithm1_corrected, eq7, eq24, lemma3, theorem2, theorem3, theorem5
from rnnaudit.bounds.spectral_rnn.rnn17 import rnn_states
from rnnaudit.cells import SpectralRNN
from tests.bounds.spectral_rnn.cases import DEVICES, F64, gen


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_cases_survive_a_state_round_trip(claim):
    h, T = claim.cases.sizes["quick"][min(1, len(claim.cases.sizes["quick"]) - 1)]
    case = claim.cases.sample(gen(14), h, T, "cpu", F64)
    again = case_from_state(claim.cases.case_type, case_state(case))
    assert measure_case(claim, again)[0] == pytest.approx(measure_case(claim, case)[0], rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("claim", [theorem2, theorem3, eq7, algorithm1_corrected, eq24, lemma3, theorem5],
                         ids=lambda c: c.id)
def test_claims_run_on_every_device(claim, device):
    """A case moved to the device holds there too; inequality ratios agree with the CPU's to 1e-9 relative (a
    different BLAS), identity ratios only measure rounding, which differs by device."""
    h, T = claim.cases.sizes["quick"][2]
    on_cpu = claim.cases.sample(gen(16), h, T, "cpu", F64)
    on_dev = case_from_state(claim.cases.case_type, case_state(on_cpu), device=device)
    ratio = measure_case(claim, on_dev)[0]
    assert ratio <= 1 + claim.tolerance
    if claim in (eq7, eq24, lemma3, theorem5):
        assert ratio == pytest.approx(measure_case(claim, on_cpu)[0], rel=1e-9, abs=1e-12)


def test_rnn_states_matches_the_spectral_cell():
    """eq. 17 with W = recurrent_matrix() reproduces SpectralRNN.forward (bias off)."""
    cell = SpectralRNN(3, 5, 2, 3, r=0.2, activation="tanh", bias=False, generator=gen(12), dtype=F64)
    x = torch.randn(2, 7, 3, generator=gen(13), dtype=F64)
    assert torch.allclose(rnn_states(cell.recurrent_matrix(), cell.M, x, "tanh"), cell(x), rtol=0, atol=1e-12)


def test_rnn_states_bad_arguments_raise_value_errors():
    with pytest.raises(ValueError, match="x must be"):
        rnn_states(torch.eye(2, dtype=F64), torch.eye(2, dtype=F64), torch.ones(1, 0, 2, dtype=F64))
