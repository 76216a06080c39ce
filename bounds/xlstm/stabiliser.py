"""xLSTM (arXiv 2405.04517), the stabilised exponential gating of the sLSTM: replacing i_t, f_t by
i'_t = exp(ĩ_t − m_t), f'_t = exp(log f_t + m_{t−1} − m_t) with m_t = max(log f_t + m_{t−1}, ĩ_t) leaves the
outputs h_t unchanged (the statement as the issue gives it; the paper's wording was not read, see
bounds/xlstm/__init__.py).

rnnaudit's proof: by induction c'_t = e^{−m_t} c_t and n'_t = e^{−m_t} n_t (both start at 0; each step multiplies the
previous by f'_t = f_t e^{m_{t−1} − m_t} and adds i'_t = i_t e^{−m_t}), so c'_t/n'_t = c_t/n_t and h_t is the same;
the exact verdict checks the induction step symbolically. The measured side runs the cell both ways on the same
weights and inputs. Tolerance: h̃ = c/n is a weighted mean of z_k ∈ (−1, 1) with positive weights, so each side is
within a few roundings per step of it in absolute terms: 16·2⁻⁵³·T.

The start m_0: the identity holds in exact arithmetic for any m_0, and the claim is checked with the empty memory
read as m_0 = −∞ (``SLSTM(stabiliser_start="empty")``): the first step is then exact (i'_1 = 1, f'_1 = 0) and the
stabilised states never underflow. The package's m_0 = 0 is the Reading "m_0 = 0 in float64", which fails: its
first step computes i'_1 = exp(ĩ_1 − log f_1), subnormal when the gap log f_1 − ĩ_1 exceeds about 708 and 0 above
745, so h_1 loses its digits or is 0/0 = NaN while the unstabilised sums e^{ĩ_1} are still normal (the structured
starts "first-step gap" put f̃_1 ≫ ĩ_1 there).
"""

from __future__ import annotations

import copy

import sympy as sp
import torch

from rnnaudit.bounds.cell_case import CellCase, from_model_of
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Reading
from rnnaudit.bounds.xlstm.cases import sample_slstm, slstm_case
from rnnaudit.cells import SLSTM

__all__ = ["stabiliser", "STABILISER_ULPS", "unstabilised_log_normaliser", "stabilised_twin", "gap_case"]

STABILISER_ULPS = 16


def _twin(cell: SLSTM, stabilised: bool, start: str = "empty") -> SLSTM:
    twin = copy.deepcopy(cell)
    twin.stabilised, twin.stabiliser_start = stabilised, start
    return twin


def stabilised_twin(cell: SLSTM, start: str) -> SLSTM:
    """A stabilised copy of ``cell`` whose stabiliser starts as ``start`` (:data:`rnnaudit.cells.slstm.STABILISER_STARTS`)."""
    return _twin(cell, True, start)


def unstabilised_log_normaliser(case: CellCase) -> float:
    """max_t log n_t of the unstabilised recurrence (computed stably as m_t + log n'_t); n_t overflows float64 above
    709.78."""
    states = _twin(case.cell, True)(case.x, case.h0[None])[0]
    H = case.cell.units
    return float((states[:, 3 * H:] + torch.log(states[:, 2 * H:3 * H])).detach().max())


def _measure(case: CellCase, start: str = "empty"):
    H = case.cell.units
    stab = _twin(case.cell, True, start)(case.x, case.h0[None])[0][:, :H]
    raw = _twin(case.cell, False)(case.x, case.h0[None])[0][:, :H]
    tol = STABILISER_ULPS * 2.0 ** -53 * case.x.shape[1] * stab.new_ones(())
    return {"max_t ‖h_t(stabilised) − h_t(unstabilised)‖_∞": ((stab - raw).abs().max(), tol, stab.abs().max())}


def _finite(case: CellCase) -> tuple[bool, str]:
    if not isinstance(case.cell, SLSTM):
        return False, type(case.cell).__name__
    H = case.cell.units
    states = _twin(case.cell, True)(case.x, case.h0[None])[0]
    log_n = (states[:, 3 * H:] + torch.log(states[:, 2 * H:3 * H])).detach()
    top, bottom = float(log_n.max()), float(log_n.min())
    # both ends: above 709.78 n_t overflows, below −708.4 it is subnormal and the raw h_t = c_t/n_t loses digits
    ok = top < 700 and bottom > -700
    return ok, f"log n_t (unstabilised) in [{bottom:.4g}, {top:.4g}] (float64 is normal in (−708.4, 709.78))"


def _zero_start(case: CellCase) -> tuple[bool, str]:
    m = float(case.h0.abs().max())
    return m == 0, f"max|[h_0, c_0, n_0, m_0]| = {m:g}"


A_FINITE = Assumption("the unstabilised recurrence is finite and normal (−700 < log n_t < 700)", _finite)
A_ZERO = Assumption("c_0 = n_0 = 0 (the cell's zero state: an empty memory)", _zero_start)


