"""Zero-order hold of a diagonal A with Re A_n < 0 (arXiv 2206.11893's S4D, Ā = exp(ΔA)): |Ā_n| = exp(Δ Re A_n) < 1
for every Δ > 0, and S4D's parametrisation Re A = −exp(log(−Re A)), Δ = exp(log Δ) keeps both signs for every real
parameter, so the discrete recurrence is stable throughout training (rnnaudit's derivation from the paper's
parametrisation; the paper's wording was not read).

As for the LRU (bounds/lru/stability.py), floating point reaches the strict bound: Δ·exp(log(−Re A)) ≤ 2⁻⁵⁴ (half the
spacing of float64 below 1: log Δ + log(−Re A) ≤ −37.430) rounds exp(ΔA)'s modulus to 1.0 in float64 (≤ 2⁻²⁵,
−17.33, in float32) (ratio 1, within tolerance).
"""

from __future__ import annotations

import torch

from rnnaudit.bounds.cell_case import CellCase, from_model_of
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Supremum
from rnnaudit.bounds.s4d.cases import s4d_case, sample_s4d
from rnnaudit.cells import S4D

__all__ = ["stability"]


def _measure(case: CellCase):
    Abar = case.cell.discretised()[0]
    one = Abar.real.new_ones(())
    return {"max_n |Ā_n| < 1": (Abar.abs().max(), one),
            "‖diag(Ā) on the real view‖₂ < 1": (torch.linalg.matrix_norm(case.cell.recurrent_matrix(), ord=2), one)}


def _param(case: CellCase) -> tuple[bool, str]:
    c = case.cell
    ok = isinstance(c, S4D) and bool(torch.isfinite(c.log_A_real).all() and torch.isfinite(c.log_dt).all())
    return ok, f"{type(c).__name__}: Re A = −exp(finite), Δ = exp(finite)"


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[CellCase]:
    """Δ·|Re A| = e^(−40): |Ā| rounds to 1.0 in float64."""
    case = s4d_case(torch.Generator().manual_seed(0), 1, max(1, h // 2), T, "lin", device=device, dtype=dtype)
    with torch.no_grad():
        case.cell.log_dt.fill_(-20.0)
        case.cell.log_A_real.fill_(-20.0)
    return [case]


#: The claim on a user's model: one case per input sequence, from a float64 copy of its cell.
_FROM_MODEL = from_model_of(S4D, what="S4D stability (arXiv 2206.11893)")


stability = Claim(
    id="s4d.stability",
    source="Gu, Gupta, Goel & Ré 2022 (arXiv 2206.11893), the ZOH discretisation and the parametrisation Re A = "
           "−exp(·), Δ = exp(·) (rnnaudit's derivation; wording not read)",
    statement="With Re A_n = −exp(a_n) < 0 and Δ = exp(d) > 0, |Ā_n| = |exp(ΔA_n)| = exp(Δ Re A_n) < 1",
    assumptions=(Assumption("Re A = −exp(finite), Δ = exp(finite) (S4D's parametrisation)", _param),),
    measure="max_n |Ā_n| and ‖·‖₂ of the real-view recurrent block",
    bound="1",
    evaluate=_measure,
    cases=CaseSpace(case_type=CellCase, from_model=_FROM_MODEL, sample=sample_s4d, starts=_starts,
                    free=lambda c: [c.cell.log_dt, c.cell.log_A_real, c.cell.A_imag],
                    sizes={"quick": [(2, 1), (8, 1)], "full": [(2, 1), (8, 1), (64, 1)]}),
    explanation="Would mean exp(Δ Re A) ≥ 1 with Δ > 0 and Re A < 0.",
    notes="Holds; supremum 1 as Δ·|Re A| → 0, reached in floating point (structured start).",
    supremum=Supremum(1.0, "|Ā| = exp(−Δ|Re A|) → 1 as Δ|Re A| → 0; Δ|Re A| = e^(−40) rounds it to 1.0",
                      at=(2, 1)),
)
