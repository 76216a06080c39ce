"""enrnn.eq4 (Sec. 3.1, eq. 4 and the paragraph after it): with Proposition 3.2 as printed (ε > 0) the step of
eq. 4 can point uphill — even at ε/ρ = 0.01 — while with the corrected gradient it is the steepest descent step;
and the naive step (descend on W^(S), then renormalise) can indeed increase L, as the paragraph says."""

import math

import torch

from rnnaudit.bounds import check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.enrnn import eq4, eq4_corrected
from rnnaudit.bounds.enrnn.eigen import (C_matrix, GradCase, S_matrix, autograd_gradient, formula_gradient,
                                         normalised_loss)
from rnnaudit.bounds.enrnn.eq4 import _starts, ascent_direction, descent_cosine
from tests.bounds.enrnn.cases import assert_holds_inside_its_assumptions, small
from tests.bounds.helpers import TINY, assert_reproducible_violation

F64 = torch.float64


def test_eq4_with_the_printed_gradient_is_violated_inside_its_assumptions(tmp_path):
    assert_reproducible_violation(small(eq4), TINY, tmp_path)


def test_printed_step_points_uphill_even_for_small_eps():
    """T = [[1, 5], [0, 0.5]], ε = 0.01ρ: the printed direction makes an angle > 170° with ∇_T L, so every small
    step of eq. 4 increases L; its first-order change is +ζ|⟨g, ∇L⟩|."""
    case = _starts(2, 1)[0]
    assert math.isclose(case.eps, 0.01, rel_tol=1e-12)
    assert float(descent_cosine(case, printed=True)) < -0.98
    g = formula_gradient(case.T, case.G, case.eps, inner="rho_tilde")
    zeta = 1e-7
    before, after = (float(normalised_loss(X, case.G, case.eps)) for X in (case.T, case.T - zeta * g))
    assert after > before
    assert evaluate_cases(eq4, [case]).records[0].failed_assumptions == []


def test_printed_direction_is_the_gradient_times_I_plus_c_w_over_rho():
    """The closed form behind the construction: g_printed = (I + c wᵀ/ρ)∇_T L with c = vec C, w = vec W."""
    T0 = torch.tensor([[1.2, 0.7, -0.4], [0.1, -0.5, 0.9], [0.3, 0.2, 0.6]], dtype=F64)
    G = torch.randn(3, 3, generator=torch.Generator().manual_seed(0), dtype=F64)
    eps = 0.3
    lam, S = S_matrix(T0)
    rho = float(lam.abs())
    c, w = C_matrix(lam, S).to(F64).flatten(), (T0 / (rho + eps)).flatten()
    g = autograd_gradient(T0, G, eps).flatten()
    printed = formula_gradient(T0, G, eps, inner="rho_tilde").flatten()
    assert torch.allclose(printed, g + (w @ g) / rho * c, rtol=1e-10, atol=1e-12)


def test_eq4_corrected_holds_and_sees_the_printed_formula(tmp_path):
    result = assert_holds_inside_its_assumptions(eq4_corrected, tmp_path)
    assert result.worst_ratio < 1e-10
    assert check_claim(small(eq4), TINY, seed=1).verdict == "misprinted"


def test_ascent_direction_is_unit_and_beats_random_directions():
    T0 = torch.tensor([[1.0, 5.0], [0.0, 0.5]], dtype=F64)
    G = ascent_direction(T0, 0.1)
    assert math.isclose(float(G.norm()), 1.0, rel_tol=1e-12)
    worst = measure_case(eq4, GradCase(T0, G, 0.1))[0]
    gen = torch.Generator().manual_seed(0)
    assert all(measure_case(eq4, GradCase(T0, torch.randn(2, 2, generator=gen, dtype=F64), 0.1))[0] <= worst
               for _ in range(20))


def test_naive_step_then_renormalise_can_increase_the_loss():
    """Sec. 3.1: 'a steepest descent step on W^(S) will reduce the loss function, but it may not be the case after
    W^(S) is re-normalized'. W = [[0.9, 6], [0, 0.2]]/1.0 (normalised, ε = 0), G = C + W direction: the first-order
    change of L(N(W − ζG)) with N(X) = X/ρ(X) is positive."""
    W = torch.tensor([[1.0, 6.0], [0.0, 0.2]], dtype=F64)
    lam, S = S_matrix(W)
    C = C_matrix(lam, S).to(F64)
    best = -math.inf
    for phi in torch.linspace(0, math.pi, 181, dtype=F64):
        G = torch.cos(phi) * C / C.norm() + torch.sin(phi) * W / W.norm()
        zeta = 1e-7

        def loss(X):
            return (G * (X / torch.linalg.eigvals(X).abs().max())).sum()

        change = float(loss(W - zeta * G) - loss(W)) / zeta
        best = max(best, change)
    assert best > 1e-3
