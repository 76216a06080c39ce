"""spectral_rnn.table2, table3 and table4: Table 2's own rows are Sec. 4's counts (quoted rows are not judged),
Table 3's sentences hold, Table 4's depths do not follow App. C.1's rule and one bold mark is not the row's best."""

import pytest

from rnnaudit.bounds import check_claim, load_counterexample, measure_case
from rnnaudit.bounds.spectral_rnn import table2, table3, table4
from rnnaudit.bounds.spectral_rnn.table2 import SEC4_VANILLA_RNN
from rnnaudit.bounds.spectral_rnn.table4 import TABLE4_ROWS, depth_fitted, depth_literal
from tests.bounds.helpers import TINY, assert_has_power


def test_table2_checks_only_the_rows_the_paper_counts():
    """The quoted rows (RNN ≈ 35k from Vorontsov et al., LSTM, uRNN, ...) use their sources' counting; only the
    Spectral-RNN and oRNN rows are Sec. 4's, and they match (5,520 ≈ 6k, 10,768 ≈ 11k)."""
    parts = table2.evaluate(None)
    assert not any(k.startswith("RNN 128") for k in parts)
    assert {k.split(":")[0] for k in parts if "parameters" in k} == {"Spectral-RNN 128 (m1 = m2 = 16)",
                                                                      "oRNN 256 (m = 32)"}
    assert SEC4_VANILLA_RNN == 17920 and "17,920" in table2.notes and "get no verdict" in table2.notes


def test_table2_and_table3_hold_and_have_power():
    for claim in (table2, table3):
        assert check_claim(claim, TINY).verdict == "holds" and claim.exact().verdict == "proved"
        assert_has_power(claim, 2)


def test_table4_depths_and_bold_marks(tmp_path):
    """Every listed failure is visible in the saved case: the printed rule (depth 1), the fitted rule's 50words,
    Adiac's bold LSTM."""
    result = check_claim(table4, TINY, out_dir=tmp_path)
    assert result.verdict == "false" and table4.exact().verdict == "violated"
    _, case, ratio = load_counterexample(result.counterexample)
    parts = measure_case(table4, case)[1]
    assert parts["depth = the rule most rows fit (n_i the largest divisor ≤ √L)"] == pytest.approx(27 / 18)
    assert parts["every bold accuracy is the highest of its row (caption)"] == pytest.approx(0.726 / 0.706)
    assert parts["depth × n_i = L (depth divides L)"] == 0
    assert parts["oRNN and Spectral-RNN have fewer parameters than LSTM (App. C.1)"] < 1


def test_table4_rules():
    assert [depth_literal(r[1]) for r in TABLE4_ROWS] == [1] * len(TABLE4_ROWS)
    assert [r[0] for r in TABLE4_ROWS if depth_fitted(r[1]) != r[2]] == ["50words"]
