"""xlstm: the sLSTM's stabiliser leaves h_t unchanged (proved, measured) and its normaliser bounds ‖h_t‖_∞ by 1; each
check fails where its assumption breaks (an overflowing raw recurrence, a negative normaliser start)."""

import math

import pytest
import torch

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.xlstm import normaliser, stabiliser
from rnnaudit.bounds.xlstm.cases import slstm_case
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes


@pytest.mark.parametrize("claim", [stabiliser, normaliser], ids=lambda c: c.id)
def test_xlstm_claims_hold_with_m0_minus_infinity_and_the_search_breaks_the_m0_zero_reading(claim):
    result = check_claim(claim, TINY)
    assert result.verdict == "holds" and result.errors == []
    (reading,) = result.readings
    assert reading.reading.name == "m_0 = 0 in float64" and reading.verdict == "false"


@pytest.mark.parametrize("claim", [stabiliser, normaliser], ids=lambda c: c.id)
def test_xlstm_m0_zero_reading_is_found_false_by_the_search_from_a_first_step_gap_start(claim):
    """The search itself (its structured first-step gap starts, not a case fed by hand) breaks m_0 = 0."""
    from rnnaudit.bounds.search import _reading_claim
    result = check_claim(_reading_claim(claim, claim.readings[0]), TINY)
    assert result.verdict == "false"
    assert result.worst_counterexample_case.found_by.startswith("structured:first-step gap")


def test_xlstm_stabiliser_m0_zero_fails_at_the_referees_inputs_and_m0_minus_infinity_does_not():
    """Bias [ĩ, f̃, z̃, õ] = [−360, 360, 0.3, 40], [−373, 372, …], [−400, 400, …], x = 0, W = R = 0, T = 1: the
    assumptions hold; m_0 = 0 is 1e3 × off, 0 instead of 0.29, NaN; m_0 = −∞ agrees to rounding."""
    from rnnaudit.bounds import evaluate_cases
    from rnnaudit.bounds.search import _reading_claim
    cases = []
    for i, f in [(-360.0, 360.0), (-373.0, 372.0), (-400.0, 400.0)]:
        case = slstm_case(torch.Generator().manual_seed(0), 1, 1, "exp", 1.0)
        with torch.no_grad():
            case.cell.W.zero_(), case.cell.R.zero_(), case.x.zero_()
            case.cell.b.copy_(torch.tensor([i, f, 0.3, 40.0], dtype=torch.float64))
        assert all(a.check(case)[0] for a in stabiliser.assumptions)
        assert measure_case(stabiliser, case)[0] <= 1
        cases.append(case)
    ratios = [measure_case(stabiliser, c, stabiliser.readings[0])[0] for c in cases]
    assert ratios[0] > 1e3 and ratios[1] > 1e10 and math.isnan(ratios[2])
    result = evaluate_cases(_reading_claim(stabiliser, stabiliser.readings[0]), cases)
    assert result.verdict == "false"
    assert result.worst_record.not_a_number and result.to_json()["worst_ratio"] == "NaN"


def test_xlstm_m0_zero_smallest_failing_first_step_gap_is_about_711_5():
    """Bisection on log f_1 − ĩ_1 (T = 1): below 711 the m_0 = 0 reading agrees, from 712 it fails (i'_1 subnormal)."""
    from rnnaudit.bounds.xlstm.stabiliser import gap_case
    reading, tol = stabiliser.readings[0], stabiliser.tolerance
    assert measure_case(stabiliser, gap_case(4, 1, 711.0), reading)[0] <= 1 + tol
    assert measure_case(stabiliser, gap_case(4, 1, 712.0), reading)[0] > 1 + tol


def test_slstm_empty_start_reads_an_empty_memory_as_m0_minus_infinity():
    from rnnaudit.cells import SLSTM
    cell = SLSTM(1, 1, forget="exp", stabiliser_start="empty", dtype=torch.float64)
    with torch.no_grad():
        cell.W.zero_(), cell.R.zero_()
        cell.b.copy_(torch.tensor([-400.0, 400.0, 0.3, 40.0], dtype=torch.float64))
    y, c, n, m = cell(torch.zeros(1, 1, 1, dtype=torch.float64), torch.zeros(1, 4, dtype=torch.float64))[0][0].detach()
    assert float(n) == 1.0 and float(m) == -400.0 and float(y) == pytest.approx(math.tanh(0.3), rel=1e-15)
    with pytest.raises(ValueError, match="stabiliser_start"):
        SLSTM(1, 1, stabiliser_start="zero")


