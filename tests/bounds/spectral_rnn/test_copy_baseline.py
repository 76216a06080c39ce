"""spectral_rnn.copy_baseline (Sec. 7.1): the 'memoryless' baseline samples 7 of the 8 symbols to copy."""

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.spectral_rnn.copy_baseline import INPUT_SYMBOLS, CopyAlphabets, copy_baseline
from tests.bounds.helpers import TINY


def test_copy_baseline_is_false_exactly():
    result = check_claim(copy_baseline, TINY, seed=0)
    assert result.verdict == "false" and result.exact.verdict == "violated" and "1/8" in result.exact.detail


def test_a_baseline_on_the_inputs_alphabet_holds():
    """The negative control: sampling the 8 symbols x_{1:10} is drawn from is the memoryless strategy."""
    result = evaluate_cases(copy_baseline, [CopyAlphabets(INPUT_SYMBOLS, INPUT_SYMBOLS)])
    assert result.verdict == "holds" and result.worst_ratio == 0.0
