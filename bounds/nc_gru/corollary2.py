"""nc_gru.md, Corollary 2 (eq. 14–15; proof SM 7, eq. 59–64): α + β ≲ 2 (≲ 1) when the GRU's gates are
nearly 0 or 1 entrywise (nearly the zero or all-ones vector), as printed ("≲" read as ≤ y(1 + ε)) and
corrected (the error term ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂] written out)."""

from __future__ import annotations

from torch import Tensor

from rnnaudit.bounds.core import Claim, ExactVerdict, Reading, Supremum
from rnnaudit.bounds.readings import select_parts
from rnnaudit.bounds.nc_gru.cases import (A_EPS, A_GRU, A_ONE_STEP, A_SAT, A_SAT_VEC, A_STATE, EPS_NOTE, H_C, GRUCase,
                                          gru_steps, saturated_bound, theorem1_alpha_beta)
from rnnaudit.bounds.nc_gru.spaces import SATURATED_GRU_STEPS, limit_steps

__all__ = ["corollary2", "corollary2_corrected", "COR2_ASSUMPTIONS", "ASYMPTOTIC_14", "ASYMPTOTIC_15"]

COR2_ASSUMPTIONS = (A_GRU, A_ONE_STEP, A_STATE, A_EPS, A_SAT, A_SAT_VEC)

#: The parts of the asymptotic reading (ε → 0 with the weights fixed), named without ε.
ASYMPTOTIC_14 = "eq. 14, asymptotic reading (ε → 0, weights fixed): lim α + β ≤ 2"
ASYMPTOTIC_15 = "eq. 15, asymptotic reading (ε → 0, weights fixed): lim α + β ≤ 1"


def _measure_corollary2(case: GRUCase) -> dict[str, tuple[Tensor, Tensor]]:
    s, eps = gru_steps(case), case.eps
    parts = {}
    for reading, absolute in (("printed α, β", False), ("|·| α, β", True)):
        alpha, beta = theorem1_alpha_beta(s, absolute=absolute)
        total = alpha[0] + beta[0]
        parts[f"eq. 14 (ε = {eps:g}), uniform reading: α + β ≤ 2(1 + ε), {reading}"] = (
            total, total.new_tensor(2 * (1 + eps)))
        if case.regime == "vectors":
            parts[f"eq. 15 (ε = {eps:g}), uniform reading: α + β ≤ 1 + ε, {reading}"] = (
                total, total.new_tensor(1 + eps))
    alpha, beta = theorem1_alpha_beta(limit_steps(case, s.norms), absolute=True)
    limit = alpha[0] + beta[0]
    parts[ASYMPTOTIC_14] = (limit, limit.new_tensor(2.0))
    if case.regime == "vectors":
        parts[ASYMPTOTIC_15] = (limit, limit.new_tensor(1.0))
    return parts


def _measure_corollary2_corrected(case: GRUCase) -> dict[str, tuple[Tensor, Tensor]]:
    s, eps = gru_steps(case), case.eps
    alpha, beta = theorem1_alpha_beta(s, absolute=True)
    total, (H, C) = alpha[0] + beta[0], H_C(s)
    parts = {f"eq. 14 (ε = {eps:g}): α + β ≤ 2 + ε(1−ε)[(H+C)‖U_u‖₂ + H‖U_r‖₂]": (
        total, saturated_bound(eps, H, C, s.norms["u"], s.norms["r"], vectors=False))}
    if case.regime == "vectors":
        parts[f"eq. 15 (ε = {eps:g}): α + β ≤ 1 + ε + ε(1−ε)[(H+C)‖U_u‖₂ + H‖U_r‖₂]"] = (
            total, saturated_bound(eps, H, C, s.norms["u"], s.norms["r"], vectors=True))
    return parts


