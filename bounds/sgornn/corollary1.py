"""sgornn.md, Corollary 1 (eq. 9; details in Appendix A.3, eq. 34–36): Theorem 2 for the VPRNN map
with M_φ = 4√h log₂ h."""

from __future__ import annotations

import math

from torch import Tensor

from rnnaudit.bounds.core import Claim
from rnnaudit.bounds.sgornn.cases import (A_V, A_VPRNN, F_T_ASSUMPTIONS, GATED_1_ALPHA, R_NOTE, C, GatedCase,
                                          parameter_gradients)

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
    cases=GATED_1_ALPHA,
    explanation="Inherits Theorem 2's conditions α + β ≤ 1 and ‖U‖₂ = 1.",
    notes="For VPRNN each ∂φ/∂Θ_ij = A·∂R_j·B with A, B orthogonal and ∂R_j of rank 2 and norm 1, so its entries "
          "are at most 1 and the factor 4√h log₂h is very loose; expect small ratios. " + R_NOTE,
)
