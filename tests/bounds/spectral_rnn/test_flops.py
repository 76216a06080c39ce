"""The dispatch-level flop counter behind Table 1."""

import pytest
import torch

from rnnaudit.bounds.spectral_rnn.flops import FlopCounter, count_flops
from tests.bounds.spectral_rnn.cases import F64


def test_flop_counter_refuses_ops_without_a_rule():
    with pytest.raises(RuntimeError, match="no rule for aten.exp"):
        count_flops(torch.exp, torch.ones(3, dtype=F64))
    with FlopCounter() as fc:
        torch.ones(4, dtype=F64) @ torch.ones(4, dtype=F64)
    assert fc.flops == 7
