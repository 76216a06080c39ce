"""srnn.gamblers_ruin and its correction: the literal 'steps until this happens is T' fails inside the
assumptions, (2T+1)/3 holds, and biased contributions break both."""

import math

import pytest
import sympy
import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.srnn import gamblers_ruin, gamblers_ruin_corrected
from rnnaudit.bounds.srnn.gamblers_ruin import (CONDITIONAL, DURATION, RUIN, WalkCase, ruin_formulas,
                                                simulate_gamblers_ruin, walk_parts)
from tests.bounds.helpers import TINY, assert_reproducible_violation
from tests.bounds.srnn.cases import assert_exact_agrees, small, with_evaluate


def test_gamblers_ruin_corrected_holds_inside_its_assumptions(tmp_path):
    result = check_claim(small(gamblers_ruin_corrected), TINY, seed=1, out_dir=tmp_path)
    assert result.verdict == "holds", result.notes_text()
    assert result.errors == []
    assert result.worst_ratio <= 1 + gamblers_ruin_corrected.tolerance


def test_literal_gamblers_ruin_is_violated_inside_its_assumptions(tmp_path):
    """The literal 'steps until this happens is T' fails on cases drawn inside the assumptions; the
    smallest counterexample reloads and reproduces its ratio."""
    assert_reproducible_violation(small(gamblers_ruin), TINY, tmp_path, seed=0, rel=1e-12)


def test_gamblers_ruin_T1_is_exact():
    """T = 1: every walk stops after one step, at 0 or at 2 with probability ½ each."""
    tau, vanished = simulate_gamblers_ruin(WalkCase(8, 500, 1, 0.5, 0))
    assert torch.equal(tau, torch.ones_like(tau))
    assert abs(vanished.double().mean().item() - 0.5) < 4.5 * math.sqrt(0.25 / 4000)


@pytest.mark.parametrize("claim", [gamblers_ruin, gamblers_ruin_corrected], ids=lambda c: c.id)
def test_gamblers_ruin_violated_for_biased_contributions(claim):
    """P(b = +1) = 0.6: the walk drifts up, P(vanish) = ((2/3) − (2/3)⁶)/(1 − (2/3)⁶) ≈ 0.63 ≠ 5/6 at T = 5."""
    result = evaluate_cases(claim, [WalkCase(64, 313, 5, 0.6, 0)])
    assert result.verdict == "false"
    assert any(f.startswith("P(b(x_t) = +1)") for f in result.records[0].failed_assumptions)


def test_gamblers_ruin_exact_verdicts_agree():
    assert_exact_agrees(check_claim(small(gamblers_ruin), TINY, seed=0))
    assert_exact_agrees(check_claim(small(gamblers_ruin_corrected), TINY, seed=0))
    ok, T, p1, e1, c1 = ruin_formulas()
    assert ok and sympy.simplify(p1 - T / (T + 1)) == 0 and e1 == T and sympy.simplify(c1 - (2 * T + 1) / 3) == 0


@pytest.mark.parametrize("wrong", [("T/(2+T)", lambda T: T / (T + 2)), ("T+1", lambda T: T + 1.0),
                                   ("(2T+1)/3 + 0.3", lambda T: (2 * T + 1) / 3 + 0.3)], ids=lambda w: w[0])
def test_gamblers_ruin_checks_catch_a_wrong_value(wrong):
    """Each part, fed a stated value off by a few per cent (T/(2+T): 13 %, T+1: 20 %, +0.3: 8 %), must fail on the
    Monte Carlo at T = 5, whose 4.5-standard-error bands there are 1.4 %, 4 % and 4.9 % wide."""
    slots = {"T/(2+T)": (wrong, DURATION, CONDITIONAL), "T+1": (RUIN, wrong, CONDITIONAL),
             "(2T+1)/3 + 0.3": (RUIN, DURATION, wrong)}[wrong[0]]
    claim = with_evaluate(gamblers_ruin_corrected, lambda c: walk_parts(c, *slots))
    assert evaluate_cases(claim, [WalkCase(128, 157, 5, 0.5, 0)]).verdict == "false"
