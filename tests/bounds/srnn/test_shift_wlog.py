"""srnn.shift_wlog: a single d_h-cycle is the shift relabelled (and only a single cycle is, sympy at d_h ≤ 4); the
check catches a wrong relabeling; the notes' separation (the shift computes x_1 − x_2, W_p = I cannot) as stated."""

import dataclasses

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.srnn import shift_wlog
from rnnaudit.bounds.srnn.shift_wlog import measure_relabeling, relabeling, sample_cycle_case
from rnnaudit.cells import SRNN, shift
from tests.bounds.helpers import TINY, with_sizes
from tests.bounds.srnn.cases import assert_exact_agrees, with_evaluate

SIZES = [(1, 2), (2, 2), (4, 3), (7, 4)]


def test_shift_wlog_holds_on_single_cycles_and_sympy_proves_only_they_are_relabelings():
    result = check_claim(with_sizes(shift_wlog, SIZES), TINY, seed=2)
    assert result.verdict == "holds" and result.errors == []
    assert_exact_agrees(result)
    assert "18 of the 24" in result.exact.detail


def test_shift_wlog_catches_the_inverse_relabeling():
    """Q⁻¹ in place of Q (the map read the wrong way round) conjugates W_p into the reversed shift: caught from
    d_h = 3."""
    def inverse(perm):
        q = relabeling(perm)
        out = torch.empty_like(q)
        out[q] = torch.arange(q.numel())
        return out
    case = sample_cycle_case(torch.Generator().manual_seed(2), 5, 3)
    assert not torch.equal(inverse(case.perm), relabeling(case.perm))  # (for some cycles Q is an involution)
    wrong = with_evaluate(shift_wlog, lambda c: measure_relabeling(c, inverse))
    assert evaluate_cases(wrong, [case]).verdict == "false"
    assert evaluate_cases(shift_wlog, [case]).verdict == "holds"


def test_identity_permutation_is_outside_the_claim():
    """W_p = I (two cycles at d_h = 2) has no relabeling onto the shift: it fails the claim's assumption, so the claim
    says nothing about it (and gives no violation)."""
    case = dataclasses.replace(sample_cycle_case(torch.Generator().manual_seed(0), 2, 2), perm=torch.tensor([0, 1]))
    with pytest.raises(ValueError, match="one d_h-cycle"):
        relabeling(case.perm)
    assert not all(a.check(case)[0] for a in shift_wlog.assumptions)


def _two_step(W_p, cell: SRNN, x: torch.Tensor) -> torch.Tensor:
    """h_2 of eq. 3 from h_0 = 0 with the given permutation map, x (batch, 2, 1)."""
    bx = cell.b(x)
    h = torch.relu(bx[:, 0])
    return torch.relu(W_p(h) + bx[:, 1])


def test_notes_the_shift_computes_x1_minus_x2_exactly():
    """f_r(x) = (x, 0), gate weight and bias 0: b(x) = (x/2, 0), h_2 = (x_2/2, x_1/2), 2(h_{2,2} − h_{2,1}) = x_1 − x_2
    on [0, 1]² (exact: halving and sigmoid(0) = 1/2 are exact in float64)."""
    cell = SRNN(1, 2, fr_hidden=(), gating=True, activation="relu", dtype=torch.float64)
    with torch.no_grad():
        cell.b.f_r[0].weight.copy_(torch.tensor([[1.0], [0.0]]))
        cell.b.f_r[0].bias.zero_()
        cell.b.gate.weight.zero_()
        cell.b.gate.bias.zero_()
    x = torch.rand(500, 2, 1, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    h2 = _two_step(shift, cell, x)
    assert torch.equal(2 * (h2[:, 1] - h2[:, 0]), x[:, 0, 0] - x[:, 1, 0])


def test_notes_identity_permutation_is_symmetric_where_b_keeps_its_sign():
    """W_p = I: each unit's ReLU(ReLU(b_r(x_1)) + b_r(x_2)) is unchanged by swapping x_1, x_2 whenever b_r(x_1) and
    b_r(x_2) share a sign — so no readout gives x_1 − x_2 on an interval where b keeps its sign."""
    gen = torch.Generator().manual_seed(0)
    checked = 0
    for _ in range(20):
        cell = SRNN(1, 2, fr_hidden=(8, 8), gating=True, activation="relu", generator=gen, dtype=torch.float64)
        x = torch.rand(2000, 2, 1, generator=gen, dtype=torch.float64)
        with torch.no_grad():
            same = (cell.b(x)[:, 0] * cell.b(x)[:, 1] >= 0)  # (batch, d_h): b_r(x_1) b_r(x_2) ≥ 0
            h = _two_step(lambda v: v, cell, x)
            h_swapped = _two_step(lambda v: v, cell, x.flip(1))
        assert torch.equal(h[same], h_swapped[same])
        checked += int(same.sum())
    assert checked > 1000
