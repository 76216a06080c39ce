"""enrnn.theorem3.1: holds (and is attained) inside its assumptions, fails when h^(L) feeds h^(S), and
survives without its norm hypothesis."""

import pytest
import torch

from rnnaudit.bounds import evaluate_cases, measure_case
from rnnaudit.bounds.enrnn import theorem3_1
from tests.bounds.enrnn.cases import assert_holds_inside_its_assumptions, case_of, hand_cell, small
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum


def test_theorem3_1_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside_its_assumptions(theorem3_1, tmp_path)


def test_theorem3_1_violated_when_h_long_feeds_h_short():
    """W^(L) = I, W^(S) = 0.5 I, W^(C) = 5I and a lower block 5I: ∂h^(S)_{t+2}/∂h^(S)_t picks up the path
    S → L → S of norm 25 ≫ ‖W^(S)‖₂² = 0.25 (every ReLU on: b = 1, x = 0)."""
    cell = hand_cell(2, 2, 0.5 * torch.eye(2), W_C=5 * torch.eye(2), b=1.0)
    case = case_of(cell, T=4, W_lower=5 * torch.eye(2))
    case.x.zero_()
    result = evaluate_cases(theorem3_1, [case])
    assert result.verdict == "false"
    assert any(f.startswith("W block upper triangular") for f in result.records[0].failed_assumptions)


def test_theorem3_1_inequality_survives_without_its_norm_hypothesis():
    """‖W^(S)‖₂ = 2.06 > 1 (non-normal T, ρ(T) = 0.5, so W^(S) = T): the hypothesis fails, yet the bounds hold,
    since the proof only uses ‖G_k‖₂ ≤ 1 and submultiplicativity."""
    cell = hand_cell(1, 2, [[0.5, 2.0], [0.0, 0.5]], b=1.0)
    result = evaluate_cases(theorem3_1, [case_of(cell, T=8)])
    assert result.verdict == "holds"
    assert any(f.startswith("‖W^(S)‖₂ < 1") for f in result.records[0].failed_assumptions)


def test_theorem3_1_bound_is_attained_for_symmetric_W_with_all_units_on():
    cell = hand_cell(0, 3, [[0.3, 0.2, 0.0], [0.2, 0.3, 0.1], [0.0, 0.1, 0.3]], b=3.0)
    case = case_of(cell, T=6)
    case.x.mul_(0.1)
    ratio, parts = measure_case(theorem3_1, case)
    assert parts["‖∂h^(S)_{t+τ}/∂h^(S)_t‖₂ ≤ ‖W^(S)‖₂^τ"] == pytest.approx(1.0, abs=1e-12)


def test_theorem3_1_search_reaches_its_supremum_and_has_power():
    assert_reaches_supremum(theorem3_1, TINY)
    assert_has_power(small(theorem3_1), 2, TINY)
