"""srnn.no_explosion: |∂L/∂b_k| ≤ T(T+1)/2 · max‖g‖ · max‖∂b‖, attained by the all-active one-unit SRNN."""

import pytest

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.srnn import no_explosion
from rnnaudit.bounds.srnn.cases import affine_case
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes

SIZES = [(1, 3), (2, 4), (4, 6)]


@pytest.mark.slow
def test_no_explosion_holds_and_reaches_its_supremum():
    result = check_claim(with_sizes(no_explosion, SIZES), TINY, seed=1)
    assert result.verdict == "holds" and result.errors == []
    assert_reaches_supremum(no_explosion)
    assert_has_power(with_sizes(no_explosion, SIZES), 2)


def test_all_active_one_unit_known_answer():
    """d_h = 1, b = x + 1 > 0, g ≡ 1: ∂L/∂c = Σ_t t = T(T+1)/2 = the bound (T = 5: 15)."""
    case = affine_case([1.0], [1.0], [1.0] * 5)
    assert measure_case(no_explosion, case)[0] == pytest.approx(1.0, rel=1e-14)
