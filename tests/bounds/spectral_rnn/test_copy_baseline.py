"""spectral_rnn.copy_baseline (Sec. 7.1): the 'memoryless' baseline samples 7 of the 8 symbols to copy."""

import dataclasses

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.spectral_rnn.copy_baseline import INPUT_SYMBOLS, CopyAlphabets, copy_baseline
from tests.bounds.helpers import TINY


def test_copy_baseline_fails_exactly_as_printed_and_holds_with_the_inputs_index():
    """Printed {a_i}_{i=1}^7: total variation 1/8; read {a_i}_{i=0}^7 (the inputs' alphabet): 0, so misprinted."""
    result = check_claim(copy_baseline, TINY, seed=0)
    assert result.verdict == "misprinted" and result.exact.verdict == "violated" and "1/8" in result.exact.detail
    (reading,) = result.readings
    assert reading.verdict == "holds" and reading.worst_ratio == 0.0 and reading.exact.verdict == "proved"


def test_the_index_reading_given_the_printed_evaluation_is_false():
    """The negative control: the reading measured on the printed 7 symbols (and without its exact test) fails."""
    (reading,) = copy_baseline.readings
    as_printed = dataclasses.replace(reading, evaluate=copy_baseline.evaluate, exact=None)
    assert check_claim(dataclasses.replace(copy_baseline, readings=(as_printed,)), TINY, seed=0).verdict == "false"


def test_a_baseline_on_the_inputs_alphabet_holds():
    """The negative control: sampling the 8 symbols x_{1:10} is drawn from is the memoryless strategy."""
    result = evaluate_cases(copy_baseline, [CopyAlphabets(INPUT_SYMBOLS, INPUT_SYMBOLS)])
    assert result.verdict == "holds" and result.worst_ratio == 0.0
