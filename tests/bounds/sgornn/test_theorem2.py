"""sgornn.theorem2 (eq. 7–8): FastRNN's non-orthogonal U breaks it; the search reaches the known suprema of
eq. 7 ((T − 1)/(2√2T) at h = 2) and eq. 8 (1/√h), and has the power to see a bound divided by 2."""

import math

import pytest

from rnnaudit.bounds import PROFILES, check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.sgornn import theorem2
from rnnaudit.bounds.sgornn.constructions import coordinate, eq8_supremum, reflection, theorem2_eq7_supremum
from rnnaudit.bounds.sgornn.theorem2 import EQ7, EQ8, local_M_phi
from tests.bounds.helpers import assert_has_power, assert_reaches_supremum, with_sizes
from tests.bounds.sgornn.cases import SMALL_SIZES, aligned_case


def test_theorem2_violated_for_fastrnn_with_non_orthogonal_U():
    """FastRNN with ‖U‖₂ = 2 and α + β = 1 (so only orthogonality fails): gradients explode."""
    case = aligned_case(0.5, 0.5 - 1e-9, kind="FastRNN")
    assert local_M_phi(case).item() == 1.0
    result = evaluate_cases(theorem2, [case])
    assert result.verdict == "false"
    assert [f for f in result.records[0].failed_assumptions if f.startswith("U = φ(Θ) orthogonal")]


@pytest.mark.slow
def test_eq7_reaches_its_supremum_at_h2_T3():
    """The issue's case: (T − 1)/(2√2T) = 0.2357 at h = 2, T = 3, reached to 99 % by the quick search."""
    assert theorem2.supremum.part == EQ7
    assert theorem2_eq7_supremum(2, 3) == pytest.approx(2 / (6 * math.sqrt(2)))
    assert assert_reaches_supremum(theorem2) <= theorem2_eq7_supremum(2, 3) * (1 + 1e-9)


@pytest.mark.slow
def test_eq7_part_reaches_0_2_in_the_quick_profile():
    """The quick profile's h = 2, T = 7 size: the reflection construction gives ≥ 0.2 (sup 0.303)."""
    result = check_claim(with_sizes(theorem2, [(2, 7)]), PROFILES["quick"], seed=0)
    assert result.worst_parts()[EQ7] >= 0.2
    assert result.worst_parts()[EQ7] >= 0.99 * theorem2_eq7_supremum(2, 7)


def test_reflection_construction_tends_to_the_eq7_supremum_as_alpha_goes_to_zero():
    T = 3
    ratios = [measure_case(theorem2, reflection(T, alpha))[1][EQ7] for alpha in (1e-2, 1e-3, 1e-4)]
    assert ratios == sorted(ratios) and ratios[-1] == pytest.approx(theorem2_eq7_supremum(2, T), rel=2e-4)
    assert local_M_phi(reflection(T)).item() == pytest.approx(1 / math.sqrt(2), rel=1e-12)


@pytest.mark.parametrize("h", [2, 8])
def test_eq8_supremum_one_over_sqrt_h_is_attained(h):
    assert measure_case(theorem2, coordinate(h, 5))[1][EQ8] == pytest.approx(eq8_supremum(h, 5), rel=1e-12)


def test_theorem2_check_has_power():
    """Bound divided by 2: eq. 8's attained 1/√2 at h = 2 becomes √2."""
    assert_has_power(with_sizes(theorem2, SMALL_SIZES), 2)