def test_xlstm_stabiliser_is_proved_exactly():
    assert stabiliser.exact().verdict == "proved"


def test_xlstm_normaliser_has_power_and_is_attained():
    assert_has_power(with_sizes(normaliser, [(4, 5)]), 1.05)
    assert_reaches_supremum(normaliser)


def test_xlstm_stabiliser_assumption_fails_where_the_raw_recurrence_overflows():
    case = slstm_case(torch.Generator().manual_seed(0), 2, 6, "exp", 1.0)
    with torch.no_grad():
        case.cell.b[:2].fill_(800.0)
    holds, detail = stabiliser.assumptions[0].check(case)
    assert not holds and "709.78" in detail


def test_xlstm_stabiliser_assumption_fails_where_the_raw_normaliser_is_subnormal():
    case = slstm_case(torch.Generator().manual_seed(0), 2, 6, "exp", 1.0)
    with torch.no_grad():
        case.cell.b[:2].fill_(-800.0)
    holds, detail = stabiliser.assumptions[0].check(case)
    assert not holds and "708.4" in detail
    (m, _b, _ref), = stabiliser.evaluate(case).values()
    assert not torch.isfinite(m)  # the raw side is inf/inf: outside the assumption there is nothing to compare


def test_xlstm_normaliser_fails_from_a_negative_normaliser_start():
    """Negative control: n_0 = −1.05, c_0 = 1 and a small first input gate: c_1/n_1 far outside [−1, 1]."""
    case = slstm_case(torch.Generator().manual_seed(1), 1, 3, "sigmoid", 0.1)
    with torch.no_grad():
        case.cell.b.copy_(torch.tensor([-3.0, 5.0, 0.0, 5.0], dtype=torch.float64))
        case.h0.copy_(torch.tensor([0.0, 1.0, -1.05, 0.0], dtype=torch.float64))
    holds, _ = normaliser.assumptions[0].check(case)
    assert not holds
    assert measure_case(normaliser, case)[0] > 1


def test_xlstm_mlstm_stabiliser_holds_and_the_package_eps_reading_is_false():
    from rnnaudit.bounds.xlstm import mlstm_stabiliser
    result = check_claim(mlstm_stabiliser, TINY)
    assert result.verdict == "holds" and result.errors == []
    (reading,) = result.readings
    assert reading.verdict == "false"


def test_xlstm_mlstm_package_eps_shrinks_h_by_eps_times_exp_m():
    """Smallest case: d = 1, one step, ĩ = 30 (m_1 = 30), q = 1e-14 so that |n_1 q_1| = e^30·1e-14 < 1: the package's
    ε = 1e-6 divides h_1 by 1 + ε e^30/max(|nq|, 1) = 1 + ε e^30 ≈ 1.07e7."""
    from rnnaudit.bounds.xlstm.mlstm_stabiliser import PACKAGE_EPS, _outputs, sample_mlstm
    case = sample_mlstm(torch.Generator().manual_seed(0), 3, 1)
    with torch.no_grad():
        case.cell.W.zero_()
        case.cell.b.copy_(torch.tensor([1e-14, 1.0, 1.0, 30.0, 0.0, 0.0], dtype=torch.float64))
    raw, stab = _outputs(case, False, 0.0), _outputs(case, True, PACKAGE_EPS)
    # unstabilised: C = n = e^30 (k = v = 1), h = o·C q/max(|n q|, 1) = ½·e^30·1e-14
    assert float(raw[0, 0]) == pytest.approx(0.5 * math.exp(30) * 1e-14, rel=1e-12)
    assert float(raw[0, 0] / stab[0, 0]) == pytest.approx(1 + PACKAGE_EPS * math.exp(30), rel=1e-9)
