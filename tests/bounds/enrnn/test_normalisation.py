"""enrnn.normalisation (Sec. 3.1, 4, 5): ρ(W^(S)) = ρ(T)/(ρ(T) + ε) ≤ 1 under Sec. 4's rule, = 1 exactly at ε = 0."""

import dataclasses

import pytest

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.enrnn import normalisation
from rnnaudit.bounds.enrnn.normalisation import _measure, _starts
from tests.bounds.enrnn.cases import assert_exact_agrees, assert_holds_inside_its_assumptions, small
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum


def test_normalisation_holds_and_its_exact_proof_agrees(tmp_path):
    assert_exact_agrees(normalisation, assert_holds_inside_its_assumptions(normalisation, tmp_path))


def test_normalisation_reaches_rho_one_at_eps_zero():
    """Sec. 5's ε = 0 with the normalisation latched: ρ(W^(S)) = 1, not 'less than one'."""
    ratio, parts = measure_case(normalisation, _starts(3, 1)[0])
    assert parts["ρ(W^(S)) ≤ 1 under Sec. 4's rule"] == pytest.approx(1.0, abs=1e-14)
    assert_reaches_supremum(normalisation)


def test_normalisation_identity_sees_a_relative_error_of_one_in_a_million():
    wrong = dataclasses.replace(normalisation, evaluate=lambda c: _measure(c, perturb=1e-6), exact=None)
    assert check_claim(small(wrong), TINY, seed=0).verdict == "false"


def test_normalisation_check_has_power():
    assert_has_power(small(normalisation), 2, TINY)
