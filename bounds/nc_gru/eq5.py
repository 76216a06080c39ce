"""nc_gru.md, Sec. 2.2, eq. 5–6: scoRNN's gradient ∇_A L = Vᵀ − V of the scaled Cayley map (used by
Algorithm 1 lines 4–5), checked against autograd as an identity."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim
from rnnaudit.bounds.nc_gru.cases import spectral
from rnnaudit.bounds.nc_gru.eq2 import sample_cayley_case

__all__ = ["CayleyGradientCase", "sample_cayley_gradient_case", "cayley", "cayley_loss", "eq5", "eq5_gradient"]


@dataclass
class CayleyGradientCase:
    """A loss L(U) = ⟨Y, U⟩ + ‖tanh(U X)‖_F² of the scaled Cayley matrix U = (I + A)^{-1}(I − A)D.

    Attributes:
        A: skew (h, h). d: (h,) ±1. X: (h, m). Y: (h, h).
        parametrization: ``"skew"`` (A's free entries, A = Θ − Θᵀ: the gradient eq. 5 is about) or
            ``"full"`` (every entry of A independent: outside eq. 5's assumptions).
    """

    A: Tensor
    d: Tensor
    X: Tensor
    Y: Tensor
    parametrization: str = "skew"

    def size(self) -> tuple[int, int]:
        """(h, m): m, the number of columns of X, plays the role of T."""
        return self.A.shape[0], self.X.shape[1]


def sample_cayley_gradient_case(gen: torch.Generator, h: int, T: int, device="cpu",
                                dtype=torch.float64) -> CayleyGradientCase:
    """A case for eq. 5–6: skew A (scoRNN's initialisation, A = 0, or Gaussian with ‖A‖₂ log-uniform in
    [10⁻³, 10³], the large end making I + A badly conditioned), D with a random number of −1s (0 to h),
    X (h, T) and Y (h, h) standard normal.

    Args:
        gen: CPU torch.Generator. h: size ≥ 1. T: columns of X ≥ 1. device, dtype: of the case.
    """
    f64 = torch.float64
    cayley_case = sample_cayley_case(gen, h, T, dtype=f64)  # A and D drawn as eq. 2's cases draw them
    A, d = cayley_case.A, cayley_case.d
    X = torch.randn(h, T, generator=gen, dtype=f64)
    Y = torch.randn(h, h, generator=gen, dtype=f64)
    return CayleyGradientCase(*(t.to(device=device, dtype=dtype) for t in (A, d, X, Y)))


def cayley(A: Tensor, d: Tensor) -> Tensor:
    """U = (I + A)^{-1}(I − A)D of eq. 2, D = diag(d); (h, h)."""
    eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    return torch.linalg.solve(eye + A, eye - A) * d  # "* d" right-multiplies by D


def cayley_loss(case: CayleyGradientCase, U: Tensor) -> Tensor:
    """The case's loss L(U) = ⟨Y, U⟩ + ‖tanh(U X)‖_F², 0-d."""
    return (case.Y * U).sum() + torch.tanh(U @ case.X).pow(2).sum()


def eq5_gradient(A: Tensor, d: Tensor, G: Tensor, U: Tensor) -> Tensor:
    """∇_A L of eq. 5–6: Vᵀ − V with V = (I + A)^{-T} G (D + Uᵀ), G = ∇_U L; all (h, h), d (h,)."""
    eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    V = torch.linalg.solve((eye + A).mT, G @ (torch.diag(d) + U.mT))  # eq. 6
    return V.mT - V                                                    # eq. 5


def _measure_eq5(case: CayleyGradientCase, formula=eq5_gradient) -> dict[str, tuple[Tensor, Tensor]]:
    with torch.enable_grad():
        A = case.A.detach()
        if case.parametrization == "skew":
            theta = (A / 2).requires_grad_()  # A = Θ − Θᵀ; ∂L/∂Θ is the gradient over the free entries
            param, A_of = theta, theta - theta.mT
        else:
            param = A.clone().requires_grad_()
            A_of = param
        (auto,) = torch.autograd.grad(cayley_loss(case, cayley(A_of, case.d)), [param])
        U = cayley(A, case.d).detach().requires_grad_()
        (G,) = torch.autograd.grad(cayley_loss(case, U), [U])  # ∇_U L by standard backpropagation
    err = torch.linalg.matrix_norm(formula(A, case.d, G, U.detach()) - auto)
    return {"eq. 5–6 vs autograd: ‖(Vᵀ − V) − ∂L/∂A‖_F ≤ tol": (err, _eq5_tolerance(case, G),
                                                                 torch.linalg.matrix_norm(auto))}


def _eq5_tolerance(case: CayleyGradientCase, G: Tensor) -> Tensor:
    """64·h·u·κ·‖∇_U L‖_F with κ = 1 + ‖A‖₂ ≥ cond(I + A) for skew A (‖(I + A)^{-1}‖₂ ≤ 1): V and autograd's
    gradient each pass ∇_U L through one solve with I + A (relative forward error ≲ h·u·κ) and use U, itself a
    solve (error ≲ h·u·κ, and ‖D + Uᵀ‖₂ ≤ 2). Measured errors stay below 2 % of this for ‖A‖₂ up to 10⁴."""
    h = case.A.shape[0]
    kappa = 1 + spectral(case.A.detach())
    return 64 * h * torch.finfo(case.A.dtype).eps * kappa * torch.linalg.matrix_norm(G.detach())


A_EQ5_SKEW = Assumption("A skew-symmetric (eq. 2)", lambda c: (
    float((c.A + c.A.mT).abs().max()) <= 64 * torch.finfo(c.A.dtype).eps * max(1.0, float(c.A.abs().max())),
    f"max|A + Aᵀ| = {float((c.A + c.A.mT).abs().max()):.3g}"))
A_EQ5_PARAM = Assumption("∇_A L over the free entries of skew A (A = Θ − Θᵀ)", lambda c: (
    c.parametrization == "skew", f"parametrization = {c.parametrization}"))
A_EQ5_D = Assumption("D diagonal with entries ±1", lambda c: (
    bool(((c.d == 1) | (c.d == -1)).all()), f"d = {c.d.tolist()}"))

_EQ5_QUICK = [(2, 1), (3, 2), (4, 4), (8, 8), (16, 8), (64, 16)]

#: Random skew A, D, X, Y; nothing is free (an identity is checked on random cases only).
_CAYLEY_GRADIENTS = CaseSpace(case_type=CayleyGradientCase, sample=sample_cayley_gradient_case,
                              sizes={"quick": _EQ5_QUICK, "full": _EQ5_QUICK + [(128, 32), (256, 32)]})

eq5 = Claim(
    id="nc_gru.eq5",
    source="nc_gru.md, Sec. 2.2, eq. 5–6 (scoRNN's gradient, used by Algorithm 1 lines 4–5)",
    statement="∇_A L(U(A)) = Vᵀ − V with V = (I + A)^{-T} ∇_U L (D + Uᵀ), U = (I + A)^{-1}(I − A)D",
    assumptions=(A_EQ5_SKEW, A_EQ5_PARAM, A_EQ5_D),
    measure="‖(Vᵀ − V) − ∂L/∂Θ‖_F, ∂L/∂Θ by autograd through eq. 2 with A = Θ − Θᵀ, L(U) = ⟨Y, U⟩ + ‖tanh(UX)‖_F²",
    bound="64·h·u·(1 + ‖A‖₂)·‖∇_U L‖_F (float allowance of the solves with I + A)",
    evaluate=_measure_eq5,
    cases=_CAYLEY_GRADIENTS,
    explanation="Would mean eq. 5 is not the gradient with respect to the free entries of a skew A. (Autograd with "
                "every entry of A independent gives −V instead, G − Gᵀ = Vᵀ − V: another convention, not an error.)",
    notes="An identity: measured = the error, bound = a float allowance, no ascent. ∇_U L is linear in the loss, so "
          "one nonlinear L with random X, Y exercises the general formula.",
)
