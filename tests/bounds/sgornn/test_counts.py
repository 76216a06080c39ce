"""sgornn.table1–table3: the text's parameter counts give every printed row; a wrong convention (PyTorch's two
LSTM biases) is caught."""

import pytest

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.sgornn import counts, table1, table2, table3
from rnnaudit.bounds.sgornn.counts import cell_counts, count_formulas
from tests.bounds.helpers import TINY


@pytest.mark.parametrize("n, h, units, readout, printed", [
    (2, 128, 128, True, (1409, 1411, 16899, 67201)),
    (9, 128, 64, True, (2305, 2307, 17795, 19009)),
    (256, 256, 256, False, (67840, 67842, 131330, 525312))], ids=["Table 1", "Table 2", "Table 3"])
def test_sgornn_tables_parameter_counts_from_the_text(n, h, units, readout, printed):
    k = 2 * (h - 1).bit_length()
    assert tuple(count_formulas(n, h, k, units, readout).values()) == printed
    assert tuple(cell_counts(n, h, k, units, readout).values()) == printed


@pytest.mark.parametrize("claim", [table1, table2, table3], ids=lambda c: c.id)
def test_table_claims_hold_and_catch_a_two_bias_lstm(claim, monkeypatch):
    assert check_claim(claim, TINY).verdict == "holds"
    right = counts.count_formulas

    def two_biases(n, h, k, units, readout):
        out = right(n, h, k, units, readout)
        out["LSTM"] += 4 * units                                      # PyTorch's b_ih and b_hh
        return out

    monkeypatch.setattr(counts, "count_formulas", two_biases)
    result = check_claim(claim, TINY)
    assert result.verdict == "false"
