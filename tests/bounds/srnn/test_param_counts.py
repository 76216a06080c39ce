"""srnn.param_counts: 48,266 ≈ 50k, a 4 % gate, 4,833 ≈ 5k below the vanilla RNN, LSTM and GRU; the count formula
matches torch's and a formula without biases would not."""

import pytest

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.srnn import param_counts
from rnnaudit.bounds.srnn.param_counts import PMNIST, TABLE4, ParamCase, paper_counts, srnn_param_formula
from tests.bounds.helpers import TINY, assert_has_power
from tests.bounds.srnn.cases import assert_exact_agrees, with_evaluate


def test_param_counts_hold_and_sympy_agrees():
    result = check_claim(param_counts, TINY, seed=0)
    assert result.verdict == "holds" and result.errors == []
    assert_exact_agrees(result)
    assert_has_power(param_counts, 4)


def test_known_counts():
    counts = paper_counts()
    assert counts["pMNIST SRNN"] == srnn_param_formula(PMNIST) == 48_266
    assert counts["Table 4 SRNN"] == srnn_param_formula(TABLE4) == 4_833
    assert counts["pMNIST gate"] / counts["pMNIST SRNN"] == pytest.approx(0.0424, abs=1e-4)
    assert (counts["Table 4 vanilla RNN"], counts["Table 4 LSTM"], counts["Table 4 GRU"]) == (17_025, 67_713, 50_817)


def test_a_count_formula_without_biases_is_caught():
    def no_bias(case):
        sizes = [case.d_i, *case.fr_hidden, case.d_h]
        wrong = (sum(a * b for a, b in zip(sizes[:-1], sizes[1:])) + case.d_i * case.d_h * case.gating
                 + case.d_h * case.out)
        _, tol, counted = param_counts.evaluate(case)["count formula = torch's count (this configuration)"]
        return {"formula without biases": (abs(counted - wrong), tol, counted)}
    assert evaluate_cases(with_evaluate(param_counts, no_bias), [ParamCase(2, 4, (3,), True, 1)]).verdict == "false"
