"""nc_gru.sec2_1: Sec. 2.1's gate semantics contradict eq. 1 (h_t = c_t at u_t = 1, h_t = h_(t−1) at u_t = 0)."""

import pytest
import torch

from rnnaudit.bounds import measure_case
from rnnaudit.bounds.nc_gru import sec2_1, sec2_1_corrected
from rnnaudit.bounds.nc_gru.sec2_1 import sample_gate_case, with_update_gate
from tests.bounds.nc_gru.cases import assert_holds_inside_assumptions, assert_violated_inside_assumptions

SIZES = [(1, 1), (2, 1), (5, 1)]


def test_sec2_1_printed_is_violated_inside_its_assumptions(tmp_path):
    assert_violated_inside_assumptions(sec2_1, SIZES, tmp_path)


def test_sec2_1_corrected_holds(tmp_path):
    assert_holds_inside_assumptions(sec2_1_corrected, SIZES, tmp_path)


def test_update_gate_at_one_takes_the_candidate_and_at_zero_keeps_the_state():
    """Known answer: at u_t = 1 eq. 1 gives h_t = c_t exactly, so the sentence's h_t = h_(t−1) is off by
    ‖c_t − h_(t−1)‖ (its relative error ‖c_t − h_(t−1)‖/‖c_t‖)."""
    case = sample_gate_case(torch.Generator().manual_seed(3), 4, 1)
    up = with_update_gate(case, +1)
    g = up.cell.gates(up.x[0, :1], up.h0[None])
    h_t = up.cell.step(up.x[0, :1], up.h0[None])[0]
    torch.testing.assert_close(h_t, g["c"][0], rtol=0, atol=1e-15)
    parts = sec2_1.evaluate(case)
    err, _, ref = parts["u_t = 1: forget gate open, input gate closed: h_t = h_(t−1)"]
    assert float(err) == pytest.approx(float(torch.linalg.vector_norm(g["c"][0] - up.h0)), rel=1e-12)
    assert float(ref) == pytest.approx(float(torch.linalg.vector_norm(h_t)), rel=1e-12)
    assert measure_case(sec2_1_corrected, case)[0] <= 1
