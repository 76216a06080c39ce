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
* ρ(W) = 1: with the complex Schur form W = Q(D + N)Q* (Q unitary, D diagonal with max |D_ii| = ρ, N strictly
  upper triangular), W^t = Q(D + N)^t Q*, and every product of t factors D or N with n or more factors N vanishes
  (a product of upper triangular matrices with n strictly upper ones is 0); the C(t, j) products with j < n factors
  N have norm ≤ ρ^(t−j) ‖N‖₂^j, so

      ‖W^t‖₂ ≤ Σ_{j<n} C(t, j) ρ^(t−j) ‖N‖₂^j,

  a polynomial of degree n − 1 in t at ρ = 1: ‖W^t‖₂^(1/t) → 1, no exponential growth (the Jordan block
  [[1, 1], [0, 1]] has ‖W^t‖₂ = (t + √(t² + 4))/2 against the bound 1 + t). With ρ < 1 the first part excludes
  growth, so ρ ≤ 1 ⇒ no explosion: ρ > 1 is necessary for exponential growth.
* ρ(W) > 1: the component along the dominant eigenvector grows as ρ^t, since ‖W^t‖₂ ≥ ρ(W^t) = ρ^t (the converse
  of the necessity, checked beside it: ρ > 1 does make the dominant component explode).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy
import scipy.linalg
import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, worst_pair
from rnnaudit.bounds.pascanu2013.cases import draw
from rnnaudit.cells.linalg import eigvals

__all__ = ["LinearCase", "linear", "lyapunov_certificate", "polynomial_bound", "sample_linear"]


@dataclass
class LinearCase:
    """A linear recurrence x_t = W x_(t−1): ``W`` (h, h) float64, checked over t = 1..T."""

    W: Tensor
    T: int

    def size(self) -> tuple[int, int]:
        return self.W.shape[0], self.T


def _radius(W: Tensor) -> float:
    return float(eigvals(W.detach()).abs().max())


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


VANISH = "ρ < 1: ‖W^t‖₂ ≤ √κ(P)(1 − 1/λ_max(P))^(t/2) → 0"
POLYNOMIAL = "ρ = 1: ‖W^t‖₂ ≤ Σ_{j<n} C(t, j) ‖N‖₂^j, a polynomial in t (no explosion)"
GROW = "ρ > 1: ρ^t ≤ ‖W^t‖₂ (the dominant component grows)"

_U = torch.finfo(torch.float64).eps / 2  # unit roundoff of float64


def _powers(W: Tensor, T: int) -> Tensor:
    out, M = [], torch.eye(W.shape[0], dtype=W.dtype, device=W.device)
    for _ in range(T):
        M = W @ M
        out.append(torch.linalg.matrix_norm(M, ord=2))
    return torch.stack(out)


def polynomial_bound(W: Tensor, T: int, rho: float | None = None) -> Tensor:
    """Σ_{j<n} C(t, j) ρ^(t−j) ‖N‖₂^j for t = 1..T, shape (T,), float64 on W's device: the bound on ‖W^t‖₂ from the
    complex Schur form W = Q(D + N)Q* (scipy.linalg.schur), a polynomial of degree n − 1 in t when ρ = 1 (module
    docstring). ``rho``: the ρ put into the bound; None takes max |D_ii| of the computed Schur form (a bound for every
    W); 1 states the ρ = 1 claim, which an exponentially growing W must break (the negative control)."""
    A = W.detach().cpu().double().numpy()
    S, _ = scipy.linalg.schur(A, output="complex")
    n = A.shape[0]
    r = float(numpy.abs(numpy.diag(S)).max()) if rho is None else rho
    nu = float(numpy.linalg.norm(numpy.triu(S, 1), 2)) if n > 1 else 0.0
    out = [sum(math.comb(t, j) * r ** (t - j) * nu ** j for j in range(min(t, n - 1) + 1))
           for t in range(1, T + 1)]
    return torch.tensor(out, dtype=torch.float64, device=W.device)


def _rho_one_tolerance(W: Tensor) -> float:
    """|ρ − 1| below which W is in the ρ = 1 regime: 10 n u max(1, ‖W‖_F), the accuracy of a computed simple
    eigenvalue of a well-conditioned W; the ρ = 1 cases checked are triangular (eigvals returns their diagonal
    exactly, balancing isolates it), so the regime is not a guess about a defective eigenvalue's rounding."""
    n = W.shape[0]
    return 10 * n * _U * max(1.0, float(torch.linalg.matrix_norm(W.detach())))


def _measure(case: LinearCase) -> dict[str, tuple[Tensor, Tensor]]:
    W, T = case.W, case.T
    norms = _powers(W, T)
    t = torch.arange(1, T + 1, dtype=W.dtype, device=W.device)
    rho = _radius(W)
    zero = (W.new_zeros(()), W.new_ones(()))
    parts = {VANISH: zero, POLYNOMIAL: zero, GROW: zero}
    if abs(rho - 1) <= _rho_one_tolerance(W):
        # rounding of the Schur form (backward error ~ n u ‖W‖_F) and of T products: a relative allowance
        slack = 1 + 100 * W.shape[0] * T * _U * max(1.0, float(torch.linalg.matrix_norm(W.detach())))
        parts[POLYNOMIAL] = worst_pair(norms, polynomial_bound(W, T).to(W.dtype) * slack)
    elif rho < 1:
        root_kappa, q = lyapunov_certificate(W)
        parts[VANISH] = worst_pair(norms, root_kappa * q ** (t / 2))
    else:
        parts[GROW] = worst_pair(rho ** t, norms)
    return parts


