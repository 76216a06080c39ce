"""nc_gru.md, Theorem 1 (eq. 8–12; proof SM 7, eq. 23–45): ‖∂h_t/∂h_{t−1}‖₂ ≤ α + β‖U_c‖₂ for the GRU
of eq. 1, as printed (signed maxima max_i [·]_i) and corrected (max_i |·|, what eq. 41 proves)."""

from __future__ import annotations

from torch import Tensor

from rnnaudit.bounds.core import Claim, Reading, Supremum, worst_pair
from rnnaudit.bounds.nc_gru.cases import TRAJECTORY_ASSUMPTIONS, GRUCase, gru_steps, spectral, theorem1_alpha_beta
from rnnaudit.bounds.nc_gru.spaces import TRAJECTORIES

__all__ = ["theorem1", "theorem1_corrected"]


def _measure_theorem1(case: GRUCase, *, absolute: bool) -> dict[str, tuple[Tensor, Tensor]]:
    s = gru_steps(case)
    alpha, beta = theorem1_alpha_beta(s, absolute=absolute)
    bound = (alpha + beta * s.norms["c"]).clamp_min(0.0)  # a negative printed bound is exceeded by any norm
    name = "eq. 8 with max_i |·|" if absolute else "eq. 8 as printed (max_i [·]_i)"
    return {f"{name}: ‖∂h_t/∂h_(t−1)‖₂ ≤ α + β‖U_c‖₂": worst_pair(spectral(s.J), bound)}


theorem1 = Claim(
    id="nc_gru.theorem1",
    source="nc_gru.md, Theorem 1, eq. 8–12 (proof SM 7, eq. 23–45)",
    statement="‖∂h_t/∂h_{t−1}‖₂ ≤ α + β‖U_c‖₂, α = δ_u(max_i [h_{t−1}]_i + max_i [c_t]_i)‖U_u‖₂ + max_i(1 − [u_t]_i), "
              "β = max_i [u_t]_i (δ_r‖U_r‖₂ max_i [h_{t−1}]_i + max_i [r_t]_i), δ_u = max_i [u_t]_i(1 − [u_t]_i), "
              "δ_r = max_i [r_t]_i(1 − [r_t]_i)",
    assumptions=TRAJECTORY_ASSUMPTIONS,
    measure="‖∂h_t/∂h_{t−1}‖₂ by autograd (jacrev of GRU.step) at every step of a sequence from h_0 = 0; worst step",
    bound="α_t + β_t‖U_c‖₂ with the maxima as printed (signed entries); clamped at 0 (a negative bound fails)",
    evaluate=lambda c: _measure_theorem1(c, absolute=False),
    cases=TRAJECTORIES,
    explanation="Eq. 9–10 write max_i [h_{t−1}]_i and max_i [c_t]_i, but the proof's step eq. 41 bounds "
                "‖diag(h_{t−1})‖₂ and ‖diag(c_t)‖₂, which are max_i |·|; with tanh, h_t and c_t can be entirely "
                "negative, the signed maxima are then negative and the printed α (even α + β‖U_c‖₂) falls below "
                "‖∂h_t/∂h_{t−1}‖₂ (e.g. h_{t−1} ≈ −0.9·1, c_t ≈ −0.1·1, u_t = 1/2 through U_u = κ(P − I)). "
                "The |·| reading is proved by eq. 41 as written; see nc_gru.theorem1.corrected.",
    notes="Ratio inf means the printed bound was ≤ 0 at the worst step.",
    readings=(Reading("max_i [·]_i read as max_i |[·]_i|", "eq. 9–10 with max_i |[h_{t−1}]_i| and max_i |[c_t]_i|",
                      "the proof's step (SM, eq. 41) bounds ‖diag(h_{t−1})‖₂ and ‖diag(c_t)‖₂, which are the "
                      "maxima of the absolute values", lambda c: _measure_theorem1(c, absolute=True)),),
)

theorem1_corrected = Claim(
    id="nc_gru.theorem1.corrected",
    source="nc_gru.md, Theorem 1, eq. 8–12, corrected by rnnaudit (max_i |·| as in eq. 41)",
    statement="‖∂h_t/∂h_{t−1}‖₂ ≤ α + β‖U_c‖₂ with max_i |[h_{t−1}]_i| and max_i |[c_t]_i| in eq. 9–10",
    assumptions=TRAJECTORY_ASSUMPTIONS,
    measure="‖∂h_t/∂h_{t−1}‖₂ by autograd at every step of a sequence from h_0 = 0; worst step",
    bound="α_t + β_t‖U_c‖₂, α, β of eq. 9–12 with absolute values",
    evaluate=lambda c: _measure_theorem1(c, absolute=True),
    cases=TRAJECTORIES,
    explanation="Would mean the triangle-inequality chain eq. 40–42 is wrong; it needs only σ' = σ(1 − σ) and "
                "|Φ'| ≤ 1 (tanh).",
    notes="The proof does not use h_0 = 0; the bound holds for any h_{t−1}. Supremum 1, attained: with every weight 0 "
          "but U_r = U_u = I, U_c = 4I, the state stays 0, u_t = r_t = 1/2, c_t = 0 and ∂h_t/∂h_{t−1} = (3/2)I = "
          "α + β‖U_c‖₂ (structured start).",
    supremum=Supremum(1.0, "triangle inequality and ‖diag(v)‖₂ = max|v_i|; equality when every term is a multiple of I "
                           "(zero state, U_r = U_u = I, U_c = 4I: structured start)", at=(2, 1)),
)
