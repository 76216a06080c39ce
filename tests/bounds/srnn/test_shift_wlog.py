"""srnn.shift_wlog and its correction: a permutation with several cycles is no relabelled shift; a d_h-cycle is."""

import dataclasses

import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.srnn import shift_wlog, shift_wlog_corrected
from rnnaudit.bounds.srnn.shift_wlog import measure_corrected, relabeling, sample_cycle_case, sample_wlog_case
from tests.bounds.helpers import TINY, assert_reproducible_violation, with_sizes
from tests.bounds.srnn.cases import assert_exact_agrees, with_evaluate

SIZES = [(1, 2), (2, 2), (4, 3)]


def test_shift_wlog_is_violated_by_a_permutation_with_two_cycles(tmp_path):
    case = assert_reproducible_violation(with_sizes(shift_wlog, SIZES), TINY, tmp_path)
    assert case.perm.numel() >= 2
    assert_exact_agrees(check_claim(with_sizes(shift_wlog, SIZES), TINY, seed=0))


def test_identity_permutation_is_not_the_shift():
    case = sample_wlog_case(torch.Generator().manual_seed(0), 2, 2)
    case = dataclasses.replace(case, perm=torch.tensor([0, 1]))
    assert evaluate_cases(shift_wlog, [case]).verdict == "violated"


def test_corrected_relabeling_holds_on_cycles():
    result = check_claim(with_sizes(shift_wlog_corrected, SIZES + [(7, 4)]), TINY, seed=2)
    assert result.verdict == "holds" and result.errors == []
    assert_exact_agrees(result)


def test_corrected_check_catches_the_inverse_relabeling():
    """Q⁻¹ in place of Q (the map read the wrong way round) conjugates W_p into the reversed shift: caught from
    d_h = 3."""
    def inverse(perm):
        q = relabeling(perm)
        out = torch.empty_like(q)
        out[q] = torch.arange(q.numel())
        return out
    case = sample_cycle_case(torch.Generator().manual_seed(2), 5, 3)
    assert not torch.equal(inverse(case.perm), relabeling(case.perm))  # (for some cycles Q is an involution)
    wrong = with_evaluate(shift_wlog_corrected, lambda c: measure_corrected(c, inverse))
    assert evaluate_cases(wrong, [case]).verdict == "violated"
