"""nc_gru.eq37: eq. 30 and 33 hold; eq. 37–38 fail with the printed signed maxima on an all-negative state; the |·|
steps, eq. 41 included, hold."""

import pytest
import torch

from rnnaudit.bounds import measure_case
from rnnaudit.bounds.nc_gru import eq37, eq37_corrected
from rnnaudit.bounds.nc_gru.spaces import trajectory_starts
from tests.bounds.nc_gru.cases import (TRAJECTORY_SIZES, assert_holds_inside_assumptions,
                                       assert_violated_inside_assumptions)


def test_eq37_printed_is_violated_inside_its_assumptions(tmp_path):
    assert_violated_inside_assumptions(eq37, TRAJECTORY_SIZES, tmp_path)


def test_eq37_corrected_holds(tmp_path):
    assert_holds_inside_assumptions(eq37_corrected, TRAJECTORY_SIZES, tmp_path)


def test_the_all_negative_start_breaks_eq37_and_eq38_but_not_eq30_eq33():
    """h_1 = −0.9·1, U_r = 8I, r_2 = 1/2: the printed bracket (1/4)·8·(−0.9) + 1/2 = −1.3 < 0 (bound clamped to 0),
    while eq. 30, 33 and every |·| step hold."""
    start = trajectory_starts(3, 3)[-1]
    assert all(a.check(start)[0] for a in eq37.assumptions)
    _, parts = measure_case(eq37, start)
    assert parts["eq. 38 (max_i [·]_i as printed): ‖∂c_t/∂h_(t−1)‖₂ ≤ (δ_r‖U_r‖₂ max h_(t−1) + max r)‖U_c‖₂"] \
        == float("inf")
    assert parts["eq. 30: ‖∂r_t/∂h_(t−1)‖₂ ≤ δ_r‖U_r‖₂"] <= 1 + 1e-9
    assert parts["eq. 33: ‖∂u_t/∂h_(t−1)‖₂ ≤ δ_u‖U_u‖₂"] <= 1 + 1e-9
    assert measure_case(eq37_corrected, start)[0] <= 1 + 1e-9
    h1 = start.cell(start.x, start.h0[None])[0, 0]
    torch.testing.assert_close(h1, torch.full((3,), -0.9, dtype=torch.float64), rtol=0, atol=1e-12)


def test_eq30_eq33_are_tight_at_the_zero_state_start():
    _, parts = measure_case(eq37_corrected, trajectory_starts(2, 1)[0])
    assert parts["eq. 30: ‖∂r_t/∂h_(t−1)‖₂ ≤ δ_r‖U_r‖₂"] == pytest.approx(1.0, rel=1e-12)
