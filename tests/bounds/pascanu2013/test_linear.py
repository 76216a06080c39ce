"""pascanu2013.linear: the linear model's spectral-radius statement (ρ(W_rec) < 1: the long-term components vanish as
t → ∞; ρ = 1: they grow at most polynomially; ρ > 1: the dominant one grows as ρ^t), checked through the Lyapunov
certificate ‖W^t‖₂ ≤ √κ(P)(1 − 1/λ_max(P))^(t/2) and the Schur polynomial Σ_{j<n} C(t, j) ‖N‖₂^j."""

import pytest
import torch

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.pascanu2013 import linear
from rnnaudit.bounds.pascanu2013.linear import POLYNOMIAL, LinearCase, lyapunov_certificate, polynomial_bound
from tests.bounds.helpers import TINY, assert_has_power


def test_pascanu2013_linear_holds_and_is_attained_by_a_scalar():
    result = check_claim(linear, TINY)
    assert result.verdict == "holds" and result.errors == []
    assert max(r.ratio for r in result.records) == pytest.approx(1.0, abs=1e-9)  # W = 0.99 and W = 1.01, h = 1


def test_pascanu2013_linear_has_power():
    assert_has_power(linear, 1.05)


def test_pascanu2013_linear_certificate_decays_through_a_transient():
    """A Jordan-like W with ρ = 0.99 grows to ‖W^t‖₂ ≈ 37 before it decays; the certificate covers every t and → 0."""
    W = 0.99 * torch.eye(2, dtype=torch.float64) + torch.tensor([[0.0, 1.0], [0.0, 0.0]], dtype=torch.float64)
    ratio, _ = measure_case(linear, LinearCase(W, 400))
    assert ratio <= 1
    root_kappa, q = lyapunov_certificate(W)
    assert q < 1 and root_kappa * q ** (10**7 / 2) < 1e-3  # the bound itself vanishes (slowly: λ_max(P) ≈ 2.5e5)


def test_pascanu2013_linear_has_no_certificate_at_rho_one_and_the_growth_part_fails_without_rho_above_one():
    """The negative controls: ρ(W) = 1 has no Lyapunov certificate (P − WᵀPW = I has no positive solution), and a
    growth bound ρ^t ≤ ‖W^t‖₂ claimed with a larger ρ than W's fails."""
    with pytest.raises(ValueError, match="no Lyapunov certificate"):
        lyapunov_certificate(torch.eye(2, dtype=torch.float64))
    parts = linear.evaluate(LinearCase(1.2 * torch.eye(2, dtype=torch.float64), 10))
    m, b = parts["ρ > 1: ρ^t ≤ ‖W^t‖₂ (the dominant component grows)"]
    assert float(m) == pytest.approx(float(b))  # W = 1.2·I: equality, and any larger ρ would exceed ‖W^t‖₂
    assert float(m) * 1.01 > float(b)


def test_pascanu2013_linear_grows_only_polynomially_at_rho_one():
    """At ρ = 1 the Jordan block [[1, 1], [0, 1]] has ‖W^t‖₂ = (t + √(t² + 4))/2: 10.1, 100, 1000 at t = 10, 100, 1000,
    unbounded but below the Schur polynomial 1 + t, so ‖W^t‖₂^(1/t) → 1 (no explosion); a 3 × 3 block stays below
    its quadratic."""
    J = torch.tensor([[1.0, 1.0], [0.0, 1.0]], dtype=torch.float64)
    assert measure_case(linear, LinearCase(J, 1000))[0] <= 1
    m, b = linear.evaluate(LinearCase(J, 1000))[POLYNOMIAL]
    assert float(m) == pytest.approx(1000.001, rel=1e-6) and float(b) == pytest.approx(1001, rel=1e-9)
    assert float(m) ** (1 / 1000) < 1.007
    J3 = torch.eye(3, dtype=torch.float64) + torch.diag(torch.ones(2, dtype=torch.float64), 1)
    assert measure_case(linear, LinearCase(J3, 200))[0] <= 1


def test_pascanu2013_linear_polynomial_bound_is_broken_by_exponential_growth():
    """The negative control of the ρ = 1 part: the polynomial bound with ρ = 1 put in is exceeded by a W with ρ = 1.05
    (‖W^30‖₂ = 130 against 32.5), and the part itself fails with its bound halved on the Jordan start (ratio → 1)."""
    W = 1.05 * torch.tensor([[1.0, 1.0], [0.0, 1.0]], dtype=torch.float64)
    grown = float(torch.linalg.matrix_norm(torch.linalg.matrix_power(W, 30), ord=2))
    assert grown > 3 * float(polynomial_bound(W, 30, rho=1.0)[-1])
    J = torch.tensor([[1.0, 1.0], [0.0, 1.0]], dtype=torch.float64)
    m, b = linear.evaluate(LinearCase(J, 30))[POLYNOMIAL]
    assert float(m) > float(b) / 2
