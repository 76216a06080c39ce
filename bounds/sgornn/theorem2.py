"""sgornn.md, Theorem 2 (eq. 7–8): max-entry gradient bounds for SGORNN with β ≤ 1 − α.

The proof (Appendix A.2, eq. 25–33) bounds ∂L/∂U through the product ∏(αUᵀD + βI) and then
passes to Θ through M_φ; its norm step eq. 31 is checked separately (``sgornn.eq31``).
"""

from __future__ import annotations

import math

from torch import Tensor

from rnnaudit.bounds.core import Claim, Supremum
from rnnaudit.bounds.sgornn.cases import A_V, F_T_ASSUMPTIONS, R_NOTE, C, GatedCase, parameter_gradients
from rnnaudit.bounds.sgornn.constructions import GATED_STRUCTURED, theorem2_eq7_supremum
from rnnaudit.bounds.sgornn.m_phi import vprnn_M_phi
from rnnaudit.cells import SGORNN

__all__ = ["theorem2", "local_M_phi", "EQ7", "EQ8"]

#: The two parts of the claim.
EQ7 = "eq. 7: ‖∂L/∂Θ‖_max ≤ C M_φ h (αT)²"
EQ8 = "eq. 8: ‖∂L/∂W‖_max ≤ C αT √h / R_W"


def local_M_phi(case: GatedCase) -> Tensor:
    """M_φ at the case's Θ: max over i, j of ‖∂φ(Θ)/∂Θ_ij‖_max (sgornn.md Theorem 2), 0-d.

    Computed exactly from φ's product structure (:func:`~rnnaudit.bounds.sgornn.m_phi.vprnn_M_phi`,
    equal to jacfwd of φ to rounding; tested); for FastRNN (φ = identity on U) it is 1. Θ is detached:
    the ascent moves Θ through the measured gradient, and M_φ is re-evaluated at every iterate.
    The proof of Theorem 2 (eq. 29–31) uses ∂φ/∂Θ only at the current Θ, so this local value
    is the tightest M_φ the statement can be read with; the supremum over Θ that the theorem
    assumes can only be larger.
    """
    if not isinstance(case.cell, SGORNN):
        return case.x.new_ones(())
    return vprnn_M_phi(case.cell.phi, case.cell.phi.theta.detach())


def _measure(case: GatedCase) -> dict[str, tuple[Tensor, Tensor]]:
    h, T = case.size()
    g_theta, g_W = parameter_gradients(case)
    aT = case.cell.alpha * T
    return {
        EQ7: (g_theta.abs().amax(), C(case) * local_M_phi(case) * h * aT**2),
        EQ8: (g_W.abs().amax(), C(case) * aT * math.sqrt(h) / case.R_W),
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
    cases=GATED_STRUCTURED,
    explanation="Eq. 25's product ∏(αUᵀD + βI) is bounded by (α + β)^{T−t} ≤ 1 only if α + β ≤ 1 and "
                "‖U‖₂ ≤ 1; the hidden-state bound fails under the same conditions.",
    notes="Reading: the class is F_T of eq. 5 with the theorem's own gate condition β ≤ 1 − α in place of "
          "eq. 5's β ≤ 1 − 2α (a larger class, so the check is at least as strict). "
          "L = vᵀh_T (σ_y = identity), the worst 1-Lipschitz loss: ∂L/∂h_T = v exactly. M_φ is taken at the "
          "case's Θ (exact, from φ's product structure), never larger than the supremum the theorem assumes, "
          "so the check is at least as strict as the statement. The proof's norm step eq. 31 is false as written; see "
          "sgornn.eq31. "
          "Eq. 8's supremum is 1/√h at every T, attained by constructions.coordinate (U = I, u = v = e₀: "
          "(∂L/∂W)_00 = αT R_v R_x while ‖X‖_max ≤ ‖X‖₂ already gives αT R_v R_x, so eq. 8's √h is never needed); "
          "eq. 7's is below. Both bounds grow like (αT)² and αT, and U = I attains that growth "
          "(constructions.pair_rotation: ∂L/∂Θ = Cα²T(T−1)/2), so Sec. 4's 'O((αT)²) in the worst case' is "
          "the true order. " + R_NOTE,
    supremum=Supremum(
        theorem2_eq7_supremum,
        "Cap: ∂L/∂Θ_ij = ⟨G, ∂U/∂Θ_ij⟩ (eq. 30) with G = ∂L/∂U = α Σ_t a_t h_{t−1}ᵀ (eq. 25), ‖a_t‖ ≤ R_v "
        "(α + β ≤ 1, ‖U‖₂ = 1, ‖D‖₂ ≤ 1) and ‖h_{t−1}‖ ≤ α(t − 1)R_WR_x, so ‖G‖_* ≤ Cα²T(T − 1)/2. "
        "|⟨G, X⟩| ≤ ‖G‖_*‖X‖₂, and X = ∂U/∂Θ_ij = US with S skew (a tangent vector of the orthogonal group) "
        "has its singular values in equal pairs, so ‖X‖₂ ≤ ‖X‖_F/√2 ≤ h‖X‖_max/√2 ≤ h M_φ/√2. Hence the "
        "ratio is at most (T − 1)/(2√2 T) for every h and every orthogonal φ. Attained as α → 0 at h = 2 "
        "(constructions.reflection): U = R(π/4)P is a reflection with M_φ = 1/√2, u > 0 its fixed vector, "
        "x_t = w, W = uwᵀ, β = 1 − α, so h_t = αtu; v = Ju with Uᵀv = −v gives a_t = (1 − 2α)^{T−t}v and "
        "∂L/∂Θ_0j = ±α²C Σ_t (t − 1)(1 − 2α)^{T−t} → Cα²T(T − 1)/2. At α = 10⁻⁴, T = 3 the ratio is "
        "0.23569 of 0.23570. Known at h = 2 only (NaN elsewhere): for h > 2 the cap is an upper bound.",
        at=(2, 3), part=EQ7),
)
