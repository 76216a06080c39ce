"""nc_gru.md's comparison sentences against its own tables (Sec. 3.3, 4.1–4.7, the abstract), the copying baseline and
the data-set arithmetic: exact known answers for every violated sentence."""

import pytest
import sympy

from rnnaudit.bounds import measure_case
from rnnaudit.bounds.nc_gru import (copy_baseline, sec3_3, sec3_3_corrected, sec4_1, sec4_1_corrected, sec4_2,
                                    sec4_2_corrected, sec4_3, sec4_3_corrected, sec4_4, sec4_data, sec4_lm)
from rnnaudit.bounds.nc_gru.copy_baseline import memoryless_cross_entropy
from rnnaudit.bounds.nc_gru.tables import TABLES, TableCase, value
from tests.bounds.nc_gru.cases import assert_holds_inside_assumptions, assert_violated_inside_assumptions


@pytest.mark.parametrize("claim, ratio", [(sec4_1, sympy.Rational(221, 217)), (sec4_2, sympy.Rational(1294, 952)),
                                          (sec3_3, sympy.Rational(5412, 2927))], ids=lambda x: getattr(x, "id", ""))
def test_violated_sentence_and_its_worst_ratio(claim, ratio, tmp_path):
    assert_violated_inside_assumptions(claim, [(1, 1)], tmp_path)
    assert measure_case(claim, TableCase())[0] == pytest.approx(float(ratio), rel=1e-12)


@pytest.mark.parametrize("claim", [sec4_1_corrected, sec4_2_corrected, sec4_3, sec4_3_corrected, sec3_3_corrected,
                                   sec4_4, sec4_lm, sec4_data, copy_baseline], ids=lambda c: c.id)
def test_supported_sentence_holds(claim, tmp_path):
    assert_holds_inside_assumptions(claim, claim.cases.sizes["quick"], tmp_path)


def test_accuracies_become_error_rates_and_unknown_entries_are_rejected():
    assert value("Table 8", "GORU", "T = 400") == pytest.approx(100 - 99.08)
    assert value("Table 8", "GORU", "T = 400", exact=True) == sympy.Rational(92, 100)
    with pytest.raises(KeyError, match="no entry"):
        value("Table 3", "GORU", "T = 800")
    assert len(TABLES) == 9


def test_copying_baseline_is_the_memoryless_cross_entropy():
    """10 positions at ln 8 each over T + 20 steps; at T = 1000 that is 2.0387e-2, Table 4's LSTM row."""
    import torch
    y = torch.zeros(2, 1020, dtype=torch.int64)
    y[:, -10:] = torch.arange(1, 11).clamp(max=8)
    assert float(memoryless_cross_entropy(y)) == pytest.approx(10 * 2.0794415416798357 / 1020, rel=1e-12)
    assert round(100 * float(memoryless_cross_entropy(y)), 3) == 2.039


def test_sec4_3_verdict_flips_exactly_at_the_printed_ratio():
    """'Comparable' is a threshold: the sentence holds within 10× and fails under any factor below 5.412/2.1927539 —
    the check must report both, not hide the dependence."""
    import dataclasses

    from rnnaudit.bounds.nc_gru.sec4_3 import FLIPS_BELOW, SEC4_3
    from rnnaudit.bounds.nc_gru.tables import comparison_parts

    assert FLIPS_BELOW == pytest.approx(5412 / 2192.7539, rel=1e-12)
    for factor, verdict in ((FLIPS_BELOW * 0.999, "false"), (FLIPS_BELOW * 1.001, "holds")):
        comparisons = tuple(dataclasses.replace(c, factor=factor) if c.factor != 1 else c for c in SEC4_3)
        ratio = max(float(m) / float(b) for m, b, *_ in comparison_parts(comparisons).values())
        assert (ratio > 1) == (verdict == "false"), (factor, ratio)
