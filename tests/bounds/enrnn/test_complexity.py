"""enrnn.complexity (Sec. 3.2): (n − q)³ ≤ BLn² when n − q ≤ BL, tight at q = 0, BL = n; the paper's copying and
PTB configurations satisfy n − q ≤ BL; sympy proves the inequality."""

from rnnaudit.bounds import evaluate_cases
from rnnaudit.bounds.enrnn import complexity
from rnnaudit.bounds.enrnn.complexity import CostCase
from tests.bounds.enrnn.cases import assert_exact_agrees, assert_holds_inside_its_assumptions
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum


def test_complexity_holds_and_its_exact_proof_agrees(tmp_path):
    assert_exact_agrees(complexity, assert_holds_inside_its_assumptions(complexity, tmp_path))


def test_complexity_search_reaches_the_equality_case():
    assert_reaches_supremum(complexity)


def test_complexity_check_has_power():
    assert_has_power(complexity, 2, TINY)


def test_complexity_fails_when_the_short_block_exceeds_BL():
    """n = 100, q = 0, B = L = 5: n − q = 100 > BL = 25 and (n − q)³ = 10⁶ > BLn² = 2.5·10⁵."""
    result = evaluate_cases(complexity, [CostCase(100, 0, 5, 5)])
    assert result.verdict == "false"
    assert result.records[0].failed_assumptions[0].startswith("0 ≤ q ≤ n and n − q ≤ BL")
