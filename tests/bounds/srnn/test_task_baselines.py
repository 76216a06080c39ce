"""srnn.memcopy_baseline and srnn.adding_baseline: the copy task's layout and 10 ln 8/(T + 20), the adding problem's
0.167; a wrong value is caught."""

import math

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.srnn import adding_baseline, memcopy_baseline
from rnnaudit.bounds.srnn.adding_baseline import AddingCase, adding_part
from rnnaudit.bounds.srnn.memcopy_baseline import CopyCase
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes
from tests.bounds.srnn.cases import F64, assert_exact_agrees, with_evaluate

GIBBS = "no constant prediction after the delimiter does better: 10 ln 8/(T + 20) ≤ E[CE(q)]"


def test_memcopy_baseline_holds_is_tight_and_has_power():
    result = check_claim(with_sizes(memcopy_baseline, [(10, 1), (10, 30)]), TINY, seed=0)
    assert result.verdict == "holds" and result.errors == []
    assert_exact_agrees(result)
    assert_reaches_supremum(memcopy_baseline)
    assert_has_power(with_sizes(memcopy_baseline, [(10, 5)]), 2)


def test_uniform_over_all_nine_classes_does_worse():
    """q uniform over blank and the 8 symbols: E[CE] = 10 ln 9/(T + 20), ratio ln 8/ln 9."""
    case = CopyCase(10, 8, 0, torch.zeros(9, dtype=F64))
    assert measure_case(memcopy_baseline, case)[1][GIBBS] == pytest.approx(math.log(8) / math.log(9), rel=1e-12)


def test_memcopy_check_catches_the_formula_with_ln_9():
    def wrong(case):
        parts = memcopy_baseline.evaluate(case)
        err, tol, ref = parts["CE of the baseline (blank, then uniform over the 8 symbols) = 10 ln 8/(T + 20)"]
        return {"CE = 10 ln 9/(T + 20)": (err + 10 * (math.log(9) - math.log(8)) / (case.T + 20), tol, ref)}
    assert measure_case(with_evaluate(memcopy_baseline, wrong), CopyCase(10, 8, 0, torch.zeros(9, dtype=F64)))[0] > 1


def test_adding_baseline_holds_and_sympy_agrees():
    result = check_claim(adding_baseline, TINY, seed=0)
    assert result.verdict == "holds" and result.errors == []
    assert_exact_agrees(result)


def test_adding_check_catches_a_wrong_value():
    """1/12 (a single uniform's variance) and 0.18 (8 % off) must both fail on 20000 sequences."""
    for stated in (1 / 12, 0.18):
        claim = with_evaluate(adding_baseline, lambda c, s=stated: adding_part(c, s, 0.0005))
        assert evaluate_cases(claim, [AddingCase(50, 20_000, 0)]).verdict == "false", stated