def sample_linear(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> LinearCase:
    """W = S D S⁻¹ (S with condition up to ~10³, so ‖W^t‖₂ has transient growth) or a Gaussian matrix, scaled to ρ in
    [0.3, 0.99] or [1.01, 2] (half each); in one draw of five instead a triangular W with ρ = 1 exactly: diagonal
    uniform in [−1, 1] with one entry ±1 (repeated on a random second entry half the time, so a Jordan-like pair
    can form) and a strictly upper part N(0, 1) times a gain in [0, 3]."""
    if draw(gen) < 0.2:
        d = torch.rand(h, generator=gen, dtype=torch.float64) * 2 - 1
        one = 1.0 if draw(gen) < 0.5 else -1.0
        d[int(torch.randint(0, h, (), generator=gen))] = one
        if draw(gen) < 0.5:
            d[int(torch.randint(0, h, (), generator=gen))] = one
        W = torch.diag(d) + 3 * draw(gen) * torch.triu(torch.randn(h, h, generator=gen, dtype=torch.float64), 1)
        return LinearCase(W.to(device=device, dtype=dtype), T)
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
    """A Jordan-like block with ρ = 0.99 (transient growth ‖W^t‖₂ ≈ t·0.99^(t−1) before the decay), the Jordan block
    with ρ = 1 (‖W^t‖₂ polynomial of degree h − 1) and its mirror with ρ = 1.01; for h = 1 the scalars 0.99, 1 and 1.01
    (where the three parts are attained)."""
    out = []
    for rho in (0.99, 1.0, 1.01):
        W = rho * torch.eye(h, dtype=torch.float64) + torch.diag(torch.ones(h - 1, dtype=torch.float64), 1)
        out.append(LinearCase(W.to(device=device, dtype=dtype), T))
    return out


linear = Claim(
    id="pascanu2013.linear",
    source="pascanu2013, Sec. 2.1, the linear model (σ the identity); the wording is a paraphrase (not read), the "
           "model is eq. (11) of arXiv 1211.5063",
    statement="Linear model (∂x_t/∂x_k = W_rec^(t−k)): ρ(W_rec) < 1 (ρ the spectral radius) is sufficient for the "
              "long-term components to vanish as t → ∞, and ρ(W_rec) > 1 is necessary for them to explode (at "
              "ρ = 1 they grow at most polynomially; with ρ > 1 the dominant component grows as ρ^t)",
    assumptions=(),
    measure="‖W_rec^t‖₂ for t = 1..T (ρ ≤ 1); ρ^t (ρ > 1)",
    bound="√κ(P)(1 − 1/λ_max(P))^(t/2) with P − WᵀPW = I, a bound that → 0 (ρ < 1); Σ_{j<n} C(t, j) ‖N‖₂^j "
          "from the Schur form W = Q(D + N)Q*, a polynomial in t (ρ = 1, to 10 n u ‖W‖_F); ‖W_rec^t‖₂ (ρ > 1)",
    evaluate=_measure,
    cases=CaseSpace(case_type=LinearCase, sample=sample_linear, starts=_starts,
                    sizes={"quick": [(1, 20), (3, 30)], "full": [(1, 20), (3, 30), (8, 60)]}),
    explanation="Would mean a W_rec with ρ < 1 has no Lyapunov certificate (then W^t need not vanish), a W_rec "
                "with ρ = 1 outgrows the Schur polynomial (then it could explode), or ‖W^t‖₂ < ρ^t (Gelfand's "
                "ρ(W^t) ≤ ‖W^t‖ fails).",
    notes="Holds. The singular-value statement of the nonlinear model is pascanu2013.vanishing; this is the "
          "spectral-radius statement of the linear model, which is about the limit only: with ρ < 1, ‖W^t‖₂ can "
          "first grow (the Jordan-like start with ρ = 0.99 reaches ≈ 37 at t = 100 before it decays), so "
          "'vanish' is asymptotic, and the certificate √κ(P)(1 − 1/λ_max(P))^(t/2) is what makes it checkable at "
          "finite t. Both parts are attained for h = 1 (W = 0.99: ‖W^t‖ = √κ(P)(1 − 1/λ_max)^(t/2) exactly, "
          "since P = 1/(1 − w²); W = 1.01: ρ^t = ‖W^t‖). 'ρ > 1 is necessary to explode' is ρ ≤ 1 ⇒ no "
          "explosion: the ρ < 1 part and the ρ = 1 part (the Schur polynomial, degree n − 1, attained by W = 1 and "
          "reached within 1/(t + 1) by the Jordan block [[1, 1], [0, 1]]: ‖W^t‖₂ = 10.1, 100, 1000 at t = 10, 100, "
          "1000, unbounded but not exponential) check it; the ρ > 1 part checks the converse, that ρ > 1 does make "
          "the dominant component grow as ρ^t. 'Explode' is Pascanu's 'grow exponentially'.",
)
