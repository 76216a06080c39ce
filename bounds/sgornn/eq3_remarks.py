"""sgornn.md, Sec. 2 after eq. 3, Sec. 2.2 and Sec. 4: what the paper says about eq. 3's constraint
β ≤ 1 − 2α next to FastRNN's β = 1 − α and Theorem 2's β ≤ 1 − α."""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Supremum, within

__all__ = ["GateCase", "eq3_remarks"]


@dataclass
class GateCase:
    """The two scalar gates, α ∈ (0, 1/2) and β ∈ (0, 1 − 2α]."""

    alpha: float
    beta: float

    def size(self) -> tuple[int, int]:
        """(1, 1): no width or sequence is involved."""
        return 1, 1


def _sample(gen, h, T, device, dtype) -> GateCase:
    """α log-uniform on [10⁻⁴, 0.499], β on eq. 3's limit 1 − 2α in a third of the cases, else uniform below it."""
    u = float(torch.rand((), generator=gen))
    alpha = math.exp(math.log(1e-4) + u * (math.log(0.499) - math.log(1e-4)))
    beta = 1 - 2 * alpha if torch.rand((), generator=gen) < 1 / 3 else (1 - 2 * alpha) * float(
        torch.rand((), generator=gen)) + 1e-12
    return GateCase(alpha, beta)


def _starts(h, T, device, dtype) -> list[GateCase]:
    """α at 10⁻⁴ (where the first two parts approach 1) and 0.499 (where the relative reading does), β on
    eq. 3's limit."""
    return [GateCase(a, 1 - 2 * a) for a in (1e-4, 0.499)]


def _t(x: float) -> Tensor:
    return torch.tensor(x, dtype=torch.float64)


def _measure(case: GateCase) -> dict[str, tuple[Tensor, ...]]:
    a, b = case.alpha, case.beta
    b_limit = 1 - 2 * a
    return {
        "Sec. 2: FastRNN's β = 1 − α lies above eq. 3's limit (1 − 2α ≤ 1 − α)": (_t(1 - 2 * a), _t(1 - a)),
        "Sec. 2.2, Sec. 4: eq. 3 implies Theorem 2's β ≤ 1 − α (the weaker constraint)": (_t(b), _t(1 - a)),
        "Sec. 2: 'β + 2α ≈ β + α', absolute reading: the difference is α": (
            _t(abs((b + 2 * a) - (b + a) - a)), _t(1e-15), _t(a)),
        "Sec. 2: 'β + 2α ≈ β + α' relative reading on eq. 3's limit: (β + 2α)/(β + α) − 1 ≤ 2α": (
            _t((b_limit + 2 * a) / (b_limit + a) - 1), _t(2 * a)),
    }


A_GATES = Assumption("α ∈ (0, 1/2), β ∈ (0, 1 − 2α] (eq. 3)", lambda c: (
    0 < c.alpha < 0.5 and c.beta > 0 and within(c.beta, 1 - 2 * c.alpha), f"α = {c.alpha:.6g}, β = {c.beta:.6g}"),
    recorded=("alpha", "beta"))


def _exact() -> ExactVerdict:
    a, b = sp.symbols("alpha beta", positive=True)
    facts = {
        "1 − 2α < 1 − α for α > 0": sp.simplify((1 - a) - (1 - 2 * a)) == a,
        "β ≤ 1 − 2α ⇒ β ≤ 1 − α (1 − α − β ≥ α > 0)": sp.simplify((1 - a) - (1 - 2 * a)) == a,
        "(β + 2α) − (β + α) = α": sp.simplify((b + 2 * a) - (b + a) - a) == 0,
        "on β = 1 − 2α: (β + 2α)/(β + α) − 1 = α/(1 − α) ≤ 2α ⇔ α ≤ 1/2": sp.simplify(
            (1 - 2 * a + 2 * a) / (1 - 2 * a + a) - 1 - a / (1 - a)) == 0 and sp.Interval.Lopen(
            0, sp.Rational(1, 2)).is_subset(sp.solve_univariate_inequality(a / (1 - a) <= 2 * a, a, relational=False)),
    }
    failed = [k for k, ok in facts.items() if not ok]
    if failed:
        return ExactVerdict("violated", "; ".join(failed))
    return ExactVerdict("proved", "; ".join(facts))


eq3_remarks = Claim(
    id="sgornn.eq3.remarks",
    source="sgornn.md, Sec. 2 (paragraph after eq. 3), Sec. 2.2 (first paragraph), Sec. 4 (second paragraph)",
    statement="FastRNN's β = 1 − α > 1 − 2α; 'typically α ≪ 1, in which case β + 2α ≈ β + α'; the gradient "
              "constraint β ≤ 1 − α is weaker than eq. 3, so 'enforcing the generalization constraint also enforces "
              "the gradient bound constraint'",
    assumptions=(A_GATES,),
    measure="the two sides of each sentence at the case's α, β",
    bound="the other side; for '≈', its absolute and relative readings",
    evaluate=_measure,
    cases=CaseSpace(case_type=GateCase, sample=_sample, starts=_starts, sizes={"quick": [(1, 1)], "full": [(1, 1)]}),
    explanation="Would mean one of the algebraic remarks around eq. 3 is false for some gates allowed by eq. 3.",
    notes="Readings of '≈': absolute (the two sides differ by exactly α, small when α ≪ 1) and relative on eq. 3's "
          "limit β = 1 − 2α, the clipped counterpart of FastRNN's β = 1 − α (the relative gap α/(1 − α) is O(α)). "
          "Off that limit the relative reading needs β ≫ α: for β ≪ α, β + 2α is close to 2(β + α).",
    supremum=Supremum(1.0, "The first two parts are (1 − 2α)/(1 − α) < 1 → 1 as α → 0; the relative reading is "
                           "1/(2(1 − α)) ≤ 1 → 1 as α → 1/2; the identity part is 0. Approached by the starts at "
                           "α = 10⁻⁴ (0.9999) and α = 0.499 (0.998).", at=(1, 1)),
    exact=_exact,
)
