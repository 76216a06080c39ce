"""spectral_rnn.eq13 and its corrected form: eq. 12–13 hold, Algorithms 3 and 1 as printed do not, and the
corrected algorithms hold to float64's tolerance (not float32's)."""

import torch

from rnnaudit.bounds import evaluate_cases, measure_case
from rnnaudit.bounds.spectral_rnn import eq13, eq13_corrected
from tests.bounds.helpers import TINY, assert_reproducible_violation, with_sizes
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside, failed, gen


def test_eq13_corrected_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside(eq13_corrected, [(1, 1), (3, 1), (6, 1)], tmp_path)


def test_printed_eq13_is_violated_inside_its_assumptions_and_reloads(tmp_path):
    """Algorithms 1/3 as printed fail on cases that satisfy every assumption; the saved counterexample reloads
    and reproduces its ratio."""
    assert_reproducible_violation(with_sizes(eq13, [(2, 1), (4, 1)]), TINY, tmp_path, seed=0, rel=1e-12)


def test_which_parts_fail_in_the_printed_eq13():
    """The verdict comes from the parts the explanation names, and only from them."""
    case = eq13.cases.sample(gen(3), 5, 1, "cpu", F64)
    parts = measure_case(eq13, case)[1]
    assert parts["eq. 12: ∂L/∂h = autograd"] < 1 and parts["eq. 13: ∂L/∂û_k = autograd"] < 1
    assert sum(v > 1 for v in parts.values()) == 2  # Algorithm 3 and Algorithm 1 as printed


def test_eq13_corrected_violated_in_float32():
    """The 1e-10 tolerance is float64's; in float32 the same correct formulas miss it by ~1e3."""
    case = eq13_corrected.cases.sample(gen(6), 4, 1, "cpu", torch.float32)
    result = evaluate_cases(eq13_corrected, [case])
    assert result.verdict == "violated" and failed(result, "float64")
