"""spectral_rnn.algorithm3 and its corrected form: Algorithm 3 as printed (α from h̄) gets ∂L/∂u_k wrong by an
O(1) relative error while h̄ is right; with α from the reflector input it matches autograd."""

from rnnaudit.bounds import check_claim, load_counterexample, measure_case
from rnnaudit.bounds.spectral_rnn import algorithm3, algorithm3_corrected
from tests.bounds.helpers import TINY, assert_reproducible_violation, with_sizes
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside, gen


def test_algorithm3_corrected_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside(algorithm3_corrected, [(2, 1), (3, 1), (6, 1)], tmp_path)


def test_printed_algorithm3_is_violated_inside_its_assumptions_and_reloads(tmp_path):
    assert_reproducible_violation(with_sizes(algorithm3, [(2, 1), (4, 1)]), TINY, tmp_path, seed=0, rel=1e-12)


def test_both_saved_counterexamples_show_the_wrong_u_gradient(tmp_path):
    """Smallest and worst counterexample: ū_k is off by an O(1) relative error, h̄ is right."""
    result = check_claim(with_sizes(algorithm3, [(2, 1), (5, 1)]), TINY, seed=1, out_dir=tmp_path)
    for record in (result.counterexample_case, result.worst_counterexample_case):
        assert record.parts["ū_k = ∂L/∂u_k (autograd, every reflector)"] > 1
        assert record.parts["h̄ = ∂L/∂h (autograd, every reflector)"] < 1
        assert 0.1 < record.relative_error < 1e3
    _, case, ratio = load_counterexample(result.worst_counterexample or result.counterexample)
    assert measure_case(algorithm3, case)[0] == ratio


def test_algorithm3_corrected_check_has_power():
    """The printed α (= −β) is the wrong formula the corrected check must reject: the same cases fail it."""
    case = algorithm3.cases.sample(gen(3), 5, 1, "cpu", F64)
    assert measure_case(algorithm3_corrected, case)[0] < 1 < measure_case(algorithm3, case)[0]