def _exact() -> ExactVerdict:
    """The scalar GRU (h = 1) in rational arithmetic: ε = 1/10, u_t = r_t = 9/10 (on the edge of the tolerance),
    h_{t−1} = 99/100, c_t = 99/100 (pre-activation atanh(0.99)), ‖U_u‖₂ = ‖U_r‖₂ = 1000, in eq. 9–12."""
    import sympy

    R = sympy.Rational
    eps, u, r, H, C, k = R(1, 10), R(9, 10), R(9, 10), R(99, 100), R(99, 100), 1000
    delta = u * (1 - u)
    alpha = delta * (H + C) * k + (1 - u)
    beta = u * (r * (1 - r) * k * H + r)
    uniform = 2 * (1 + eps)
    limit = 0 + 1 * 1  # ε → 0 at these weights: u, r → 1, δ → 0: max(1 − u) + max u · max r
    bad = alpha + beta > uniform
    return ExactVerdict("violated" if bad else "proved",
                        f"uniform reading, eq. 14 at ε = 1/10: α + β = {alpha} + {beta} = {alpha + beta} "
                        f"(≈ {float(alpha + beta):.2f}) > 2(1 + ε) = {uniform}; asymptotic reading at the same "
                        f"weights: lim α + β = {limit} ≤ 2")


corollary2 = Claim(
    id="nc_gru.corollary2",
    source="nc_gru.md, Corollary 2, eq. 14–15 (proof SM 7, eq. 59–64)",
    statement="Gates u_t, r_t nearly 0 or 1 entrywise ⇒ α + β ≲ 2 (eq. 14); u_t, r_t nearly the zero or all-ones "
              "vector ⇒ α + β ≲ 1 (eq. 15). Two readings of x ≲ y ('bounded by a quantity approximately equal to "
              "y'): uniform, α + β ≤ y(1 + ε) for every weight at saturation tolerance ε; asymptotic, "
              "lim_{ε→0} α + β ≤ y for fixed weights",
    assumptions=COR2_ASSUMPTIONS,
    measure="α + β of eq. 9–12 at one ε-saturated GRU step, for the printed (signed) and the |·| maxima (uniform "
            "parts); α + β at the same weights with every gate pre-activation moved to |z| ≥ 60 (asymptotic parts)",
    bound="2(1 + ε) (eq. 14) and 1 + ε (eq. 15, vector regime only); 2 and 1 for the limits",
    evaluate=_measure_corollary2,
    cases=SATURATED_GRU_STEPS,
    explanation="The proof drops δ_u(max|h| + max|c|)‖U_u‖₂ and δ_r‖U_r‖₂ max|h| as ≈ 0 because δ_u, δ_r ≈ 0, but "
                "δ_u, δ_r ≤ ε(1 − ε) only, so the error is ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂] (H = max|h_{t−1}|, "
                "C = max|c_t|): it grows with ‖U_u‖₂, ‖U_r‖₂, so no tolerance depending on ε alone (here y·ε) "
                "covers it: with H = C ≈ 1 and gates on the edge of the tolerance, α + β exceeds 2(1 + ε) once "
                "2‖U_u‖₂ + ‖U_r‖₂ ≳ 5, at every ε (also from h_{t−1} = h_0 = 0, with ‖U_u‖₂ ≳ 5). The uniform reading "
                "fails without bound and at every ε: on the scalar GRU (h = 1) with u_t = r_t = 1 − ε and "
                "‖U_u‖₂ = ‖U_r‖₂ = κ, α + β = ε(1 − ε)κ(H + C) + ε + (1 − ε)(ε(1 − ε)κH + 1 − ε) with H = C ≈ 1, "
                "linear in κ: at ε = 0.001 it is 3.995 against 2(1 + ε) = 2.002 (ratio 2.0) at κ = 1000 and 2,997 "
                "(ratio 1,497) at κ = 10⁶; at ε = 0.1, κ = 1000, 262 against 2.2 (ratio 119). The asymptotic reading "
                "holds: for fixed weights the dropped term vanishes with ε. See nc_gru.corollary2.corrected for the "
                "explicit bound.",
    notes=EPS_NOTE + " h_{t−1} ranges over [−1, 1]^h, which contains every state of eq. 1 from h_0 = 0. Readings: "
          "'uniform' parts (named with their ε) read ≲ as ≤ y(1 + ε) for every weight; the 'asymptotic' parts take "
          "the limit ε → 0 at the case's own weights (every gate pre-activation moved to |z| ≥ 60, where "
          "δ < 1e-26). Supremum of the uniform ratio: unbounded (linear in ‖U_u‖₂, see the explanation). "
          "Supremum of the asymptotic ratio: lim α + β = max_i(1 − u_i) + max_i u_i · max_i r_i ≤ 2 with the gates "
          "at 0 or 1, so the ratio is ≤ 1, attained (= 1) at h ≥ 2 with u = (0, 1), r = 1 (eq. 14); for eq. 15 "
          "the limit is 1 (u → 0) or max r (u → 1), ratio ≤ 1, attained.",
    supremum=Supremum(1.0, "lim α + β = max(1 − u) + max u·max r ≤ 1 + 1 with 0/1 gates; u = (0, 1), r = (1, 1) "
                           "attains 2 (structured start, h ≥ 2)", at=(2, 1), part=ASYMPTOTIC_14),
    exact=_exact,
    readings=(Reading(
        "asymptotic: ε → 0 at fixed weights",
        "lim_{ε→0} α + β ≤ 2 (eq. 14) and ≤ 1 (eq. 15) for the case's own weights",
        "the proof (SM 7, eq. 59–64) drops δ_u(max|h| + max|c|)‖U_u‖₂ and δ_r‖U_r‖₂ max|h| as ≈ 0 'because the "
        "gates are nearly 0 or 1', which is exact in the limit of saturated gates at fixed weights",
        select_parts(_measure_corollary2, lambda part: "asymptotic" in part)),),
)

