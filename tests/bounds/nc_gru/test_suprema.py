"""The quick search reaches ≥ 99 % of every known supremum of an nc_gru.md claim, the ε → 0 readings of Corollaries
2–3 reach their extremes, and the uniform readings, whose supremum is unbounded, are broken by two orders of
magnitude at the structured starts."""

import math

import pytest

from rnnaudit.bounds import Profile, check_claim, measure_case
from rnnaudit.bounds.nc_gru import CLAIMS, corollary2, corollary3
from rnnaudit.bounds.nc_gru.spaces import gru_step_starts, ncgru_step_starts
from rnnaudit.bounds.nc_gru.corollary2 import ASYMPTOTIC_15
from rnnaudit.bounds.nc_gru.corollary3 import ASYMPTOTIC_22
from tests.bounds.helpers import assert_reaches_supremum, with_sizes

WITH_SUPREMUM = [c for c in CLAIMS if c.supremum is not None]


def test_the_known_suprema_are_declared():
    assert {c.id for c in WITH_SUPREMUM} == {
        "nc_gru.eq2", "nc_gru.scaling_d", "nc_gru.theorem1.corrected", "nc_gru.corollary1",
        "nc_gru.corollary1.corrected", "nc_gru.corollary2", "nc_gru.corollary2.corrected", "nc_gru.eq18",
        "nc_gru.eq18.corrected", "nc_gru.corollary3", "nc_gru.corollary3.corrected", "nc_gru.eq37.corrected",
        "nc_gru.eq47", "nc_gru.eq47.corrected", "nc_gru.theorem1_torch", "nc_gru.sec5_3",
        "nc_gru.theorem1_torch.layers", "nc_gru.theorem1_lstm"}
    for c in WITH_SUPREMUM:
        assert c.supremum.derivation and c.supremum.at_size(*c.supremum.at) > 0


@pytest.mark.parametrize("claim", WITH_SUPREMUM, ids=lambda c: c.id)
def test_quick_search_reaches_the_supremum(claim):
    assert_reaches_supremum(claim)


@pytest.mark.parametrize("claim, part", [(corollary2, ASYMPTOTIC_15), (corollary3, ASYMPTOTIC_22)],
                         ids=["corollary2-eq15", "corollary3-eq22"])
def test_asymptotic_readings_of_eq15_and_eq22_reach_one(claim, part):
    """Eq. 15 and 22's limits are exactly 1 when u_t → 0 (α → 1, ∂h_t/∂h_(t−1) → I); never above. The structured
    starts alone reach it (a few random cases, no ascent)."""
    result = check_claim(with_sizes(claim, [(2, 1)]), Profile("quick", n_random=4, restarts=0, ascent_steps=0), seed=0)
    reached = max(r.parts.get(part, 0.0) for r in result.records)
    assert 0.99 <= reached <= 1 + claim.tolerance


def test_corollary2_uniform_reading_fails_by_two_orders_at_the_scalar_start():
    """Scalar GRU, u_t = r_t = 1 − ε, ‖U_u‖₂ = ‖U_r‖₂ = κ = 1000, H = 1 − 10⁻⁹, C = tanh(20): α + β =
    ε(1 − ε)κ(H + C) + ε + (1 − ε)(ε(1 − ε)κH + 1 − ε), ≈ 119 times 2(1 + ε) at ε = 0.1 (1e-9 relative)."""
    eps, kappa, H, C = 0.1, 1000.0, 1 - 1e-9, math.tanh(20.0)
    d = eps * (1 - eps)
    expected = (d * kappa * (H + C) + eps + (1 - eps) * (d * kappa * H + 1 - eps)) / (2 * (1 + eps))
    start = next(c for c in gru_step_starts(1, 1) if c.eps == eps and c.regime == "entries"
                 and float(c.cell.U_u.detach().abs().max()) == kappa)
    assert all(a.check(start)[0] for a in corollary2.assumptions)
    ratio, parts = measure_case(corollary2, start)
    assert ratio == pytest.approx(expected, rel=1e-9) and ratio > 100


def test_corollary3_uniform_reading_fails_by_two_orders_and_keeps_the_limit():
    """Scalar NC-GRU(U_r, U_c), U_r = U_c = −1, U_u = 1000, h_(t−1) = 1: |∂h_t/∂h_(t−1)| = 261.629 (nc_gru.corollary3's
    exact verdict) against 2(1 + ε) = 2.2, while the ε → 0 limit at the same weights is 1/2 of eq. 21's 2."""
    start = next(c for c in ncgru_step_starts(1, 1) if c.eps == 0.1 and c.regime == "entries"
                 and c.cell.orthogonal == ("r", "c") and float(c.cell.U_u.detach().abs().max()) == 1000.0)
    assert all(a.check(start)[0] for a in corollary3.assumptions)
    ratio, parts = measure_case(corollary3, start)
    assert ratio == pytest.approx(261.629 / 2.2, rel=1e-9)
    assert parts["eq. 21, asymptotic reading (ε → 0, weights fixed): lim ‖∂h_t/∂h_(t−1)‖₂ ≤ 2"] <= 0.5 + 1e-12


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_quick_search_reaches_the_supremum": {
        "nc_gru.corollary1", "nc_gru.corollary2", "nc_gru.corollary2.corrected", "nc_gru.corollary3",
        "nc_gru.corollary3.corrected", "nc_gru.eq18", "nc_gru.eq18.corrected", "nc_gru.theorem1.corrected",
        "nc_gru.theorem1_lstm", "nc_gru.theorem1_torch", "nc_gru.theorem1_torch.layers", "nc_gru.corollary1.corrected",
        "nc_gru.sec5_3",
    },
}
