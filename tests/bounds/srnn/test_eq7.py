"""srnn.eq7: both readings of eq. 7 are identities; mixing the two total derivatives double-counts."""

import torch

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.srnn import eq7
from rnnaudit.bounds.srnn.cases import sample_shuffle_case
from rnnaudit.bounds.srnn.eq7 import EQ7_RTOL, eq7_terms
from tests.bounds.helpers import TINY, with_sizes
from tests.bounds.srnn.cases import assert_exact_agrees, with_evaluate, with_identity_error

SIZES = [(1, 2), (2, 3), (4, 4)]


def test_eq7_holds_in_both_readings_and_sympy_proves_it():
    result = check_claim(with_sizes(eq7, SIZES), TINY, seed=1)
    assert result.verdict == "holds" and result.errors == []
    assert_exact_agrees(result)
    assert "double-counts" in result.exact.detail


def test_eq7_with_both_derivatives_total_is_caught():
    """δ_t (total ∂L/∂h_t) with eq. 8's total ∂h_t/∂b_k counts every path several times."""
    def both_total(case):
        t = eq7_terms(case)
        formula = torch.einsum("td,tdk->k", t["delta"], t["J_h"])
        ref = t["grad"].abs().max()
        return {"both total": ((formula - t["grad"]).abs().max(), EQ7_RTOL * (1 + ref), ref)}
    case = sample_shuffle_case(torch.Generator().manual_seed(4), 3, 4)
    assert measure_case(with_evaluate(eq7, both_total), case)[0] > 1
    assert measure_case(eq7, case)[0] <= 1


def test_eq7_catches_a_formula_off_by_one_part_in_a_million():
    assert check_claim(with_sizes(with_identity_error(eq7, 1e-6), SIZES), TINY, seed=0).verdict == "false"
