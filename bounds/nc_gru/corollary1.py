"""nc_gru.md, Corollary 1 (eq. 13; proof SM 7, eq. 46–58): for Φ = tanh, δ_u, δ_r ≤ 1/4, [h_t]_i ≤ 1 and
the bounds on α, β, as printed and corrected (|·| reading, a proof without 0 ≤ c_t)."""

from __future__ import annotations

from torch import Tensor

from rnnaudit.bounds.core import Claim, Supremum
from rnnaudit.bounds.nc_gru.cases import TRAJECTORY_ASSUMPTIONS, GRUCase, gru_steps, spectral, theorem1_alpha_beta
from rnnaudit.bounds.nc_gru.spaces import TRAJECTORIES

__all__ = ["corollary1", "corollary1_corrected"]


def _measure_corollary1(case: GRUCase) -> dict[str, tuple[Tensor, Tensor]]:
    s = gru_steps(case)
    alpha, beta = theorem1_alpha_beta(s, absolute=False)
    one = s.hs.new_ones(())
    return {
        "δ_u ≤ 1/4": ((s.u * (1 - s.u)).amax(), one / 4),
        "δ_r ≤ 1/4": ((s.r * (1 - s.r)).amax(), one / 4),
        "[h_t]_i ≤ 1 for all i, t": (s.hs.amax(), one),
        "eq. 13: α ≤ ½‖U_u‖₂ + 1 (printed α)": (alpha.amax(), s.norms["u"] / 2 + 1),
        "eq. 13: β ≤ ¼‖U_r‖₂ + 1 (printed β)": (beta.amax(), s.norms["r"] / 4 + 1),
    }


def _measure_corollary1_corrected(case: GRUCase) -> dict[str, tuple[Tensor, Tensor]]:
    s = gru_steps(case)
    alpha, beta = theorem1_alpha_beta(s, absolute=True)
    one = s.hs.new_ones(())
    a_max, b_max = s.norms["u"] / 2 + 1, s.norms["r"] / 4 + 1
    return {
        "|[h_t]_i| ≤ 1 for all i, t": (s.hs.abs().amax(), one),
        "|[c_t]_i| ≤ 1 for all i, t": (s.c.abs().amax(), one),
        "eq. 13: α ≤ ½‖U_u‖₂ + 1 (|·| α)": (alpha.amax(), a_max),
        "eq. 13: β ≤ ¼‖U_r‖₂ + 1 (|·| β)": (beta.amax(), b_max),
        "eq. 8 + 13: ‖∂h_t/∂h_(t−1)‖₂ ≤ ½‖U_u‖₂ + 1 + (¼‖U_r‖₂ + 1)‖U_c‖₂": (
            spectral(s.J).amax(), a_max + b_max * s.norms["c"]),
    }


corollary1 = Claim(
    id="nc_gru.corollary1",
    source="nc_gru.md, Corollary 1, eq. 13 (proof SM 7, eq. 46–58)",
    statement="For Φ = tanh: δ_u, δ_r ≤ 1/4, [h_t]_i ≤ 1 for all i, t, α ≤ ½‖U_u‖₂ + 1 and β ≤ ¼‖U_r‖₂ + 1",
    assumptions=TRAJECTORY_ASSUMPTIONS,
    measure="δ_u, δ_r, max h_t and α_t, β_t (printed, signed maxima) over every step of a sequence from h_0 = 0",
    bound="1/4, 1/4, 1, ½‖U_u‖₂ + 1, ¼‖U_r‖₂ + 1",
    evaluate=_measure_corollary1,
    cases=TRAJECTORIES,
    explanation="Would need h_0 ≠ 0 (the induction eq. 47–52 starts from h_0 = 0) or a candidate with |Φ| > 1.",
    notes="The statement holds, but its proof (eq. 47–52) assumes 0 ≤ [c_t]_i ≤ 1, false for tanh (c_t ∈ (−1, 1): nc_gru.eq47, false); "
          "the conclusion survives because h_t is a convex combination of h_{t−1} and c_t. δ_u = 1/4 is attained "
          "(u = 1/2), so ratios of exactly 1 are expected. The printed α, β are those of nc_gru.theorem1, which is "
          "misprinted; nc_gru.corollary1.corrected bounds the |·| α, β that make Theorem 1 true. Supremum 1, attained "
          "(δ_u = 1/4 at u = 1/2: every weight 0, structured start).",
    supremum=Supremum(1.0, "σ(1 − σ) ≤ 1/4 with equality at σ = 1/2 (zero weights: structured start)", at=(2, 1)),
)

corollary1_corrected = Claim(
    id="nc_gru.corollary1.corrected",
    source="nc_gru.md, Corollary 1, eq. 13, corrected by rnnaudit (proof without 0 ≤ c_t)",
    statement="For Φ = tanh and h_0 = 0: |[h_t]_i| ≤ 1, |[c_t]_i| ≤ 1, and the |·| α, β of theorem1.corrected "
              "satisfy α ≤ ½‖U_u‖₂ + 1, β ≤ ¼‖U_r‖₂ + 1, hence ‖∂h_t/∂h_{t−1}‖₂ ≤ ½‖U_u‖₂ + 1 + (¼‖U_r‖₂ + 1)‖U_c‖₂",
    assumptions=TRAJECTORY_ASSUMPTIONS,
    measure="max |h_t|, max |c_t|, α_t, β_t (|·| reading) and ‖∂h_t/∂h_{t−1}‖₂ (autograd) over every step",
    bound="1, 1, ½‖U_u‖₂ + 1, ¼‖U_r‖₂ + 1, ½‖U_u‖₂ + 1 + (¼‖U_r‖₂ + 1)‖U_c‖₂",
    evaluate=_measure_corollary1_corrected,
    cases=TRAJECTORIES,
    explanation="Would mean |[h_t]_i| ≤ 1 fails; by induction h_t = (1 − u_t)h_{t−1} + u_t c_t is a convex "
                "combination of two vectors in [−1, 1]^h when h_0 = 0 and Φ = tanh.",
    notes="Replaces the proof's premise 0 ≤ [c_t]_i ≤ 1 (eq. 47–52) by |[c_t]_i| < 1 (nc_gru.eq47). Supremum 1, "
          "attained: c_t = tanh(±40) = ±1 in float64 (structured start).",
    supremum=Supremum(1.0, "|tanh| < 1, attained as ±1 in float64 at the pre-activation ±40 (structured start)",
                      at=(2, 1)),
)
