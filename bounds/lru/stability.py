"""arXiv 2303.06349: the exponential parametrisation λ_j = exp(−exp(ν_j^log) + i exp(θ_j^log)) keeps every
eigenvalue strictly inside the unit disk for every real ν^log, θ^log, so the linear recurrence is stable whatever the
optimiser does (the paper's stability argument for the parametrisation; its wording was not read, see
bounds/lru/__init__.py).

|λ_j| = exp(−exp(ν_j^log)) and exp(ν) > 0 give |λ_j| < 1 exactly (the exact verdict). In floating point the strict
inequality is reached: exp(ν^log) ≤ 2⁻⁵⁴, half the spacing of float64 below 1 (ν^log ≤ ln 2⁻⁵⁴ = −37.430), rounds
exp(−exp(ν^log)) to 1.0 in float64 (exp(ν^log) ≤ 2⁻²⁵, ν^log ≤ −17.33, in float32; there the complex modulus
|polar(r, θ)| can also round one ulp below 1, depending on θ), a mode that neither decays nor grows; the ratio is then 1, within the claim's tolerance (a stated
decision: the paper's statement is about real numbers, and the report shows the ratio).
"""

from __future__ import annotations

import sympy as sp
import torch

from rnnaudit.bounds.cell_case import CellCase, from_model_of
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Supremum
from rnnaudit.bounds.lru.cases import lru_case, lru_free, sample_lru
from rnnaudit.cells import LRU

__all__ = ["stability", "A_EXPONENTIAL"]


def _measure(case: CellCase):
    lam = case.cell.lambdas()
    # the real view's recurrent block has singular values |λ_j| (each twice): its norm is what the probes see
    real = torch.linalg.matrix_norm(case.cell.recurrent_matrix(), ord=2)
    one = lam.real.new_ones(())
    return {"max_j |λ_j| < 1": (lam.abs().max(), one), "‖diag(λ) on (Re x, Im x)‖₂ < 1": (real, one)}


def _exponential(case: CellCase) -> tuple[bool, str]:
    ok = isinstance(case.cell, LRU) and bool(torch.isfinite(case.cell.nu_log).all())
    return ok, f"{type(case.cell).__name__} with finite ν^log"


A_EXPONENTIAL = Assumption("λ = exp(−exp(ν^log) + i exp(θ^log)) with real, finite ν^log, θ^log",
                           _exponential)


def _exact(sign: int = -1) -> ExactVerdict:
    """|exp(sign·e^ν + i e^θ)| < 1 for every real ν, θ, decided symbolically: log|λ| = sign·e^ν must be negative.
    ``sign`` = −1 is the paper's parametrisation; a test passes +1 to see the verdict turn."""
    nu, theta = sp.symbols("nu theta", real=True)
    lam = sp.exp(sign * sp.exp(nu) + sp.I * sp.exp(theta))
    log_modulus = sp.simplify(sp.log(sp.Abs(lam)))
    if sp.ask(sp.Q.negative(log_modulus), sp.Q.real(nu)):
        return ExactVerdict("proved", f"log|λ| = {log_modulus} < 0 for every real ν, so |λ| < 1")
    return ExactVerdict("violated", f"log|λ| = {log_modulus}, not negative for real ν (e.g. ν = 0: |λ| = "
                                    f"{sp.simplify(sp.Abs(lam).subs(nu, 0))})")


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[CellCase]:
    """|λ| at the float64 rounding edge: ν^log = −40 (exp(ν^log) ≈ 4e-18 < 2⁻⁵⁴) gives |λ| = 1.0 exactly."""
    case = lru_case(torch.Generator().manual_seed(0), max(1, h // 2), T, 0.5, 0.99, 1.0, device=device, dtype=dtype)
    with torch.no_grad():
        case.cell.nu_log.fill_(-40.0)
    return [case]


#: The claim on a user's model: one case per input sequence, from a float64 copy of its cell.
_FROM_MODEL = from_model_of(LRU, what="the LRU exponential parametrisation (arXiv 2303.06349)")


stability = Claim(
    id="lru.stability",
    source="Orvieto et al. 2023 (arXiv 2303.06349), the exponential parametrisation (statement paraphrased "
           "from the issue; the paper's wording was not read)",
    statement="With λ_j = exp(−exp(ν_j^log) + i exp(θ_j^log)), |λ_j| < 1 for all real ν^log, θ^log: the recurrence "
              "x_k = diag(λ) x_(k−1) + γ ⊙ B u_k is stable whatever values training gives the parameters",
    assumptions=(A_EXPONENTIAL,),
    measure="max_j |λ_j| of the cell's λ, and ‖·‖₂ of its real-view recurrent block (both the probes' view)",
    bound="1",
    evaluate=_measure,
    cases=CaseSpace(case_type=CellCase, from_model=_FROM_MODEL, sample=sample_lru, free=lru_free, starts=_starts,
                    sizes={"quick": [(2, 1), (8, 1)], "full": [(2, 1), (8, 1), (64, 1), (512, 1)]}),
    explanation="Would mean exp(−exp(ν)) ≥ 1 for a finite ν, impossible in exact arithmetic.",
    notes="Holds. Supremum 1, approached as ν^log → −∞ and reached in floating point (ν^log ≤ ln 2⁻⁵⁴ = −37.430 in float64 "
          "rounds |λ| to 1.0; −17.33 in float32): a trained LRU whose ν^log drifts that low has a non-decaying mode "
          "in the arithmetic it runs in. The strict inequality is proved in exact arithmetic (sympy).",
    supremum=Supremum(1.0, "|λ| = exp(−exp(ν^log)) → 1 as ν^log → −∞; the structured start ν^log = −40 reaches 1.0 in "
                           "float64", at=(2, 1)),
    exact=_exact,
)
