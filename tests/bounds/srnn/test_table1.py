"""srnn.table1: the shifted recurrence measures an exponent near 1 in d_h; a dense W_p measures ≈ 2."""

import pytest

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.srnn import table1
from rnnaudit.bounds.srnn.table1 import TimingCase, fit_exponent
from tests.bounds.helpers import TINY, assert_has_power
from tests.bounds.srnn.cases import small


def test_table1_holds_inside_its_assumptions(tmp_path):
    result = check_claim(small(table1), TINY, seed=1, out_dir=tmp_path)
    assert result.verdict == "holds", result.notes_text()
    assert result.errors == []
    assert result.worst_ratio <= 1 + table1.tolerance


def test_fit_exponent_known_answers():
    assert fit_exponent({d: 3e-6 * d for d in (8, 32, 128)}) == pytest.approx(1.0)
    assert fit_exponent({d: 1e-9 * d**2 for d in (8, 32, 128)}) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="two distinct"):
        fit_exponent({8: 1.0})


def test_table1_violated_for_a_dense_recurrent_matrix():
    """W_p as a dense d_h×d_h product (a learned recurrent matrix, the O(T d_h²) rows of Table 1): the matrix
    outgrows every cache at d_h = 4096 (128 MB), and the measured exponent is ≈ 2 > 1.5."""
    case = TimingCase((1024, 2048, 4096), T=4, d_i=2, fr_hidden=(8,), seed=0, recurrence="dense", reps=2, batch=1)
    result = evaluate_cases(table1, [case])
    assert result.verdict == "false", result.records[0].parts
    assert any(f.startswith("W_p applied as a permutation") for f in result.records[0].failed_assumptions)


def test_table1_has_power():
    """Bounds divided by 4 (exponent ≤ 0.375 and ≥ 2): the measured exponent of a linear cost, 0.7–1.3 on this
    machine, violates both."""
    assert_has_power(small(table1), 4)
