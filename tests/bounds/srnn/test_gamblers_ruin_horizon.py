"""srnn.gamblers_ruin_horizon: with T the sequence length, T/(1+T) and 'T steps' fail from T = 2; the ballot-theorem
values hold and a slightly wrong value is caught."""

from fractions import Fraction

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.srnn import gamblers_ruin_horizon, gamblers_ruin_horizon_corrected
from rnnaudit.bounds.srnn.gamblers_ruin import WalkCase
from rnnaudit.bounds.srnn.gamblers_ruin_horizon import (CORRECTED, horizon_parts, mean_time_given_within,
                                                        simulate_horizon, vanish_within)
from tests.bounds.helpers import TINY, assert_reproducible_violation, with_sizes
from tests.bounds.srnn.cases import assert_exact_agrees, with_evaluate

SIZES = [(16, 1), (32, 2), (64, 5)]


def test_horizon_reading_is_violated_and_sympy_agrees(tmp_path):
    case = assert_reproducible_violation(with_sizes(gamblers_ruin_horizon, SIZES), TINY, tmp_path)
    assert case.T >= 2
    assert_exact_agrees(check_claim(with_sizes(gamblers_ruin_horizon, SIZES), TINY, seed=0))


def test_corrected_values_hold():
    result = check_claim(with_sizes(gamblers_ruin_horizon_corrected, SIZES), TINY, seed=1)
    assert result.verdict == "holds" and result.errors == []
    assert_exact_agrees(result)


def test_ballot_theorem_known_values():
    assert [Fraction(vanish_within(T)).limit_denominator(64) for T in range(1, 6)] == [
        Fraction(1, 2), Fraction(1, 2), Fraction(5, 8), Fraction(5, 8), Fraction(11, 16)]
    assert mean_time_given_within(3) == pytest.approx((1 / 2 + 3 / 8) / (5 / 8))


def test_T1_every_walk_stops_after_one_step():
    tau, vanished = simulate_horizon(WalkCase(8, 500, 1, 0.5, 0))
    assert torch.all((tau == 1) | (tau == 2)) and torch.all(vanished == (tau == 1))


def test_a_value_off_by_five_per_cent_is_caught():
    wrong = (CORRECTED[0], ("×1.05", lambda T: 1.05 * mean_time_given_within(T)))
    claim = with_evaluate(gamblers_ruin_horizon_corrected, lambda c: horizon_parts(c, *wrong))
    assert evaluate_cases(claim, [WalkCase(128, 157, 9, 0.5, 0)]).verdict == "false"


def test_notes_numbers_at_T10_and_T12():
    """The notes' figures: P(τ ≤ 10) = 193/256 (against 10/11), E[τ | τ ≤ 10] = 2.26, E[min(τ, 10)] = 4.17,
    P(τ ≤ 12) = 793/1024."""
    from rnnaudit.bounds.srnn.gamblers_ruin_horizon import _first_passage
    p, e = _first_passage(10)
    assert p == Fraction(193, 256) and float(p) < 10 / 11
    assert float(e / p) == pytest.approx(2.26, abs=0.005)
    assert float(e + 10 * (1 - p)) == pytest.approx(4.17, abs=0.005)
    assert _first_passage(12)[0] == Fraction(793, 1024)
