"""nc_gru.sec5_3: ‖M‖₂ < 1 is not necessary for the Neumann series (ρ(M) < 1 is); the truncation error is
M^{p+1}(I + A^(k))^{-1} exactly."""

import math

import pytest
import torch

from rnnaudit.bounds import measure_case
from rnnaudit.bounds.nc_gru import sec5_3, sec5_3_corrected
from rnnaudit.bounds.nc_gru.sec5_3 import necessary_condition_start
from tests.bounds.nc_gru.cases import assert_holds_inside_assumptions, assert_violated_inside_assumptions


def test_sec5_3_printed_is_violated_inside_its_assumptions(tmp_path):
    assert_violated_inside_assumptions(sec5_3, [(3, 1), (4, 1)], tmp_path)


def test_sec5_3_corrected_holds(tmp_path):
    assert_holds_inside_assumptions(sec5_3_corrected, [(2, 1), (3, 1), (6, 2)], tmp_path)


@pytest.mark.parametrize("a", [3.0, 100.0])
def test_the_construction_has_rho_below_one_and_a_norm_of_s(a):
    """ρ(M) = s/√(1 + a²) = 0.99 and ‖M‖₂ = s = 0.99√(1 + a²) (1e-12): the ratio grows like a."""
    case = necessary_condition_start(3, a)
    assert all(x.check(case)[0] for x in sec5_3.assumptions)
    ratio, _ = measure_case(sec5_3, case)
    assert ratio == pytest.approx(0.99 * math.sqrt(1 + a * a), rel=1e-12)
    assert measure_case(sec5_3_corrected, case)[0] <= 1


def test_at_h_2_the_norm_condition_is_necessary():
    """At h = 2, M is normal (all skew 2×2 matrices commute), so ‖M‖₂ = ρ(M) < 1 on every case."""
    from rnnaudit.bounds.nc_gru.sec5_3 import sample_convergent_case
    gen = torch.Generator().manual_seed(0)
    for _ in range(10):
        assert measure_case(sec5_3, sample_convergent_case(gen, 2, 1))[0] <= 1 + 1e-9
