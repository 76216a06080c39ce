"""srnn.md, Sec. 3, after eq. 11: "As ∂L/∂b_k gains only linear contributions from the derivatives of b it
cannot explode" — read as an explicit polynomial bound in T.
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor

from rnnaudit.bounds.core import Claim, Supremum, worst_pair
from rnnaudit.bounds.srnn.cases import A_H0_CONSTANT, A_SIGMA_PRIME, SHUFFLE, ShuffleCase
from rnnaudit.bounds.srnn.eq11 import loss_gradient

__all__ = ["no_explosion"]


def _measure(case: ShuffleCase) -> dict[str, tuple[Tensor, Tensor]]:
    grad, J_b = loss_gradient(case)
    T = J_b.shape[0]
    g_max = torch.linalg.vector_norm(case.g, dim=1).max()
    db_max = torch.linalg.vector_norm(J_b, dim=1).amax(dim=0)  # (P,): max_i ‖∂b(x_i)/∂b_k‖₂
    bound = (T * (T + 1) / 2) * g_max * db_max
    return {"|∂L/∂b_k| ≤ T(T+1)/2 · max_t ‖∂L/∂h_t‖₂ · max_i ‖∂b(x_i)/∂b_k‖₂": worst_pair(grad.abs(), bound)}


no_explosion = Claim(
    id="srnn.no_explosion",
    source="srnn.md, Sec. 3, after eq. 11: 'it cannot explode'",
    statement="|∂L/∂b_k| ≤ T(T+1)/2 · max_t ‖∂L/∂h_t‖₂ · max_i ‖∂b(x_i)/∂b_k‖₂ (no exponential factor in T)",
    assumptions=(A_H0_CONSTANT, A_SIGMA_PRIME),
    measure="|∂L/∂b_k| by autograd for L = Σ_t ⟨g_t, h_t⟩, worst over every scalar parameter b_k of b",
    bound="T(T+1)/2 · max_t ‖g_t‖₂ · max_i ‖∂b(x_i)/∂b_k‖₂",
    evaluate=_measure,
    cases=replace(SHUFFLE, free=lambda c: [c.x, c.g, *c.cell.parameters()]),
    explanation="Would contradict srnn.eq11.corrected, of which this is the crude form Σ_t Σ_{i≤t} 1 = T(T+1)/2.",
    notes="Reading: 'cannot explode' as a bound polynomial in T with no exponential factor; 'linear' refers to the "
          "dependence on ∂b(x_i)/∂b_k, not on T: the bound is quadratic in T and the quadratic growth is attained, "
          "so an asymptotic reading 'O(T)' would be false while 'O(T²), not exponential' holds. Explicit ∂L/∂h_t "
          "(srnn.eq7's reading).",
    supremum=Supremum(1.0, "srnn.eq11.corrected with ‖g_t‖₂ ≤ max_t ‖g_t‖₂ and Σ_{i≤t} ‖∂b_i‖₂ ≤ t·max_i ‖∂b_i‖₂ caps "
                           "the ratio at 1; at d_h = 1 with every ReLU unit active (b(x_t) = 2 > 0, σ' ≡ 1), g ≡ 1 and "
                           "the bias c of b (∂b(x_i)/∂c = 1) ∂L/∂c = Σ_t t = T(T+1)/2 exactly: the 'all active' start.",
                      at=(1, 6)),
)
