"""enrnn.md, Sec. 8.2 (proof of Proposition 3.2), a proof-step check, each step against autograd: the chain rule
(6), the derivative of r⁻¹ = 1/(ρ(T) + ε) (7), the derivative of the eigenvalue (8), and the two lines of the
final display that combines them. Steps 6–8 are right; the final display drops ε (its first line is
(1/ρ)∂L/∂W − ⟨∂L/∂W, T⟩C/ρ³, its second equals the first only for W = T/ρ), so it is neither the derivative
nor the Proposition's formula for ε > 0. The hypothesis eq. 7 needs beyond the stated ones is ``enrnn.eq7``."""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim
from rnnaudit.bounds.enrnn.eigen import (A_EPS_POSITIVE_G, A_SEPARATED_G, A_SIMPLE_G, GradCase, S_matrix,
                                         dominant_index, eigenvector_condition, normalised_loss, sample_grad_case)
from rnnaudit.bounds.enrnn.proposition3_2 import PROP32_RTOL
from rnnaudit.cells.linalg import eigvals

__all__ = ["proof3_2", "proof_step_parts"]


def _autograd_steps(c: GradCase) -> tuple[Tensor, Tensor, Tensor, Tensor, int]:
    """∂L/∂T, ∂(r⁻¹)/∂T, ∂α/∂T, ∂β/∂T by autograd through ``torch.linalg.eigvals`` and the index of λ."""
    T = c.T.detach().clone().requires_grad_(True)
    lam = eigvals(T)
    k = dominant_index(lam.detach())
    r_inv = 1 / (lam.abs().max() + c.eps)
    d_r = torch.autograd.grad(r_inv, T, retain_graph=True)[0]
    d_alpha = torch.autograd.grad(lam[k].real, T, retain_graph=True)[0]
    complex_pair = float(lam.detach()[k].imag) != 0
    d_beta = torch.autograd.grad(lam[k].imag, T, retain_graph=True)[0] if complex_pair else torch.zeros_like(T)
    d_L = torch.autograd.grad(normalised_loss(T, c.G.detach(), c.eps), T)[0]
    return d_L, d_r, d_alpha, d_beta, k


def proof_step_parts(c: GradCase, *, transpose_S: bool = False) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    """The three steps and the final display's two lines as identities ``(max |step − autograd|, tolerance,
    max |autograd|)``.

    ``transpose_S`` replaces S = v̄uᵀ/(v*u) by its transpose (the index slip a careless derivation of
    ∂λ/∂T_ij = v̄_i u_j/(v*u) makes); the tests use it to show the check sees a wrong formula.
    """
    T, G, eps = c.T.detach(), c.G.detach(), c.eps
    d_L, d_r, d_alpha, d_beta, k = _autograd_steps(c)
    lam, S = S_matrix(T, k)
    if transpose_S:
        S = S.mT
    re_S, im_S = S.real.to(T.dtype), S.imag.to(T.dtype)
    alpha, beta = float(lam.real), float(lam.imag)
    rho = float(lam.abs())
    rho_t = rho + eps
    step7 = -(alpha * re_S + beta * im_S) / (rho * rho_t**2)  # eq. 7 with eq. 8 inserted
    step6 = G / rho_t + (G * T).sum() * step7  # eq. 6 with eq. 7 inserted
    kappa = eigenvector_condition(T)

    def identity(formula: Tensor, truth: Tensor, terms: float) -> tuple[Tensor, Tensor, Tensor]:
        ref = truth.abs().max()
        return (formula - truth).abs().max(), PROP32_RTOL * kappa * torch.clamp(ref, min=terms), ref

    s_max = float(S.abs().max())
    C = alpha * re_S + beta * im_S
    first = G / rho - (G * T).sum() * C / rho**3
    second = (G - (G * (T / rho_t)).sum() / rho * C) / rho
    g_terms = float(G.abs().max()) / rho_t + float(((G * T).sum() * step7).abs().max())
    return {
        "eq. (8): ∂α/∂T = Re S, ∂β/∂T = Im S": max(
            (identity(re_S, d_alpha, s_max), identity(im_S, d_beta, s_max)), key=lambda p: float(p[0] / p[1])),
        "eq. (7): ∂(r⁻¹)/∂T = −(α ∂α/∂T + β ∂β/∂T)/(ρ(T)(ρ(T) + ε)²)": identity(step7, d_r, float(step7.abs().max())),
        "eq. (6): ∂L/∂T = (1/(ρ + ε)) ∂L/∂W + 1ᵀ(∂L/∂W ⊙ T)1 ∂(r⁻¹)/∂T": identity(
            step6, d_L, g_terms),
        "final display, first line: (1/ρ)∂L/∂W − (1/ρ³) Σ_kl ∂L/∂W_kl T_kl C = ∂L/∂T": identity(first, d_L, g_terms),
        "final display, second line: (1/ρ)[∂L/∂W − (1/ρ) 1ᵀ(∂L/∂W ⊙ W)1 C] = ∂L/∂T": identity(second, d_L, g_terms),
    }


