"""sgornn.md, Corollary 1 (eq. 9; details in Appendix A.3, eq. 34–36): Theorem 2 for the VPRNN map
with M_φ = 4√h log₂ h."""

from __future__ import annotations

import math

from torch import Tensor

from rnnaudit.bounds.core import Claim, Supremum
from rnnaudit.bounds.sgornn.cases import A_V, A_VPRNN, F_T_ASSUMPTIONS, R_NOTE, C, GatedCase, parameter_gradients
from rnnaudit.bounds.sgornn.constructions import GATED_STRUCTURED, corollary1_supremum

__all__ = ["corollary1"]


def _measure(case: GatedCase) -> dict[str, tuple[Tensor, Tensor]]:
    h, T = case.size()
    g_theta, _ = parameter_gradients(case)
    aT = case.cell.alpha * T
    bound = 4 * C(case) * h**1.5 * math.log2(h) * aT**2
    return {"eq. 9: ‖∂L/∂Θ‖_max ≤ 4C h^{3/2} log₂(h) (αT)²": (g_theta.abs().amax(), bound)}


corollary1 = Claim(
    id="sgornn.corollary1",
    source="sgornn.md, Corollary 1, eq. 9 (details in Appendix A.3, eq. 34–36)",
    statement="For the VPRNN map, M_φ = 4√h log₂(h) and ‖∂L/∂Θ‖_max ≤ 4C h^{3/2} log₂(h) (αT)²",
    assumptions=F_T_ASSUMPTIONS + (A_V, A_VPRNN),
    measure="autograd gradient of L = vᵀh_T with respect to Θ; max |entry|",
    bound="4 C h^{3/2} log₂(h) (αT)²",
    evaluate=_measure,
    cases=GATED_STRUCTURED,
    explanation="Inherits Theorem 2's conditions α + β ≤ 1 and ‖U‖₂ = 1.",
    notes="For VPRNN each ∂φ/∂Θ_ij = A·∂R_j·B with A, B orthogonal and ∂R_j of rank 2 and norm 1, so its entries "
          "are at most 1 and the factor 4√h log₂h is very loose; expect small ratios. " + R_NOTE,
    supremum=Supremum(
        corollary1_supremum,
        "Cap: |∂L/∂Θ_ij| = |⟨G, ∂U/∂Θ_ij⟩| ≤ ‖G‖_*‖∂U/∂Θ_ij‖₂ with ‖G‖_* ≤ Cα²T(T − 1)/2 (see sgornn.theorem2's "
        "supremum) and, for VPRNN, ∂U/∂Θ_ij = A(∂R_j/∂Θ_ij)B with A, B orthogonal and ∂R_j/∂Θ_ij a π/2 "
        "rotation of one coordinate pair, so ‖∂U/∂Θ_ij‖₂ = 1: ratio ≤ (T − 1)/(8T h^{3/2} log₂h). Attained "
        "exactly, for every α, by constructions.pair_rotation (Θ = 0, identity permutations, U = I, "
        "h_t = αtu with u = (e₀ + e₁)/√2, v = J₀u, a_t = v): ∂L/∂Θ_0j = α²C T(T − 1)/2.",
        at=(2, 7)),
)
