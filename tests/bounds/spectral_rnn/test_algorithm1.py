"""spectral_rnn.algorithm1 and its corrected form: Algorithm 1's u loop hands Hgrad the reflector's output; with
its input the local backward pass matches autograd for U, V, σ̂ and h."""

from rnnaudit.bounds import check_claim, load_counterexample, measure_case
from rnnaudit.bounds.spectral_rnn import algorithm1, algorithm1_corrected
from tests.bounds.helpers import TINY, assert_reproducible_violation, with_sizes
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside, gen

PART = "∂L/∂U by the printed u loop (Hgrad given h_k^(u), the output) = autograd"


def test_algorithm1_corrected_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside(algorithm1_corrected, [(2, 1), (3, 1), (6, 1)], tmp_path)


def test_printed_algorithm1_is_violated_inside_its_assumptions_and_reloads(tmp_path):
    assert_reproducible_violation(with_sizes(algorithm1, [(2, 1), (4, 1)]), TINY, tmp_path, seed=0, rel=1e-12)


def test_both_saved_counterexamples_show_algorithm1s_own_argument(tmp_path):
    """n ≥ 2 (at n = 1 ∂L/∂u ≡ 0): the saved smallest and worst cases have an O(1) relative error in ∂L/∂U, with
    Hgrad itself correct, so the failure shown is Algorithm 1's argument."""
    result = check_claim(with_sizes(algorithm1, [(2, 1), (8, 1)]), TINY, seed=3, out_dir=tmp_path)
    for record in (result.counterexample_case, result.worst_counterexample_case):
        assert record.h >= 2 and record.parts[PART] > 1 and 0.1 < record.relative_error < 1e3
    _, case, ratio = load_counterexample(result.counterexample)
    assert measure_case(algorithm1, case)[0] == ratio


def test_algorithm1_corrected_check_has_power():
    """The printed argument is the wrong formula the corrected pass must not share: the same case fails it."""
    case = algorithm1.cases.sample(gen(4), 5, 1, "cpu", F64)
    assert measure_case(algorithm1_corrected, case)[0] < 1 < measure_case(algorithm1, case)[0]
