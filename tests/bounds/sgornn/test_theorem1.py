"""sgornn.theorem1: the capacity probe attains half the bound, so a bound divided by 4 is caught; no
violation inside eq. 3, a violation outside it."""

import math

import pytest
import torch

from rnnaudit.bounds import Profile, check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.sgornn import theorem1
from rnnaudit.bounds.sgornn.cases import logit
from rnnaudit.bounds.sgornn.theorem1 import SampleCase, _starts_theorem1
from rnnaudit.cells import SGORNN
from tests.bounds.helpers import TINY, assert_has_power, assert_reproducible_violation, with_bound_scaled, with_sizes

F64 = torch.float64
SMALL = [(2, 1), (4, 5)]


def test_theorem1_no_violation_found_inside_and_violated_outside_eq3():
    """Inside eq. 3 the probe stays under 2αT R_W R_x R_v/√m; with α + β = 1.3 the states grow like 1.3^T
    and the estimate passes the bound."""
    result = check_claim(with_sizes(theorem1, SMALL), TINY, seed=0)
    assert result.verdict == "holds" and result.errors == []
    cell = SGORNN(2, 4, bias=False, clip_beta=False, dtype=F64, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        cell.alpha_logit.fill_(logit(0.4))
        cell.beta_logit.fill_(logit(0.9))
    X = torch.nn.functional.normalize(torch.randn(2, 20, 2, dtype=F64, generator=torch.Generator().manual_seed(1)),
                                      dim=-1)
    out = evaluate_cases(theorem1, [SampleCase(cell, X, 1.0, 1.0, 1.0, seed=0)])
    assert out.verdict == "false"
    assert any(f.startswith("β ≤ 1 − 2α") for f in out.records[0].failed_assumptions)


@pytest.mark.parametrize("T", [1, 5])
def test_probe_attains_half_the_bound_at_one_sequence(T):
    """m = 1, constant input, Θ = 0: R̂ = R_v sup‖h_T‖ = R(1 − (1 − α)^T) with β = 1 − 2α, so the ratio is
    (1 − (1 − α)^T)/(2αT): exactly 1/2 at T = 1."""
    case = _starts_theorem1(4, T, "cpu", F64)[0]
    alpha = case.alpha
    assert case.X.shape[0] == 1 and case.beta == pytest.approx(1 - 2 * alpha, rel=1e-12)
    ratio, _ = measure_case(theorem1, case)
    assert ratio == pytest.approx((1 - (1 - alpha) ** T) / (2 * alpha * T), rel=1e-12)


def test_theorem1_check_has_power_against_a_bound_divided_by_4(tmp_path):
    """The attained ratio 1/2 makes the bound divided by 4 false by a factor 2: the check must say so, on a case
    inside the assumptions, and the saved counterexample reproduces."""
    result = assert_has_power(with_sizes(theorem1, SMALL), 4)
    assert result.worst_ratio == pytest.approx(2.0, rel=1e-9)
    assert_reproducible_violation(with_bound_scaled(with_sizes(theorem1, SMALL), 1 / 4), TINY, tmp_path)


def test_sample_size_8_is_searched_where_nonnegativity_no_longer_caps_the_ratio():
    """E√(P² + (m − P)²)/(2√m), P ~ Bin(m, 1/2), caps any probe's ratio since h_T ≥ 0; it exceeds 1 at m = 8,
    and the random cases draw m = 8."""
    m = 8
    cap = sum(math.comb(m, p) * math.hypot(p, m - p) for p in range(m + 1)) / 2**m / (2 * math.sqrt(m))
    assert cap > 1
    gen = torch.Generator().manual_seed(0)
    sizes = {theorem1.cases.sample(gen, 2, 1, "cpu", F64).X.shape[0] for _ in range(40)}
    assert sizes == {1, 2, 4, 8}


def test_enumerated_sign_vectors_make_the_estimate_exact_in_eps():
    """For m ≤ 12 every sign vector is enumerated: two seeds give the same value (no sampling)."""
    case = _starts_theorem1(2, 3, "cpu", F64)[2]
    other = SampleCase(case.cell, case.X, case.R_W, case.R_x, case.R_v, seed=123)
    assert measure_case(theorem1, case)[0] == measure_case(theorem1, other)[0]


def test_quick_profile_reaches_half_the_bound():
    result = check_claim(theorem1, Profile("quick", n_random=4, restarts=0, ascent_steps=0), seed=0)
    assert result.worst_ratio == pytest.approx(0.5, rel=1e-9) and result.verdict == "holds"
