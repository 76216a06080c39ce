"""nc_gru.md, SM 7, the inequality steps of Theorem 1's proof before its last one: eq. 30 and 33 (the gate
Jacobians) and eq. 37–38 (the candidate's Jacobian), as printed with the signed maxima max_i [v]_i; and, corrected
with max_i |v_i|, every step up to eq. 41 (the triangle inequality). Eq. 30, 33 hold; eq. 37–38 need |·| (their right
sides bound ‖diag(h_{t−1})‖₂ = max_i |[h_{t−1}]_i|, and with an all-negative state the printed bracket goes
negative). Eq. 41 as printed fails the same way through max_i [c_t]_i; that failure is nc_gru.theorem1's."""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor

from rnnaudit.bounds.core import Claim, Reading, Supremum, nothing_free, worst_pair
from rnnaudit.bounds.nc_gru.cases import TRAJECTORY_ASSUMPTIONS, GRUCase, spectral
from rnnaudit.bounds.nc_gru.eq36 import candidate_derivative, gate_jacobians
from rnnaudit.bounds.nc_gru.spaces import TRAJECTORIES

__all__ = ["eq37", "eq37_corrected", "step_bounds"]


def step_bounds(case: GRUCase, *, absolute: bool, with_eq41: bool = True) -> dict[str, tuple[Tensor, Tensor]]:
    """Each inequality step of the proof at every step t of the case's sequence (worst t per step): left side from
    autograd (:func:`rnnaudit.bounds.nc_gru.eq36.gate_jacobians`), right side as printed (``absolute=False``: signed
    max_i [·]_i) or with max_i |·|; eq. 41 only when ``with_eq41``. A right side ≤ 0 is clamped to 0 (any nonzero
    norm then exceeds it)."""
    cell = case.cell
    x = case.x[0]
    hs = cell(case.x, case.h0[None])[0]
    prev = torch.cat([case.h0[None], hs[:-1]])
    g = cell.gates(x, prev)
    r, u, c = g["r"], g["u"], g["c"]
    dr, du, dc, J = gate_jacobians(cell, x, prev)
    U = cell.recurrent_matrices()
    nr, nu, nc = spectral(U["U_r"]), spectral(U["U_u"]), spectral(U["U_c"])
    m = (lambda v: v.abs().amax(-1)) if absolute else (lambda v: v.amax(-1))
    delta_r, delta_u = (r * (1 - r)).amax(-1), (u * (1 - u)).amax(-1)
    n_dr, n_du, n_dc = spectral(dr), spectral(du), spectral(dc)
    phi = candidate_derivative(cell, x, prev, r).amax(-1)
    tag = "max_i |·|" if absolute else "max_i [·]_i as printed"
    rhs37 = phi * (n_dr * m(prev) + r.amax(-1)) * nc
    rhs38 = (delta_r * nr * m(prev) + r.amax(-1)) * nc
    rhs41 = m(prev) * n_du + (1 - u).amax(-1) + m(c) * n_du + u.amax(-1) * n_dc
    parts = {
        "eq. 30: ‖∂r_t/∂h_(t−1)‖₂ ≤ δ_r‖U_r‖₂": worst_pair(n_dr, delta_r * nr),
        "eq. 33: ‖∂u_t/∂h_(t−1)‖₂ ≤ δ_u‖U_u‖₂": worst_pair(n_du, delta_u * nu),
        f"eq. 37 ({tag}): ‖∂c_t/∂h_(t−1)‖₂ ≤ max Φ'(‖∂r‖₂ max h_(t−1) + max r)‖U_c‖₂": worst_pair(
            n_dc, rhs37.clamp_min(0.0)),
        f"eq. 38 ({tag}): ‖∂c_t/∂h_(t−1)‖₂ ≤ (δ_r‖U_r‖₂ max h_(t−1) + max r)‖U_c‖₂": worst_pair(
            n_dc, rhs38.clamp_min(0.0)),
    }
    if with_eq41:
        parts[f"eq. 41 ({tag}): ‖∂h_t/∂h_(t−1)‖₂ ≤ max h‖∂u‖₂ + max(1 − u) + max c‖∂u‖₂ + max u‖∂c‖₂"] = worst_pair(
            spectral(J), rhs41.clamp_min(0.0))
    return parts


