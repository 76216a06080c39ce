"""enrnn.md, Sec. 8.2, eq. 7 (proof of Proposition 3.2), a proof-step check: "using ρ(T) = (α² + β²)^{1/2}"
differentiates ρ(T) as |λ|, which needs λ (and λ̄) to stay the eigenvalues of largest modulus near T.
The Proposition assumes only that λ is simple with |λ| = ρ(T); when another eigenvalue μ ≠ λ̄ has the
same modulus (T = diag(2, −2), or ρ and ρe^{±iθ}), ρ is not differentiable at T and the formula gives
the derivative along some directions only. ``.corrected`` adds the missing hypothesis."""

from __future__ import annotations

import math
from dataclasses import replace

import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.enrnn.cases import draw
from rnnaudit.bounds.enrnn.eigen import (
    A_EPS_POSITIVE_G,
    A_SEPARATED_G,
    A_SIMPLE_G,
    C_matrix,
    GradCase,
    S_matrix,
    dominant_index,
    formula_gradient,
    normalised_loss,
)
from rnnaudit.cells.linalg import eigvals

__all__ = ["sample_tied_case", "eq7", "eq7_corrected", "EQ7_DELTA", "EQ7_RTOL", "one_sided_derivative",
           "steepest_other_direction"]

#: One-sided difference step along a unit direction E (Frobenius), relative to ρ(T).
EQ7_DELTA = 1e-6
#: Largest κ₂(P) of the similarity T = P D P⁻¹ the samplers draw: the eigenvalues then move by at most
#: κ₂(P)·δ under a step δ, far below the 10 % modulus gap of the separated cases.
EQ7_MAX_COND = 1e2
#: Richardson-extrapolated one-sided differences 2D(δ/2) − D(δ) have truncation O(δ²) and rounding
#: ≈ 4u|f|/δ ≈ 1e-9 |f| at δ = 1e-6ρ (the δ with the smallest error on the sampled cases); the cases'
#: eigenvector condition numbers (κ₂(P) ≤ EQ7_MAX_COND) amplify both by at most 1e2, so 1e-5 of
#: (|formula| + |truth| + ‖gradient‖) leaves a 100× margin. The failure this claim is about is of the
#: order of the gradient itself.
EQ7_RTOL = 1e-5


def _block(rho: float, angle: float) -> Tensor:
    c, s = math.cos(angle), math.sin(angle)
    return rho * torch.tensor([[c, -s], [s, c]], dtype=torch.float64)


def sample_tied_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64, *,
                     tie_fraction: float = 0.5) -> GradCase:
    """T = P D P⁻¹ (m = h), P = I + s·N(0, 1) with s ∈ {0, 0.3, 1}: with probability ``tie_fraction`` (m ≥ 2)
    D has two non-conjugate eigenvalues of the same largest modulus ρ: ±ρ, ρ and ρe^{±iθ} (m ≥ 3), or
    ρe^{±iθ₁} and ρe^{±iθ₂} (m ≥ 4); otherwise a separated dominant eigenvalue. The rest of the spectrum
    is real with modulus ≤ 0.9ρ; ρ ∈ [0.5, 3]; G Gaussian; ε log-uniform in [1e-3, 1]."""
    rho = 0.5 + 2.5 * draw(gen)
    tie = h >= 2 and draw(gen) < tie_fraction
    kinds = [k for k, need in (("pm", 2), ("real_complex", 3), ("two_pairs", 4)) if h >= need]
    kind = kinds[int(torch.randint(0, len(kinds), (), generator=gen))] if tie else "separated"
    theta1, theta2 = 0.3 + 1.2 * draw(gen), 1.7 + 1.2 * draw(gen)
    lead = {"pm": [torch.tensor([[rho]]), torch.tensor([[-rho]])],
            "real_complex": [torch.tensor([[rho]]), _block(rho, theta1)],
            "two_pairs": [_block(rho, theta1), _block(rho, theta2)],
            "separated": [torch.tensor([[rho]]) if draw(gen) < 0.5 or h < 2 else _block(rho, theta1)]}[kind]
    blocks = [b.to(torch.float64) for b in lead]
    used = sum(b.shape[0] for b in blocks)
    if used < h:
        blocks.append(torch.diag((torch.rand(h - used, generator=gen, dtype=torch.float64) * 2 - 1) * 0.9 * rho))
    D = torch.block_diag(*blocks)
    spread = [0.0, 0.3, 1.0][int(torch.randint(0, 3, (), generator=gen))]
    N = torch.randn(h, h, generator=gen, dtype=torch.float64)
    P = torch.eye(h, dtype=torch.float64) + spread * N
    while float(torch.linalg.cond(P)) > EQ7_MAX_COND:  # keep the one-sided differences meaningful
        spread /= 2
        P = torch.eye(h, dtype=torch.float64) + spread * N
    T0 = torch.linalg.solve(P.mT, (P @ D).mT).mT
    eps = 10 ** (-3 + 3 * draw(gen))
    G = torch.randn(h, h, generator=gen, dtype=torch.float64)
    return GradCase(T0.to(device=device, dtype=dtype), G.to(device=device, dtype=dtype), eps)


