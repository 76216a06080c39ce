"""lru: the exponential parametrisation's stability, the ring lemma and the γ-normalised forward norm hold, their
checks have power, and each fails where its assumption or its law is broken."""

import math

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.lru import forward_norm, lemma_ring, stability
from rnnaudit.bounds.lru.cases import lru_case
from rnnaudit.bounds.lru.lemma_ring import DRAWS, dkw_radius
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes


@pytest.mark.parametrize("claim", [stability, lemma_ring, forward_norm], ids=lambda c: c.id)
def test_lru_claims_hold_with_an_exact_proof(claim):
    result = check_claim(claim, TINY)
    assert result.verdict == "holds" and result.errors == []
    assert claim.exact().verdict == "proved"


@pytest.mark.parametrize("claim", [stability, forward_norm], ids=lambda c: c.id)
def test_lru_bounds_have_power(claim):
    assert_has_power(with_sizes(claim, [(4, 5)]), 1.05)


@pytest.mark.parametrize("claim", [stability, forward_norm], ids=lambda c: c.id)
def test_lru_bounds_are_attained(claim):
    assert_reaches_supremum(claim)


def test_lru_stability_reaches_one_in_float64_at_very_negative_nu_log():
    case = lru_case(torch.Generator().manual_seed(0), 2, 1, 0.5, 0.9, 1.0)
    with torch.no_grad():
        case.cell.nu_log.fill_(-40.0)
    assert float(case.cell.lambdas().detach().abs().max()) == 1.0


def test_lru_forward_norm_fails_without_the_gamma_normalisation():
    """Negative control: γ = 1 (the unnormalised recurrence) exceeds ‖B‖_F² once |λ| is near 1, and the
    assumption predicate names the broken normalisation."""
    case = lru_case(torch.Generator().manual_seed(2), 3, 30, 0.9, 0.99, 1.0)
    with torch.no_grad():
        case.cell.gamma_log.zero_()
    ratio, _ = measure_case(forward_norm, case)
    assert ratio > 2
    holds, detail = forward_norm.assumptions[0].check(case)
    assert not holds and "γ_j²" in detail


def test_lru_ring_lemma_check_catches_the_naive_radius_sampler():
    """|λ| ~ U[r_min, r_max] instead of |λ|² uniform: the sup-distance of |λ|² from the ring law exceeds the DKW
    radius (the check has power at DRAWS draws)."""
    case = lru_case(torch.Generator().manual_seed(3), DRAWS, 1, 0.0, 0.95, 1.0)
    r = 0.95 * torch.rand(DRAWS, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    with torch.no_grad():
        case.cell.nu_log.copy_(torch.log(-torch.log(r)))
    parts = lemma_ring.evaluate(case)
    m, b = parts["sup|F_n − F| of |λ|² against U[r_min², r_max²]"]
    assert float(m) > 3 * dkw_radius(DRAWS) and float(b) == pytest.approx(dkw_radius(DRAWS))
    assert evaluate_cases(lemma_ring, [case]).verdict == "false"


def test_lru_stability_exact_proof_can_fail():
    """The exact check is not a constant: the parametrisation exp(+exp(ν) + iθ) leaves the disk."""
    from rnnaudit.bounds.lru.stability import _exact
    assert _exact(+1).verdict == "violated" and _exact(-1).verdict == "proved"


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {"test_lru_bounds_are_attained": {"lru.forward_norm"}}


def test_lru_modulus_rounds_to_one_from_nu_log_ln_2_pow_minus_54_in_float64_and_minus_17_33_in_float32():
    """The docstring's edge: exp(−exp(ν^log)) is 1.0 when exp(ν^log) ≤ 2⁻⁵⁴ (float64), 2⁻²⁵ (float32)."""
    from rnnaudit.cells.lru import lru_lambda
    for dtype, edge in [(torch.float64, math.log(2.0 ** -54)), (torch.float32, math.log(2.0 ** -25))]:
        mod = lambda nu: float(lru_lambda(torch.tensor(nu, dtype=dtype), torch.tensor(0.5, dtype=dtype)).abs())  # noqa: E731
        assert mod(edge + 0.01) < 1.0 and mod(edge - 0.01) == 1.0
    assert round(math.log(2.0 ** -54), 3) == -37.430
