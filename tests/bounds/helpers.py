"""Helpers shared by the bounds tests of every paper."""

import dataclasses

import pytest

from rnnaudit.bounds import PROFILES, Claim, Profile, check_claim, load_counterexample, measure_case

#: A search small enough for unit tests: a few random cases and short ascents.
TINY = Profile("quick", n_random=6, restarts=2, ascent_steps=8)


def with_bound_scaled(claim: Claim, factor: float) -> Claim:
    """``claim`` with every part's bound multiplied by ``factor`` (a deliberately wrong bound)."""
    def evaluate(case):
        return {k: (v[0], v[1] * factor, *v[2:]) for k, v in claim.evaluate(case).items()}
    return dataclasses.replace(claim, id=f"{claim.id}", evaluate=evaluate)


def assert_has_power(claim: Claim, divide_by: float, profile: Profile = TINY, *, seed: int = 0):
    """The check has power: with the claim's bound divided by ``divide_by`` (a false statement when the
    true supremum exceeds 1/``divide_by``), its printed form fails (``false``, or ``misprinted`` where a reading
    still holds) on cases inside the assumptions."""
    result = check_claim(with_bound_scaled(claim, 1 / divide_by), profile, seed=seed)
    assert result.fails, (claim.id, result.verdict, result.worst_ratio)
    assert result.errors == [] and result.counterexample_case.failed_assumptions == []
    return result


def assert_reaches_supremum(claim: Claim, profile: Profile = PROFILES["quick"], *, fraction: float = 0.99,
                            seed: int = 0):
    """The search, run at the size its known supremum names (``claim.supremum.at``), reaches at least
    ``fraction`` of it (on the supremum's part, when it names one)."""
    sup = claim.supremum
    h, T = sup.at
    result = check_claim(with_sizes(claim, [(h, T)]), profile, seed=seed)
    reached = max(r.parts[sup.part] if sup.part else r.ratio for r in result.records)
    assert reached >= fraction * sup.at_size(h, T), (claim.id, reached, sup.at_size(h, T))
    return reached


def with_sizes(claim: Claim, quick: list[tuple[int, int]]) -> Claim:
    """``claim`` checked at other (h, T) sizes in the quick profile (tests shrink the search)."""
    return dataclasses.replace(claim, cases=dataclasses.replace(claim.cases, sizes={"quick": quick}))


def assert_reproducible_violation(claim, profile: Profile, out_dir, *, seed: int = 0, rel: float = 1e-12,
                                  verdict: str | None = None):
    """``claim`` (usually a shrunk copy of a registered claim) fails as printed on cases that satisfy all
    of its assumptions (with the headline ``verdict`` when given: ``false`` or ``misprinted``), and its saved
    smallest counterexample reloads through the registry and reproduces the recorded ratio to ``rel``.
    Returns the reloaded case."""
    result = check_claim(claim, profile, seed=seed, out_dir=out_dir)
    assert result.fails and result.errors == [], (claim.id, result.verdict, result.errors)
    assert verdict is None or result.verdict == verdict, (claim.id, result.verdict, verdict)
    assert result.counterexample_case.failed_assumptions == []
    claim_id, case, recorded = load_counterexample(result.counterexample)
    assert claim_id == claim.id
    ratio, _ = measure_case(claim, case)
    assert ratio == pytest.approx(recorded, rel=rel) and ratio > 1
    return case
