"""xlstm: the sLSTM's stabiliser leaves h_t unchanged (proved, measured) and its normaliser bounds ‖h_t‖_∞ by 1; each
check fails where its assumption breaks (an overflowing raw recurrence, a negative normaliser start)."""

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
