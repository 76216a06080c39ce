"""enrnn.table1: Table 1's parameter counts recomputed from the architectures — every row fits within 5 % except
PTB ENRNN (893,575 against ≈ 1016K) and the Spectral RNN (≤ 7,501 against ≈ 15K), and Sec. 5.4's "≈ 8.5 times"
becomes 9.6; the count formulas equal the cells' trainable scalars."""

import dataclasses

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.enrnn import table1, table1_corrected
from rnnaudit.bounds.enrnn.table1 import _measure, enrnn_count, lstm_count, recomputed, scornn_count
from tests.bounds.enrnn.cases import assert_exact_agrees, assert_holds_inside_its_assumptions, small
from tests.bounds.helpers import TINY, assert_reproducible_violation


def test_enrnn_table1_counts_of_the_rows_that_fit():
    counts = recomputed()
    assert counts["adding, ENRNN N = 160 (96/64, W^(C))"] == 15_441
    assert counts["TIMIT, ENRNN N = 468 (374/94, no W^(C))"] == 199_928
    assert counts["PTB, LSTM N = 350 (embedding 50N)"] == 1_016_450
    assert enrnn_count(310, 720, 1030, 50, coupling=True, input_trainable=False, embedding=51_500) == 893_575
    assert scornn_count(170, 2, 1) == 15_046 and lstm_count(60, 2, 1) == 15_181


def test_enrnn_table1_is_violated_by_the_ptb_enrnn_and_spectral_rnn_rows(tmp_path):
    assert_reproducible_violation(small(table1), TINY, tmp_path)
    result = check_claim(small(table1), TINY, seed=0)
    bad = sorted(k for k, v in result.worst_parts().items() if v > 1 + 1e-9)
    assert len(bad) == 3
    assert any("PTB, ENRNN" in k for k in bad) and any("Spectral RNN" in k for k in bad)
    assert any(k.startswith("Sec. 5.4") for k in bad)
    assert_exact_agrees(table1, result)


def test_enrnn_table1_corrected_holds(tmp_path):
    assert_holds_inside_its_assumptions(table1_corrected, tmp_path)


def test_enrnn_table1_check_catches_a_three_gate_lstm_count():
    wrong = dataclasses.replace(table1_corrected, evaluate=lambda c: _measure(c, lstm_gates=3))
    assert check_claim(small(wrong), TINY, seed=0).verdict == "false"
