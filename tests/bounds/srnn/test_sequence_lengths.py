"""srnn.sequence_lengths: 784, 64 and 256 steps; a wrong stated length is caught."""

import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.srnn import sequence_lengths
from rnnaudit.bounds.srnn.sequence_lengths import ImageCase, center_crop_sequence
from tests.bounds.helpers import TINY
from tests.bounds.srnn.cases import F64, assert_exact_agrees, with_evaluate


def test_sequence_lengths_hold():
    result = check_claim(sequence_lengths, TINY, seed=0)
    assert result.verdict == "holds" and result.errors == []
    assert_exact_agrees(result)


def test_a_wrong_length_is_caught():
    def wrong(case):
        n = center_crop_sequence(case.images, 16).shape[1]
        return {"16 × 16 → 255 steps": (torch.tensor(abs(n - 255.0), dtype=F64), torch.tensor(0.5, dtype=F64))}
    assert evaluate_cases(with_evaluate(sequence_lengths, wrong), [ImageCase(torch.zeros(1, 28, 28))]).verdict == \
        "false"
