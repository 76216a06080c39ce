"""pascanu2013, Sec. 2.1, the linear model (σ the identity, so ∂x_t/∂x_k = W_rec^(t−k)): 'it is sufficient for
ρ < 1, where ρ is the spectral radius of W_rec, for long term components to vanish (as t → ∞) and necessary for
ρ > 1 for them to explode' (paraphrase: the statement's own wording was not readable here; see pascanu2013's
module docstring for what was read).

This is the spectral-radius statement, about the limit t → ∞; ``pascanu2013.vanishing`` checks the nonlinear
statement with λ₁ the largest singular value, a bound at every t. A limit is checked through a certificate that
holds at every t and goes to 0:

* ρ(W) < 1: the discrete Lyapunov equation P − WᵀPW = I has a solution P = Σ_k (Wᵀ)^k W^k ⪰ I, and
  V(x) = xᵀPx falls by ‖x‖² ≥ V(x)/λ_max(P) a step, so

      ‖W^t‖₂ ≤ √κ(P) · (1 − 1/λ_max(P))^(t/2) → 0        (κ(P) = λ_max(P)/λ_min(P)).

  That the certificate exists for every ρ < 1, however non-normal W is, is the statement; that ‖W^t‖₂ stays
  below it at every t is what is measured (a W with ρ ≥ 1 has no such P: the negative control).
* ρ(W) > 1: the component along the dominant eigenvector grows as ρ^t, since ‖W^t‖₂ ≥ ρ(W^t) = ρ^t, so ρ > 1 is
  what lets a component explode; with ρ < 1 the first part excludes it, and at ρ = 1 ‖W^t‖₂ grows at most
  polynomially (the Jordan form), never exponentially: ρ > 1 is necessary for exponential growth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy
import scipy.linalg
import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, worst_pair
from rnnaudit.bounds.pascanu2013.cases import draw

__all__ = ["LinearCase", "linear", "lyapunov_certificate", "sample_linear"]


@dataclass
class LinearCase:
    """A linear recurrence x_t = W x_(t−1): ``W`` (h, h) float64, checked over t = 1..T."""

    W: Tensor
    T: int

    def size(self) -> tuple[int, int]:
        return self.W.shape[0], self.T


def _radius(W: Tensor) -> float:
    return float(torch.linalg.eigvals(W.detach()).abs().max())


def lyapunov_certificate(W: Tensor) -> tuple[float, float]:
    """(√κ(P), 1 − 1/λ_max(P)) for P solving P − WᵀPW = I (scipy.linalg.solve_discrete_lyapunov), so that
    ‖W^t‖₂ ≤ √κ(P)·(1 − 1/λ_max(P))^(t/2).

    Raises:
        ValueError: P is not positive definite (ρ(W) ≥ 1, where no such certificate exists).
    """
    A = W.detach().cpu().double().numpy()
    try:
        P = scipy.linalg.solve_discrete_lyapunov(A.T, numpy.eye(A.shape[0]))
    except numpy.linalg.LinAlgError:  # an eigenvalue pair with λμ = 1 (e.g. on the unit circle): no unique P
        raise ValueError(f"no Lyapunov certificate: P − WᵀPW = I is singular (ρ = {_radius(W):.6g})") from None
    eig = scipy.linalg.eigvalsh((P + P.T) / 2)
    if not numpy.all(numpy.isfinite(eig)) or eig[0] <= 0:
        raise ValueError(f"no Lyapunov certificate: P − WᵀPW = I has no positive definite solution (ρ = {_radius(W):.6g})")
    return float((eig[-1] / eig[0]) ** 0.5), float(1 - 1 / eig[-1])


def _powers(W: Tensor, T: int) -> Tensor:
    out, M = [], torch.eye(W.shape[0], dtype=W.dtype, device=W.device)
    for _ in range(T):
        M = W @ M
        out.append(torch.linalg.matrix_norm(M, ord=2))
    return torch.stack(out)


def _measure(case: LinearCase) -> dict[str, tuple[Tensor, Tensor]]:
    W, T = case.W, case.T
    norms = _powers(W, T)
    t = torch.arange(1, T + 1, dtype=W.dtype, device=W.device)
    rho = _radius(W)
    zero = (W.new_zeros(()), W.new_ones(()))
    if rho < 1:
        root_kappa, q = lyapunov_certificate(W)
        vanish = worst_pair(norms, root_kappa * q ** (t / 2))
        return {"ρ < 1: ‖W^t‖₂ ≤ √κ(P)(1 − 1/λ_max(P))^(t/2) → 0": vanish,
                "ρ > 1: ρ^t ≤ ‖W^t‖₂ (the dominant component grows)": zero}
    return {"ρ < 1: ‖W^t‖₂ ≤ √κ(P)(1 − 1/λ_max(P))^(t/2) → 0": zero,
            "ρ > 1: ρ^t ≤ ‖W^t‖₂ (the dominant component grows)": worst_pair(rho ** t, norms)}


def sample_linear(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> LinearCase:
    """W = S D S⁻¹ (S with condition up to ~10³, so ‖W^t‖₂ has transient growth) or a Gaussian matrix, scaled to ρ in
    [0.3, 0.99] or [1.01, 2] (half each)."""
    if draw(gen) < 0.5:
        W = torch.randn(h, h, generator=gen, dtype=torch.float64)
    else:
        S = torch.eye(h, dtype=torch.float64) + (1 + 9 * draw(gen)) * torch.triu(
            torch.randn(h, h, generator=gen, dtype=torch.float64), 1)
        D = torch.diag(torch.rand(h, generator=gen, dtype=torch.float64) * 2 - 1)
        W = S @ D @ torch.linalg.inv(S)
    rho = 0.3 + 0.69 * draw(gen) if draw(gen) < 0.5 else 1.01 + 0.99 * draw(gen)
    W = W * (rho / max(_radius(W), 1e-12))
    return LinearCase(W.to(device=device, dtype=dtype), T)


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[LinearCase]:
    """A Jordan-like block with ρ = 0.99 (transient growth ‖W^t‖₂ ≈ t·0.99^(t−1) before the decay) and its mirror with
    ρ = 1.01; for h = 1 the scalars 0.99 and 1.01 (where both parts are attained)."""
    out = []
    for rho in (0.99, 1.01):
        W = rho * torch.eye(h, dtype=torch.float64) + torch.diag(torch.ones(h - 1, dtype=torch.float64), 1)
        out.append(LinearCase(W.to(device=device, dtype=dtype), T))
    return out


def _not_one(case: LinearCase) -> tuple[bool, str]:
    rho = _radius(case.W)
    return rho != 1.0, f"ρ(W_rec) = {rho:.6g}"


linear = Claim(
    id="pascanu2013.linear",
    source="pascanu2013, Sec. 2.1, the linear model (σ the identity); the wording is a paraphrase (not read), the "
           "model is eq. (11) of arXiv 1211.5063",
    statement="Linear model (∂x_t/∂x_k = W_rec^(t−k)): ρ(W_rec) < 1 (ρ the spectral radius) is sufficient for the "
              "long-term components to vanish as t → ∞, and ρ(W_rec) > 1 is necessary for them to explode (with "
              "ρ > 1 the dominant component grows as ρ^t)",
    assumptions=(Assumption("ρ(W_rec) ≠ 1 (one of the two regimes)", _not_one),),
    measure="‖W_rec^t‖₂ for t = 1..T (ρ < 1); ρ^t (ρ > 1)",
    bound="√κ(P)(1 − 1/λ_max(P))^(t/2) with P − WᵀPW = I, a bound that → 0 (ρ < 1); ‖W_rec^t‖₂ (ρ > 1)",
    evaluate=_measure,
    cases=CaseSpace(case_type=LinearCase, sample=sample_linear, starts=_starts,
                    sizes={"quick": [(1, 20), (3, 30)], "full": [(1, 20), (3, 30), (8, 60)]}),
    explanation="Would mean a W_rec with ρ < 1 has no Lyapunov certificate (then W^t need not vanish) or "
                "‖W^t‖₂ < ρ^t (Gelfand's ρ(W^t) ≤ ‖W^t‖ fails).",
    notes="Holds. The singular-value statement of the nonlinear model is pascanu2013.vanishing; this is the "
          "spectral-radius statement of the linear model, which is about the limit only: with ρ < 1, ‖W^t‖₂ can "
          "first grow (the Jordan-like start with ρ = 0.99 reaches ≈ 37 at t = 100 before it decays), so "
          "'vanish' is asymptotic, and the certificate √κ(P)(1 − 1/λ_max(P))^(t/2) is what makes it checkable at "
          "finite t. Both parts are attained for h = 1 (W = 0.99: ‖W^t‖ = √κ(P)(1 − 1/λ_max)^(t/2) exactly, "
          "since P = 1/(1 − w²); W = 1.01: ρ^t = ‖W^t‖).",
)
