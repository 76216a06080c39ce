"""sgornn.md, Sec. 2 below eq. 3: "the parameters α, β ∈ (0, 1) are set by the sigmoid function ... In
practice, the parameter β is clipped after applying the sigmoid function, so that it lies in the half-open
interval (0, 1 − 2α]". Nothing bounds α = sigmoid(α̂) below 1/2, and for α ≥ 1/2 that interval is empty."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, ExactVerdict, Supremum

__all__ = ["LogitCase", "eq3_clip"]


@dataclass
class LogitCase:
    """The gate logits α̂, β̂ (unconstrained reals; α = sigmoid(α̂), β = sigmoid(β̂) before the clip)."""

    alpha_logit: Tensor
    beta_logit: Tensor

    def size(self) -> tuple[int, int]:
        """(1, 1)."""
        return 1, 1


def _sample(gen, h, T, device, dtype) -> LogitCase:
    """α̂, β̂ uniform in [−8, 8] (FastRNN's and SGORNN's initial logits are −3 and 3)."""
    draw = lambda: torch.empty((), dtype=torch.float64).uniform_(-8, 8, generator=gen)  # noqa: E731
    return LogitCase(draw().to(device=device, dtype=dtype), draw().to(device=device, dtype=dtype))


def _starts(h, T, device, dtype) -> list[LogitCase]:
    """α̂ = 0 (α = 1/2, the interval shrinks to nothing) and α̂ = 3 (α = 0.95)."""
    t = lambda x: torch.tensor(x, dtype=dtype, device=device)  # noqa: E731
    return [LogitCase(t(0.0), t(3.0)), LogitCase(t(3.0), t(3.0))]


def _measure(case: LogitCase) -> dict[str, tuple[Tensor, Tensor]]:
    alpha = torch.sigmoid(case.alpha_logit)
    one = torch.ones_like(alpha)
    return {"(0, 1 − 2α] is non-empty: 2α < 1": (2 * alpha, one)}


def _exact() -> ExactVerdict:
    alpha = 1 / (1 + sp.exp(-sp.Integer(1)))                          # α̂ = 1
    upper = 1 - 2 * alpha
    if upper.is_negative:
        return ExactVerdict("violated", f"α̂ = 1: α = 1/(1 + e⁻¹) = {sp.N(alpha, 6)}, 1 − 2α = {sp.N(upper, 6)} < 0, "
                                        "so (0, 1 − 2α] is empty and the clipped β = min(sigmoid(β̂), 1 − 2α) < 0")
    return ExactVerdict("proved", "1 − 2α > 0 at α̂ = 1")


eq3_clip = Claim(
    id="sgornn.eq3.clip",
    source="sgornn.md, Sec. 2, the two paragraphs around eq. 3",
    statement="with α = sigmoid(α̂) and β clipped after its sigmoid, β lies in (0, 1 − 2α]",
    assumptions=(),
    measure="2α for α = sigmoid(α̂), α̂ any real",
    bound="1 (the interval (0, 1 − 2α] is non-empty only for 2α < 1)",
    evaluate=_measure,
    cases=CaseSpace(case_type=LogitCase, sample=_sample, starts=_starts, free=lambda c: [c.alpha_logit],
                    sizes={"quick": [(1, 1)], "full": [(1, 1)]}),
    explanation="A missing hypothesis: the clip enforces eq. 3 only while α < 1/2, and nothing in the model keeps "
                "α = sigmoid(α̂) there (α ∈ (0, 1)). For α ≥ 1/2 the clipped β = min(sigmoid(β̂), 1 − 2α) ≤ 0 is "
                "outside (0, 1) and outside F_T (eq. 5 needs α, β ∈ (0, 1) with β ≤ 1 − 2α, which forces α < 1/2). "
                "Corrected: also constrain α < 1/2 (e.g. clip α̂ or set α = sigmoid(α̂)/2); with it the clip works "
                "(sgornn.eq3, which assumes α < 1/2). rnnaudit's SGORNN raises a ValueError in that case.",
    notes="Reading: α is 'set by the sigmoid function' with no other constraint, as the text says. In the paper's "
          "experiments α starts near sigmoid(−3) = 0.047 (FastRNN's initialisation), far from 1/2, so the gap "
          "concerns the rule, not the reported runs.",
    supremum=Supremum(2.0, "2 sigmoid(α̂) < 2, → 2 as α̂ → ∞; the ascent moves α̂ up.", at=(1, 1)),
    exact=_exact,
)
