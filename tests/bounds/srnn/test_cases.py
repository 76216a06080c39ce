"""The shared SRNN cases of eq. 9–11: the corrected claims hold on random cells, fail when h_0 depends on
b (outside their assumptions), and a case survives saving and reloading."""

import pytest
import torch
from hypothesis import given, settings, strategies as st

from rnnaudit.bounds import case_from_state, case_state, evaluate_cases, measure_case
from rnnaudit.bounds.srnn import eq9_corrected, eq10_corrected, eq11_corrected
from rnnaudit.bounds.srnn.cases import ShuffleCase, sample_shuffle_case
from tests.bounds.srnn.cases import tiny_srnn


@pytest.mark.parametrize("claim", [eq9_corrected, eq10_corrected, eq11_corrected], ids=lambda c: c.id)
def test_gradient_claims_violated_when_h0_depends_on_b(claim):
    """h_0 = b(x_0) with a large x_0 and tiny x_t: ∂h_t/∂b_k carries ∂h_0/∂b_k = x_0, which eq. 9 leaves
    out and which Σ_i ‖∂b(x_i)/∂b_k‖ (≈ 0.01 per step) cannot cover."""
    case = tiny_srnn(1.0, 0.1, [0.01, 0.01, 0.01], x0=10.0)
    result = evaluate_cases(claim, [case])
    assert result.verdict == "false"
    assert any(f.startswith("h_0 does not depend") for f in result.records[0].failed_assumptions)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), h=st.sampled_from([1, 2, 3, 5]), T=st.integers(1, 7))
def test_corrected_eq9_to_eq11_hold_on_random_cells(seed, h, T):
    case = sample_shuffle_case(torch.Generator().manual_seed(seed), h, T)
    for claim in (eq9_corrected, eq10_corrected, eq11_corrected):
        assert measure_case(claim, case)[0] <= 1 + claim.tolerance, claim.id


def test_shuffle_case_state_round_trip():
    case = sample_shuffle_case(torch.Generator().manual_seed(0), 3, 4)
    again = case_from_state(ShuffleCase, case_state(case))
    assert measure_case(eq10_corrected, again) == measure_case(eq10_corrected, case)
