"""min_rnn: minGRU/minLSTM states stay in the running [min, max] of h_0 and the candidates, and their Jacobian
through time is the product of the diagonal transitions with norm < 1 (rnnaudit's derivations); both checks fail on
an extrapolating gate."""

import pytest
import torch

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.cell_case import CellCase
from rnnaudit.bounds.min_rnn import bounded, jacobian
from rnnaudit.cells import MinGRU
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes


class ExtrapolatingMinGRU(MinGRU):
    """A minGRU whose gate runs in (0, 2): h_t = (1 − z)h + z h̃ extrapolates past h̃ (not a minGRU)."""

    def gates(self, x_t):
        z, cand = super().gates(x_t)
        return 2 * z, cand

    def step(self, x_t, h):
        z, cand = self.gates(x_t)
        return (1 - z) * h + z * cand


def _extrapolating_case():
    cell = ExtrapolatingMinGRU(3, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    with torch.no_grad():
        cell.b[4:].fill_(2.0)
    x = torch.randn(1, 8, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    return CellCase(cell, x, torch.zeros(4, dtype=torch.float64))


@pytest.mark.parametrize("claim", [bounded, jacobian], ids=lambda c: c.id)
def test_min_rnn_claims_hold(claim):
    result = check_claim(claim, TINY)
    assert result.verdict == "holds" and result.errors == []


def test_min_rnn_bounded_has_power_and_is_attained():
    assert_has_power(with_sizes(bounded, [(2, 5)]), 1.05)
    assert_reaches_supremum(bounded)


def test_min_rnn_bounded_fails_on_an_extrapolating_gate():
    case = _extrapolating_case()
    holds, detail = bounded.assumptions[0].check(case)
    assert not holds and "weight" in detail
    assert measure_case(bounded, case)[0] > 1


class NegativeGateMinGRU(MinGRU):
    """A minGRU whose gate is −z: h_t = (1 + z)h − z h̃, a transition 1 + z > 1 (not a minGRU)."""

    def gates(self, x_t):
        z, cand = super().gates(x_t)
        return -z, cand


class MixingMinGRU(MinGRU):
    """A minGRU plus 0.3·(h rolled by one unit): its step Jacobian has off-diagonal entries (not a minGRU)."""

    def step(self, x_t, h):
        return super().step(x_t, h) + 0.3 * torch.roll(h, 1, dims=-1)


@pytest.mark.parametrize("cls, part", [(NegativeGateMinGRU, "‖∂h_t/∂h_s‖₂ < 1 (s < t)"),
                                       (MixingMinGRU, "∂h_t/∂h_(t−1) is diagonal")])
def test_min_rnn_jacobian_fails_where_the_gate_leaves_0_1_or_h_mixes(cls, part):
    cell = cls(3, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    x = torch.randn(1, 8, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    m, b, *_ = jacobian.evaluate(CellCase(cell, x, torch.zeros(4, dtype=torch.float64)))[part]
    assert float(m) > float(b)
