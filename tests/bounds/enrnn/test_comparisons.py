"""enrnn.comparisons (Sec. 5.3–5.4): the comparison sentences agree with Tables 2 and 3; swapping two entries
breaks them."""

import dataclasses

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.enrnn import comparisons
from rnnaudit.bounds.enrnn.comparisons import TABLE3, _measure
from tests.bounds.enrnn.cases import assert_exact_agrees, assert_holds_inside_its_assumptions, small
from tests.bounds.helpers import TINY, assert_has_power


def test_enrnn_comparisons_hold_and_the_exact_check_agrees(tmp_path):
    assert_exact_agrees(comparisons, assert_holds_inside_its_assumptions(comparisons, tmp_path))


def test_enrnn_comparisons_have_power():
    assert_has_power(small(comparisons), 2, TINY)


def test_enrnn_comparisons_see_nnrnn_beating_enrnn():
    swapped = dict(TABLE3, **{"nnRNN 1024": (None, 1.40)})
    wrong = dataclasses.replace(comparisons, evaluate=lambda c: _measure(c, table3=swapped), exact=None)
    assert check_claim(small(wrong), TINY, seed=0).verdict == "false"
