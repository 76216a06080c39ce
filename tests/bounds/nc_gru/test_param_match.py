"""nc_gru.param_match: the count formulas agree with the cells, and no experiment of Sec. 4.1–4.5 is parameter-matched
under any reading (Sec. 4.4: NC-GRU(Uc) at h = 96 has 27,033 parameters where the others have ≈ 22 K)."""

import pytest

from rnnaudit.bounds.nc_gru import param_match, param_match_corrected
from rnnaudit.bounds.nc_gru.param_match import (TASKS, CountCase, gru_count, lstm_count, ncgru_count, scornn_count,
                                                spreads, task_counts)
from rnnaudit.cells import GRU, LSTM, NCGRU, ScoRNN, parameter_count
from tests.bounds.nc_gru.cases import assert_holds_inside_assumptions, assert_violated_inside_assumptions


def test_param_match_is_violated_and_reproducible(tmp_path):
    assert_violated_inside_assumptions(param_match, [(2, 1)], tmp_path)


def test_param_match_corrected_holds(tmp_path):
    assert_holds_inside_assumptions(param_match_corrected, [(1, 1), (7, 1)], tmp_path)


@pytest.mark.parametrize("h, m", [(1, 1), (5, 3), (96, 10)])
def test_count_formulas_equal_the_parameters_the_cells_store(h, m):
    assert gru_count(h, m) == parameter_count(GRU(m, h))
    assert lstm_count(h, m) == parameter_count(LSTM(m, h))
    assert scornn_count(h, m) == parameter_count(ScoRNN(m, h))
    assert ncgru_count(h, m, 1) == parameter_count(NCGRU(m, h, orthogonal=("c",)))
    assert ncgru_count(h, m, 2) == parameter_count(NCGRU(m, h, orthogonal=("r", "c")))
    assert ncgru_count(h, m, 1) != 3 * h * m + 3 * h + 3 * h * h  # a full U_c would be caught


def test_copying_task_counts_both_values():
    """Sec. 4.4 with m = 10 inputs and 9 output classes: NC-GRU(Uc) 96 → 27,033 against LSTM 68 → 22,109,
    GRU 78 → 21,537, scoRNN 190 → 21,764, NC-GRU(Ur, Uc) 96 → 22,377."""
    counts = task_counts(TASKS[3], (10, 9))
    assert counts["NC-GRU(Uc)"] == 27_033 and counts["NC-GRU(Ur, Uc)"] == 22_377
    assert (counts["LSTM"], counts["GRU"], counts["scoRNN"]) == (22_109, 21_537, 21_764)


def test_no_task_is_within_ten_percent_under_any_reading():
    for label, (plain, goru) in spreads().items():
        assert plain[0] > 1.1, label
        assert goru is None or goru[0] >= plain[0]
    assert float(spreads()["Sec. 4.3 Adding (Table 3)"][0][0]) == pytest.approx(19_381 / 13_521, rel=1e-12)


def test_the_measure_reports_every_task():
    parts = param_match.evaluate(CountCase(3, 2))
    assert sum(1 for k in parts if k.startswith("Sec. 4.")) == 9  # five tasks, four with GORU's lower bound
