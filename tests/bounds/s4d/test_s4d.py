"""s4d: the initial eigenvalues follow S4D-Lin/Inv's closed forms and the ZOH keeps |Ā| < 1; both checks can fail."""

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.s4d import init, stability
from rnnaudit.bounds.s4d.cases import s4d_case
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes


@pytest.mark.parametrize("claim", [init, stability], ids=lambda c: c.id)
def test_s4d_claims_hold(claim):
    result = check_claim(claim, TINY)
    assert result.verdict == "holds" and result.errors == []


def test_s4d_stability_has_power_and_is_attained():
    assert_has_power(with_sizes(stability, [(4, 1)]), 1.05)
    assert_reaches_supremum(stability)


def test_s4d_init_check_sees_a_lin_cell_labelled_inv():
    case = s4d_case(torch.Generator().manual_seed(0), 1, 4, 1, "lin")
    case.cell.init = "inv"
    assert evaluate_cases(init, [case]).verdict == "false"


def test_s4d_stability_fails_for_a_positive_real_part():
    """Negative control: Re A > 0 (outside S4D's parametrisation, set through a complex A) gives |Ā| > 1."""
    case = s4d_case(torch.Generator().manual_seed(1), 1, 3, 1, "lin")
    re, im = torch.full((1, 3), 0.5, dtype=torch.float64), torch.zeros(1, 3, dtype=torch.float64)
    case.cell.A = lambda: torch.complex(re, im)
    m, b = stability.evaluate(case)["max_n |Ā_n| < 1"]
    assert float(m) > float(b)
