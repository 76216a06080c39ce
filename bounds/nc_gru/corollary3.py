"""nc_gru.md, Corollary 3 (eq. 21–22; proof SM 7, eq. 65–68): ‖∂h_t/∂h_{t−1}‖₂ ≲ 2 (≲ 1) for the NC-GRU of
eq. 19 with saturated gates, as printed and corrected (‖U_r‖₂, ‖U_u‖₂, H, C explicit, every NC-GRU variant)."""

from __future__ import annotations

import math
from dataclasses import replace

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, Claim, ExactVerdict, Reading, Supremum, assumption_tolerances
from rnnaudit.bounds.readings import select_parts
from rnnaudit.bounds.nc_gru.cases import (A_EPS, A_ONE_STEP, A_SAT, A_SAT_VEC, EPS_NOTE, H_C, GRUCase, assumption_check,
                                          gru_steps, sample_saturated_case, saturated_bound, spectral)
from rnnaudit.bounds.nc_gru.spaces import SATURATED_GRU_STEPS, ncgru_step_starts, saturated_limit, step_jacobian
from rnnaudit.cells import NCGRU, orthogonality_defect

__all__ = ["corollary3", "corollary3_corrected", "A_NCGRU", "A_UR_UC_ORTH", "A_UC_ORTH", "ASYMPTOTIC_21",
           "ASYMPTOTIC_22"]

#: The parts of the asymptotic reading (ε → 0 with the weights fixed), named without ε.
ASYMPTOTIC_21 = "eq. 21, asymptotic reading (ε → 0, weights fixed): lim ‖∂h_t/∂h_(t−1)‖₂ ≤ 2"
ASYMPTOTIC_22 = "eq. 22, asymptotic reading (ε → 0, weights fixed): lim ‖∂h_t/∂h_(t−1)‖₂ ≤ 1"


def _measure_corollary3(case: GRUCase) -> dict[str, tuple[Tensor, Tensor]]:
    eps = case.eps
    J = spectral(step_jacobian(case))
    parts = {f"eq. 21 (ε = {eps:g}), uniform reading: ‖∂h_t/∂h_(t−1)‖₂ ≤ 2(1 + ε)": (J, J.new_tensor(2 * (1 + eps)))}
    if case.regime == "vectors":
        parts[f"eq. 22 (ε = {eps:g}), uniform reading: ‖∂h_t/∂h_(t−1)‖₂ ≤ 1 + ε"] = (J, J.new_tensor(1 + eps))
    with torch.no_grad():
        limit = spectral(step_jacobian(saturated_limit(case)))
    parts[ASYMPTOTIC_21] = (limit, limit.new_tensor(2.0))
    if case.regime == "vectors":
        parts[ASYMPTOTIC_22] = (limit, limit.new_tensor(1.0))
    return parts


def _measure_corollary3_corrected(case: GRUCase) -> dict[str, tuple[Tensor, Tensor]]:
    s, eps = gru_steps(case), case.eps
    J, (H, C) = spectral(s.J[0]), H_C(s)
    parts = {f"eq. 21 (ε = {eps:g}): ‖∂h_t/∂h_(t−1)‖₂ ≤ 2 + ε(1−ε)[(H+C)‖U_u‖₂ + H‖U_r‖₂]": (
        J, saturated_bound(eps, H, C, s.norms["u"], s.norms["r"], vectors=False))}
    if case.regime == "vectors":
        parts[f"eq. 22 (ε = {eps:g}): ‖∂h_t/∂h_(t−1)‖₂ ≤ 1 + ε + ε(1−ε)[(H+C)‖U_u‖₂ + H‖U_r‖₂]"] = (
            J, saturated_bound(eps, H, C, s.norms["u"], s.norms["r"], vectors=True))
    return parts


def _defects(c: GRUCase) -> dict[str, float]:
    with torch.no_grad():  # numbers for the assumptions: the same bits, without recording the Cayley maps' graphs
        U = c.cell.recurrent_matrices()
        return {g: float(orthogonality_defect(U[f"U_{g}"])) for g in ("r", "u", "c")}


A_NCGRU = Assumption("NC-GRU of eq. 19 (Φ = modReLU)", lambda c: (type(c.cell) is NCGRU, type(c.cell).__name__))
A_UR_UC_ORTH = Assumption("U_r(A_r), U_c(A_c) orthogonal (eq. 19)", assumption_check(
    _defects, lambda c, v: max(v["r"], v["c"]) <= assumption_tolerances().orthogonality,
    lambda c, v: "‖UᵀU − I‖₂ = {r:.3g} (U_r), {c:.3g} (U_c)".format(**v)))
