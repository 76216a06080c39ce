"""sgornn.md, Theorem 1 (eq. 6; proof in Appendix A.1, eq. 16–23): the Rademacher-complexity term
2αT R_W R_x R_v/√m behind SGORNN's generalization gap, for β ≤ 1 − 2α.

The empirical Rademacher complexity of v∘F_T on a sample is a supremum over the class; the
capacity probe (:func:`rnnaudit.analysis.capacity.cell_rademacher`) finds values below it, so a
lower estimate above the bound disproves the theorem, and "holds" means no violation was found.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.analysis.capacity import cell_rademacher, sgornn_rademacher_bound
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, NotApplicable, within
from rnnaudit.bounds.sgornn.cases import A_BETA_1_2ALPHA, A_NO_BIAS, A_RELU, GatedCase, logit
from rnnaudit.cells import SGORNN

__all__ = ["SampleCase", "theorem1", "THEOREM1_STDERR_MARGIN"]


#: One-sided margin on the ε-average: a violation needs the estimate minus this many standard
#: errors to exceed the bound, so sampling ε alone flags a true claim with probability < 0.2 %.
THEOREM1_STDERR_MARGIN = 3.0


@dataclass
class SampleCase:
    """A sample S = {X^(i)} of m sequences and the class F_T of eq. 5 at fixed α, β.

    Attributes:
        cell: SGORNN with ReLU, no bias, β clipped to (0, 1 − 2α] (its W and Θ are the class's free
            parameters; their values here are only the ascent's starting point).
        X: (m, T, n), every ‖x_t‖₂ ≤ R_x. R_W, R_x, R_v: the class's radii. seed: the probe's RNG.
    """

    cell: SGORNN
    X: Tensor
    R_W: float
    R_x: float
    R_v: float
    seed: int

    def size(self) -> tuple[int, int]:
        """(h, T)."""
        return self.cell.hidden_size, self.X.shape[1]

    @property
    def alpha(self) -> float:
        """The gate α."""
        return float(self.cell.alpha.detach())

    @property
    def beta(self) -> float:
        """The gate β (clipped to 1 − 2α by the cell)."""
        return float(self.cell.beta.detach())


def _sample_theorem1(gen, h, T, device, dtype) -> SampleCase:
    """m ∈ {2, 4, 8, 16} sequences with ‖x_t‖₂ = R_x = 1 (the largest the class admits), n = 2;
    α log-uniform on [0.01, 0.45], β on its limit 1 − 2α in a third of the cases."""
    m = [2, 4, 8, 16][int(torch.randint(0, 4, (), generator=gen))]
    X = torch.randn(m, T, 2, generator=gen, dtype=torch.float64)
    X = X / torch.linalg.vector_norm(X, dim=-1, keepdim=True)
    u = float(torch.rand((), generator=gen))
    alpha = math.exp(math.log(0.01) + u * (math.log(0.45) - math.log(0.01)))
    beta = (1 - 2 * alpha) * (1.0 if torch.rand((), generator=gen) < 1 / 3 else max(float(torch.rand((), generator=gen)), 1e-3))
    cell = SGORNN(2, h, bias=False, generator=gen, dtype=torch.float64)
    with torch.no_grad():
        cell.alpha_logit.fill_(logit(alpha))
        cell.beta_logit.fill_(logit(min(beta, 1 - 1e-12)))
    seed = int(torch.randint(0, 2**31 - 1, (), generator=gen))
    return SampleCase(cell.to(device=device, dtype=dtype), X.to(device=device, dtype=dtype), 1.0, 1.0, 1.0, seed)


def _measure_theorem1(case: SampleCase) -> dict[str, tuple[Tensor, Tensor]]:
    h, T = case.size()
    estimate = cell_rademacher(case.cell, case.X, R_W=case.R_W, R_v=case.R_v, R_x=case.R_x, n_draws=8, n_starts=2,
                               steps=30, generator=torch.Generator().manual_seed(case.seed))
    low = max(estimate.estimate - THEOREM1_STDERR_MARGIN * estimate.stderr, 0.0)
    bound = sgornn_rademacher_bound(case.alpha, T, case.R_W, case.R_x, case.R_v, case.X.shape[0])
    like = case.X.new_tensor
    return {"R̂_m(v∘F_T) ≤ 2αT R_W R_x R_v/√m (eq. 22–23)": (like(low), like(bound))}


A_SAMPLE_X = Assumption("‖x_t^(i)‖₂ ≤ R_x for all i, t", lambda c: (
    within(float(torch.linalg.vector_norm(c.X, dim=-1).max()), c.R_x),
    f"max ‖x‖ = {float(torch.linalg.vector_norm(c.X, dim=-1).max()):.6g}"))

def _from_model(view) -> list[SampleCase]:
    """The model's α, β (and its W, Θ as the search's start) with the model's input sequences as the
    sample S, bias absorbed as in :meth:`GatedCase.from_cell`; R_W, R_x, R_v are the model's norms."""
    if not isinstance(view.cell, SGORNN):
        raise NotApplicable(f"Theorem 1 bounds the capacity of SGORNN's class F_T (U = φ(Θ) orthogonal); the model's "
                            f"cell is {type(view.cell).__name__}")
    cases = [GatedCase.from_cell(view.cell, view.readout_row(), x) for x in view.inputs]
    first = cases[0]
    X = torch.cat([c.x for c in cases])
    return [SampleCase(first.cell, X, first.R_W, max(c.R_x for c in cases), first.R_v, seed=0)]


_SAMPLES = CaseSpace(case_type=SampleCase, sample=_sample_theorem1,
                     sizes={"quick": [(2, 1), (4, 5), (8, 10)], "full": [(2, 1), (4, 5), (8, 10), (16, 50), (32, 100)]},
                     from_model=_from_model)

theorem1 = Claim(
    id="sgornn.theorem1",
    source="sgornn.md, Theorem 1, eq. 6 (proof in Appendix A.1, eq. 16–23)",
    statement="R̂_m(v∘F_T) ≤ 2αT R_W R_x R_v/√m for β ≤ 1 − 2α (eq. 22 times R_v, eq. 19), the term behind "
              "the generalization gap 4CαT/√m of eq. 6",
    measure="empirical Rademacher complexity on the case's sample by the capacity probe (projected gradient ascent "
            "over ‖W‖_F ≤ R_W and Θ, exact sup over v, 8 draws of ε), minus 3 standard errors: a lower estimate",
    bound="2αT R_W R_x R_v/√m",
    assumptions=(A_RELU, A_NO_BIAS, A_BETA_1_2ALPHA, A_SAMPLE_X),
    evaluate=_measure_theorem1,
    cases=_SAMPLES,
    explanation="A lower estimate of R̂_m above the bound disproves eq. 22; the proof's steps at risk are eq. 20's "
                "vector-valued contraction through σ and the recurrence eq. 21, which needs β + 2α ≤ 1.",
    notes="The probe finds values below the supremum, so 'holds' means no violation was found, not that the bound "
          "is confirmed. Eq. 6 states the confidence term as 3B_L√(log(2/δ)/m) while the proof (eq. 13, 24) "
          "gets 3B_L√(log(2/δ)/(2m)); the statement is the weaker of the two, so both are valid. The gap term "
          "4CαT/√m exceeds a loss bound B_L = 1 (a vacuous gap) unless m > 16(CαT)².",
)

