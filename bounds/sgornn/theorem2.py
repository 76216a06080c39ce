"""sgornn.md, Theorem 2 (eq. 7–8): max-entry gradient bounds for SGORNN with β ≤ 1 − α.

The proof (Appendix A.2, eq. 25–33) bounds ∂L/∂U through the product ∏(αUᵀD + βI) and then
passes to Θ through M_φ; its norm step eq. 31 is checked separately (``sgornn.eq31``).
"""

from __future__ import annotations

import math

from torch import Tensor
from torch.func import jacfwd

from rnnaudit.bounds.core import Claim
from rnnaudit.bounds.sgornn.cases import A_V, F_T_ASSUMPTIONS, GATED_1_ALPHA, R_NOTE, C, GatedCase, parameter_gradients
from rnnaudit.cells import SGORNN

__all__ = ["theorem2", "local_M_phi"]


def local_M_phi(case: GatedCase) -> Tensor:
    """M_φ at the case's Θ: max over i, j of ‖∂φ(Θ)/∂Θ_ij‖_max (sgornn.md Theorem 2), 0-d.

    Computed exactly with ``torch.func.jacfwd`` of φ; for FastRNN (φ = identity on U) it is 1.
    The proof of Theorem 2 (eq. 29–31) uses ∂φ/∂Θ only at the current Θ, so this local value
    is the tightest M_φ the statement can be read with; the supremum over Θ that the theorem
    assumes can only be larger. Cost: h² · (h/2) · k entries (117 MB at h = 128, k = 14).
    """
    if not isinstance(case.cell, SGORNN):
        return case.x.new_ones(())
    theta = case.cell.phi.theta.detach()
    return jacfwd(case.cell.phi.matrix)(theta).abs().amax()


def _measure(case: GatedCase) -> dict[str, tuple[Tensor, Tensor]]:
    h, T = case.size()
    g_theta, g_W = parameter_gradients(case)
    aT = case.cell.alpha * T
    return {
        "eq. 7: ‖∂L/∂Θ‖_max ≤ C M_φ h (αT)²": (g_theta.abs().amax(), C(case) * local_M_phi(case) * h * aT**2),
        "eq. 8: ‖∂L/∂W‖_max ≤ C αT √h / R_W": (g_W.abs().amax(), C(case) * aT * math.sqrt(h) / case.R_W),
    }


theorem2 = Claim(
    id="sgornn.theorem2",
    source="sgornn.md, Theorem 2, eq. 7–8 (proof in Appendix A.2, eq. 25–33)",
    statement="‖∂L/∂Θ‖_max ≤ C M_φ h (αT)² (eq. 7) and ‖∂L/∂W‖_max ≤ C αT √h / R_W (eq. 8), "
              "C = R_x R_W R_v, for a 1-Lipschitz loss and β ≤ 1 − α",
    assumptions=F_T_ASSUMPTIONS + (A_V,),
    measure="autograd gradients of L = vᵀh_T with respect to Θ and W; max |entry|",
    bound="C M_φ h (αT)² and C αT √h / R_W, with M_φ = max_ij ‖∂φ(Θ)/∂Θ_ij‖_max at the case's Θ",
    evaluate=_measure,
    cases=GATED_1_ALPHA,
    explanation="Eq. 25's product ∏(αUᵀD + βI) is bounded by (α + β)^{T−t} ≤ 1 only if α + β ≤ 1 and "
                "‖U‖₂ ≤ 1; the hidden-state bound fails under the same conditions.",
    notes="L = vᵀh_T (σ_y = identity), the worst 1-Lipschitz loss: ∂L/∂h_T = v exactly. M_φ is taken at the "
          "case's Θ (jacfwd of φ), never larger than the supremum the theorem assumes, so the check is at least "
          "as strict as the statement. The proof's norm step eq. 31 is false as written; see sgornn.eq31. "
          + R_NOTE,
)