def _exact() -> ExactVerdict:
    c, n, m0, lf, it, z = sp.symbols("c n m0 logf itilde z", real=True)
    m1 = sp.Max(lf + m0, it)
    # stabilised states at t − 1 are e^{−m0}·(c, n); one stabilised step against e^{−m1}·(one raw step)
    cs = sp.exp(lf + m0 - m1) * sp.exp(-m0) * c + sp.exp(it - m1) * z
    ns = sp.exp(lf + m0 - m1) * sp.exp(-m0) * n + sp.exp(it - m1)
    cr, nr = sp.exp(lf) * c + sp.exp(it) * z, sp.exp(lf) * n + sp.exp(it)
    ok = sp.simplify(cs - sp.exp(-m1) * cr) == 0 and sp.simplify(ns - sp.exp(-m1) * nr) == 0
    return ExactVerdict("proved" if ok else "violated",
                        "one step maps (e^{−m_(t−1)} c, e^{−m_(t−1)} n) to (e^{−m_t} c_t, e^{−m_t} n_t) for any "
                        "m_(t−1), so c'/n' = c/n and h_t is unchanged (induction from c_0 = n_0 = 0)")


def gap_case(h: int, T: int, gap: float, device="cpu", dtype=torch.float64) -> CellCase:
    """An exp-forget sLSTM whose first step has log f_1 − ĩ_1 = ``gap`` (ĩ_1 = −gap/2, f̃_1 = gap/2 through x_1; from
    t = 2 on ĩ_t = −gap/2, f̃_t = 0 and x_t = 0, so the unstabilised log n_t stays near −gap/2), candidate bias 0.3,
    output bias 40, R = 0."""
    case = slstm_case(torch.Generator().manual_seed(0), max(1, h // 4), T, "exp", 1.0, device=device, dtype=dtype)
    H = case.cell.units
    with torch.no_grad():
        case.cell.R.zero_()
        case.cell.W.zero_()
        case.cell.W[H:2 * H, 0] = gap / 2  # f̃_t = (gap/2)·x_t,1
        case.cell.b.copy_(torch.tensor([-gap / 2, 0.0, 0.3, 40.0], dtype=dtype).repeat_interleave(H))
        case.x.zero_()
        case.x[0, 0, 0] = 1.0
    return case


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> dict[str, CellCase]:
    """Input-gate pre-activations near 300 (exp(ĩ) ≈ 1e130: the raw sums are huge but finite), and forget gates far
    above the input gates at t = 1 (first-step gaps 720 and 800: where m_0 = 0 underflows i'_1)."""
    case = slstm_case(torch.Generator().manual_seed(0), max(1, h // 4), T, "exp", 1.0, device=device, dtype=dtype)
    H = case.cell.units
    with torch.no_grad():
        case.cell.b[:H].fill_(300.0)
    return {"input gates near 300": case, "first-step gap 720": gap_case(h, T, 720.0, device, dtype),
            "first-step gap 800": gap_case(h, T, 800.0, device, dtype)}


M0_ZERO = Reading(
    name="m_0 = 0 in float64",
    statement="The same, with the stabiliser started at m_0 = 0 (the xlstm package's start) and run in float64",
    support="the xlstm package's vanilla sLSTM backend starts its stabiliser state at 0",
    evaluate=lambda case: _measure(case, "state"),
)


#: The claim on a user's model: one case per input sequence, from a float64 copy of its cell.
_FROM_MODEL = from_model_of(SLSTM, what="the sLSTM stabiliser (arXiv 2405.04517)")


stabiliser = Claim(
    id="xlstm.stabiliser",
    source="Beck et al. 2024 (arXiv 2405.04517), the sLSTM's stabilised exponential gating (statement "
           "paraphrased from the issue; the paper's wording was not read)",
    statement="With m_t = max(log f_t + m_(t−1), ĩ_t), i'_t = exp(ĩ_t − m_t), f'_t = exp(log f_t + m_(t−1) − m_t) in "
              "place of i_t, f_t, the sLSTM's outputs h_t are unchanged",
    assumptions=(A_FINITE, A_ZERO),
    measure="h_t of the cell stabilised (m_0 = −∞: the empty memory) and unstabilised, same weights and inputs",
    bound="STABILISER_ULPS·2⁻⁵³·T",
    evaluate=_measure,
    cases=CaseSpace(case_type=CellCase, from_model=_FROM_MODEL, sample=sample_slstm, starts=_starts,
                    sizes={"quick": [(4, 5), (12, 20)], "full": [(4, 5), (12, 20), (64, 100)]}),
    explanation="Would mean c' and n' are not scaled by a common factor e^{−m_t}.",
    notes="Holds with m_0 = −∞ (proved; measured to rounding). With the package's m_0 = 0 it fails in float64 (the "
          "Reading): when the first step's forget gate is far above its input gate (log f_1 − ĩ_1 above about 708), "
          "i'_1 = exp(ĩ_1 − log f_1) is subnormal or 0 and the stabilised h_1 loses its digits or is NaN, while the "
          "unstabilised one is finite: in that regime the stabiliser with m_0 = 0 is the form that fails. Where "
          "exp(ĩ) overflows (outside the assumption) it is the unstabilised recurrence that fails "
          "(inf/inf = NaN) and the stabilised one (either start) stays finite.",
    exact=_exact,
    readings=(M0_ZERO,),
)
