"""srnn.md, Sec. 3, eq. 10: |∂h_t/∂b_k| ≤ |Σ_i ∂b(x_i)/∂b_k| as printed (false: the sum can cancel),
and the triangle-inequality form ‖∂h_t/∂b_k‖ ≤ Σ_i ‖∂b(x_i)/∂b_k‖ that the argument supports.
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor

from rnnaudit.bounds.core import Claim, ExactVerdict, Supremum, worst_pair
from rnnaudit.bounds.srnn.cases import A_H0_CONSTANT, A_SIGMA_PRIME, SHUFFLE, ShuffleCase, jacobians

__all__ = ["eq10", "eq10_corrected", "one_unit_counterexample"]


def _measure_eq10(case: ShuffleCase) -> dict[str, tuple[Tensor, Tensor]]:
    _, J_h, J_b = jacobians(case, detach=False)
    cum = J_b.cumsum(0)  # Σ_{i ≤ t} ∂b(x_i)/∂θ
    return {
        "‖∂h_t/∂b_k‖₂ ≤ ‖Σ_i ∂b(x_i)/∂b_k‖₂": worst_pair(torch.linalg.vector_norm(J_h, dim=1),
                                                         torch.linalg.vector_norm(cum, dim=1)),
        "‖∂h_t/∂b_k‖_∞ ≤ ‖Σ_i ∂b(x_i)/∂b_k‖_∞": worst_pair(J_h.abs().amax(dim=1), cum.abs().amax(dim=1)),
    }


def _measure_eq10_corrected(case: ShuffleCase) -> dict[str, tuple[Tensor, Tensor]]:
    _, J_h, J_b = jacobians(case, detach=False)
    return {
        "‖∂h_t/∂b_k‖₂ ≤ Σ_i ‖∂b(x_i)/∂b_k‖₂": worst_pair(torch.linalg.vector_norm(J_h, dim=1),
                                                        torch.linalg.vector_norm(J_b, dim=1).cumsum(0)),
        "‖∂h_t/∂b_k‖_∞ ≤ Σ_i ‖∂b(x_i)/∂b_k‖_∞": worst_pair(J_h.abs().amax(dim=1),
                                                          J_b.abs().amax(dim=1).cumsum(0)),
    }


def one_unit_counterexample():
    """Eq. 10's one-unit counterexample in exact arithmetic (sympy, ReLU as ``Max(0, z)``): d_h = 1,
    b(x) = w x + c at w = −1, c = 0, x = (1, −1), h_0 = 0.

    Returns:
        ``(dh2_dw, sum_db_dw, z)``: ∂h_2/∂w by sympy's chain rule, Σ_i ∂b(x_i)/∂w, and (z_1, z_2), all
        sympy numbers.
    """
    import sympy as sp

    w, c = sp.symbols("w c")
    x, point = (1, -1), {w: -1, c: 0}
    h, zs = sp.Integer(0), []
    for xt in x:
        z = h + w * xt + c  # W_p = 1 at d_h = 1
        h = sp.Max(0, z)
        zs.append(z.subs(point))
    return sp.diff(h, w).subs(point), sum(sp.diff(w * xt + c, w) for xt in x), tuple(zs)


def _exact_eq10() -> ExactVerdict:
    dh, total, z = one_unit_counterexample()
    verdict = "violated" if abs(dh) > abs(total) else "proved"
    return ExactVerdict(verdict, f"d_h = 1, σ = ReLU, b(x) = w x + c at w = −1, c = 0, x = (1, −1), h_0 = 0: z = {z}, "
                                 f"|∂h_2/∂w| = |{dh}| against |Σ_i ∂b(x_i)/∂w| = |{total}| (sympy, exact).")


def _free_eq10(case: ShuffleCase) -> list[Tensor]:
    return [case.x, *case.cell.parameters()]


_EQ10_EXPLANATION = (
    "Eq. 10 moves the absolute value outside the sum: from eq. 9 with |σ'| ≤ 1 and W_p orthogonal one gets "
    "only ‖∂h_t/∂b_k‖ ≤ Σ_i ‖∂b(x_i)/∂b_k‖ (triangle inequality), not ≤ ‖Σ_i ∂b(x_i)/∂b_k‖. The terms are "
    "weighted by different σ' products and shifted to different units, so cancellations in Σ_i ∂b(x_i)/∂b_k "
    "do not carry over. Smallest counterexample: d_h = 1, σ'(z_1) = 0 (a switched-off ReLU), ∂b(x_1)/∂b_k = 1, "
    "∂b(x_2)/∂b_k = −1: |∂h_2/∂b_k| = 1 > |1 − 1| = 0. The conclusion drawn from it (linear, not exponential, "
    "growth) survives with the corrected bound; see srnn.eq10.corrected.")

eq10 = Claim(
    id="srnn.eq10",
    source="srnn.md, Sec. 3, eq. 10",
    statement="|∂h_t/∂b_k| ≤ |Σ_{i=1}^{t} ∂b(x_i)/∂b_k| (|σ'| ≤ 1, W_p orthogonal)",
    assumptions=(A_H0_CONSTANT, A_SIGMA_PRIME),
    measure="‖∂h_t/∂b_k‖ by autograd through the cell, worst over t and every scalar parameter b_k of b",
    bound="‖Σ_{i≤t} ∂b(x_i)/∂b_k‖ (∂b by autograd through b alone), in ℓ2 and ℓ∞",
    evaluate=_measure_eq10,
    cases=SHUFFLE,
    explanation=_EQ10_EXPLANATION,
    exact=_exact_eq10,
    notes="|·| of a vector read as a norm; ℓ2 and ℓ∞ (the largest entry, the entrywise reading's worst unit) "
          "are both checked. An entrywise reading |(∂h_t)_r| ≤ |Σ_i ∂b(x_i)_r| without the shift fails even "
          "more easily, since W_p moves contributions to other units. Random cases violate it by orders of "
          "magnitude, so no adversarial ascent is run (srnn.eq10.corrected gets one).",
)

eq10_corrected = Claim(
    id="srnn.eq10.corrected",
    source="srnn.md, Sec. 3, eq. 10, corrected by rnnaudit",
    statement="‖∂h_t/∂b_k‖ ≤ Σ_{i=1}^{t} ‖∂b(x_i)/∂b_k‖ for ℓ2 and ℓ∞ (|σ'| ≤ 1, W_p a permutation)",
    assumptions=(A_H0_CONSTANT, A_SIGMA_PRIME),
    measure="‖∂h_t/∂b_k‖ by autograd through the cell, worst over t and every scalar parameter b_k of b",
    bound="Σ_{i≤t} ‖∂b(x_i)/∂b_k‖, in ℓ2 and ℓ∞",
    evaluate=_measure_eq10_corrected,
    cases=replace(SHUFFLE, free=_free_eq10),
    explanation="Would break the triangle inequality on eq. 9: each term is ∂b(x_i)/∂b_k multiplied by "
                "diagonal matrices of norm ≤ 1 and permutations.",
    notes="Attained (ratio 1) for d_h = 1 with σ' = 1 and every ∂b(x_i)/∂b_k positive. Grows at most linearly in t, "
          "which is what Sec. 3 concludes.",
    supremum=Supremum(1.0, "Each term of eq. 9 (corrected) is ∂b(x_i)/∂b_k multiplied by diagonal matrices of entries "
                           "|σ'| ≤ 1 and permutations, neither of which raises an ℓ2 or ℓ∞ norm, so the triangle "
                           "inequality caps the ratio at 1; at t = 1 with σ'(z_1) = 1 (an active ReLU unit, the "
                           "'all active' start) ∂h_1/∂b_k = ∂b(x_1)/∂b_k and the ratio is exactly 1.", at=(1, 2)),
)
