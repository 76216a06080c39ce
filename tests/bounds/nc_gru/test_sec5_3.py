"""nc_gru.sec5_3: the Neumann condition recorded in the spectral norm holds as printed (ρ(M) ≤ ‖M‖₂, attained at
h = 2; the truncation error is M^{p+1}(I + A^(k))^{-1} exactly); the spectral norm is only sufficient (h ≥ 3)."""

import math

import pytest
import torch

from rnnaudit.bounds import measure_case
from rnnaudit.bounds.nc_gru import sec5_3
from rnnaudit.bounds.nc_gru.sec5_3 import necessary_condition_start, sample_convergent_case
from tests.bounds.helpers import TINY, assert_has_power, with_sizes
from tests.bounds.nc_gru.cases import assert_holds_inside_assumptions

RHO_PART = sec5_3.supremum.part


def test_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside_assumptions(sec5_3, [(2, 1), (3, 1), (6, 2)], tmp_path)


def test_has_power():
    """ρ(M) = ‖M‖₂ at h = 2, so the bound shrunk by 2 % is false there and the search must say so."""
    assert_has_power(with_sizes(sec5_3, [(2, 1)]), 1.02, TINY)


@pytest.mark.parametrize("a", [3.0, 100.0])
def test_the_spectral_norm_is_only_sufficient(a):
    """ρ(M) = s/√(1 + a²) = 0.99 while ‖M‖₂ = s = 0.99√(1 + a²) (1e-12): the series converges though ‖M‖₂ > 1."""
    case = necessary_condition_start(3, a)
    parts = sec5_3.evaluate(case)
    rho, norm = (float(t) for t in parts[RHO_PART][:2])
    assert rho == pytest.approx(0.99, rel=1e-12) and norm == pytest.approx(0.99 * math.sqrt(1 + a * a), rel=1e-12)
    assert measure_case(sec5_3, case)[0] <= 1


def test_at_h_2_the_norm_is_the_spectral_radius():
    """At h = 2, M is normal (all skew 2×2 matrices commute), so ρ(M) = ‖M‖₂: the ratio is 1 on every case."""
    gen = torch.Generator().manual_seed(0)
    for _ in range(10):
        rho, norm = sec5_3.evaluate(sample_convergent_case(gen, 2, 1))[RHO_PART][:2]
        assert float(rho) == pytest.approx(float(norm), rel=1e-12)
