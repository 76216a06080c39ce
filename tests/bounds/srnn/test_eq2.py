"""srnn.eq2 and srnn.eq2.corrected: eq. 2 holds with the total ∂L/∂h_t, the where-clause's product has one factor too
many (the verdict rests on it alone); the corrected where-clause agrees with autograd and with sympy's chain rule."""

import pytest
import torch

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.srnn import eq2, eq2_corrected
from rnnaudit.bounds.srnn.eq2 import VanillaCase, jacobian_product
from tests.bounds.helpers import TINY, assert_reproducible_violation, with_sizes
from tests.bounds.srnn.cases import F64, assert_exact_agrees, with_identity_error

SIZES = [(1, 2), (2, 3), (3, 4)]
PRODUCT = "∂h_t'/∂h_t = ∏ σ'(z_i) W_1 (printed range) = autograd"
SUM = "∂L/∂h_t = Σ_{t'>t} ∂L/∂h_t' ∂h_t'/∂h_t (printed sum, true Jacobians) = total ∂L/∂h_t"
LAST_STEP = "eq. 2 with the printed product, loss on h_T only (∂L/∂h_T = g_T given) = ∂L/∂W_1"
TOTAL = "eq. 2 with the total ∂L/∂h_t (autograd) = ∂L/∂W_1"


def test_eq2_corrected_holds_and_sympy_proves_it(tmp_path):
    result = check_claim(with_sizes(eq2_corrected, SIZES), TINY, seed=1, out_dir=tmp_path)
    assert result.verdict == "holds" and result.errors == []
    assert_exact_agrees(result)


def test_printed_where_clause_is_violated_and_sympy_agrees(tmp_path):
    assert_reproducible_violation(with_sizes(eq2, SIZES), TINY, tmp_path)
    result = check_claim(with_sizes(eq2, SIZES), TINY, seed=0)
    assert_exact_agrees(result)
    # eq. 2 itself (with the total ∂L/∂h_t) holds on every case: only the where-clause is wrong
    assert result.worst_parts()[TOTAL] < 1


def test_one_unit_linear_rnn_known_answer():
    """d_h = 1, ReLU with every z > 0, W_1 = 1/2, W_2 = 1, x = (1, 1), h_0 = 1, L = h_2: h_1 = 3/2, h_2 = 7/4 and
    ∂L/∂W_1 = h_1 + W_1 h_0 = 2; the printed product gives ∂h_2/∂h_1 = (σ'W_1)² = 1/4 (one factor too many), so even
    with ∂L/∂h_2 = 1 given, eq. 2 gives 1/4 · h_0 + h_1 = 7/4."""
    case = VanillaCase(torch.tensor([[0.5]], dtype=F64), torch.tensor([[1.0]], dtype=F64),
                       torch.tensor([[1.0], [1.0]], dtype=F64), torch.ones(1, dtype=F64),
                       torch.tensor([[0.0], [1.0]], dtype=F64), "relu")
    D = torch.ones(2, 1, dtype=F64)
    assert float(jacobian_product(D, case.W1, 1, 2, as_printed=True)) == 0.25
    assert float(jacobian_product(D, case.W1, 1, 2, as_printed=False)) == 0.5
    parts = measure_case(eq2, case)[1]
    err, _, ref = eq2.evaluate(case)[LAST_STEP]
    assert float(ref) == 2.0 and float(err) == 0.25  # |7/4 − 2|
    assert parts[LAST_STEP] > 1e6 and parts[PRODUCT] > 1e6
    assert measure_case(eq2_corrected, case)[0] < 1


def test_printed_verdict_rests_on_the_product_and_the_sums_missing_direct_term():
    """The parts are the product, the where-clause's sum with the true Jacobians (its missing direct term ∂ℓ_t/∂h_t,
    judged apart from the product), eq. 2 with the product under the loss on h_T only, and eq. 2 with the total
    ∂L/∂h_t; the first two fail, the last holds, and sympy's counterexample is a product."""
    result = check_claim(with_sizes(eq2, SIZES), TINY, seed=0)
    assert set(result.worst_parts()) == {PRODUCT, SUM, LAST_STEP, TOTAL}
    assert result.worst_parts()[PRODUCT] > 1 and result.worst_parts()[SUM] > 1
    assert result.worst_parts()[TOTAL] <= 1
    assert result.exact.detail.startswith("∂h_")


def test_the_sums_missing_term_is_the_direct_one():
    """On the known-answer case (L = h_2): the printed sum gives ∂L/∂h_2 = 0 (an empty sum) where the truth is 1, and
    ∂L/∂h_1 = ∂h_2/∂h_1 = 1/2, right; the gap is exactly the direct term g_t."""
    case = VanillaCase(torch.tensor([[0.5]], dtype=F64), torch.tensor([[1.0]], dtype=F64),
                       torch.tensor([[1.0], [1.0]], dtype=F64), torch.ones(1, dtype=F64),
                       torch.tensor([[0.0], [1.0]], dtype=F64), "relu")
    err, _, ref = eq2.evaluate(case)[SUM]
    assert float(err) == 1.0 and float(ref) == 1.0


def test_eq2_corrected_catches_a_formula_off_by_one_part_in_a_million():
    result = check_claim(with_sizes(with_identity_error(eq2_corrected, 1e-6), SIZES), TINY, seed=0)
    assert result.verdict == "false"
    assert result.worst_record.relative_error == pytest.approx(1e-6, rel=1e-3)
