"""sgornn.md, Sec. 2.1, the sentence after eq. 4: under FastRNN's constraint eq. 4, "α = O(1/T)", so its
O(αT) generalization bound "becomes independent of T"."""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Supremum, within
from rnnaudit.bounds.sgornn.eq4 import fastrnn_eq4_limit

__all__ = ["FastRNNGateCase", "eq4_order"]

@dataclass
class FastRNNGateCase:
    """A FastRNN recurrent matrix U (h, h) with the bound R_U ≥ ‖U‖_F, eq. 4's constant D, a length T and
    the largest α eq. 4 allows there."""

    U: Tensor
    R_U: float
    D: float
    T: int

    def size(self) -> tuple[int, int]:
        """(h, T)."""
        return self.U.shape[0], self.T

    @property
    def alpha(self) -> float:
        """The largest α eq. 4 allows (:func:`fastrnn_eq4_limit`)."""
        return fastrnn_eq4_limit(self.U, self.T, self.R_U, self.D)


def _sample(gen, h, T, device, dtype) -> FastRNNGateCase:
    """U Gaussian with entries of scale 10^U(−1, 0.5)/√h, or orthogonal (QR) in a third of the cases;
    R_U = ‖U‖_F (1 + U(0, 1)); D uniform in [0.5, 2], D = 1 in a third of the cases."""
    if torch.rand((), generator=gen) < 1 / 3:
        U = torch.linalg.qr(torch.randn(h, h, generator=gen, dtype=torch.float64))[0]
    else:
        U = torch.randn(h, h, generator=gen, dtype=torch.float64) * 10 ** float(
            torch.empty(()).uniform_(-1, 0.5, generator=gen)) / math.sqrt(h)
    R_U = float(torch.linalg.matrix_norm(U)) * (1 + float(torch.rand((), generator=gen)))
    D = 1.0 if torch.rand((), generator=gen) < 1 / 3 else float(torch.empty(()).uniform_(0.5, 2, generator=gen))
    return FastRNNGateCase(U.to(device=device, dtype=dtype), R_U, D, T)


def _starts(h, T, device, dtype) -> list[FastRNNGateCase]:
    """U = I with R_U = ‖I‖_F = √h and D = 1: eq. 4's first and third terms are 1/0 = ∞, so α = 1/(4TR_U)
    and αT = 1/(4R_U) exactly."""
    return [FastRNNGateCase(torch.eye(h, dtype=dtype, device=device), math.sqrt(h), 1.0, T)]


def _measure(case: FastRNNGateCase) -> dict[str, tuple[Tensor, Tensor]]:
    like = case.U.new_tensor
    return {"α T ≤ 1/(4R_U) under eq. 4 (so α = O(1/T))": (like(case.alpha * case.T), like(1 / (4 * case.R_U)))}


def _exact() -> ExactVerdict:
    T, R, a, c = sp.symbols("T R_U A B", positive=True)
    target = 1 / (4 * T * R)
    limit = sp.Min(a / T, target, c / T).rewrite(sp.Piecewise)

    def below_target(expr, cond) -> bool:
        """The branch is the R_U term itself, or its condition says it is at most the R_U term."""
        rels = cond.args if isinstance(cond, sp.And) else (cond,)
        return sp.simplify(expr - target) == 0 or any(
            isinstance(r, sp.LessThan) and sp.simplify(r.lhs - expr) == 0 and sp.simplify(r.rhs - target) == 0
            for r in rels)

    if not all(below_target(e, cond) for e, cond in limit.args) or sp.simplify(T * target - 1 / (4 * R)) != 0:
        return ExactVerdict("violated", f"eq. 4's limit {limit} is not at most 1/(4TR_U) in every branch")
    return ExactVerdict("proved", "in every branch of min(A/T, 1/(4TR_U), B/T) (A = 1/(4|D‖U‖₂ − 1|), "
                                  "B = 1/|‖U‖₂ − 1|) the value is at most 1/(4TR_U), and T·1/(4TR_U) = 1/(4R_U): "
                                  "αT is bounded independently of T")


eq4_order = Claim(
    id="sgornn.eq4.order",
    source="sgornn.md, Sec. 2.1, eq. 4 and the sentence after it",
    statement="Under eq. 4, α = O(1/T), so FastRNN's O(αT) generalization bound 'becomes independent of T'",
    assumptions=(Assumption("‖U‖_F ≤ R_U", lambda c: (within(float(torch.linalg.matrix_norm(c.U)), c.R_U),
                                                     f"‖U‖_F = {float(torch.linalg.matrix_norm(c.U)):.6g}, "
                                                     f"R_U = {c.R_U:.6g}")),),
    measure="α T at the largest α that eq. 4 allows",
    bound="1/(4R_U), eq. 4's second term times T",
    evaluate=_measure,
    cases=CaseSpace(case_type=FastRNNGateCase, sample=_sample, starts=_starts,
                    sizes={"quick": [(2, 1), (8, 100), (32, 5000)], "full": [(2, 1), (8, 100), (128, 10**5)]}),
    explanation="Would mean eq. 4 lets αT grow with T.",
    notes="Reading: D = 1 for ReLU unless drawn otherwise (eq. 4's D is 'derived from the parameters and activation "
          "function'; the bound αT ≤ 1/(4R_U) does not depend on it). With an orthogonal U, R_U ≥ ‖U‖_F = √h, so "
          "eq. 4 forces α ≤ 1/(4T√h): the 'vanishing α' of Sec. 2.1 for long sequences.",
    supremum=Supremum(1.0, "min(A, 1/(4R_U), B) ≤ 1/(4R_U) with equality when the R_U term is the smallest; "
                           "attained by the start U = I, D = 1 (A = B = ∞).", at=(2, 1)),
    exact=_exact,
)
