"""nc_gru.md, Sec. 2.2, the sentence after eq. 2: the scaling matrix D "with a suitable choice on the number of
negative ones, can avoid a potential problem of the eigenvalue(s) of A being negative one(s), making matrix I + A
non-invertible".

A real skew-symmetric A has purely imaginary eigenvalues, and (I + A)ᵀ(I + A) = I + AᵀA ⪰ I, so σ_min(I + A) ≥ 1:
I + A is invertible for every A the Cayley map takes, and the problem the sentence has D avoid cannot occur (what D
avoids, Kahan 2006, is an eigenvalue −1 of W D in the inverse map; ``nc_gru.scaling_d``).
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.nc_gru.eq2 import A_SKEW_A, CayleyCase, sample_cayley_case
from rnnaudit.cells.linalg import eigvals

__all__ = ["sec2_2", "measure_sec2_2"]


def measure_sec2_2(case: CayleyCase) -> dict[str, tuple[Tensor, Tensor]]:
    """σ_min(I + A) and the smallest |λ + 1| over the eigenvalues λ of A, each against 0: the sentence needs them to
    vanish for some A (ratio m/0 = ∞ wherever they do not)."""
    A = case.A
    I = torch.eye(A.shape[0], dtype=A.dtype, device=A.device)
    sigma_min = torch.linalg.svdvals(I + A).min()
    distance = (eigvals(A) + 1).abs().min()
    return {"I + A singular: σ_min(I + A) = 0": (sigma_min, torch.zeros_like(sigma_min)),
            "A has the eigenvalue −1: min |λ(A) + 1| = 0": (distance.to(A.dtype), torch.zeros_like(sigma_min))}


def _exact() -> ExactVerdict:
    """(I + A)ᵀ(I + A) − I = AᵀA for a symbolic real skew 3×3 A (a positive semidefinite Gram matrix), so every
    singular value of I + A is ≥ 1; and det(I + A) = 1 + a² + b² + c² > 0."""
    import sympy as sp

    a, b, c = sp.symbols("a b c", real=True)
    A = sp.Matrix([[0, a, b], [-a, 0, c], [-b, -c, 0]])
    I = sp.eye(3)
    gram = sp.simplify((I + A).T * (I + A) - I - A.T * A)
    det = sp.expand((I + A).det())
    never_singular = gram == sp.zeros(3, 3) and sp.simplify(det - (1 + a**2 + b**2 + c**2)) == 0
    if not never_singular:
        return ExactVerdict("proved", f"(I + A)ᵀ(I + A) − I − AᵀA = {gram}, det(I + A) = {det}")
    return ExactVerdict("violated", "for every real skew A (symbolic 3×3): (I + A)ᵀ(I + A) = I + AᵀA ⪰ I, so "
                                    f"σ_min(I + A) ≥ 1, and det(I + A) = {det} ≥ 1: no real skew A has the "
                                    "eigenvalue −1 and I + A is never singular")


sec2_2 = Claim(
    id="nc_gru.sec2_2",
    source="nc_gru.md, Sec. 2.2, the sentence after eq. 2 (D avoids 'the eigenvalue(s) of A being negative one(s), "
           "making matrix I + A non-invertible')",
    statement="A real skew-symmetric A can have the eigenvalue −1, making I + A non-invertible (the problem D is "
              "said to avoid)",
    assumptions=(A_SKEW_A,),
    measure="σ_min(I + A) (torch.linalg.svdvals) and min |λ(A) + 1| (torch.linalg.eigvals)",
    bound="0: the sentence needs both to vanish for some skew A",
    evaluate=measure_sec2_2,
    cases=CaseSpace(case_type=CayleyCase, sample=sample_cayley_case,
                    sizes={"quick": [(2, 1), (3, 1), (8, 1)], "full": [(2, 1), (3, 1), (8, 1), (64, 1)]}),
    explanation="A real skew-symmetric A has only imaginary eigenvalues ±iθ, and (I + A)ᵀ(I + A) = I + AᵀA ⪰ I, so "
                "σ_min(I + A) ≥ 1 for every A: the eigenvalue −1 and a singular I + A are impossible (exact verdict). "
                "D has nothing to do with the invertibility of I + A; what it avoids (Kahan 2006) is an eigenvalue "
                "−1 of W D, which the inverse map A = (I + WD)⁻¹(I − WD) needs to exclude (nc_gru.scaling_d).",
    notes="The sentence is an existence statement ('a potential problem'); the exact verdict refutes it for every A, "
          "and every case measured shows σ_min(I + A) ≥ 1 (ratio ∞ against 0). nc_gru.eq2 checks the positive "
          "form, ‖(I + A)⁻¹‖₂ ≤ 1.",
    exact=_exact,
)
