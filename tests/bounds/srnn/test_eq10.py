"""srnn.eq10 and srnn.eq10.corrected: the printed bound fails by cancellation (inside its assumptions,
and on the one-unit counterexample); the triangle-inequality form holds."""

import math

import pytest

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.srnn import eq10, eq10_corrected
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, assert_reproducible_violation
from tests.bounds.srnn.cases import assert_exact_agrees, small, tiny_srnn


def test_eq10_corrected_holds_inside_its_assumptions(tmp_path):
    result = check_claim(small(eq10_corrected), TINY, seed=1, out_dir=tmp_path)
    assert result.verdict == "holds", result.notes_text()
    assert result.errors == []
    assert result.worst_ratio <= 1 + eq10_corrected.tolerance


def test_printed_eq10_is_violated_inside_its_assumptions(tmp_path):
    """The printed eq. 10 fails on cases drawn inside the assumptions; the smallest counterexample
    reloads and reproduces its ratio."""
    assert_reproducible_violation(small(eq10), TINY, tmp_path, seed=0, rel=1e-12)


def test_eq10_fails_on_the_one_unit_counterexample():
    """d_h = 1, b(x) = −x, x = (1, −1), h_0 = 0: z_1 = −1 (σ'(z_1) = 0), z_2 = 1, so ∂h_2/∂w = x_2 = −1 while
    Σ_i ∂b(x_i)/∂w = x_1 + x_2 = 0. The corrected bound gives |−1| ≤ |1| + |−1| = 2."""
    case = tiny_srnn(-1.0, 0.0, [1.0, -1.0], g=[0.0, 1.0])
    assert math.isinf(measure_case(eq10, case)[0])
    # both parameters (w and the bias c, ∂h_2/∂c = 1 against 1 + 1) sit at half the corrected bound
    assert measure_case(eq10_corrected, case)[0] == pytest.approx(0.5, rel=1e-14)


@pytest.mark.slow
def test_eq10_exact_verdict_agrees_and_the_corrected_bound_is_tight_with_power():
    assert_exact_agrees(check_claim(small(eq10), TINY, seed=0))
    assert_reaches_supremum(eq10_corrected)
    assert_has_power(small(eq10_corrected), 2)