corollary2_corrected = Claim(
    id="nc_gru.corollary2.corrected",
    source="nc_gru.md, Corollary 2, eq. 14–15, corrected by rnnaudit (error term written out)",
    statement="With every gate entry within ε ≤ 1/2 of 0 or 1: α + β ≤ 2 + ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂]; "
              "with u_t, r_t each within ε of 0 or 1 (vectors): α + β ≤ 1 + ε + ε(1 − ε)[(H + C)‖U_u‖₂ + H‖U_r‖₂]; "
              "H = max_i |[h_{t−1}]_i| ≤ 1, C = max_i |[c_t]_i| ≤ 1 for tanh",
    assumptions=COR2_ASSUMPTIONS,
    measure="α + β of eq. 9–12 (|·| reading, the one Theorem 1 proves) at one ε-saturated GRU step",
    bound="the two right-hand sides, with the case's H, C, ‖U_u‖₂, ‖U_r‖₂",
    evaluate=_measure_corollary2_corrected,
    cases=SATURATED_GRU_STEPS,
    explanation="Would mean δ ≤ ε(1 − ε) fails for σ ∈ [0, ε] ∪ [1 − ε, 1], impossible for ε ≤ 1/2.",
    notes=EPS_NOTE + " With H, C ≤ 1 the excess over 2 (or 1) is at most ε(1 − ε)(2‖U_u‖₂ + ‖U_r‖₂) (eq. 14) and "
          "ε + ε(1 − ε)(2‖U_u‖₂ + ‖U_r‖₂) (eq. 15). Supremum 1, attained: with u = (0, 1 − ε, 1), r = (1 − ε, 1, …) "
          "every term of eq. 9–10 is at its largest (δ_u = δ_r = ε(1 − ε), max(1 − u) = max u = max r = 1), so "
          "α + β equals the bound (structured start, h ≥ 3).",
    supremum=Supremum(1.0, "δ_u, δ_r ≤ ε(1 − ε), max(1 − u), max u, max r ≤ 1 term by term; equality at "
                           "u = (0, 1 − ε, 1), r = (1 − ε, 1, 1 − ε) (structured start)", at=(3, 1)),
)
