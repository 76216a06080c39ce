"""sgornn.md, Sec. 2, eq. 3: β ≤ 1 − 2α, enforced by clipping β after the sigmoid (the gate condition
Theorem 1 relies on)."""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Supremum
from rnnaudit.bounds.sgornn.cases import GatedCase, gated_cases_from_model, logit, sample_gated_case
from rnnaudit.cells import SGORNN

__all__ = ["eq3", "A_CLIPPED", "A_ALPHA_HALF"]


def _measure(case: GatedCase) -> dict[str, tuple[Tensor, Tensor]]:
    return {"β ≤ 1 − 2α": (case.cell.beta, 1 - 2 * case.cell.alpha)}


def _sample(gen, h, T, device, dtype) -> GatedCase:
    """A Theorem 1 case whose cell clips β itself (``clip_beta=True``), with logits drawn wide
    (|β̂| up to 20) so the clip is active in most cases."""
    case = sample_gated_case(gen, h, T, device, dtype, gate="1-2alpha")
    case.cell.clip_beta = True
    with torch.no_grad():
        case.cell.beta_logit.fill_(float(torch.empty(()).uniform_(-20, 20, generator=gen)))
    return case


def _project(case: GatedCase) -> None:
    # only α̂ < logit(1/2) is assumed (the interval (0, 1 − 2α] must be non-empty); β̂ is free
    case.cell.alpha_logit.clamp_(logit(1e-4), logit(0.5 - 1e-6))


A_CLIPPED = Assumption("β clipped after the sigmoid (clip_beta = True, Sec. 2)", lambda c: (
    isinstance(c.cell, SGORNN) and c.cell.clip_beta, "clipping on" if getattr(c.cell, "clip_beta", False) else "off"))
A_ALPHA_HALF = Assumption("α < 1/2 (so (0, 1 − 2α] is non-empty)", lambda c: (
    c.alpha < 0.5, f"α = {c.alpha:.6g}"), recorded=("alpha",))

_CLIPPED_GATES = CaseSpace(case_type=GatedCase, sample=_sample, free=lambda c: [c.cell.alpha_logit, c.cell.beta_logit],
                           project=_project, sizes={"quick": [(2, 1), (8, 1)], "full": [(2, 1), (8, 1), (128, 1)]},
                           from_model=gated_cases_from_model)

eq3 = Claim(
    id="sgornn.eq3",
    source="sgornn.md, Sec. 2, eq. 3 (and the clipping rule below it)",
    statement="β ≤ 1 − 2α, enforced by clipping β after the sigmoid into (0, 1 − 2α]",
    assumptions=(A_CLIPPED, A_ALPHA_HALF),
    measure="the cell's effective β (sigmoid then clip) for arbitrary logits β̂",
    bound="1 − 2α",
    evaluate=_measure,
    cases=_CLIPPED_GATES,
    explanation="An unclipped β = sigmoid(β̂) exceeds 1 − 2α for large β̂: the constraint holds only if enforced.",
    notes="Ratio 1 is reached whenever the clip is active; this checks the implementation of the rule that "
          "Theorem 1 relies on.",
    supremum=Supremum(1.0, "β = min(sigmoid(β̂), 1 − 2α) ≤ 1 − 2α, with equality whenever sigmoid(β̂) ≥ 1 − 2α "
                           "(the clip is active), which the sampler's wide logits |β̂| ≤ 20 reach.", at=(2, 1)),
)
