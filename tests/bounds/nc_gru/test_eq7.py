"""nc_gru.eq7: eq. 7 is the chain rule for a loss of h_T alone and misses the direct terms of a per-step loss; the
corrected sum holds for both."""

import dataclasses

import pytest
import torch

from rnnaudit.bounds import measure_case
from rnnaudit.bounds.nc_gru import eq7, eq7_corrected
from rnnaudit.bounds.nc_gru.eq7 import _truth_and_jacobians, eq7_formula, sample_gradient_case
from tests.bounds.nc_gru.cases import assert_holds_inside_assumptions, assert_violated_inside_assumptions

SIZES = [(2, 3), (4, 6)]


def test_eq7_printed_is_violated_inside_its_assumptions(tmp_path):
    assert_violated_inside_assumptions(eq7, SIZES, tmp_path)


def test_eq7_corrected_holds(tmp_path):
    assert_holds_inside_assumptions(eq7_corrected, SIZES, tmp_path)


def test_eq7_holds_for_a_loss_of_h_T_alone():
    case = dataclasses.replace(sample_gradient_case(torch.Generator().manual_seed(1), 4, 6), loss="final")
    assert measure_case(eq7, case)[0] <= 1


def test_eq7_misses_exactly_the_direct_term_at_the_last_but_one_state():
    """Known answer: dL/dh_(T−1) − (eq. 7)_(T−1) = ∂ℓ_(T−1)/∂h_(T−1) = y_(T−1) + w_(T−1) h_(T−1) (1e-10)."""
    case = dataclasses.replace(sample_gradient_case(torch.Generator().manual_seed(2), 3, 5), loss="per_step")
    truth, J, direct = _truth_and_jacobians(case)
    gap = truth[-2] - eq7_formula(J, direct)[-2]
    torch.testing.assert_close(gap, direct[-2], rtol=1e-10, atol=1e-12)
    assert measure_case(eq7, case)[0] > 1e6


@pytest.mark.parametrize("loss", ["final", "per_step"])
def test_eq7_corrected_is_exact_for_both_losses(loss):
    case = dataclasses.replace(sample_gradient_case(torch.Generator().manual_seed(5), 5, 7), loss=loss)
    assert measure_case(eq7_corrected, case)[0] <= 1
