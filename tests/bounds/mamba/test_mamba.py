"""mamba: Theorem 1 holds exactly under eq. 4's ZOH, is false under the released kernels' B̄ = ΔB (the Reading),
and its assumptions (N = 1, A = −1) are checked."""

import torch

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.mamba import theorem1
from rnnaudit.bounds.mamba.theorem1 import sample_theorem1
from tests.bounds.helpers import TINY


def test_mamba_theorem1_holds_under_zoh_and_is_proved():
    result = check_claim(theorem1, TINY)
    assert result.verdict == "holds" and result.errors == []
    assert theorem1.exact().verdict == "proved"


def test_mamba_theorem1_reading_with_euler_b_bar_is_false():
    result = check_claim(theorem1, TINY)
    (reading,) = result.readings
    assert reading.verdict == "false" and reading.worst_ratio > 1e6
    assert theorem1.readings[0].exact().verdict == "violated"


def test_mamba_theorem1_smallest_counterexample_of_the_reading_is_z0_x1():
    """z = 0, x = 1, h_0 = 0: ZOH gives h_1 = σ(0) = 1/2, B̄ = ΔB gives softplus(0) = log 2."""
    case = sample_theorem1(torch.Generator().manual_seed(0), 1, 1)
    with torch.no_grad():
        case.cell.x_proj.zero_()
        case.cell.dt_proj_bias.zero_()
        case.x.fill_(1.0)
    ssm_zoh = theorem1.evaluate(case)
    ssm_euler = theorem1.readings[0].evaluate(case)
    (err_zoh, *_), = ssm_zoh.values()
    (err_euler, *_), = ssm_euler.values()
    assert float(err_zoh) <= 1e-16
    assert abs(float(err_euler) - (torch.log(torch.tensor(2.0, dtype=torch.float64)) - 0.5)) <= 1e-15


def test_mamba_theorem1_assumption_a_minus_one_fails_on_a_default_cell():
    case = sample_theorem1(torch.Generator().manual_seed(1), 2, 3)
    with torch.no_grad():
        case.cell.A_log.fill_(0.5)
    holds, detail = theorem1.assumptions[1].check(case)
    assert not holds and "A + 1" in detail
    ratio, _ = measure_case(theorem1, case)
    assert ratio > 1
