"""xLSTM (arXiv 2405.04517), the mLSTM's stabilised gating: with m_t = max(log f_t + m_{t−1}, ĩ_t), i'_t, f'_t as for
the sLSTM and the denominator max(|n_tᵀq_t|, exp(−m_t)) in place of max(|n_tᵀq_t|, 1), the outputs h_t are unchanged
(the statement as the issue gives it for xLSTM's stabilised gating; the paper's wording was not read).

rnnaudit's proof: C'_t = e^{−m_t} C_t and n'_t = e^{−m_t} n_t by the sLSTM's induction (bounds/xlstm/stabiliser.py),
and max(|n'ᵀq|, e^{−m}) = e^{−m} max(|nᵀq|, 1), so the ratio is the same. The ``xlstm`` package adds ε = 1e-6 to the
denominator: then the stabilised h_t = h_t·max(|nᵀq|, 1)/(max(|nᵀq|, 1) + ε e^{m_t}), which depends on m_t; with
ĩ_t = 30 (e^m ≈ 1e13) and |n_tᵀq_t| < 1, h_t shrinks by 1 + ε e^m ≈ 1e7 (the Reading "ε = 1e-6", false; smallest
case in tests/bounds/xlstm/test_xlstm.py: d = 1, T = 1, q = 1e-14).
Tolerance: C and n each carry at most a few roundings per step relative to their size, and the denominator is at
least 1 (unstabilised) or e^(−m) (stabilised), so h_t agrees to about T·2⁻⁵³ relative; 1e-12·max(1, max|h|) leaves
a margin of 10² at T = 100 for the conditioning of C_tᵀq_t.
"""

from __future__ import annotations

import copy

import torch

from rnnaudit.bounds.cell_case import CellCase, from_model_of, uniform
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Reading
from rnnaudit.cells import MLSTM

__all__ = ["mlstm_stabiliser", "MLSTM_RTOL", "sample_mlstm", "PACKAGE_EPS"]

MLSTM_RTOL = 1e-12
#: ε of the xlstm package's recurrent step (recurrent_step_stabilized_simple's default).
PACKAGE_EPS = 1e-6


def sample_mlstm(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> CellCase:
    """A head of width d with d² + d + 1 ≤ h (d ≥ 1), 3 inputs, bias ~ N(0, σ²) with σ ∈ [0.5, 4], the input gate's bias
    drawn in [−5, 35] (e^m up to 1e15), inputs ~ N(0, 1), zero state."""
    d = max(1, int((max(h, 3) - 1) ** 0.5 - 0.5))
    cell = MLSTM(3, d, generator=gen, dtype=torch.float64)
    with torch.no_grad():
        cell.b.copy_(uniform(gen, 0.5, 4.0) * torch.randn(cell.b.shape, generator=gen, dtype=torch.float64))
        cell.b[3 * d] = uniform(gen, -5.0, 35.0)
    x = torch.randn(1, T, 3, generator=gen, dtype=torch.float64)
    return CellCase(cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                    torch.zeros(cell.hidden_size, device=device, dtype=dtype))


def _outputs(case: CellCase, stabilised: bool, eps: float) -> torch.Tensor:
    twin = copy.deepcopy(case.cell)
    twin.stabilised, twin.eps = stabilised, eps
    return twin.output(twin(case.x, case.h0[None])[0], case.x[0])


def _measure_with(eps: float):
    def measure(case: CellCase):
        stab, raw = _outputs(case, True, eps), _outputs(case, False, 0.0)
        scale = torch.clamp(raw.abs().max(), min=1.0)
        return {f"max_t ‖h_t(stabilised, ε = {eps:g}) − h_t(unstabilised)‖_∞": ((stab - raw).abs().max(),
                                                                                MLSTM_RTOL * scale, scale)}
    return measure


def _finite(case: CellCase) -> tuple[bool, str]:
    if not isinstance(case.cell, MLSTM):
        return False, type(case.cell).__name__
    with torch.no_grad():
        m = float(case.cell(case.x, case.h0[None])[0][:, -1].max())
    return m < 700, f"max_t m_t = {m:.4g} (the unstabilised e^(m) overflows float64 above 709.78)"


def _zero_start(case: CellCase) -> tuple[bool, str]:
    mx = float(case.h0.abs().max())
    return mx == 0, f"max|[vec C_0, n_0, m_0]| = {mx:g}"


PACKAGE = Reading(
    name=f"ε = {PACKAGE_EPS:g} in the denominator (the xlstm package's recurrent step)",
    statement="with h̃_t = C_tᵀq_t/(max(|n_tᵀq_t|, exp(−m_t)) + ε), ε = 1e-6, the stabiliser leaves h_t unchanged",
    support="the xlstm package's recurrent_step_stabilized_simple (read) adds eps = 1e-6; users auditing that package "
            "get this form",
    evaluate=_measure_with(PACKAGE_EPS),
)

#: The claim on a user's model: one case per input sequence, from a float64 copy of its cell.
_FROM_MODEL = from_model_of(MLSTM, what="the mLSTM stabiliser (arXiv 2405.04517)")


mlstm_stabiliser = Claim(
    id="xlstm.mlstm_stabiliser",
    source="Beck et al. 2024 (arXiv 2405.04517), the mLSTM's stabilised gating (statement paraphrased from the issue; "
           "the paper's wording was not read); the recurrent form as the xlstm package's vanilla backend computes it",
    statement="With the stabiliser m_t, i'_t, f'_t and the denominator max(|n_tᵀq_t|, exp(−m_t)), the mLSTM's outputs "
              "h_t equal those of the unstabilised recurrence with max(|n_tᵀq_t|, 1)",
    assumptions=(Assumption("the unstabilised recurrence is finite (max_t m_t < 700)", _finite),
                 Assumption("C_0 = 0, n_0 = 0, m_0 = 0", _zero_start)),
    measure="h_t of the cell stabilised (ε = 0) and unstabilised, same weights and inputs",
    bound="MLSTM_RTOL·max(1, max|h|)",
    evaluate=_measure_with(0.0),
    cases=CaseSpace(case_type=CellCase, from_model=_FROM_MODEL, sample=sample_mlstm, sizes={"quick": [(7, 5), (13, 20)],
                                                                    "full": [(7, 5), (13, 20), (73, 100)]}),
    explanation="Would mean C', n' and the stabilised floor e^(−m) are not scaled by one common factor.",
    notes="Holds with ε = 0 (rnnaudit's proof, measured to rounding). The Reading with the package's ε = 1e-6 has its "
          "own verdict: the ε term is not scaled by e^(−m), so h_t shrinks by max(|nᵀq|, 1)/(max(|nᵀq|, 1) + ε e^m).",
    readings=(PACKAGE,),
)
