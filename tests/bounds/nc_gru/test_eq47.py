"""nc_gru.eq47: the premise 0 ≤ [c_t]_i of Corollary 1's proof is false for tanh; |c_t| ≤ 1 and |h_t| ≤ 1 hold."""

import math

import pytest
import torch

from rnnaudit.bounds import evaluate_cases
from rnnaudit.bounds.nc_gru import eq47, eq47_corrected
from rnnaudit.bounds.nc_gru.cases import GRUCase
from rnnaudit.bounds.nc_gru.eq47 import PREMISE_C_NONNEGATIVE
from tests.bounds.nc_gru.cases import (F64, TRAJECTORY_SIZES, assert_holds_inside_assumptions,
                                       assert_violated_inside_assumptions, zero_gru)


def test_eq47_printed_is_violated_inside_its_assumptions(tmp_path):
    assert_violated_inside_assumptions(eq47, TRAJECTORY_SIZES, tmp_path)


def test_eq47_corrected_holds(tmp_path):
    assert_holds_inside_assumptions(eq47_corrected, TRAJECTORY_SIZES, tmp_path)


def test_a_negative_candidate_at_the_first_step():
    """Zero weights, b_c = −1, h_0 = 0: c_1 = tanh(−1), so 1 − min c = 1 + tanh(1) (exact known answer)."""
    cell = zero_gru(2)
    with torch.no_grad():
        cell.b_c.fill_(-1.0)
    result = evaluate_cases(eq47, [GRUCase(cell, torch.zeros(1, 1, 2, dtype=F64), torch.zeros(2, dtype=F64))])
    assert result.verdict == "false" and result.records[0].failed_assumptions == []
    assert result.records[0].parts[PREMISE_C_NONNEGATIVE] == pytest.approx(1 + math.tanh(1.0), rel=1e-12)
