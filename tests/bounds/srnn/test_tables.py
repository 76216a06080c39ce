"""srnn.table2, srnn.table3, srnn.table3_matched: the comparison sentences recomputed from the printed tables, whose
numbers are checked against the paper's markdown."""

import re
from pathlib import Path

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.srnn import table2, table3, table3_matched
from rnnaudit.bounds.srnn.table2 import TABLE2
from rnnaudit.bounds.srnn.table3 import TABLE3
from rnnaudit.bounds.srnn.table3_matched import dominating_rows
from tests.bounds.helpers import TINY, assert_has_power
from tests.bounds.srnn.cases import assert_exact_agrees

PAPER = (Path(__file__).resolve().parents[3] / "papers" / "srnn.md").read_text()


def test_the_tables_hold_the_papers_numbers():
    """Every (method, value) of Table 2 and every (method, d_h, MSE) of Table 3 appears in srnn.md's text."""
    for method, _, value in TABLE2.rows:
        assert f"{value:.2f}%" in PAPER if value is not None else "OUT OF MEMORY" in PAPER
    for method, d_h, mse in TABLE3.rows:
        assert re.search(rf"{method}\s+{d_h}\s+{mse:.2f}", PAPER, flags=re.IGNORECASE), (method, d_h, mse)


def test_table2_and_table3_comparisons_hold_with_power():
    for claim, factor in ((table2, 2), (table3, 4)):
        result = check_claim(claim, TINY, seed=0)
        assert result.verdict == "holds" and result.errors == []
        assert_exact_agrees(result)
        assert_has_power(claim, factor)


def test_table3_at_comparable_hidden_size_is_violated():
    result = check_claim(table3_matched, TINY, seed=0)
    assert result.verdict == "violated" and result.errors == []
    assert_exact_agrees(result)
    worst = {(b[0], b[1], s[1]) for r, s, b in dominating_rows(TABLE3, equal_size=False) if r > 1}
    assert worst == {("EXPRNN", 224, 256), ("EXPRNN", 322, 512), ("URNN", 128, 128)}