def steepest_other_direction(T: Tensor) -> Tensor:
    """Unit (Frobenius) direction E = (C_μ − C_λ)/‖C_μ − C_λ‖ towards the eigenvalue μ of largest modulus
    other than λ and λ̄ (λ the formula's, :func:`~rnnaudit.bounds.enrnn.eigen.dominant_index`): along E,
    |μ| grows faster than |λ| (∂|λ|/∂T = C_λ/|λ|). E = C_λ/‖C_λ‖ when T has no such μ."""
    lam = eigvals(T.detach())
    k = dominant_index(lam)
    lam_k, S_k = S_matrix(T, k)
    C_k = C_matrix(lam_k, S_k).to(T.dtype)
    others = torch.ones(lam.shape[0], dtype=torch.bool, device=lam.device)
    others[k] = False
    if float(lam[k].imag) != 0:
        others[int((lam - lam[k].conj()).abs().argmin())] = False
    if not bool(others.any()):
        return C_k / torch.linalg.matrix_norm(C_k)
    idx = torch.nonzero(others).flatten()
    j = int(idx[int(lam[idx].abs().argmax())])
    lam_j, S_j = S_matrix(T, j)
    D = C_matrix(lam_j, S_j).to(T.dtype) * float(lam_k.abs() / lam_j.abs()) - C_k
    n = torch.linalg.matrix_norm(D)
    return D / n if float(n) > 0 else C_k / torch.linalg.matrix_norm(C_k)


def one_sided_derivative(f, T: Tensor, E: Tensor) -> Tensor:
    """lim_{h→0+} (f(T + hE) − f(T))/h by Richardson extrapolation 2D(δ/2) − D(δ) of forward differences,
    δ = EQ7_DELTA·ρ(T); 0-d."""
    delta = EQ7_DELTA * float(eigvals(T).abs().max())
    f0 = f(T)
    d1 = (f(T + delta * E) - f0) / delta
    d2 = (f(T + 0.5 * delta * E) - f0) / (0.5 * delta)
    return 2 * d2 - d1


def _measure(c: GradCase) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    T, G, eps = c.T.detach(), c.G.detach(), c.eps
    E = steepest_other_direction(T)
    lam, S = S_matrix(T)
    rho = float(lam.abs())
    d_rinv = -C_matrix(lam, S).to(T.dtype) / (rho * (rho + eps) ** 2)  # eq. 7 with eq. 8
    grad = formula_gradient(T, G, eps, inner="rho")  # Prop. 3.2 with the chain rule's inner 1/ρ
    parts = {}
    for name, f, formula in (
            ("eq. (7): ⟨∂(r⁻¹)/∂T, E⟩ = one-sided derivative of 1/(ρ(T) + ε) along E",
             lambda X: 1 / (eigvals(X).abs().max() + eps), d_rinv),
            ("Prop. 3.2 (inner 1/ρ): ⟨∂L/∂T, E⟩ = one-sided derivative of L along E",
             lambda X: normalised_loss(X, G, eps), grad)):
        truth = one_sided_derivative(f, T, E)
        predicted = (formula * E).sum()
        scale = predicted.abs() + truth.abs() + torch.linalg.matrix_norm(formula)
        parts[name] = ((predicted - truth).abs(), EQ7_RTOL * scale, truth.abs())
    return parts


def _exact() -> ExactVerdict:
    """T = diag(2, −2), ε = 1/10, λ = 2 (simple, |λ| = ρ(T)): along E = −e₂e₂ᵀ the eigenvalue −2 − h takes
    over, ρ(T + hE) = 2 + h for h > 0, while eq. 7–8 (S = e₁e₁ᵀ, C = 2e₁e₁ᵀ) predict ⟨∂ρ/∂T, E⟩ = 0."""
    h = sp.symbols("h", positive=True)
    eps = sp.Rational(1, 10)
    T = sp.diag(2, -2) + h * sp.diag(0, -1)
    rho = sp.Max(*[sp.Abs(ev) for ev in T.eigenvals()])
    truth = sp.limit((1 / (rho + eps) - 1 / (2 + eps)) / h, h, 0, "+")
    S = sp.Matrix([[1, 0], [0, 0]])
    C = 2 * S
    predicted = sum((-C / (2 * (2 + eps) ** 2)).multiply_elementwise(sp.diag(0, -1)))
    verdict = "violated" if sp.simplify(truth - predicted) != 0 else "proved"
    return ExactVerdict(verdict, f"T = diag(2, −2), ε = 1/10, λ = 2 (simple, |λ| = ρ(T) = 2), E = −e₂e₂ᵀ: "
                                 f"D⁺_E 1/(ρ + ε) = {truth}, eq. 7 gives {predicted}")