A_UC_ORTH = Assumption("U_c(A_c) orthogonal (every NC-GRU variant, Sec. 5.2)", assumption_check(
    _defects, lambda c, v: v["c"] <= assumption_tolerances().orthogonality,
    lambda c, v: "‖U_cᵀU_c − I‖₂ = {c:.3g}".format(**v)))


def _sample_ncgru_step(gen, h, T, device, dtype) -> GRUCase:
    return sample_saturated_case(gen, h, T, device, dtype, model="NCGRU")


def _sample_any_ncgru_step(gen, h, T, device, dtype) -> GRUCase:
    return sample_saturated_case(gen, h, T, device, dtype, model="NCGRU-any")


#: One ε-saturated NC-GRU step with U_r and U_c orthogonal (eq. 19), optionally U_u too.
_NCGRU_STEPS = replace(SATURATED_GRU_STEPS, sample=_sample_ncgru_step, starts=ncgru_step_starts)
#: The same for every NC-GRU variant of Sec. 5.2, NC-GRU(U_c) with a free U_r included.
_ANY_NCGRU_STEPS = replace(SATURATED_GRU_STEPS, sample=_sample_any_ncgru_step, starts=ncgru_step_starts)

def _exact() -> ExactVerdict:
    """The scalar NC-GRU(U_r, U_c) in rational arithmetic: A_r = A_c = 0 and D = −1 (U_r = U_c = −1, orthogonal),
    U_u = 1000, x_t = 0, h_{t−1} = 1, modReLU bias 1, u_t = r_t = 9/10 (ε = 1/10): c_t = modReLU(−9/10) = −19/10,
    Φ' = 1, and ∂h_t/∂h_{t−1} by eq. 40 (proved symbolically in nc_gru.eq36)."""
    import sympy

    R = sympy.Rational
    eps, u, r, h, Uu, Ur, Uc = R(1, 10), R(9, 10), R(9, 10), 1, 1000, -1, -1
    c = -(r * h + 1)
    J = -h * u * (1 - u) * Uu + (1 - u) + c * u * (1 - u) * Uu + u * 1 * Uc * (h * r * (1 - r) * Ur + r)
    bound = 2 * (1 + eps)
    return ExactVerdict("violated" if abs(J) > bound else "proved",
                        f"uniform reading, eq. 21 at ε = 1/10: |∂h_t/∂h_(t−1)| = |{J}| ≈ {float(abs(J)):.3f} > "
                        f"2(1 + ε) = {bound}, with ‖U_r‖₂ = ‖U_c‖₂ = 1")


