"""spectral_rnn.param_count and its corrected form: Sec. 4's formula holds, Table 4 fits m1 = m2 = 16 and
not App. C.1's 8, and without a bias the count is off."""

import pytest

from rnnaudit.bounds import evaluate_cases, measure_case
from rnnaudit.bounds.spectral_rnn import param_count, param_count_corrected
from rnnaudit.bounds.spectral_rnn.cases import CountCase
from rnnaudit.bounds.spectral_rnn.param_count import ornn_count, sec4_count, table4_error, vanilla_count
from tests.bounds.helpers import TINY, assert_reproducible_violation, with_sizes
from tests.bounds.spectral_rnn.cases import assert_holds_inside, failed


def test_param_count_corrected_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside(param_count_corrected, [(1, 1), (7, 1), (32, 1)], tmp_path)


def test_printed_param_count_is_violated_inside_its_assumptions_and_reloads(tmp_path):
    """Table 4 vs App. C.1 (m1 = m2 = 8) fails on cases that satisfy every assumption; the saved
    counterexample reloads and reproduces its ratio."""
    assert_reproducible_violation(with_sizes(param_count, [(1, 1), (8, 1)]), TINY, tmp_path, seed=0, rel=1e-12)


def test_only_table4_fails_in_the_printed_param_count():
    """The verdict comes from the part the explanation names, and only from it."""
    parts = measure_case(param_count, CountCase(8, 3, 5, 2, 4))[1]
    assert {k for k, v in parts.items() if v > 1} == {"Table 4 model differences with m1 = m2 = 8"}


@pytest.mark.parametrize("claim", [param_count, param_count_corrected], ids=lambda c: c.id)
def test_param_count_violated_without_bias(claim):
    result = evaluate_cases(claim, [CountCase(8, 3, 5, 2, 4, bias=False)])
    assert result.verdict == "false" and failed(result, "b present")
    assert result.records[0].parts["Sec. 4 formula = parameters stored by SpectralRNN"] > 1


def test_table4_differences_fit_16_reflectors_not_8():
    """App. C.1 says m1 = m2 = 8; every Table 4 row has RNN − Spectral-RNN = 208 and Spectral-RNN − oRNN = 424,
    which Sec. 4's formulas give at n = 32 for m1 = m2 = 16 (536 and 96 for 8)."""
    assert table4_error(16) == 0
    n = 32
    assert vanilla_count(n, 1, 1) - sec4_count(n, 8, 8, 1, 1) == 536
    assert sec4_count(n, 8, 8, 1, 1) - ornn_count(n, 16, 1, 1) == 96
