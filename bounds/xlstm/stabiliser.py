"""xLSTM (arXiv 2405.04517), the stabilised exponential gating of the sLSTM: replacing i_t, f_t by
i'_t = exp(ĩ_t − m_t), f'_t = exp(log f_t + m_{t−1} − m_t) with m_t = max(log f_t + m_{t−1}, ĩ_t) leaves the
outputs h_t unchanged (the statement as the issue gives it; the paper's wording was not read, see
bounds/xlstm/__init__.py).

rnnaudit's proof: by induction c'_t = e^{−m_t} c_t and n'_t = e^{−m_t} n_t (both start at 0; each step multiplies the
previous by f'_t = f_t e^{m_{t−1} − m_t} and adds i'_t = i_t e^{−m_t}), so c'_t/n'_t = c_t/n_t and h_t is the same;
the exact verdict checks the induction step symbolically. The measured side runs the cell both ways on the same
weights and inputs. Tolerance: h̃ = c/n is a weighted mean of z_k ∈ (−1, 1) with positive weights, so each side is
within a few roundings per step of it in absolute terms: 16·2⁻⁵³·T.
"""

from __future__ import annotations

import copy

import sympy as sp
import torch

from rnnaudit.bounds.cell_case import CellCase, from_model_of
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.xlstm.cases import sample_slstm, slstm_case
from rnnaudit.cells import SLSTM

__all__ = ["stabiliser", "STABILISER_ULPS", "unstabilised_log_normaliser"]

STABILISER_ULPS = 16


def _twin(cell: SLSTM, stabilised: bool) -> SLSTM:
    twin = copy.deepcopy(cell)
    twin.stabilised = stabilised
    return twin


def unstabilised_log_normaliser(case: CellCase) -> float:
    """max_t log n_t of the unstabilised recurrence (computed stably as m_t + log n'_t); n_t overflows float64 above
    709.78."""
    states = _twin(case.cell, True)(case.x, case.h0[None])[0]
    H = case.cell.units
    return float((states[:, 3 * H:] + torch.log(states[:, 2 * H:3 * H])).detach().max())


def _measure(case: CellCase):
    H = case.cell.units
    stab = _twin(case.cell, True)(case.x, case.h0[None])[0][:, :H]
    raw = _twin(case.cell, False)(case.x, case.h0[None])[0][:, :H]
    tol = STABILISER_ULPS * 2.0 ** -53 * case.x.shape[1] * stab.new_ones(())
    return {"max_t ‖h_t(stabilised) − h_t(unstabilised)‖_∞": ((stab - raw).abs().max(), tol, stab.abs().max())}


def _finite(case: CellCase) -> tuple[bool, str]:
    if not isinstance(case.cell, SLSTM):
        return False, type(case.cell).__name__
    top = unstabilised_log_normaliser(case)
    return top < 700, f"max_t log n_t (unstabilised) = {top:.4g} (float64 overflows above 709.78)"


def _zero_start(case: CellCase) -> tuple[bool, str]:
    m = float(case.h0.abs().max())
    return m == 0, f"max|[h_0, c_0, n_0, m_0]| = {m:g}"


A_FINITE = Assumption("the unstabilised recurrence is finite (max_t log n_t < 700)", _finite)
A_ZERO = Assumption("c_0 = n_0 = 0, m_0 = 0 (the cell's zero state)", _zero_start)


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


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[CellCase]:
    """Input-gate pre-activations near 300 (exp(ĩ) ≈ 1e130): the raw sums are huge but finite."""
    case = slstm_case(torch.Generator().manual_seed(0), max(1, h // 4), T, "exp", 1.0, device=device, dtype=dtype)
    H = case.cell.units
    with torch.no_grad():
        case.cell.b[:H].fill_(300.0)
    return [case]


#: The claim on a user's model: one case per input sequence, from a float64 copy of its cell.
_FROM_MODEL = from_model_of(SLSTM, what="the sLSTM stabiliser (arXiv 2405.04517)")


stabiliser = Claim(
    id="xlstm.stabiliser",
    source="Beck et al. 2024 (arXiv 2405.04517), the sLSTM's stabilised exponential gating (statement "
           "paraphrased from the issue; the paper's wording was not read)",
    statement="With m_t = max(log f_t + m_(t−1), ĩ_t), i'_t = exp(ĩ_t − m_t), f'_t = exp(log f_t + m_(t−1) − m_t) in "
              "place of i_t, f_t, the sLSTM's outputs h_t are unchanged",
    assumptions=(A_FINITE, A_ZERO),
    measure="h_t of the cell stabilised and unstabilised, same weights and inputs",
    bound="STABILISER_ULPS·2⁻⁵³·T",
    evaluate=_measure,
    cases=CaseSpace(case_type=CellCase, from_model=_FROM_MODEL, sample=sample_slstm, starts=_starts,
                    sizes={"quick": [(4, 5), (12, 20)], "full": [(4, 5), (12, 20), (64, 100)]}),
    explanation="Would mean c' and n' are not scaled by a common factor e^{−m_t}.",
    notes="Holds (proved; measured to rounding). Outside the assumption the unstabilised recurrence overflows "
          "(exp(ĩ) > 1.8e308 gives inf/inf = NaN) while the stabilised one does not: the point of the stabiliser.",
    exact=_exact,
)
