"""sgornn.eq34: the VPRNN map's Lipschitz constant, and a case with too many sublayers that breaks it."""

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.sgornn import eq34
from rnnaudit.bounds.sgornn.eq34 import PerturbationCase
from rnnaudit.cells import VPRNNRotations
from tests.bounds.helpers import TINY

F64 = torch.float64


def test_eq34_holds_for_vprnn_and_fails_with_too_many_sublayers():
    """h = 2 allows k = 2 sublayers; with 16 sublayers whose rotations all act on the one pair,
    ΔΘ = δ·1ᵀ moves U by ≈ 16δ while the bound is 2·‖ΔΘ‖₂ = 2·4δ: ratio ≈ 2."""
    assert check_claim(eq34, TINY, seed=0).verdict == "holds"
    phi = VPRNNRotations(2, 16, dtype=F64)
    phi.permutations.copy_(torch.arange(2).expand(16, 2))
    case = PerturbationCase(phi, torch.zeros(1, 16, dtype=F64), torch.full((1, 16), 1e-3, dtype=F64))
    result = evaluate_cases(eq34, [case])
    assert result.verdict == "violated" and result.records[0].ratio == pytest.approx(2.0, rel=1e-4)
    assert result.records[0].failed_assumptions
