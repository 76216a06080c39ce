"""sgornn.eq34: the VPRNN map's Lipschitz constant, tight once h/2 ≥ k, and a case with too many sublayers that
breaks it."""

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.sgornn import eq34
from rnnaudit.bounds.sgornn.eq34 import PerturbationCase, eq34_supremum, routed_perturbation
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
    assert result.verdict == "false" and result.records[0].ratio == pytest.approx(2.0, rel=1e-4)
    assert result.records[0].failed_assumptions


@pytest.mark.parametrize("h, expected", [(2, 2**-0.5), (4, 2**-0.5), (8, (2 * 2**0.5 + 2) / 6), (16, 1.0),
                                         (32, 1.0)])
def test_routed_perturbation_approaches_the_supremum(h, expected):
    """Balanced split of the k columns over the h/2 rows: Σ_i √|S_i| / k."""
    assert eq34_supremum(h) == pytest.approx(expected)
    ratio = measure_case(eq34, routed_perturbation(h))[0]
    k = 2 * (h - 1).bit_length()
    assert expected * (1 - (k * 1e-3) ** 2 / 24 - 1e-12) <= ratio <= expected * (1 + 1e-12)


def test_the_projection_keeps_the_perturbation_above_rounding():
    case = routed_perturbation(16, scale=1e-9)
    eq34.cases.project(case)
    assert float(torch.linalg.matrix_norm(case.delta, ord=2)) == pytest.approx(1e-5)
