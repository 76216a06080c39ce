"""nc_gru.md, Sec. 2.2, eq. 2 and the sentences after it: the scaled Cayley map W = (I + A)^{-1}(I − A)D is
orthogonal with det W = (−1)^ρ (ρ = the number of −1s in D), and I + A is invertible for every skew A, with
‖(I + A)^{-1}‖₂ ≤ 1. The last fact contradicts the paper's "the matrix D ... can avoid a potential problem of the
eigenvalue(s) of A being negative one(s), making matrix I + A non-invertible": a real skew A has only imaginary
eigenvalues, so I + A is never singular and D has nothing to do with it (what D avoids, Kahan 2006, is an
eigenvalue −1 of W D, which the inverse map A = (I + WD)^{-1}(I − WD) needs to avoid; ``nc_gru.scaling_d``)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Supremum
from rnnaudit.bounds.nc_gru.cases import log_uniform, spectral
from rnnaudit.cells import scaling_diagonal, scornn_skew_init

__all__ = ["CayleyCase", "sample_cayley_case", "eq2", "cayley_tolerance", "A_SKEW_A", "A_D_SIGNS"]


@dataclass
class CayleyCase:
    """A skew A and the diagonal d of D (eq. 2).

    Attributes:
        A: (h, h), skew. d: (h,), entries ±1.
    """

    A: Tensor
    d: Tensor

    def size(self) -> tuple[int, int]:
        """(h, 1)."""
        return self.A.shape[0], 1


def sample_cayley_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> CayleyCase:
    """scoRNN's initialisation of A (Sec. 3.2), a Gaussian skew A with ‖A‖₂ log-uniform in [10⁻³, 10³], or A = 0
    (equal odds); D with a uniform number ρ ∈ [0, h] of −1s."""
    f64 = torch.float64
    kind = int(torch.randint(0, 3, (), generator=gen))
    if kind == 0:
        A = scornn_skew_init(h, generator=gen, dtype=f64)
    elif kind == 1 and h > 1:
        B = torch.randn(h, h, generator=gen, dtype=f64)
        A = (B - B.mT) * (log_uniform(gen, 1e-3, 1e3) / spectral(B - B.mT))
    else:
        A = torch.zeros(h, h, dtype=f64)
    d = scaling_diagonal(h, int(torch.randint(0, h + 1, (), generator=gen)), dtype=f64)
    return CayleyCase(A.to(device=device, dtype=dtype), d.to(device=device, dtype=dtype))


def cayley_tolerance(h: int, A: Tensor) -> Tensor:
    """Float allowance of W = solve(I + A, I − A)D: a backward-stable solve has relative error ≲ h·u·κ with
    κ = cond(I + A) ≤ 1 + ‖A‖₂ (‖(I + A)^{-1}‖₂ ≤ 1 for skew A), and ‖I − A‖₂ ≤ 1 + ‖A‖₂ scales the product: 16 h u
    (1 + ‖A‖₂)² covers both with a margin of ≥ 10 over the measured defects."""
    return 16 * h * torch.finfo(A.dtype).eps * (1 + spectral(A.detach())) ** 2


def _measure(case: CayleyCase) -> dict[str, tuple]:
    A, d = case.A, case.d
    h = A.shape[0]
    eye = torch.eye(h, dtype=A.dtype, device=A.device)
    W = torch.linalg.solve(eye + A, eye - A) * d  # eq. 2; "* d" right-multiplies by D
    tol = cayley_tolerance(h, A)
    one = A.new_ones(())
    rho = int((d < 0).sum())
    return {
        "eq. 2: W orthogonal, ‖WᵀW − I‖₂": (spectral(W.mT @ W - eye), tol, one),
        "eq. 2: det W = (−1)^ρ, ρ the number of −1s in D": (torch.abs(torch.linalg.det(W) - (-1) ** rho), tol, one),
        "Sec. 2.2: I + A invertible for every skew A, ‖(I + A)^(-1)‖₂ ≤ 1": (
            spectral(torch.linalg.inv(eye + A)), one),
    }


def _project(case: CayleyCase) -> None:
    case.A.copy_((case.A - case.A.mT) / 2)


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[CayleyCase]:
    """A = 0 (where ‖(I + A)^{-1}‖₂ = 1, the supremum) with D = I and D = −I."""
    z = torch.zeros(h, h, dtype=dtype, device=device)
    return [CayleyCase(z.clone(), torch.ones(h, dtype=dtype, device=device)),
            CayleyCase(z.clone(), -torch.ones(h, dtype=dtype, device=device))]


def _exact() -> ExactVerdict:
    """Symbolic 3×3 skew A (entries a, b, c): (I + A)ᵀ(I + A) = I + AᵀA ⪰ I, det(I + A) = 1 + a² + b² + c² > 0,
    det(I − A) = det(I + A) (so det W = det D = (−1)^ρ), and I − A, I + A commute with (I + A)ᵀ = I − A (so
    WᵀW = D(I + A)(I − A)^{-1}(I + A)^{-1}(I − A)D = I)."""
    import sympy

    a, b, c = sympy.symbols("a b c", real=True)
    A = sympy.Matrix([[0, a, b], [-a, 0, c], [-b, -c, 0]])
    eye = sympy.eye(3)
    gram = ((eye + A).T * (eye + A) - eye - A.T * A).expand()
    det_plus, det_minus = sympy.expand((eye + A).det()), sympy.expand((eye - A).det())
    commute = ((eye + A) * (eye - A) - (eye - A) * (eye + A)).expand()
    transpose = ((eye + A).T - (eye - A)).expand()
    ok = gram == sympy.zeros(3) and sympy.expand(det_plus - det_minus) == 0 and commute == sympy.zeros(3) \
        and transpose == sympy.zeros(3) and sympy.expand(det_plus - (1 + a**2 + b**2 + c**2)) == 0
    return ExactVerdict("proved" if ok else "violated",
                        f"for skew A = [[0, a, b], [−a, 0, c], [−b, −c, 0]]: (I + A)ᵀ(I + A) = I + AᵀA, "
                        f"det(I + A) = det(I − A) = {det_plus} > 0, (I + A)ᵀ = I − A commutes with I + A; hence "
                        f"σ_min(I + A) ≥ 1, W orthogonal, det W = det D")


def _skew_check(c) -> tuple[bool, str]:
    A = c.A.detach()
    defect = float((A + A.mT).abs().max())
    return defect <= 64 * torch.finfo(A.dtype).eps * max(1.0, float(A.abs().max())), f"max|A + Aᵀ| = {defect:.3g}"


A_SKEW_A = Assumption("A skew-symmetric (eq. 2)", _skew_check)
A_D_SIGNS = Assumption("D diagonal with entries ±1", lambda c: (
    bool(((c.d == 1) | (c.d == -1)).all()), f"d = {c.d.tolist()}"))

_SIZES = [(1, 1), (2, 1), (3, 1), (8, 1), (32, 1)]
_CAYLEY = CaseSpace(case_type=CayleyCase, sample=sample_cayley_case, free=lambda c: [c.A], project=_project,
                    starts=_starts, sizes={"quick": _SIZES, "full": _SIZES + [(128, 1), (256, 1)]})

eq2 = Claim(
    id="nc_gru.eq2",
    source="nc_gru.md, Sec. 2.2, eq. 2 and the paragraph after it",
    statement="W = (I + A)^{-1}(I − A)D is orthogonal for skew A (eq. 2); the number ρ of −1s in D fixes det W = "
              "(−1)^ρ; and I + A is invertible for every skew A (‖(I + A)^{-1}‖₂ ≤ 1), contrary to the paragraph's "
              "'eigenvalue(s) of A being negative one(s), making matrix I + A non-invertible'",
    assumptions=(A_SKEW_A, A_D_SIGNS),
    measure="‖WᵀW − I‖₂ and |det W − (−1)^ρ| of eq. 2 computed by a solve; ‖(I + A)^{-1}‖₂",
    bound="16h·u·(1 + ‖A‖₂)² (float allowance of the solve) for the identities; 1",
    evaluate=_measure,
    cases=_CAYLEY,
    explanation="Would mean the Cayley transform of a skew matrix is not orthogonal, or that a skew A can have the "
                "eigenvalue −1.",
    notes="The paragraph's rationale for D is wrong (nc_gru.sec2_2, false): the eigenvalues of a real skew A are ±iλ, so 1 ± iλ ≠ 0 and "
          "(I + A)ᵀ(I + A) = I + AᵀA ⪰ I (proved exactly); I + A is invertible whatever D is. D matters for the "
          "inverse map: W D = (I + A)^{-1}(I − A) has no eigenvalue −1, so an orthogonal W with W D having the "
          "eigenvalue −1 has no A; Kahan's D (chosen with W) avoids that and bounds A (nc_gru.scaling_d). Supremum of "
          "‖(I + A)^{-1}‖₂: 1, at A = 0 (structured start). Decision: calling ρ a hyperparameter is not counted "
          "as an error: det W = (−1)^ρ, so ρ's parity fixes which component of O(n) the model can reach and only "
          "the parity matters (checked here).",
    supremum=Supremum(1.0, "(I + A)ᵀ(I + A) = I + AᵀA ⪰ I gives ‖(I + A)^{-1}‖₂ ≤ 1; equality at A = 0 (and on ker A)",
                      at=(2, 1), part="Sec. 2.2: I + A invertible for every skew A, ‖(I + A)^(-1)‖₂ ≤ 1"),
    exact=_exact,
)
