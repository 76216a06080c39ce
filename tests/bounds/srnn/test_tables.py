"""srnn.table2, srnn.table3: the comparison sentences recomputed from the printed tables, whose numbers are checked
against the paper's markdown; the row-by-row facts srnn.table3's notes record."""

import re
from pathlib import Path

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.srnn import table2, table3
from rnnaudit.bounds.srnn.table2 import TABLE2
from rnnaudit.bounds.srnn.table3 import TABLE3, best_by_method
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


def test_table3_best_entries_srnn_is_beaten_only_by_nru():
    best = best_by_method(TABLE3)
    assert best["SRNN"] == 0.64 and best["NRU"] == 0.35
    assert sorted(m for m, v in best.items() if v < best["SRNN"]) == ["NRU"]
    assert sorted(v for m, v in best.items() if m not in ("SRNN", "NRU"))[:2] == [4.38, 7.36]  # EXPRNN, SCORNN


def test_table3_notes_row_by_row_facts():
    """The informational facts of srnn.table3's notes (no verdict rests on them): the non-NRU baseline rows below an
    SRNN row of equal or larger d_h, and NRU against SRNN at every shared d_h."""
    srnn = {d: v for m, d, v in TABLE3.rows if m == "SRNN"}
    below = {(m, d, v, s, srnn[s]) for m, d, v in TABLE3.rows if m not in ("SRNN", "NRU")
             for s in srnn if d <= s and v < srnn[s] and not any(d <= s2 < s for s2 in srnn)}
    assert below == {("URNN", 128, 12.09, 128, 12.69), ("EXPRNN", 224, 5.30, 256, 7.85),
                     ("EXPRNN", 322, 4.38, 512, 4.73)}
    nru = {d: v for m, d, v in TABLE3.rows if m == "NRU"}
    assert {d: (nru[d], srnn[d]) for d in nru} == {128: (12.26, 12.69), 256: (5.90, 7.85), 512: (3.23, 4.73),
                                                   1024: (0.35, 1.34)}
    assert all(nru[d] < srnn[d] for d in nru) and max(d for m, d, _ in TABLE3.rows if m != "SRNN") < 2048