#: Whole GRU sequences (eq. 1, h_0 = 0) with the structured starts; the steps are judged on random and structured
#: cases only (their conclusion, Theorem 1, is searched by ascent in nc_gru.theorem1(.corrected)).
_STEP_SEQUENCES = replace(TRAJECTORIES, free=nothing_free)

eq37 = Claim(
    id="nc_gru.eq37",
    source="nc_gru.md, SM 7, proof of Theorem 1, eq. 30, 33, 37 and 38 (as printed)",
    statement="‖∂r_t/∂h_{t−1}‖₂ ≤ δ_r‖U_r‖₂ (30); ‖∂u_t/∂h_{t−1}‖₂ ≤ δ_u‖U_u‖₂ (33); ‖∂c_t/∂h_{t−1}‖₂ ≤ max_i Φ'_i "
              "(‖∂r_t/∂h_{t−1}‖₂ max_i [h_{t−1}]_i + max_i [r_t]_i)‖U_c‖₂ (37) ≤ (δ_r‖U_r‖₂ max_i [h_{t−1}]_i + max_i "
              "[r_t]_i)‖U_c‖₂ (38)",
    assumptions=TRAJECTORY_ASSUMPTIONS,
    measure="the left sides by autograd (jacrev of the gates and the step), at every step of a sequence from h_0 = 0",
    bound="the right sides with the signed maxima as printed (clamped at 0)",
    evaluate=lambda c: step_bounds(c, absolute=False, with_eq41=False),
    cases=_STEP_SEQUENCES,
    explanation="Eq. 37 and 38 (the bound on ∂c_t/∂h_{t−1}) fail as printed, not only eq. 41: the step from eq. 36 "
                "bounds ‖diag(h_{t−1})‖₂ = max_i |[h_{t−1}]_i|, but the text writes max_i [h_{t−1}]_i, which is "
                "negative on an all-negative state, so the bracket δ_r‖U_r‖₂ max_i [h_{t−1}]_i + max_i [r_t]_i can be "
                "negative (h_1 = −0.9·1, U_r = 8I, r_2 = 1/2: −0.9·2 + 1/2 < 0) while ‖∂c_t/∂h_{t−1}‖₂ > 0. Eq. 41 "
                "fails the same way through max_i [h_{t−1}]_i and max_i [c_t]_i (nc_gru.theorem1). Eq. 30 and 33 hold. "
                "See nc_gru.eq37.corrected.",
    notes="A proof-step check. The signed maxima of eq. 9–10 are inherited from eq. 37–41; the hypothesis the "
          "printed steps need and Theorem 1 does not state is h_{t−1}, c_t ≥ 0 entrywise (false for tanh).",
    readings=(Reading("max_i [h_{t−1}]_i read as max_i |[h_{t−1}]_i|", "eq. 30, 33, 37 and 38 with max_i |[h_{t−1}]_i|",
                      "the step from eq. 36 bounds ‖diag(h_{t−1})‖₂, the maximum of the absolute values",
                      lambda c: step_bounds(c, absolute=True, with_eq41=False)),),
)

eq37_corrected = Claim(
    id="nc_gru.eq37.corrected",
    source="nc_gru.md, SM 7, eq. 30, 33, 37, 38 and 41, corrected by rnnaudit (max_i |·|)",
    statement="Eq. 30, 33, 37, 38 and 41 with max_i |[h_{t−1}]_i| and max_i |[c_t]_i| in place of the signed maxima",
    assumptions=TRAJECTORY_ASSUMPTIONS,
    measure="as nc_gru.eq37, and eq. 41's ‖∂h_t/∂h_(t−1)‖₂ by autograd",
    bound="the right sides with max_i |·|",
    evaluate=lambda c: step_bounds(c, absolute=True),
    cases=_STEP_SEQUENCES,
    explanation="Would mean a triangle inequality or ‖diag(v)‖₂ = max_i |v_i| fails.",
    notes="Supremum 1, attained by the structured start with U_r = U_u = I, U_c = 4I and zero state (r_t = u_t = 1/2): "
          "‖diag(1/4)I‖₂ = δ‖I‖₂ in eq. 30 and 33.",
    supremum=Supremum(1.0, "eq. 30, 33 are equalities when r_t (u_t) is constant across entries and U_r (U_u) = I; "
                           "structured start", at=(2, 1)),
)
