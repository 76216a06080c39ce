"""enrnn.md, Sec. 3.1, eq. 4 and the paragraph after it: the update T_k ← T_{k−1} − ζ ∂L/∂T_{k−1} with ∂L/∂T
of Proposition 3.2 "takes a gradient descent step on T, which decreases the loss function with the new W".

With the Proposition as printed (inner factor 1/ρ̃, ε > 0) the step is not always a descent step: writing
g = ∇_T L and g_p for the printed formula, g_p = (I + c wᵀ/ρ) g with c = vec C, w = vec W (both formulas
are rank-one corrections of ∂L/∂W/ρ̃; eliminate ∂L/∂W), so ⟨g_p, g⟩ < 0 for some ∂L/∂W as soon as
‖W‖_F ‖C‖_F > 2ρ + ρ²/ρ̃, whatever ε > 0. The corrected gradient is ∇_T L itself.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, Reading
from rnnaudit.bounds.enrnn.eigen import (A_EPS_POSITIVE_G, A_SEPARATED_G, A_SIMPLE_G, C_matrix, GradCase, S_matrix,
                                         autograd_gradient, formula_gradient, sample_grad_case)
from rnnaudit.cells.linalg import eigvals

__all__ = ["eq4", "eq4_corrected", "ascent_direction", "descent_cosine"]


def descent_cosine(c: GradCase, *, printed: bool) -> Tensor:
    """cos(g_formula, ∇_T L), g_formula from Proposition 3.2 as printed (``printed``) or with the chain rule's
    inner 1/ρ; ∇_T L by autograd. Differentiable in ``c.G``."""
    g = formula_gradient(c.T.detach(), c.G, c.eps, inner="rho_tilde" if printed else "rho")
    truth = autograd_gradient(c.T, c.G, c.eps)
    return (g * truth).sum() / (torch.linalg.matrix_norm(g) * torch.linalg.matrix_norm(truth))


def _measure(c: GradCase, *, printed: bool) -> dict[str, tuple[Tensor, Tensor]]:
    name = "printed" if printed else "corrected"
    one = c.T.new_ones(())
    return {f"eq. (4) with Prop. 3.2 {name} is a descent direction: 1 − cos(g, ∇_T L) < 1":
            (1 - descent_cosine(c, printed=printed), one)}


def ascent_direction(T: Tensor, eps: float, *, grid: int = 721) -> Tensor:
    """The ∂L/∂W = G whose printed-formula step is the least aligned with ∇_T L: g = ∇_T L ranges over span{c, w}
    (an angle grid; components outside only add ‖g‖² and raise the cosine), g_p = (I + c wᵀ/ρ) g, and
    G = A⁻¹ g = ρ̃ (g + c (wᵀg) ρ̃/(ρ ε)) (Sherman–Morrison on A = (I − c wᵀ/ρ)/ρ̃). (m, m), unit Frobenius norm."""
    lam, S = S_matrix(T)
    rho = float(lam.abs())
    rho_t = rho + eps
    c = C_matrix(lam, S).to(T.dtype).flatten()
    w = (T / rho_t).flatten()
    e1 = c / c.norm()
    w_perp = w - (w @ e1) * e1
    e2 = w_perp / w_perp.norm() if float(w_perp.norm()) > 0 else torch.zeros_like(e1)
    phi = torch.linspace(0, math.pi, grid, dtype=T.dtype, device=T.device)[:-1]
    g = torch.cos(phi)[:, None] * e1 + torch.sin(phi)[:, None] * e2
    gp = g + (g @ w)[:, None] * c / rho
    cos = (g * gp).sum(1) / (g.norm(dim=1) * gp.norm(dim=1))
    best = g[int(cos.argmin())]
    G = rho_t * (best + c * (w @ best) * rho_t / (rho * eps))
    return (G / G.norm()).reshape(T.shape)


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[GradCase]:
    """Non-normal T = [[1, 5], [0, 0.5]] ⊕ 0.3 I (‖W‖_F‖C‖_F ≈ 50 > 3ρ) and a strongly non-normal 3×3, at
    ε/ρ = 0.01 and 0.5, with the G of :func:`ascent_direction`."""
    if h < 2:
        return []
    mats = [torch.block_diag(torch.tensor([[1.0, 5.0], [0.0, 0.5]], dtype=torch.float64),
                             0.3 * torch.eye(h - 2, dtype=torch.float64))]
    if h >= 3:
        mats.append(torch.block_diag(torch.tensor([[1.5, 4.0, -3.0], [0.0, -0.8, 6.0], [0.0, 0.0, 0.4]],
                                                  dtype=torch.float64), 0.3 * torch.eye(h - 3, dtype=torch.float64)))
    cases = []
    for T0 in mats:
        rho = float(eigvals(T0).abs().max())
        for eps in (0.01 * rho, 0.5 * rho):
            cases.append(GradCase(T0.to(device=device, dtype=dtype),
                                  ascent_direction(T0, eps).to(device=device, dtype=dtype), eps))
    return cases


def _free(c: GradCase) -> list[Tensor]:
    return [c.G]


_EQ4_CASES = CaseSpace(case_type=GradCase, sample=sample_grad_case, free=_free, starts=_starts,
                       sizes={"quick": [(1, 1), (2, 1), (3, 1), (5, 1)],
                              "full": [(1, 1), (2, 1), (3, 1), (5, 1), (8, 1), (16, 1)]})

eq4 = Claim(
    id="enrnn.eq4",
    source="enrnn.md, Sec. 3.1, eq. 4 and the paragraph after it, with Proposition 3.2 as printed",
    statement="T_k ← T_{k−1} − ζ ∂L/∂T_{k−1} (∂L/∂T from Proposition 3.2, ε > 0) 'takes a gradient descent step "
              "on T, which decreases the loss function with the new W'",
    assumptions=(A_EPS_POSITIVE_G, A_SIMPLE_G, A_SEPARATED_G),
    measure="1 − cos(g_printed, ∇_T L), ∇_T L by autograd through torch.linalg.eigvals of L = ⟨G, T/(ρ(T) + ε)⟩ "
            "(the first-order change of L along −g is −ζ⟨g, ∇_T L⟩)",
    bound="1 (a descent direction ⟺ cos > 0)",
    evaluate=lambda c: _measure(c, printed=True),
    cases=_EQ4_CASES,
    explanation="With the printed inner factor 1/ρ̃ the step direction is g_p = (I + c wᵀ/ρ)∇_T L (c = vec C, "
                "w = vec W), whose angle with ∇_T L exceeds 90° for some ∂L/∂W whenever ‖W‖_F‖C‖_F > 2ρ + ρ²/ρ̃ "
                "(the least eigenvalue of the symmetric part of c wᵀ/ρ is (wᵀc − ‖w‖‖c‖)/(2ρ) and wᵀc = ρ²/ρ̃): then "
                "every small step of eq. 4 increases L. It needs ∂L/∂W close to the direction where ∇_T L is small "
                "(of order ε/ρ̃ of ‖∂L/∂W‖), so it is rare for small ε, but no ε > 0 excludes it. With the "
                "corrected inner 1/ρ (enrnn.eq4.corrected) the step is −ζ∇_T L.",
    notes="L = ⟨G, W⟩: eq. 4 depends on L only through ∂L/∂W = G. The structured starts take G from the closed form "
          "(ascent_direction) at ε/ρ = 0.01 and 0.5; the ascent moves G. The paragraph's other sentence, that the "
          "naive step (descend on W^(S), then renormalise) may not decrease L, is confirmed by a case in "
          "tests/bounds/enrnn/test_eq4.py. The failure needs ε > 0 (it is Proposition 3.2's, enrnn.proposition3.2); "
          "the experiments' ε = 0 (Sec. 5) is unaffected.",
    readings=(Reading("∂L/∂T with the inner factor 1/ρ the proof derives",
                      "eq. 4 with ∂L/∂T = (1/ρ̃)[∂L/∂W − (1/ρ) 1ᵀ(∂L/∂W ⊙ W)1 C] is a descent step on L(W(T))",
                      "Proposition 3.2's proof, eq. 6–8 (Sec. 8.2), gives the inner factor 1/ρ "
                      "(enrnn.proposition3.2's reading); eq. 4 takes 'the gradient' the proposition states",
                      lambda c: _measure(c, printed=False)),),
)

eq4_corrected = Claim(
    id="enrnn.eq4.corrected",
    source="enrnn.md, Sec. 3.1, eq. 4 with Proposition 3.2 corrected (inner 1/ρ; rnnaudit)",
    statement="With ∂L/∂T = (1/ρ̃)[∂L/∂W − (1/ρ) 1ᵀ(∂L/∂W ⊙ W)1 C], eq. 4 is a steepest descent step on L(W(T))",
    assumptions=(A_EPS_POSITIVE_G, A_SIMPLE_G, A_SEPARATED_G),
    measure="1 − cos(g_corrected, ∇_T L)",
    bound="1",
    evaluate=lambda c: _measure(c, printed=False),
    cases=_EQ4_CASES,
    explanation="Would mean the corrected formula is not the gradient (see enrnn.proposition3.2.corrected).",
    notes="Its ratio is 1 − cos ≈ 1e-15: the corrected formula is ∇_T L.",
)
