"""xLSTM (arXiv 2405.04517), the sLSTM's normaliser state n_t = f_t n_{t−1} + i_t: from c_0 = n_0 = 0,
c_t/n_t = Σ_k w_k z_k / Σ_k w_k with w_k = i_k Π_{j>k} f_j > 0, a weighted mean of z_k = tanh(z̃_k) ∈ (−1, 1), so
|h_t| = |o_t ⊙ c_t/n_t| < 1 (rnnaudit's derivation from the equations; no statement of the paper read).
Tolerance as bounds/xlstm/stabiliser.py: 16·2⁻⁵³·T absolute.

Measured on the cell stabilised with m_0 = −∞ (the empty memory, as bounds/xlstm/stabiliser.py). With the
package's m_0 = 0 (the Reading "m_0 = 0 in float64") a first step with log f_1 − ĩ_1 above 745 underflows
c'_1 = n'_1 = 0 and h_1 = 0/0 = NaN, which is no number in [−1, 1]: that Reading fails.
"""

from __future__ import annotations

import torch

from rnnaudit.bounds.cell_case import CellCase, from_model_of
from rnnaudit.bounds.core import CaseSpace, Claim, Reading, Supremum
from rnnaudit.bounds.xlstm.cases import sample_slstm, slstm_case
from rnnaudit.bounds.xlstm.stabiliser import A_ZERO, STABILISER_ULPS, gap_case, stabilised_twin
from rnnaudit.cells import SLSTM

__all__ = ["normaliser"]


def _measure(case: CellCase, start: str = "empty"):
    H = case.cell.units
    h = stabilised_twin(case.cell, start)(case.x, case.h0[None])[0][:, :H]
    bound = 1 + STABILISER_ULPS * 2.0 ** -53 * case.x.shape[1]
    return {"max_t ‖h_t‖_∞ ≤ 1": (h.abs().max(), h.new_tensor(bound))}


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> dict[str, CellCase]:
    """Saturated output and candidate gates (bias 40): h_t = σ(40)·tanh(40) = 1 to rounding; and a first step whose
    forget gate is 800 above its input gate (where m_0 = 0 underflows, bounds/xlstm/stabiliser.py)."""
    case = slstm_case(torch.Generator().manual_seed(0), max(1, h // 4), T, "sigmoid", 0.1, device=device, dtype=dtype)
    H = case.cell.units
    with torch.no_grad():
        case.cell.b[2 * H:].fill_(40.0)
    return {"saturated output and candidate": case, "first-step gap 800": gap_case(h, T, 800.0, device, dtype)}


M0_ZERO = Reading(
    name="m_0 = 0 in float64",
    statement="The same, on the cell stabilised from m_0 = 0 (the xlstm package's start) in float64",
    support="the xlstm package's vanilla sLSTM backend starts its stabiliser state at 0",
    evaluate=lambda case: _measure(case, "state"),
)


#: The claim on a user's model: one case per input sequence, from a float64 copy of its cell.
_FROM_MODEL = from_model_of(SLSTM, what="the sLSTM normaliser (arXiv 2405.04517)")


normaliser = Claim(
    id="xlstm.normaliser",
    source="Beck et al. 2024 (arXiv 2405.04517), the sLSTM's normaliser state (rnnaudit's derivation)",
    statement="From c_0 = n_0 = 0, c_t/n_t is a positively weighted mean of z_1..z_t ∈ (−1, 1), so ‖h_t‖_∞ ≤ 1",
    assumptions=(A_ZERO,),
    measure="max_t ‖h_t‖_∞ of the cell (stabilised, m_0 = −∞: the empty memory)",
    bound="1 (plus 16·2⁻⁵³·T)",
    evaluate=_measure,
    cases=CaseSpace(case_type=CellCase, from_model=_FROM_MODEL, sample=sample_slstm, starts=_starts,
                    free=lambda c: [c.cell.W, c.cell.R, c.cell.b, c.x],
                    sizes={"quick": [(4, 5), (12, 20)], "full": [(4, 5), (12, 20), (64, 100)]}),
    explanation="Would mean a negative normaliser start (n_0 < 0) or a negative gate, which break the weighted mean.",
    notes="Holds with m_0 = −∞; attained with saturated output and candidate gates (h = σ(õ)tanh(z̃) → 1). A start "
          "with n_0 < 0 breaks it (tests). With the package's m_0 = 0 (the Reading) a first step whose forget gate is "
          "more than 745 above its input gate gives h_1 = 0/0 = NaN in float64.",
    readings=(M0_ZERO,),
    supremum=Supremum(1.0, "σ(40)·tanh(40) = 1 in float64 (structured start)", at=(4, 5)),
)
