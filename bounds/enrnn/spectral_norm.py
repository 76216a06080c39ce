"""enrnn.md, Sec. 2, fourth paragraph: "the spectral radius is bounded by any matrix norm including the spectral
norm", so normalising by the spectral norm (SN-GAN) makes the spectral radius at most 1 ("expected ... much less
than 1"). Checked for the induced 1-, 2- and ∞-norms and the Frobenius norm."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Supremum
from rnnaudit.bounds.enrnn.cases import dominant_matrix, draw, random_angle
from rnnaudit.cells.linalg import eigvals

__all__ = ["MatrixCase", "sample_matrix_case", "spectral_norm"]


@dataclass
class MatrixCase:
    """A real square matrix A (n, n)."""

    A: Tensor

    def size(self) -> tuple[int, int]:
        """(n, 1)."""
        return self.A.shape[0], 1


def sample_matrix_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> MatrixCase:
    """Gaussian A (n = h), or P D P⁻¹ with a real or complex dominant eigenvalue and eigenvectors from normal to
    strongly non-normal, or a symmetric matrix (normal: ρ = ‖A‖₂), a third each."""
    kind = int(torch.randint(0, 3, (), generator=gen))
    if kind == 0:
        A = torch.randn(h, h, generator=gen, dtype=torch.float64)
    elif kind == 1:
        A = dominant_matrix(gen, h, 0.2 + 3 * draw(gen), angle=random_angle(gen), gap=0.3 * draw(gen),
                            spread=[0.3, 1.0, 3.0][int(torch.randint(0, 3, (), generator=gen))])
    else:
        B = torch.randn(h, h, generator=gen, dtype=torch.float64)
        A = B + B.mT
    return MatrixCase(A.to(device=device, dtype=dtype))


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[MatrixCase]:
    """diag(1, 0.5, …) (ρ = ‖A‖₁ = ‖A‖₂ = ‖A‖_∞) and e₁e₁ᵀ (ρ = ‖A‖_F too): the equality cases."""
    D = torch.diag(torch.tensor([1.0] + [0.5] * (h - 1), dtype=torch.float64))
    E = torch.zeros(h, h, dtype=torch.float64)
    E[0, 0] = 1.0
    return [MatrixCase(M.to(device=device, dtype=dtype)) for M in (D, E)]


def _measure(c: MatrixCase) -> dict[str, tuple[Tensor, Tensor]]:
    A = c.A
    rho = eigvals(A).abs().max().to(A.dtype)
    return {
        "ρ(A) ≤ ‖A‖₂": (rho, torch.linalg.matrix_norm(A, ord=2)),
        "ρ(A) ≤ ‖A‖₁": (rho, torch.linalg.matrix_norm(A, ord=1)),
        "ρ(A) ≤ ‖A‖_∞": (rho, torch.linalg.matrix_norm(A, ord=float("inf"))),
        "ρ(A) ≤ ‖A‖_F": (rho, torch.linalg.matrix_norm(A, ord="fro")),
    }


def _exact() -> ExactVerdict:
    """Schur's inequality Σ|λ_i|² ≤ ‖A‖_F² for a symbolic real 2×2 A, hence ρ ≤ ‖A‖_F: with real eigenvalues
    ‖A‖_F² − (λ₁² + λ₂²) = (b − c)², with complex ones ‖A‖_F² − 2|λ|² = (a − d)² + (b + c)²."""
    a, b, c, d = sp.symbols("a b c d", real=True)
    fro2 = a**2 + b**2 + c**2 + d**2
    tr, det = a + d, a * d - b * c
    real_gap = sp.expand(fro2 - (tr**2 - 2 * det) - (b - c) ** 2)
    complex_gap = sp.expand(fro2 - 2 * det - ((a - d) ** 2 + (b + c) ** 2))
    ok = real_gap == 0 and complex_gap == 0
    return ExactVerdict("proved" if ok else "violated",
                        "real 2×2: ‖A‖_F² − Σλ_i² = (b − c)² (real λ), ‖A‖_F² − Σ|λ_i|² = (a − d)² + (b + c)² (complex "
                        "λ, |λ|² = det); so ρ(A)² ≤ Σ|λ_i|² ≤ ‖A‖_F²")


A_SQUARE = Assumption("A real square", lambda c: (c.A.dim() == 2 and c.A.shape[0] == c.A.shape[1],
                                                  f"shape {tuple(c.A.shape)}"))

_MATRIX_CASES = CaseSpace(case_type=MatrixCase, sample=sample_matrix_case, free=lambda c: [c.A], starts=_starts,
                          sizes={"quick": [(1, 1), (2, 1), (4, 1), (8, 1)],
                                 "full": [(1, 1), (2, 1), (4, 1), (8, 1), (32, 1), (128, 1)]})

spectral_norm = Claim(
    id="enrnn.spectral_norm",
    source="enrnn.md, Sec. 2, fourth paragraph (SN-GAN's spectral-norm normalisation)",
    statement="The spectral radius is bounded by any matrix norm including the spectral norm",
    assumptions=(A_SQUARE,),
    measure="ρ(A) = max |eigvals(A)|",
    bound="‖A‖₂, ‖A‖₁, ‖A‖_∞, ‖A‖_F",
    evaluate=_measure,
    cases=_MATRIX_CASES,
    explanation="Would contradict |λ|‖x‖ = ‖Ax‖ ≤ ‖A‖‖x‖ for an eigenvector x.",
    notes="'Matrix norm' read as submultiplicative (as in Horn & Johnson); the entrywise max is not one and fails "
          "(ρ(11ᵀ) = 2 > 1). 'Expected to make the spectral radius much less than 1' is a tendency, not a bound: "
          "for Gaussian n×n matrices ρ/‖A‖₂ → 1/2 (circular law radius √n against ‖A‖₂ ≈ 2√n), for normal "
          "matrices it is 1, which is why Sec. 3.1 normalises by ρ instead.",
    supremum=Supremum(1.0, "ρ(A) ≤ ‖A‖ for every submultiplicative norm; equality for diag(1, 0.5, …) in the 1-, 2- "
                           "and ∞-norms and for e₁e₁ᵀ in all four (structured starts)", at=(4, 1)),
    exact=_exact,
)
