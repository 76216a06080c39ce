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
def test_xlstm_claims_hold(claim):
    result = check_claim(claim, TINY)
    assert result.verdict == "holds" and result.errors == []


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
