"""Helpers shared by the bounds tests of every paper."""

import dataclasses

import pytest

from rnnaudit.bounds import Claim, Profile, check_claim, load_counterexample, measure_case

#: A search small enough for unit tests: a few random cases and short ascents.
TINY = Profile("quick", n_random=6, restarts=2, ascent_steps=8)


def with_sizes(claim: Claim, quick: list[tuple[int, int]]) -> Claim:
    """``claim`` checked at other (h, T) sizes in the quick profile (tests shrink the search)."""
    return dataclasses.replace(claim, cases=dataclasses.replace(claim.cases, sizes={"quick": quick}))


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
