"""Assertions shared by the bounds tests of every paper."""

import pytest

from rnnaudit.bounds import Profile, check_claim, load_counterexample, measure_case


def assert_reproducible_violation(claim, profile: Profile, out_dir, *, seed: int = 0, rel: float = 1e-12):
    """``claim`` (usually a shrunk copy of a registered claim) is violated by cases that satisfy all
    of its assumptions, and its saved smallest counterexample reloads through the registry and
    reproduces the recorded ratio to ``rel``. Returns the reloaded case."""
    result = check_claim(claim, profile, seed=seed, out_dir=out_dir)
    assert result.verdict == "violated" and result.errors == []
    assert result.counterexample_case.failed_assumptions == []
    claim_id, case, recorded = load_counterexample(result.counterexample)
    assert claim_id == claim.id
    ratio, _ = measure_case(claim, case)
    assert ratio == pytest.approx(recorded, rel=rel) and ratio > 1
    return case
