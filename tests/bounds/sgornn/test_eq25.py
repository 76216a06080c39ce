"""sgornn.eq25: eq. 25–26 and the chain rule eq. 29–30 equal autograd; the check catches the reversed product
and U in place of Uᵀ, the slips a careless derivation makes."""

import dataclasses

import pytest
import torch

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.sgornn import eq25
from rnnaudit.bounds.sgornn.cases import sample_gated_case
from rnnaudit.bounds.sgornn.eq25 import EQ25, _evaluate, formula_gradients
from tests.bounds.helpers import TINY, with_sizes
from tests.bounds.sgornn.cases import SMALL_SIZES


def test_eq25_26_30_match_autograd_with_relative_error_at_rounding():
    result = check_claim(with_sizes(eq25, SMALL_SIZES), TINY, seed=0)
    assert result.verdict == "holds" and result.errors == []
    assert result.to_json()["relative_error"] < 1e-12


@pytest.mark.parametrize("variant", [{"order": "decreasing"}, {"transpose": False}], ids=["reversed", "U not Uᵀ"])
def test_careless_variants_of_eq25_are_caught(variant):
    wrong = dataclasses.replace(with_sizes(eq25, SMALL_SIZES), evaluate=lambda c: _evaluate(c, **variant),
                                exact=None)
    result = check_claim(wrong, TINY, seed=0)
    assert result.verdict == "false" and result.worst_record.relative_error > 1e-3


def test_the_order_of_the_product_matters_only_from_T_4():
    """At T ≤ 3 the t = 1 term vanishes (h_0 = 0) and the other products have one factor: both orders agree."""
    gen = torch.Generator().manual_seed(3)
    for T, same in ((3, True), (6, False)):
        case = sample_gated_case(gen, 4, T)
        with torch.no_grad():
            case.cell.alpha_logit.fill_(0.0)                          # α = 1/2: the products are far from βI
        a = formula_gradients(case)[0]
        b = formula_gradients(case, order="decreasing")[0]
        assert torch.allclose(a, b, rtol=1e-12, atol=1e-14) == same


def test_formula_gradients_rejects_an_unknown_order():
    case = sample_gated_case(torch.Generator().manual_seed(0), 2, 3)
    with pytest.raises(ValueError, match="order"):
        formula_gradients(case, order="sideways")
    assert measure_case(eq25, case)[1][EQ25] < 1
