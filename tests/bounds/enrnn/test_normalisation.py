"""enrnn.normalisation (Sec. 3.1, 4, 5): ρ(W^(S)) = ρ(T)/(ρ(T) + ε) ≤ 1 under Sec. 4's rule, = 1 exactly at ε = 0,
so the strict 'modulus less than one' is false under Sec. 5's setting: the exact verdict decides it."""

import dataclasses

import pytest

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.enrnn import normalisation
from rnnaudit.bounds.enrnn.normalisation import _exact, _measure, _starts
from tests.bounds.enrnn.cases import small
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum


def test_normalisation_is_false_exactly_at_sec5_eps_zero(tmp_path):
    """Every floating-point case stays within ρ ≤ 1 + rounding; the exact verdict (ρ = 1 at ε = 0) makes it false."""
    result = check_claim(small(normalisation), TINY, seed=0, out_dir=tmp_path)
    assert result.verdict == "false" and result.exact.verdict == "violated" and "ε = 0" in result.exact.detail
    assert result.worst_ratio <= 1 + normalisation.tolerance  # no floating-point case could have decided it
    assert result.counterexample is not None  # the case at ρ = 1, saved like any other


def test_normalisation_holds_when_the_papers_eps_is_positive():
    """The negative control: with Sec. 3.1's ε > 0 the same check, exact verdict included, holds."""
    exact = _exact(eps_paper=0.01)
    assert exact.verdict == "proved"
    positive = dataclasses.replace(normalisation, exact=lambda: exact)
    assert check_claim(small(positive), TINY, seed=0).verdict == "holds"


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


def test_reproduce_says_the_strict_inequality_is_attained(tmp_path, capsys, monkeypatch):
    """The counterexample of a claim false by its exact verdict measures 1; reproduce says so and exits 0, while
    the same case with a proving exact verdict no longer fails (the negative control, exit 1)."""
    import rnnaudit.cli as cli

    result = check_claim(small(normalisation), TINY, seed=0, out_dir=tmp_path)
    assert cli.main(["reproduce", result.counterexample]) == 0
    assert "attained with equality" in capsys.readouterr().out
    proved = dataclasses.replace(normalisation, exact=lambda: _exact(eps_paper=0.01))
    monkeypatch.setattr("rnnaudit.bounds.claim_by_id", lambda cid: proved)
    assert cli.main(["reproduce", result.counterexample]) == 1
    assert "NO LONGER FAILS" in capsys.readouterr().out
