"""The shared nc_gru.md samplers: they land inside the assumptions, the corrected forms hold on them, they
reject bad arguments, and every case type measures on a device and survives a save and reload exactly."""

import pytest
import torch
from hypothesis import given, settings, strategies as st

from rnnaudit.bounds import case_from_state, case_state, measure_case
from rnnaudit.bounds.nc_gru import (corollary1_corrected, corollary2_corrected, corollary3_corrected, eq5,
                                    eq18_corrected, theorem1_corrected)
from rnnaudit.bounds.nc_gru.cases import sample_saturated_case, sample_trajectory_case
from rnnaudit.bounds.nc_gru.eq5 import sample_cayley_gradient_case
from rnnaudit.bounds.nc_gru.eq18 import neumann_algorithm1, sample_neumann_case
from tests.bounds.nc_gru.cases import DEVICES, F64


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), h=st.sampled_from([1, 2, 5]), T=st.integers(1, 6))
def test_theorem1_corrected_and_corollary1_hold_on_random_gru_sequences(seed, h, T):
    case = sample_trajectory_case(torch.Generator().manual_seed(seed), h, T)
    assert measure_case(theorem1_corrected, case)[0] <= 1 + theorem1_corrected.tolerance
    assert measure_case(corollary1_corrected, case)[0] <= 1 + corollary1_corrected.tolerance


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), h=st.sampled_from([1, 2, 4]))
def test_saturated_sampler_satisfies_corollary_assumptions(seed, h):
    """The samplers land inside the assumptions (edge cases on |z| = L included), and the corrected forms hold."""
    gen = torch.Generator().manual_seed(seed)
    for model, claim in (("GRU", corollary2_corrected), ("NCGRU-any", corollary3_corrected)):
        case = sample_saturated_case(gen, h, 1, model=model)
        failed = [a.name for a in claim.assumptions if not a.check(case)[0]]
        assert failed == []
        assert measure_case(claim, case)[0] <= 1 + claim.tolerance


@pytest.mark.parametrize("device", DEVICES)
def test_cases_measure_on_device_and_round_trip(device):
    """Each case type is sampled on the device, measured there, and survives a save and reload exactly."""
    gen = torch.Generator().manual_seed(5)
    cases = [(theorem1_corrected, sample_trajectory_case(gen, 3, 3, device)),
             (corollary3_corrected, sample_saturated_case(gen, 3, 1, device, model="NCGRU-any")),
             (eq18_corrected, sample_neumann_case(gen, 3, 2, device)),
             (eq5, sample_cayley_gradient_case(gen, 3, 2, device))]
    for claim, case in cases:
        ratio, _ = measure_case(claim, case)
        again = case_from_state(type(case), case_state(case), device, F64)
        assert measure_case(claim, again)[0] == pytest.approx(ratio, rel=1e-12, abs=1e-15)
        assert ratio <= 1 + claim.tolerance


def test_sampler_rejects_t_other_than_one():
    with pytest.raises(ValueError, match="T must be 1"):
        sample_saturated_case(torch.Generator().manual_seed(0), 3, 2)
    with pytest.raises(ValueError, match="model must be"):
        sample_saturated_case(torch.Generator().manual_seed(0), 3, 1, model="LSTM")
    with pytest.raises(ValueError, match="order"):
        neumann_algorithm1(torch.zeros(2, 2, dtype=F64), torch.zeros(1, 2, 2, dtype=F64), 0)