_PROOF32_CASES = CaseSpace(case_type=GradCase, sample=sample_grad_case,
                           sizes={"quick": [(1, 1), (2, 1), (3, 1), (5, 1), (8, 1)],
                                  "full": [(1, 1), (2, 1), (3, 1), (5, 1), (8, 1), (16, 1), (32, 1)]})

proof3_2 = Claim(
    id="enrnn.proof3.2",
    source="enrnn.md, Sec. 8.2 (proof of Proposition 3.2), eq. 6–8",
    statement="∂L/∂T_ij = Σ_kl ∂L/∂W_kl (δ/(ρ + ε) + T_kl ∂(r⁻¹)/∂T_ij) (6); ∂(r⁻¹)/∂T_ij = −(α ∂α/∂T_ij + "
              "β ∂β/∂T_ij)/(ρ(ρ + ε)²) (7); ∂λ/∂T = v̄uᵀ/(v*u) = S, so ∂α/∂T = Re S, ∂β/∂T = Im S (8); combining, "
              "∂L/∂T_ij = (1/ρ)∂L/∂W_ij − (1/(ρρ²)) Σ_kl ∂L/∂W_kl T_kl C_ij = (1/ρ)[∂L/∂W_ij − (1/ρ) "
              "1ᵀ(∂L/∂W ⊙ W)1 C_ij]",
    assumptions=(A_EPS_POSITIVE_G, A_SIMPLE_G, A_SEPARATED_G),
    measure="each step with the following ones inserted, against autograd through torch.linalg.eigvals "
            "(∂L/∂T, ∂(1/(ρ + ε))/∂T, ∂Re λ/∂T, ∂Im λ/∂T); L = ⟨G, W⟩",
    bound="PROP32_RTOL·κ₂(V)·scale (scale: the largest entry of the truth or of the step's terms)",
    evaluate=proof_step_parts,
    cases=_PROOF32_CASES,
    explanation="Steps 6–8 are right; combining them gives (1/ρ̃)∂L/∂W − ⟨∂L/∂W, T⟩C/(ρρ̃²) = (1/ρ̃)[∂L/∂W − (1/ρ)"
                "1ᵀ(∂L/∂W ⊙ W)1 C], but the final display writes ρ for ρ̃ in both places of its first line, and its "
                "second line equals the first only if W = T/ρ. For ε > 0 neither line is ∂L/∂T, and neither is the "
                "Proposition's statement (inner and outer 1/ρ̃). The right combination is "
                "enrnn.proposition3.2.corrected.",
    notes="Steps 6–8 hold under the Proposition's hypotheses plus the one eq. 7 silently needs (λ, λ̄ the only "
          "eigenvalues of modulus ρ(T); without it the step fails: enrnn.eq7). L = ⟨G, W⟩ with G Gaussian: the "
          "formulas depend on L only through G = ∂L/∂W. With ε = 0 both lines of the display are right.",
)
