"""nc_gru.alg1_skew: SGD, RMSprop, Adam and their variants keep A exactly skew under Algorithm 1's gradient."""

import pytest
import torch

from rnnaudit.bounds.nc_gru import alg1_skew
from rnnaudit.bounds.nc_gru.alg1_skew import OPTIMIZERS, OptimizerRunCase, run_optimizer
from rnnaudit.cells import scornn_skew_init
from tests.bounds.nc_gru.cases import assert_holds_inside_assumptions


def test_alg1_skew_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside_assumptions(alg1_skew, [(2, 1), (5, 4)], tmp_path)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_every_optimizer_keeps_A_skew_bit_for_bit(name):
    gen = torch.Generator().manual_seed(0)
    case = OptimizerRunCase(scornn_skew_init(5, generator=gen, dtype=torch.float64),
                            torch.randn(12, 5, 5, generator=gen, dtype=torch.float64), name, 1e-2)
    for A in run_optimizer(case):
        assert float((A + A.mT).abs().max()) == 0.0


def test_unknown_optimizer_is_rejected():
    case = OptimizerRunCase(torch.zeros(2, 2, dtype=torch.float64), torch.zeros(1, 2, 2, dtype=torch.float64), "LBFGS",
                            1e-2)
    with pytest.raises(ValueError, match="optimizer must be one of"):
        run_optimizer(case)
