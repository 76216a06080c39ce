"""nc_gru.sec2_2 (Sec. 2.2): no real skew A has the eigenvalue −1, so 'D avoids a singular I + A' is false."""

import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.nc_gru import sec2_2
from rnnaudit.bounds.nc_gru.eq2 import CayleyCase
from tests.bounds.helpers import TINY


def test_sec2_2_is_false_exactly_and_on_every_case():
    result = check_claim(sec2_2, TINY, seed=0)
    assert result.verdict == "false" and result.exact.verdict == "violated"
    assert min(result.ratios) == float("inf")  # σ_min(I + A) ≥ 1 > 0 on every skew A drawn


def test_sec2_2_holds_for_a_matrix_with_the_eigenvalue_minus_one():
    """The negative control: A = diag(−1, 0) (not skew) makes I + A singular, which the sentence would need."""
    A = torch.diag(torch.tensor([-1.0, 0.0], dtype=torch.float64))
    result = evaluate_cases(sec2_2, [CayleyCase(A, torch.ones(2, dtype=torch.float64))])
    assert result.verdict == "holds" and result.worst_ratio == 0.0
    assert any("skew" in e for e in result.errors)