corollary3 = Claim(
    id="nc_gru.corollary3",
    source="nc_gru.md, Corollary 3, eq. 21–22 (proof SM 7, eq. 65–68)",
    statement="NC-GRU (eq. 19): ‖U_r‖₂ = ‖U_c‖₂ = 1 and gates nearly 0 or 1 ⇒ ‖∂h_t/∂h_{t−1}‖₂ ≲ 2 (eq. 21); gates "
              "nearly the zero or all-ones vector ⇒ ≲ 1 (eq. 22). Readings of ≲: uniform, ≤ 2(1 + ε) and ≤ 1 + ε "
              "for every weight at saturation tolerance ε; asymptotic, the limit ε → 0 for fixed weights ≤ 2 and ≤ 1",
    assumptions=(A_NCGRU, A_UR_UC_ORTH, A_ONE_STEP, A_EPS, A_SAT, A_SAT_VEC),
    measure="‖∂h_t/∂h_{t−1}‖₂ by autograd (jacrev of NCGRU.step) at one ε-saturated step, any h_{t−1} (uniform "
            "parts); the same at the case's weights with every gate pre-activation moved to |z| ≥ 60 (asymptotic)",
    bound="2(1 + ε) (eq. 21) and 1 + ε (eq. 22, vector regime only); 2 and 1 for the limits",
    evaluate=_measure_corollary3,
    cases=_NCGRU_STEPS,
    explanation="Inherits Corollary 2's dropped term ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂], and worse: Corollary 2 "
                "used H, C ≤ 1 (Corollary 1, tanh), but NC-GRU's Φ = modReLU is unbounded, so H = max|h_{t−1}| and "
                "C = max|c_t| are not bounded by 1 and the error grows with the state even for fixed weights; "
                "‖U_u‖₂ is free unless U_u is orthogonal too. In NC-GRU(U_c), the model of most of Sec. 4, U_r is "
                "not orthogonal either, so ‖U_r‖₂ = 1 fails. The uniform reading fails without bound: the Jacobian "
                "term diag(c_t − h_{t−1})diag(u(1 − u))U_u has norm up to ε(1 − ε)(H + C)‖U_u‖₂, linear in ‖U_u‖₂ at "
                "every ε (≈ 2.0 at ε = 0.001 and ≈ 2,000 at ‖U_u‖₂ = 10⁶, against 2(1 + ε) = 2.002, with H + C = 2; "
                "≈ 261 against 2.2 at ε = 0.1, ‖U_u‖₂ = 1000 on the scalar NC-GRU start), and with every U orthogonal "
                "it "
                "still grows with the state H (modReLU). The asymptotic reading holds. See "
                "nc_gru.corollary3.corrected.",
    notes=EPS_NOTE + " Theorem 1 applies to modReLU since |Φ'| ≤ 1 (modReLU jumps at z = 0 when b > 0, where no "
          "Jacobian exists; autograd's value there is Φ' = 0). Cases are NC-GRU(U_r, U_c) and NC-GRU(U_r, U_u, U_c) "
          "with exact Ã (orthogonal to 1e-15). Supremum of the uniform ratio: unbounded. Supremum of the "
          "asymptotic ratio: with u, r, Φ' ∈ {0, 1} the limit Jacobian is (I − P) + PΦU_cR (P, Φ, R 0/1 "
          "diagonal), and ‖(I − P)x‖² + ‖PΦU_cRx‖² ≤ 2‖x‖² for orthogonal U_c, so lim ‖∂h_t/∂h_{t−1}‖₂ ≤ √2: "
          "eq. 21's ratio ≤ √2/2, attained at h = 2 with u = (0, 1), r = 1 and U_c the rotation by π/2 (the "
          "constant 2 is loose); eq. 22's limit is I (u → 0) or ΦU_cR (u → 1), ratio ≤ 1, attained.",
    supremum=Supremum(math.sqrt(2) / 2, "lim ∂h_t/∂h_(t−1) = (I − P) + PΦU_cR has norm ≤ √2 for orthogonal U_c; "
                                        "u = (0, 1), r = 1, U_c = [[0, −1], [1, 0]] attains √2", at=(2, 1),
                      part=ASYMPTOTIC_21),
    exact=_exact,
    readings=(Reading(
        "asymptotic: ε → 0 at fixed weights",
        "lim_{ε→0} ‖∂h_t/∂h_{t−1}‖₂ ≤ 2 (eq. 21) and ≤ 1 (eq. 22) for the case's own weights and state",
        "the proof (SM 7, eq. 65–68) repeats Corollary 2's step: the δ terms are dropped as ≈ 0 'because the gates "
        "are nearly 0 or 1', exact in the limit of saturated gates at fixed weights and state",
        select_parts(_measure_corollary3, lambda part: "asymptotic" in part)),),
)

corollary3_corrected = Claim(
    id="nc_gru.corollary3.corrected",
    source="nc_gru.md, Corollary 3, eq. 21–22, corrected by rnnaudit (‖U_r‖₂, ‖U_u‖₂, H, C explicit)",
    statement="NC-GRU with U_c orthogonal (any of Sec. 5.2's variants), gate entries within ε of 0 or 1: "
              "‖∂h_t/∂h_{t−1}‖₂ ≤ 2 + ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂]; u_t, r_t within ε of 0 or 1 (vectors): "
              "≤ 1 + ε + ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂]; H = max|h_{t−1}|, C = max|c_t| (unbounded for modReLU)",
    assumptions=(A_NCGRU, A_UC_ORTH, A_ONE_STEP, A_EPS, A_SAT, A_SAT_VEC),
    measure="‖∂h_t/∂h_{t−1}‖₂ by autograd at one ε-saturated NC-GRU step",
    bound="the right-hand sides with the case's H, C, ‖U_u‖₂, ‖U_r‖₂ and ‖U_c‖₂ = 1",
    evaluate=_measure_corollary3_corrected,
    cases=_ANY_NCGRU_STEPS,
    explanation="Would mean Theorem 1 (|·| reading) fails for modReLU or ‖U_c‖₂ ≠ 1; U_c = Ã(I − A)D is orthogonal "
                "only while Ã = (I + A)^{-1}.",
    notes=EPS_NOTE + " Includes NC-GRU(U_c) (U_r free). ‖U_r‖₂ = 1 only for orthogonal U_r. Supremum 1, approached "
          "as ‖U_u‖₂ → ∞: the term diag(c_t − h_{t−1})diag(u(1 − u))U_u then dominates both sides, and on the "
          "scalar start (c_t and h_{t−1} on either side of 0, u on the edge) its size is exactly ε(1 − ε)(H + C)‖U_u‖₂.",
    supremum=Supremum(1.0, "both sides are dominated by ε(1 − ε)(H + C)‖U_u‖₂ as ‖U_u‖₂ → ∞, with equality of that "
                           "term when c_t, h_{t−1} have opposite signs (structured start, h = 1)", at=(1, 1)),
)
