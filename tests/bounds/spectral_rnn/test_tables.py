"""spectral_rnn.table2, table3 and table4: Table 2's RNN row is not Sec. 4's count, Table 3's sentences hold,
Table 4's depths do not follow App. C.1's rule and one bold mark is not the row's best."""

import pytest

from rnnaudit.bounds import check_claim, load_counterexample, measure_case
from rnnaudit.bounds.spectral_rnn import table2, table2_corrected, table3, table4
from rnnaudit.bounds.spectral_rnn.table4 import TABLE4_ROWS, depth_fitted, depth_literal
from tests.bounds.helpers import TINY, assert_has_power, assert_reproducible_violation


def test_table2_rnn_row_is_not_sec4s_count(tmp_path):
    case = assert_reproducible_violation(table2, TINY, tmp_path)
    parts = measure_case(table2, case)[1]
    assert {k for k, v in parts.items() if v > 1} == {"RNN 128: ≈ 35k parameters (Sec. 4's count 17920)"}
    assert table2.exact().verdict == "violated" and "17920" in table2.exact().detail


def test_table2_corrected_and_table3_hold_and_have_power():
    for claim in (table2_corrected, table3):
        assert check_claim(claim, TINY).verdict == "holds" and claim.exact().verdict == "proved"
        assert_has_power(claim, 2)


def test_table4_depths_and_bold_marks(tmp_path):
    """Every listed failure is visible in the saved case: the printed rule (depth 1), the fitted rule's 50words,
    Adiac's bold LSTM."""
    result = check_claim(table4, TINY, out_dir=tmp_path)
    assert result.verdict == "violated" and table4.exact().verdict == "violated"
    _, case, ratio = load_counterexample(result.counterexample)
    parts = measure_case(table4, case)[1]
    assert parts["depth = the rule most rows fit (n_i the largest divisor ≤ √L)"] == pytest.approx(27 / 18)
    assert parts["every bold accuracy is the highest of its row (caption)"] == pytest.approx(0.726 / 0.706)
    assert parts["depth × n_i = L (depth divides L)"] == 0
    assert parts["oRNN and Spectral-RNN have fewer parameters than LSTM (App. C.1)"] < 1


def test_table4_rules():
    assert [depth_literal(r[1]) for r in TABLE4_ROWS] == [1] * len(TABLE4_ROWS)
    assert [r[0] for r in TABLE4_ROWS if depth_fitted(r[1]) != r[2]] == ["50words"]