def _tied_starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[GradCase]:
    """The smallest tie, T = diag(2, −2) padded with 0.5 (the exact counterexample of ``exact``), and ρ next to
    ρe^{±iθ} at m ≥ 3; ε = 0.1, G = 1 + e₁e₁ᵀ (so 1ᵀ(G ⊙ W)1 ≠ 0 and the gradient of L fails too)."""
    if h < 2:
        return []
    cases = [torch.diag(torch.tensor([2.0, -2.0] + [0.5] * (h - 2), dtype=torch.float64))]
    if h >= 3:
        cases.append(torch.block_diag(torch.tensor([[2.0]], dtype=torch.float64), _block(2.0, 1.0),
                                      torch.eye(h - 3, dtype=torch.float64) * 0.5))
    G = torch.ones(h, h, dtype=torch.float64)
    G[0, 0] += 1.0
    return [GradCase(T0.to(device=device, dtype=dtype), G.to(device=device, dtype=dtype), 0.1) for T0 in cases]


_EQ7_CASES = CaseSpace(case_type=GradCase, sample=sample_tied_case, starts=_tied_starts,
                       sizes={"quick": [(1, 1), (2, 1), (3, 1), (4, 1), (6, 1)],
                              "full": [(1, 1), (2, 1), (3, 1), (4, 1), (6, 1), (10, 1), (16, 1)]})

eq7 = Claim(
    id="enrnn.eq7",
    source="enrnn.md, Sec. 8.2, eq. 7 (proof of Proposition 3.2), under the Proposition's hypotheses",
    statement="If λ = α + iβ is a simple eigenvalue of T with |λ| = ρ(T), then, 'using ρ(T) = (α² + β²)^{1/2}', "
              "∂(r⁻¹)/∂T = −(α ∂α/∂T + β ∂β/∂T)/(ρ(ρ + ε)²), and ∂L/∂T is given by Prop. 3.2's formula",
    assumptions=(A_EPS_POSITIVE_G, A_SIMPLE_G),
    measure="one-sided derivative along E (Richardson-extrapolated forward differences, δ = 1e-6ρ(T)) of 1/(ρ(T) + ε) "
            "and of L = ⟨G, T/(ρ(T) + ε)⟩, E the unit direction in which the other eigenvalue of largest modulus "
            "grows fastest relative to λ",
    bound="EQ7_RTOL·(|formula| + |truth| + ‖formula‖_F)",
    evaluate=_measure,
    cases=_EQ7_CASES,
    explanation="Eq. 7 differentiates ρ(T) as |λ|, which holds near T only if no other eigenvalue μ ≠ λ̄ has "
                "modulus ρ(T). 'λ simple with |λ| = ρ(T)' does not exclude one (T = diag(2, −2); ρ and ρe^{±iθ}): "
                "then ρ is not differentiable at T, the gradient the Proposition gives does not exist, and along "
                "directions where |μ| grows faster the one-sided derivative is ⟨C_μ, E⟩/ρ, not ⟨C_λ, E⟩/ρ. The "
                "missing hypothesis: λ and λ̄ are the only eigenvalues of modulus ρ(T). The remark after the "
                "Proposition discusses multiple eigenvalues only. See enrnn.eq7.corrected.",
    notes="Measured with the chain rule's inner factor 1/ρ (the corrected Proposition), so the failure is the "
          "missing hypothesis, not the ε slip of enrnn.proposition3.2. Cases with exact ties are built as "
          "P D P⁻¹ in float64, so the tie holds to rounding (≈ 1e-15), far inside the difference step.",
    exact=_exact,
)

eq7_corrected = Claim(
    id="enrnn.eq7.corrected",
    source="enrnn.md, Sec. 8.2, eq. 7, with the hypothesis it needs (rnnaudit)",
    statement="If λ is simple and λ, λ̄ are the only eigenvalues of modulus ρ(T), eq. 7 and Prop. 3.2's formula "
              "(inner 1/ρ) give the derivative along every direction",
    assumptions=(A_EPS_POSITIVE_G, A_SIMPLE_G, A_SEPARATED_G),
    measure=eq7.measure,
    bound=eq7.bound,
    evaluate=_measure,
    cases=replace(_EQ7_CASES, starts=None, sample=lambda gen, h, T, device="cpu", dtype=torch.float64: (
        sample_tied_case(gen, h, T, device, dtype, tie_fraction=0.0))),
    explanation="Would mean ρ(T) = |λ| near T fails even with λ, λ̄ the only dominant eigenvalues.",
    notes="Same direction E (towards the second largest modulus) and the same one-sided differences as enrnn.eq7.",
)
