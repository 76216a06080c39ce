"""nc_gru.sec3_3_best (Sec. 3.3): 'the best performance with orthogonality in Uc and Ur' against Tables 1–4, 8–9."""

import dataclasses

import pytest
import sympy

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.nc_gru import sec3_3_best
from rnnaudit.bounds.nc_gru.sec3_3_best import BOTH_VARIANTS, SEC3_3_BEST
from rnnaudit.bounds.nc_gru.tables import TableCase, comparison_parts
from tests.bounds.helpers import TINY


def test_sec3_3_best_is_false_worst_at_table_3():
    assert BOTH_VARIANTS == ("Table 1", "Table 2", "Table 3", "Table 4", "Table 8", "Table 9")
    result = check_claim(sec3_3_best, TINY, seed=0)
    assert result.verdict == "false" and result.exact.verdict == "violated"
    assert measure_case(sec3_3_best, TableCase())[0] == pytest.approx(float(sympy.Rational(5412, 1009)), rel=1e-12)
    failing = [k for k, v in result.worst_parts().items() if v > 1]
    assert len(failing) == 7 and len(SEC3_3_BEST) == 10


def test_sec3_3_best_holds_on_the_columns_that_favour_both_orthogonal_weights():
    """The negative control: Table 1 at T = 100 and the accuracies of Tables 8–9 support the sentence."""
    kept = tuple(c for c in SEC3_3_BEST
                 if c.table in ("Table 8", "Table 9") or (c.table, c.column) == ("Table 1", "T = 100"))
    supported = dataclasses.replace(sec3_3_best, evaluate=lambda c: comparison_parts(kept), exact=None)
    assert len(kept) == 3 and check_claim(supported, TINY, seed=0).verdict == "holds"
