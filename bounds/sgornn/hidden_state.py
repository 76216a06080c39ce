"""sgornn.md, Appendix A.2 (proof of Theorem 2): the hidden-state bound ‖h_t‖₂ ≤ αT R_W R_x."""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.core import Claim, Supremum
from rnnaudit.bounds.sgornn.cases import F_T_ASSUMPTIONS, R_NOTE, GatedCase, loss_and_states
from rnnaudit.bounds.sgornn.constructions import GATED_STRUCTURED_LONG

__all__ = ["hidden_state"]


def _measure(case: GatedCase) -> dict[str, tuple[Tensor, Tensor]]:
    _, hs = loss_and_states(case)
    T = hs.shape[0]
    measured = torch.linalg.vector_norm(hs, dim=-1).max()
    return {"‖h_t‖₂ ≤ αT R_W R_x": (measured, case.cell.alpha * T * case.R_W * case.R_x)}


hidden_state = Claim(
    id="sgornn.hidden_state",
    source="sgornn.md, Appendix A.2 (proof of Theorem 2), hidden-state bound",
    statement="‖h_t‖₂ ≤ αT R_W R_x for 1 ≤ t ≤ T (h_0 = 0, β ≤ 1 − α, ReLU, U orthogonal)",
    assumptions=F_T_ASSUMPTIONS,
    measure="max over t of ‖h_t‖₂ from the cell's forward pass",
    bound="α T R_W R_x",
    evaluate=_measure,
    cases=GATED_STRUCTURED_LONG,
    explanation="The recurrence ‖h_t‖ ≤ αR_WR_x + (α + β)‖h_{t−1}‖ needs α + β ≤ 1 and ‖U‖₂ = 1.",
    notes="The bound is attained (ratio → 1) when U = I acts on a state aligned with W x_t ≥ 0 and "
          "β = 1 − α, so ratios near 1 are expected. " + R_NOTE,
    supremum=Supremum(1.0, "Cap: ‖h_t‖ ≤ αR_WR_x + (α + β)‖h_{t−1}‖ ≤ αR_WR_x + ‖h_{t−1}‖ gives ‖h_t‖ ≤ αtR_WR_x ≤ "
                      "αTR_WR_x. Attained at t = T by every construction of rnnaudit.bounds.sgornn.constructions "
                      "(U fixes u ≥ 0, W = R_W u wᵀ, x_t = R_x w, β = 1 − α: h_t = αtR_WR_x u).", at=(2, 7)),
)
